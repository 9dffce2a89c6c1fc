"""Mock interviews: invitations, scheduled rounds, notes, scorecards, the engine comparison, calibration.

Engine levels. The grading engine scores phases 0–100; a score is read as a rubric level by these bands:
below 25 is level 1, 25 to below 50 level 2, 50 to below 75 level 3, 75 and above level 4 (`ENGINE_BANDS`).
`numbers`, `arithmetic` and `shape` come from the round's report, `failures` from the failure replays
(`grading.replays.replay_failure_score`); `depth` and `communication` have no engine side. An interviewer's
level disagrees with the engine when they differ by more than one level.
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone

from grading.core.model import ModelError
from grading.core.report_text import format_number
from grading.replays import replay_failure_score, replays_current
from grading.services import question_version_model
from interview.models import (
    InterviewNote,
    Invitation,
    Question,
    Recommendation,
    Round,
    RoundMode,
    RoundStatus,
    Scorecard,
)
from interview.models.interviewing import RUBRIC_DIMENSIONS, RUBRIC_LEVELS
from interview.services.rounds import round_close_if_expired, round_start
from interview.tasks import send_invitation_mail

INTERVIEW_PERMISSION = "interview.interview_candidates"
LINK_VALID_FOR = timedelta(hours=24)
LINK_VALID_FOR_MAX = timedelta(days=14)
NOTE_MAX_LENGTH = 4000
LEVEL_NOTE_MAX_LENGTH = 2000
ENGINE_BANDS = ((25.0, 1), (50.0, 2), (75.0, 3))  # score below the bound -> level; else 4
DISAGREEMENT_LEVELS = 1  # flagged when |interviewer - engine| is more than this
ENGINE_PHASES = ("numbers", "arithmetic", "shape")
YES_SIDE = {Recommendation.LEAN_YES, Recommendation.YES, Recommendation.STRONG_YES}


class InterviewError(Exception):
    """A refused interviewing action, with a message fit to show the person who tried it."""

    status_code = 400


class InvitationInvalid(InterviewError):
    """An unknown, used, revoked or expired link: answered as 404, without saying which."""

    status_code = 404


# Who may see what


def is_interviewer(user: AbstractBaseUser | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.has_perm(INTERVIEW_PERMISSION))


def is_admin(user: AbstractBaseUser | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.is_superuser)


def rounds_interviewed_by(user: AbstractBaseUser) -> QuerySet[Round]:
    """Rounds the user holds an accepted, unrevoked invitation to."""
    return Round.objects.filter(
        invitations__interviewer=user,
        invitations__used_at__isnull=False,
        invitations__revoked_at__isnull=True,
    ).distinct()


def round_for_interviewer(user: AbstractBaseUser | AnonymousUser, round_id: int) -> Round:
    """The round if the user holds an accepted, unrevoked invitation to it; Http404 for everyone else."""
    if not user.is_authenticated:
        raise Http404("No such interview.")
    round_ = (
        rounds_interviewed_by(user)
        .select_related("question_version__question", "work", "candidate")
        .filter(pk=round_id)
        .first()
    )
    if round_ is None:
        raise Http404("No such interview.")
    return round_close_if_expired(round_=round_)


# Invitations


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_create_for_username(
    *, round_: Round, created_by: AbstractBaseUser, username: str
) -> Invitation:
    """Invite a named interviewer, accepted at once. Inviting the same person twice changes nothing."""
    interviewer = get_user_model().objects.filter(username__iexact=username.strip()).first()
    if interviewer is None or not is_interviewer(interviewer):
        raise InterviewError(f"No interviewer is called {username.strip()!r}.")
    if interviewer.pk == round_.candidate_id:
        raise InterviewError("You cannot interview yourself.")
    with transaction.atomic():
        existing = (
            Invitation.objects.select_for_update()
            .filter(round=round_, interviewer=interviewer, used_at__isnull=False, revoked_at__isnull=True)
            .first()
        )
        if existing is not None:
            return existing
        now = timezone.now()
        invitation = Invitation.objects.create(
            round=round_, interviewer=interviewer, used_at=now, created_by=created_by, created_at=now
        )
    send_invitation_mail.delay_on_commit(invitation.pk)
    return invitation


def invitation_create_link(
    *, round_: Round, created_by: AbstractBaseUser, valid_for: timedelta = LINK_VALID_FOR
) -> tuple[Invitation, str]:
    """A single-use link: returns the invitation and its raw token, which is shown once and never stored."""
    if not timedelta(minutes=5) <= valid_for <= LINK_VALID_FOR_MAX:
        raise InterviewError("A link is valid for between 5 minutes and 14 days.")
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    invitation = Invitation.objects.create(
        round=round_,
        token_hash=_token_hash(token),
        expires_at=now + valid_for,
        created_by=created_by,
        created_at=now,
    )
    return invitation, token


def invitation_is_open(token: str) -> bool:
    """Whether a link can still be accepted: known, unused, unrevoked and unexpired."""
    invitation = Invitation.objects.filter(token_hash=_token_hash(token)).first() if token else None
    return invitation is not None and invitation.state() == "open"


def invitation_accept(*, token: str, user: AbstractBaseUser) -> Invitation:
    """Use a link once: the user becomes the round's interviewer. Anything wrong raises InvitationInvalid."""
    if not token or not is_interviewer(user):
        raise InvitationInvalid("This invitation link is not valid.")
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update()
            .select_related("round")
            .filter(token_hash=_token_hash(token))
            .first()
        )
        now = timezone.now()
        if (
            invitation is None
            or invitation.used_at is not None
            or invitation.revoked_at is not None
            or invitation.is_expired(now)
            or invitation.round.candidate_id == user.pk
        ):
            raise InvitationInvalid("This invitation link is not valid.")
        invitation.interviewer = user
        invitation.used_at = now
        invitation.save(update_fields=["interviewer", "used_at"])
    return invitation


