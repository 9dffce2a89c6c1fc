"""Grading a stored question version: the one service the API, the practice page, rounds and the CLI share.
It knows a version only by the fields below; interview/ finds the row and passes it in."""

from collections import OrderedDict
from typing import Any, Protocol

from grading.core.grader import grade
from grading.core.model import ReferenceModel
from grading.core.question_reader import parse_question
from grading.core.question_types import QuestionSpec


class StoredVersion(Protocol):
    """A question version row (interview.models.QuestionVersion) as grading reads it."""

    pk: Any
    number: int
    content_hash: str
    spec: dict


_SPECS_KEPT = 256
# Versions are immutable, so each one is parsed once per process; grade() keeps its compiled form by identity.
_specs: OrderedDict[str, QuestionSpec] = OrderedDict()


def question_version_spec(version: StoredVersion) -> QuestionSpec:
    """The parsed question of a stored version, cached by its content hash."""
    key = version.content_hash or f"{version.pk}"
    spec = _specs.get(key)
    if spec is None:
        spec = parse_question(version.spec, source=version.spec.get("slug", ""))
        _specs[key] = spec
        if len(_specs) > _SPECS_KEPT:
            _specs.popitem(last=False)
    return spec


def question_version_model(version: StoredVersion) -> ReferenceModel:
    """The compiled reference model of a stored version (compiled once, with its parsed spec)."""
    return question_version_spec(version).model.reference


def question_version_grade(
    *, version: StoredVersion, submission: object, overrides: dict[str, float] | None = None
) -> dict[str, Any]:
    """The grading report of `submission` against `version`.

    Raises grading.core.submission.SubmissionError."""
    return grade(question_version_spec(version), submission, overrides=overrides, version=version.number)
