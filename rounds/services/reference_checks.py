"""Remembering who saw a question's reference outside a round, so a later round on it is marked.

A check states the reference of the question's asked lines and their working, and with them the answers of
every question asking a line of the same value (`grading.core.shared_lines`): the check is recorded for those
questions too, and the check page names them before the first check.
"""

from datetime import datetime

from django.utils import timezone

from grading.core.shared_lines import answer_figures, revealed_answers, stated_figures
from questions.models import Question
from rounds.models import ReferenceCheck

_figures: dict[str, tuple[set, dict]] = {}  # by version content hash: versions are immutable


def _figures_of(version) -> tuple[set, dict]:
    key = version.content_hash or f"pk{version.pk}"
    if key not in _figures:
        _figures[key] = (stated_figures(version.spec), answer_figures(version.spec))
    return _figures[key]


def questions_sharing_lines(*, question: Question) -> list[tuple[Question, list[str]]]:
    """The other published questions whose answers a check of `question` states, or that state its answers
    when checked, with the lines concerned, in catalogue order (either way a round on one and a check of the
    other must not meet)."""
    if question.current_version is None:
        return []
    stated, answers = _figures_of(question.current_version)
    sharing = []
    others = (
        Question.objects.filter(current_version__isnull=False)
        .exclude(pk=question.pk)
        .select_related("current_version")
        .order_by("position", "slug")
    )
    for other in others:
        other_stated, other_answers = _figures_of(other.current_version)
        names = sorted(
            set(revealed_answers(stated, other_answers)) | set(revealed_answers(other_stated, answers))
        )
        if names:
            sharing.append((other, sorted(set(names))))
    return sharing


def reference_check_record(*, user, question: Question) -> ReferenceCheck:
    """The person graded numbers on the question's check page or API: they have seen its reference, and the
    answers of the questions that share its lines."""
    now = timezone.now()
    for other, _ in questions_sharing_lines(question=question):
        ReferenceCheck.objects.create(user=user, question=other, checked_at=now)
    return ReferenceCheck.objects.create(user=user, question=question, checked_at=now)


def reference_checked_before(*, user, question: Question) -> bool:
    """Whether the person has checked this question (or one sharing its lines) already."""
    return ReferenceCheck.objects.filter(user=user, question=question).exists()


def reference_last_checked(*, user, question: Question, before: datetime) -> datetime | None:
    """When the person last saw the question's reference before `before`, or None."""
    check = (
        ReferenceCheck.objects.filter(user=user, question=question, checked_at__lt=before)
        .order_by("-checked_at")
        .first()
    )
    return check.checked_at if check else None