def invitation_revoke(*, invitation: Invitation) -> Invitation:
    """The interviewer loses access at once; a link can no longer be used. Revoking twice changes nothing."""
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def invitations_of_round(round_: Round) -> list[Invitation]:
    return list(Invitation.objects.filter(round=round_).select_related("interviewer"))


# Rounds an interviewer sets up


def round_schedule_for_candidate(
    *,
    interviewer: AbstractBaseUser,
    question: Question,
    candidate_username: str,
    mode: str = RoundMode.TIMED,
    variant: bool = False,
) -> Round:
    """A round on `question` for a named candidate, with the interviewer invited; its clock waits for them."""
    if not is_interviewer(interviewer):
        raise InterviewError("Only interviewers can schedule rounds.")
    candidate = get_user_model().objects.filter(username__iexact=candidate_username.strip()).first()
    if candidate is None:
        raise InterviewError(f"No candidate is called {candidate_username.strip()!r}.")
    if candidate.pk == interviewer.pk:
        raise InterviewError("You cannot interview yourself.")
    with transaction.atomic():
        round_ = round_start(candidate=candidate, question=question, mode=mode, variant=variant)
        round_.status = RoundStatus.SCHEDULED
        round_.deadline = None
        round_.save(update_fields=["status", "deadline"])
        now = timezone.now()
        Invitation.objects.create(
            round=round_, interviewer=interviewer, used_at=now, created_by=interviewer, created_at=now
        )
    return round_


def round_begin_scheduled(*, round_id: int, candidate: AbstractBaseUser) -> Round:
    """The candidate starts a scheduled round: the clock (and a timed round's deadline) starts now."""
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update()
            .select_related("question_version")
            .filter(pk=round_id, candidate=candidate)
            .first()
        )
        if round_ is None:
            raise Http404("No such round.")
        if round_.status != RoundStatus.SCHEDULED:
            return round_
        now = timezone.now()
        plan_minutes = sum(float(phase["minutes"]) for phase in round_.spec["plan"])
        round_.status = RoundStatus.ACTIVE
        round_.started_at = now
        round_.deadline = (
            Round.timed_deadline(now, max(plan_minutes, 45.0)) if round_.mode == RoundMode.TIMED else None
        )
        round_.save(update_fields=["status", "started_at", "deadline"])
    return round_


