"""Look-ups of questions that any room may make: a published question, or its published version."""

from django.shortcuts import get_object_or_404

from questions.models import Question, QuestionVersion


def published_question_version(slug: str) -> QuestionVersion | None:
    """The current published version of the question `slug`, or None when there is none."""
    question = Question.objects.filter(slug=slug).select_related("current_version").first()
    return None if question is None else question.current_version


def published_question_or_404(slug: str) -> Question:
    """The published question `slug` (its current version fetched with it), or 404."""
    return get_object_or_404(Question.objects.published(), slug=slug)
