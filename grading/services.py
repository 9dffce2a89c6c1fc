"""Grading a published question version: the one service the API, the practice page and the CLI share."""

from typing import Any

from grading.grader import grade
from interview.models import Question, QuestionVersion


def published_question_version(slug: str) -> QuestionVersion | None:
    """The current published version of the question `slug`, or None when there is none."""
    question = Question.objects.filter(slug=slug).select_related("current_version").first()
    return None if question is None else question.current_version


def question_version_grade(
    *, version: QuestionVersion, submission: dict[str, Any], overrides: dict[str, float] | None = None
) -> dict[str, Any]:
    """The grading report of `submission` against `version` (raises grading.submission.SubmissionError)."""
    return grade(version.spec, submission, overrides=overrides, version=version.number)