# Notes


def note_add(
    *,
    round_: Round,
    author: AbstractBaseUser,
    text: str = "",
    follow_up_index: int | None = None,
    now: datetime | None = None,
) -> InterviewNote:
    """A private note stamped with the round's clock and phase; a follow-up index marks it as asked."""
    text = (text or "").strip()
    follow_ups = round_.spec.get("follow_ups", [])
    if follow_up_index is not None:
        if not 0 <= follow_up_index < len(follow_ups):
            raise InterviewError("No such follow-up question.")
        text = text or f"Asked follow-up {follow_up_index + 1}: {follow_ups[follow_up_index]['text']}"
    if not text:
        raise InterviewError("Write the note first.")
    if len(text) > NOTE_MAX_LENGTH:
        raise InterviewError(f"A note is at most {NOTE_MAX_LENGTH} characters.")
    if round_.status == RoundStatus.SCHEDULED:
        raise InterviewError("The candidate has not started this round yet.")
    now = now or timezone.now()
    phase = (round_.current_phase(now) or {}).get("phase", "")
    return InterviewNote.objects.create(
        round=round_,
        author=author,
        t=round(round_.elapsed_s(now), 1),
        phase=phase,
        text=text,
        follow_up_index=follow_up_index,
        created_at=now,
    )


def notes_of_round(round_: Round) -> list[InterviewNote]:
    return list(InterviewNote.objects.filter(round=round_).select_related("author"))


# Scorecards


def rubric_of(round_: Round) -> list[dict[str, Any]]:
    """The question's rubric in its order, each dimension with its level descriptors keyed 1..4."""
    rubric = []
    for item in round_.spec.get("rubric", []):
        levels = {int(level): text for level, text in (item.get("levels") or {}).items()}
        rubric.append(
            {
                "dimension": item["dimension"],
                "levels": [(level, levels.get(level, "")) for level in RUBRIC_LEVELS],
            }
        )
    return rubric


def scorecard_clean(
    *, dimensions: list[str], levels: Any, recommendation: Any
) -> tuple[dict[str, dict[str, Any]], str]:
    """Validate levels ({dimension: {level, note}}) and a recommendation; the form and the API share it.

    A dimension may be left unscored (no level) while the interviewer is still writing."""
    if not isinstance(levels, dict):
        raise InterviewError("levels: expected an object of dimension -> {level, note}.")
    cleaned: dict[str, dict[str, Any]] = {}
    for dimension, entry in levels.items():
        if dimension not in dimensions:
            raise InterviewError(f"levels.{dimension}: this question's rubric has no such dimension.")
        if not isinstance(entry, dict):
            raise InterviewError(f"levels.{dimension}: expected {{level, note}}.")
        level, note = entry.get("level"), entry.get("note", "") or ""
        if level in ("", None):
            level = None
        elif isinstance(level, str) and level.isdigit():
            level = int(level)
        if level is not None and (isinstance(level, bool) or level not in RUBRIC_LEVELS):
            raise InterviewError(f"levels.{dimension}.level: a level from 1 to 4.")
        if not isinstance(note, str) or len(note) > LEVEL_NOTE_MAX_LENGTH:
            raise InterviewError(
                f"levels.{dimension}.note: text of at most {LEVEL_NOTE_MAX_LENGTH} characters."
            )
        if level is not None or note.strip():
            cleaned[dimension] = {"level": level, "note": note.strip()}
    recommendation = recommendation or ""
    if recommendation not in ("", *Recommendation.values):
        raise InterviewError("recommendation: one of " + ", ".join(Recommendation.values) + ".")
    return cleaned, recommendation


