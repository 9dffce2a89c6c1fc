"""Grading a round: the grading engine applied to what the round saved, its events and its variant."""

from grading.core.review_check import grade_review
from grading.services import question_version_grade, question_version_spec
from interview.models import Round


def round_submission(round_: Round) -> dict:
    submission = round_.work.as_submission()
    submission["events"] = [
        {"t": event.t, "phase": event.phase, "field": event.field}
        for event in round_.events.order_by("revision", "id").only("t", "phase", "field")
    ]
    return submission


def round_grade(round_: Round) -> dict:
    """The engine's report (recording the question version); a review question's also checks the marks, the
    ranked fixes and both replays."""
    version = round_.question_version
    spec = question_version_spec(version)
    submission = round_submission(round_)
    overrides = round_.variant_values or None
    if spec.kind == "review":
        return grade_review(spec, submission, overrides, seed_key=round_.pk, version=version.number)
    submission.pop("fixes", None)
    return question_version_grade(version=version, submission=submission, overrides=overrides)
