"""The engine's side of a scorecard.

Engine levels. The grading engine scores phases 0–100; a score is read as a rubric level by these bands:
below 25 is level 1, 25 to below 50 level 2, 50 to below 75 level 3, 75 and above level 4 (`ENGINE_BANDS`).
`numbers`, `arithmetic`, `shape` and `depth` (the curveballs and follow-up decisions, when the round answered
them) come from the round's report, `failures` from the failure replays
(`rounds.services.replays.replay_failure_score`); `communication` has no engine side. An interviewer's level
disagrees with the engine when they differ by more than one level."""

from dataclasses import dataclass
from typing import Any

from interview.models import Scorecard
from interview.services.interviewing.scorecards import rubric_of
from rounds.models import Round, RoundStatus
from rounds.services.replays import replay_failure_score, replays_current

ENGINE_BANDS = ((25.0, 1), (50.0, 2), (75.0, 3))  # score below the bound -> level; else 4
DISAGREEMENT_LEVELS = 1  # flagged when |interviewer - engine| is more than this
ENGINE_PHASES = ("numbers", "arithmetic", "shape", "depth")


def engine_level(score: float | None) -> int | None:
    """A 0–100 score as a rubric level, by `ENGINE_BANDS`; None for no score."""
    if score is None:
        return None
    for bound, level in ENGINE_BANDS:
        if score < bound:
            return level
    return 4


@dataclass(frozen=True)
class EngineScore:
    score: float | None
    level: int | None
    source: str  # "grading engine", "replays", or "" where only the interviewer scores


def engine_scores(round_: Round) -> dict[str, EngineScore]:
    """The engine's and the replays' score and level for every rubric dimension they cover."""
    phase_scores = (
        ((round_.report or {}).get("scores") or {}) if round_.status == RoundStatus.SUBMITTED else {}
    )
    scores: dict[str, EngineScore] = {}
    for dimension in ENGINE_PHASES:
        score = phase_scores.get(dimension)
        scores[dimension] = EngineScore(score, engine_level(score), "grading engine")
    failures = replay_failure_score(round_) if round_.status == RoundStatus.SUBMITTED else None
    scores["failures"] = EngineScore(failures, engine_level(failures), "replays")
    return scores


def scorecard_compare(round_: Round, scorecard: Scorecard | None = None) -> list[dict[str, Any]]:
    """Per rubric dimension: the interviewer's level and note beside the engine's, flagged past one level."""
    if scorecard is None:
        scorecard = Scorecard.objects.filter(round=round_).first()
    engine = engine_scores(round_)
    rows = []
    for item in rubric_of(round_):
        dimension = item["dimension"]
        mine = scorecard.level_of(dimension) if scorecard else None
        theirs = engine.get(dimension, EngineScore(None, None, ""))
        difference = None if mine is None or theirs.level is None else mine - theirs.level
        rows.append(
            {
                "dimension": dimension,
                "descriptors": dict(item["levels"]),
                "level": mine,
                "descriptor": dict(item["levels"]).get(mine, "") if mine else "",
                "note": scorecard.note_of(dimension) if scorecard else "",
                "engine_score": theirs.score,
                "engine_level": theirs.level,
                "engine_source": theirs.source,
                "difference": difference,
                "disagrees": difference is not None and abs(difference) > DISAGREEMENT_LEVELS,
            }
        )
    return rows


def replay_summary(round_: Round) -> list[dict[str, Any]]:
    """The replays' results in brief: each current run's scenario, side, status and SLO verdict."""
    return [
        {
            "scenario": run.title,
            "side": run.get_side_display(),
            "status": run.get_status_display(),
            "passed": run.passed,
        }
        for run in replays_current(round_=round_)
    ]
