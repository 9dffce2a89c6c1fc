"""Scorecards: the question's rubric, levels and notes per dimension, a recommendation, released to the
candidate once complete."""

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from grading.core.vocabulary import RUBRIC_DIMENSIONS, RUBRIC_LEVELS
from interview.models import Recommendation, Scorecard
from interview.services.interviewing.errors import InterviewError
from rounds.models import Round, RoundStatus

LEVEL_NOTE_MAX_LENGTH = 2000


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


def scorecard_save(*, round_: Round, interviewer: User, levels: Any, recommendation: Any = "") -> Scorecard:
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


def scorecard_release(*, round_: Round, interviewer: User) -> Scorecard:
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
