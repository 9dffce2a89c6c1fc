"""Remembering who saw a question's reference outside a round, so a later round on it is marked."""

from datetime import datetime

from django.utils import timezone

from interview.models import Question, ReferenceCheck


def reference_check_record(*, user, question: Question) -> ReferenceCheck:
    """The person graded numbers on the question's check page or API: they have seen its reference."""
    return ReferenceCheck.objects.create(user=user, question=question, checked_at=timezone.now())


def reference_last_checked(*, user, question: Question, before: datetime) -> datetime | None:
    """When the person last saw the question's reference before `before`, or None."""
    check = (
        ReferenceCheck.objects.filter(user=user, question=question, checked_at__lt=before)
        .order_by("-checked_at")
        .first()
    )
    return check.checked_at if check else None