def scorecard_save(
    *, round_: Round, interviewer: AbstractBaseUser, levels: Any, recommendation: Any = ""
) -> Scorecard:
    """Create or update the round's scorecard; refused once released, and for a second interviewer."""
    dimensions = [item["dimension"] for item in rubric_of(round_)] or list(RUBRIC_DIMENSIONS)
    cleaned, recommendation = scorecard_clean(
        dimensions=dimensions, levels=levels, recommendation=recommendation
    )
    with transaction.atomic():
        scorecard, _ = Scorecard.objects.select_for_update().get_or_create(
            round=round_, defaults={"interviewer": interviewer}
        )
        if scorecard.interviewer_id != interviewer.pk:
            raise InterviewError(f"{scorecard.interviewer.username} is already scoring this round.")
        if scorecard.is_released:
            raise InterviewError("This scorecard was released; it can no longer change.")
        scorecard.levels = cleaned
        scorecard.recommendation = recommendation
        scorecard.save(update_fields=["levels", "recommendation", "updated_at"])
    return scorecard


def scorecard_release(*, round_: Round, interviewer: AbstractBaseUser) -> Scorecard:
    """Show the scorecard to the candidate: needs a submitted round, every level and a recommendation."""
    with transaction.atomic():
        scorecard = Scorecard.objects.select_for_update().filter(round=round_).first()
        if scorecard is None or scorecard.interviewer_id != interviewer.pk:
            raise InterviewError("Score the round before releasing the scorecard.")
        if scorecard.is_released:
            return scorecard
        if round_.status != RoundStatus.SUBMITTED:
            raise InterviewError("Release the scorecard once the round is submitted.")
        dimensions = [item["dimension"] for item in rubric_of(round_)] or list(RUBRIC_DIMENSIONS)
        unscored = [d for d in dimensions if scorecard.level_of(d) is None]
        if unscored:
            raise InterviewError("Give a level for every dimension first: " + ", ".join(unscored) + ".")
        if not scorecard.recommendation:
            raise InterviewError("Choose a recommendation first.")
        scorecard.released_at = timezone.now()
        scorecard.save(update_fields=["released_at", "updated_at"])
    return scorecard


def scorecard_for_candidate(round_: Round) -> Scorecard | None:
    """The scorecard the candidate may see: only a released one."""
    return (
        Scorecard.objects.filter(round=round_, released_at__isnull=False)
        .select_related("interviewer")
        .first()
    )


# The engine's side


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


# Calibration


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def recommendation_is_yes(recommendation: str) -> bool:
    return recommendation in YES_SIDE


def calibration_for(interviewer: AbstractBaseUser) -> dict[str, Any]:
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
    }


# What the interviewer sees and the candidate does not


def reference_values(round_: Round) -> list[dict[str, Any]]:
    """Every quantity of the reference model at the round's variant (its defaults otherwise), for display."""
    spec = round_.spec
    asked = {line["name"]: line["phase"] for line in spec.get("asked", [])}
    try:
        model = question_version_model(round_.question_version)
        values = model.evaluate(round_.variant_values or None)
    except (ModelError, KeyError):
        return []
    rows = []
    for quantity in spec["model"]["quantities"]:
        name = quantity["name"]
        shown = float(model.display_value(name, values[name]))
        unit = quantity.get("unit", "")
        rows.append(
            {
                "name": name,
                "label": quantity.get("label", name),
                "display": format_number(shown) + (f" {unit}" if unit else ""),
                "formula": quantity.get("formula", ""),
                "asked_phase": asked.get(name, ""),
                "varied": name in (round_.variant_values or {}),
            }
        )
    return rows


def follow_ups_for_phase(round_: Round, phase: str) -> list[dict[str, Any]]:
    """The question's follow-ups for one phase, each with its index in the whole list (0-based)."""
    return [
        {"index": index, "number": index + 1, "phase": item["phase"], "text": item["text"]}
        for index, item in enumerate(round_.spec.get("follow_ups", []))
        if item.get("phase") == phase
    ]
