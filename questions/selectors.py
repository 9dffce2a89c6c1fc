"""Look-ups of questions that any room may make: the published version of a question."""

from questions.models import Question, QuestionVersion


def published_question_version(slug: str) -> QuestionVersion | None:
    """The current published version of the question `slug`, or None when there is none."""
    question = Question.objects.filter(slug=slug).select_related("current_version").first()
    return None if question is None else question.current_version
