"""Grading a round: the grading engine applied to what the round saved, its events and its variant.

A review round is graded in two steps: at submission everything but its replays (which run as background
jobs, never inside the submission), then `round_review_complete` fills in the replays and the scores once
every run has finished.
"""

import logging

from django.db import transaction

from grading.core.grader import GRADER_VERSION
from grading.core.review_check import grade_review, review_with_replays
from questions.services.grading import question_version_grade, question_version_spec
from rounds.models import Round, RoundStatus
from rounds.services.depth import round_depth_answers, round_depth_offer_words, round_depth_unscored_words
from rounds.services.replays import review_replays_from_runs

log = logging.getLogger(__name__)
GRADING_FAILED = (
    "This round could not be graded automatically; what you saved is kept and an interviewer can score it."
)


def round_submission(round_: Round) -> dict:
    submission = round_.work.as_submission()
    submission["events"] = [
        {"t": event.t, "phase": event.phase, "field": event.field}
        for event in round_.events.order_by("revision", "id").only("t", "phase", "field")
    ]
    depth = round_depth_answers(round_)
    if depth is not None:
        submission["depth"] = depth
    return submission


def round_grade(round_: Round) -> dict:
    """The engine's report (recording the question version); a review question's also checks the marks and
    the ranked fixes, with its replays left pending (see `round_review_complete`).

    Grading never fails a submission (a deadline submits the round whoever looks at it): should the engine
    raise, the report says the round could not be graded and the error is logged.
    """
    try:
        return _round_report(round_)
    except Exception:
        log.exception("round %s could not be graded", round_.pk)
        return _ungraded_report(round_)


def _ungraded_report(round_: Round) -> dict:
    """A report in the graded report's shape with nothing graded in it, and why (as the API's schema says)."""
    version = round_.question_version
    return {
        "error": GRADING_FAILED,
        "grader_version": GRADER_VERSION,
        "question": {"slug": version.question.slug, "version": version.number, "fingerprint": ""},
        "variant": None,
        "lines": [],
        "unknown_numbers": [],
        "design": None,
        "sensitivity": [],
        "scores": {"numbers": None, "arithmetic": None, "shape": None, "overall": None},
        "score_weights": {},
        "pacing": None,
    }


def _round_report(round_: Round) -> dict:
    report = _engine_report(round_)
    if report.get("depth") is not None:
        report["depth"]["offer_words"] = round_depth_offer_words(round_, report)
    elif unscored := round_depth_unscored_words(round_):
        report["depth_unscored"] = unscored
    return report


def _engine_report(round_: Round) -> dict:
    version = round_.question_version
    spec = question_version_spec(version)
    submission = round_submission(round_)
    overrides = round_.variant_values or None
    if spec.kind == "review":
        return grade_review(
            spec, submission, overrides, seed_key=round_.pk, version=version.number, run_replays=False
        )
    submission.pop("fixes", None)
    submission.pop("fixed", None)
    return question_version_grade(version=version, submission=submission, overrides=overrides)


def review_pending(round_: Round) -> bool:
    """A submitted review round whose replays have not been folded into its report yet."""
    review = (round_.report or {}).get("review") or {}
    return round_.status == RoundStatus.SUBMITTED and bool((review.get("replays") or {}).get("pending"))


def round_review_complete(*, round_: Round) -> Round:
    """Fold a review round's finished replays into its report and score; nothing while any run is unfinished.

    Idempotent: the round is locked and checked again, so two callers complete it once.
    """
    if not review_pending(round_) or review_replays_from_runs(round_=round_) is None:
        return round_
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        replays = review_replays_from_runs(round_=locked)
        if review_pending(locked) and locked.report is not None and replays is not None:
            locked.record_report(review_with_replays(locked.report, replays))
            locked.save(update_fields=["report", "score", "score_numbers", "score_shape", "score_arithmetic"])
    return locked


def rounds_complete_reviews() -> int:
    """The periodic sweep: complete every submitted review round whose replays have all finished."""
    pending = Round.objects.filter(status=RoundStatus.SUBMITTED, report__review__replays__pending=True)
    return sum(not review_pending(round_review_complete(round_=round_)) for round_ in pending)
