"""Grading a round: the grading engine applied to what the round saved, its events and its variant."""

from interview.models import Round


def round_submission(round_: Round) -> dict:
    submission = round_.work.as_submission()
    submission["events"] = [
        {"t": event.t, "phase": event.phase, "field": event.field}
        for event in round_.events.order_by("revision", "id").only("t", "phase", "field")
    ]
    return submission


def round_grade(round_: Round) -> dict:
    """The engine's report; a review question's also checks the marks, the ranked fixes and both replays."""
    from grading.grader import grade
    from grading.review_check import grade_review

    spec = round_.question_version.spec
    submission = round_submission(round_)
    overrides = round_.variant_values or None
    if spec.get("kind") == "review":
        return grade_review(spec, submission, overrides, seed_key=round_.pk)
    submission.pop("fixes", None)
    return grade(spec, submission, overrides=overrides)
