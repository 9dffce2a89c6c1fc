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
    from grading.grader import grade

    return grade(
        round_.question_version.spec, round_submission(round_), overrides=round_.variant_values or None
    )
