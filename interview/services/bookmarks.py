"""Bookmarks: a person's short list of questions to come back to."""

from django.db import IntegrityError, transaction

from interview.models import Bookmark
from questions.models import Question


def bookmark_toggle(*, user, question: Question, on: bool | None = None) -> bool:
    """Add, remove (on=False) or toggle (on=None) a bookmark; returns whether it is bookmarked now."""
    exists = Bookmark.objects.filter(user=user, question=question).exists()
    want = (not exists) if on is None else on
    if want and not exists:
        try:
            with transaction.atomic():
                Bookmark.objects.create(user=user, question=question)
        except IntegrityError:  # a second click got there first
            pass
    elif not want and exists:
        Bookmark.objects.filter(user=user, question=question).delete()
    return want


def bookmarked_question_ids(*, user) -> set[int]:
    if not user.is_authenticated:
        return set()
    return set(Bookmark.objects.filter(user=user).values_list("question_id", flat=True))
