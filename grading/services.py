"""Grading a published question version: the one service the API, the practice page and the CLI share
(rounds can call it too)."""

from collections import OrderedDict
from typing import Any

from grading.core.grader import grade
from grading.core.model import ReferenceModel
from grading.core.question_reader import parse_question
from grading.core.question_types import QuestionSpec
from interview.models import Question, QuestionVersion

_SPECS_KEPT = 256
# Versions are immutable, so each one is parsed once per process; grade() keeps its compiled form by identity.
_specs: OrderedDict[str, QuestionSpec] = OrderedDict()


def published_question_version(slug: str) -> QuestionVersion | None:
    """The current published version of the question `slug`, or None when there is none."""
    question = Question.objects.filter(slug=slug).select_related("current_version").first()
    return None if question is None else question.current_version


def question_version_spec(version: QuestionVersion) -> QuestionSpec:
    """The parsed question of a stored version, cached by its content hash."""
    key = version.content_hash or f"{version.pk}"
    spec = _specs.get(key)
    if spec is None:
        spec = parse_question(version.spec, source=version.spec.get("slug", ""))
        _specs[key] = spec
        if len(_specs) > _SPECS_KEPT:
            _specs.popitem(last=False)
    return spec


def question_version_model(version: QuestionVersion) -> ReferenceModel:
    """The compiled reference model of a stored version (compiled once, with its parsed spec)."""
    return question_version_spec(version).model.reference


def question_version_grade(
    *, version: QuestionVersion, submission: dict[str, Any], overrides: dict[str, float] | None = None
) -> dict[str, Any]:
    """The grading report of `submission` against `version`.

    Raises grading.core.submission.SubmissionError."""
    return grade(question_version_spec(version), submission, overrides=overrides, version=version.number)
