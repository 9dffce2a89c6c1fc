"""Progress: per question (not started, in progress, submitted, best score) and per track, in two queries."""

from dataclasses import dataclass
from enum import StrEnum

from django.db.models import Count, Max, Q

from questions.models import Question, Track
from rounds.models import Round, RoundStatus


class ProgressStatus(StrEnum):
    NOT_STARTED = "not_started"
    IN_PROGRESS = "in_progress"
    SUBMITTED = "submitted"

    @property
    def label(self) -> str:
        return {"not_started": "Not started", "in_progress": "In progress", "submitted": "Submitted"}[
            self.value
        ]


PROGRESS_LABELS = {"not_started": "Not started", "in_progress": "In progress", "submitted": "Submitted"}


@dataclass(frozen=True)
class QuestionProgress:
    status: ProgressStatus
    best_score: float | None = None  # of rounds taken without having seen the reference first
    submitted_rounds: int = 0  # likewise
    seen_rounds: int = 0  # submitted after the person had checked the reference: counted apart
    best_seen_score: float | None = None


@dataclass(frozen=True)
class TrackProgress:
    track: str
    label: str
    total: int
    submitted: int
    in_progress: int

    @property
    def percent(self) -> int:
        return round(100 * self.submitted / self.total) if self.total else 0


NOT_STARTED = QuestionProgress(ProgressStatus.NOT_STARTED)


def question_progress_for(*, user, question_ids: list[int] | None = None) -> dict[int, QuestionProgress]:
    """Question id -> progress for every question the person has started (absent means not started)."""
    if not user.is_authenticated:
        return {}
    rounds = Round.objects.filter(candidate=user)
    if question_ids is not None:
        rounds = rounds.filter(question_version__question_id__in=question_ids)
    clean = Q(status=RoundStatus.SUBMITTED, reference_seen_at__isnull=True)
    seen = Q(status=RoundStatus.SUBMITTED, reference_seen_at__isnull=False)
    rows = rounds.values("question_version__question_id").annotate(
        submitted=Count("id", filter=clean),
        best=Max("score", filter=clean),
        seen=Count("id", filter=seen),
        best_seen=Max("score", filter=seen),
    )
    # Any round at all, active or abandoned, counts as started.
    return {
        row["question_version__question_id"]: QuestionProgress(
            ProgressStatus.SUBMITTED if row["submitted"] or row["seen"] else ProgressStatus.IN_PROGRESS,
            row["best"],
            row["submitted"],
            row["seen"],
            row["best_seen"],
        )
        for row in rows
    }


def track_progress_for(*, user, progress: dict[int, QuestionProgress] | None = None) -> list[TrackProgress]:
    """Each track with questions: how many of its published questions the person has submitted."""
    progress = question_progress_for(user=user) if progress is None else progress
    tracks: dict[str, list[int]] = {}
    for question_id, track in Question.objects.published().values_list("id", "track"):
        tracks.setdefault(track, []).append(question_id)
    result = []
    for value, label in Track.choices:
        ids = tracks.get(value, [])
        if not ids:
            continue
        statuses = [progress.get(question_id, NOT_STARTED).status for question_id in ids]
        result.append(
            TrackProgress(
                track=value,
                label=label,
                total=len(ids),
                submitted=statuses.count(ProgressStatus.SUBMITTED),
                in_progress=statuses.count(ProgressStatus.IN_PROGRESS),
            )
        )
    return result
