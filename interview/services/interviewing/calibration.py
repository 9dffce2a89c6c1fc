"""Calibration: an interviewer's released scorecards against the engine, to see who grades hard or soft."""

from typing import Any

from django.contrib.auth.models import User

from interview.models import Recommendation, Scorecard
from interview.services.interviewing.engine_comparison import (
    DISAGREEMENT_LEVELS,
    ENGINE_PHASES,
    engine_level,
    scorecard_compare,
)
from rounds.models import RoundStatus

YES_SIDE = {Recommendation.LEAN_YES, Recommendation.YES, Recommendation.STRONG_YES}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def recommendation_is_yes(recommendation: str) -> bool:
    return recommendation in YES_SIDE


def calibration_for(interviewer: User) -> dict[str, Any]:
    """An interviewer's released scorecards against the engine, to see who grades hard or soft.

    Per dimension with an engine side: rounds compared, the share where the levels agree exactly and within
    one level, and the mean difference (interviewer minus engine: above 0 grades soft, below 0 hard).
    Recommendation: how often its side (lean yes and up, or lean no and down) matches the side of the
    interviewer's own mean level (2.5 and up is yes) and of the engine's overall score (level 3 and up)."""
    scorecards = list(
        Scorecard.objects.filter(
            interviewer=interviewer, released_at__isnull=False, round__status=RoundStatus.SUBMITTED
        ).select_related("round__question_version__question")
    )
    differences: dict[str, list[int]] = {dimension: [] for dimension in (*ENGINE_PHASES, "failures")}
    own_matches = engine_matches = engine_compared = 0
    rounds = []
    seen = [scorecard for scorecard in scorecards if scorecard.round.reference_seen_at is not None]
    scorecards = [scorecard for scorecard in scorecards if scorecard.round.reference_seen_at is None]
    for scorecard in scorecards:
        compare = scorecard_compare(scorecard.round, scorecard)
        for row in compare:
            if row["difference"] is not None and row["dimension"] in differences:
                differences[row["dimension"]].append(row["difference"])
        yes = recommendation_is_yes(scorecard.recommendation)
        own = [row["level"] for row in compare if row["level"] is not None]
        own_yes = bool(own) and sum(own) / len(own) >= 2.5
        own_matches += yes == own_yes
        overall_level = engine_level((scorecard.round.report or {}).get("scores", {}).get("overall"))
        if overall_level is not None:
            engine_compared += 1
            engine_matches += yes == (overall_level >= 3)
        rounds.append({"round": scorecard.round, "scorecard": scorecard, "compare": compare})
    dimensions = []
    for dimension, diffs in differences.items():
        dimensions.append(
            {
                "dimension": dimension,
                "compared": len(diffs),
                "agreement": _mean([float(d == 0) for d in diffs]),
                "within_one": _mean([float(abs(d) <= DISAGREEMENT_LEVELS) for d in diffs]),
                "mean_difference": _mean([float(d) for d in diffs]),
            }
        )
    count = len(scorecards)
    return {
        "interviewer": interviewer,
        "rounds": rounds,
        "count": count,
        "dimensions": dimensions,
        "recommendation_matches_own": own_matches / count if count else None,
        "recommendation_matches_engine": engine_matches / engine_compared if engine_compared else None,
        "engine_compared": engine_compared,
        # Rounds whose candidate had checked the reference first: listed, but not in the agreement figures.
        "reference_seen_rounds": [scorecard.round for scorecard in seen],
    }
