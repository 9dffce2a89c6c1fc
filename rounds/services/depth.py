"""The depth phase of a round: the curveballs shown so far, one at a time, and the follow-up decisions.

Nothing of them reaches the candidate before the round's clock is in its depth phase (or later), or before
they move there early; a practice round shows them on request. The answers are kept on the work in the shape
the grader reads (`grading.core.submission`, key "depth"); `round_depth_answers` is what grading takes.
"""

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from config.service_errors import ServiceError
from grading.core.depth import curveball_view, decision_view
from grading.core.question_types import QuestionSpec
from grading.core.submission import SubmissionError, read_submission
from questions.services.grading import question_version_spec
from rounds.models import Round, RoundMode, RoundStatus, Work

DEPTH_PHASE = "depth"
NOTE_ROWS = 3  # "what changes" notes a curveball offers (a consequence names at most three boxes)


class DepthError(ServiceError):
    """A refused depth action; the message says why."""

    status = 400


def _spec(round_: Round) -> QuestionSpec:
    return question_version_spec(round_.question_version)


def round_has_depth(round_: Round) -> bool:
    spec = _spec(round_)
    return bool(spec.curveballs or spec.decisions)


def round_curveballs_due(round_: Round, count: int, now: datetime | None = None) -> int:
    """How many curveballs a timed round's clock has brought: none before the depth phase, then one more
    each equal share of the phase's minutes (all of them from its end on)."""
    if round_.mode != RoundMode.TIMED or count == 0:
        return 0
    start = 0.0
    for phase in round_.spec.get("plan", []):
        length = float(phase["minutes"]) * 60
        if phase["phase"] == DEPTH_PHASE:
            into = round_.elapsed_s(now) - start
            return 0 if into < 0 else min(count, 1 + int(into // (length / count)))
        start += length
    return 0


def round_clock_in_depth(round_: Round, now: datetime | None = None) -> bool:
    """Whether a timed round's clock has reached its depth phase (or a later one)."""
    return round_curveballs_due(round_, 1, now) > 0


def round_depth_view(*, round_: Round, now: datetime | None = None) -> dict[str, Any]:
    """What the depth tab shows: opened or not, the curveballs shown (with what was typed), the decisions,
    the candidate's boxes for notes. A timed round whose clock reached the depth phase is opened here."""
    spec = _spec(round_)
    work = round_.work
    active = round_.status == RoundStatus.ACTIVE
    due = round_curveballs_due(round_, max(1, len(spec.curveballs)), now)
    if active and (spec.curveballs or spec.decisions) and work.depth_shown < due:
        work = _shown_at_least(round_, due)
    shown = min(work.depth_shown, len(spec.curveballs))
    opened = work.depth_shown > 0
    answers = work.depth or {}
    curveballs = []
    for curveball in spec.curveballs[:shown] if opened else ():
        typed = (answers.get("curveballs") or {}).get(curveball.id) or {}
        view = curveball_view(spec, curveball)
        for line in view["lines"]:
            line["given"] = (typed.get("numbers") or {}).get(line["name"], "")
        notes = [{"box": box, "text": text} for box, text in (typed.get("notes") or {}).items()]
        view["notes"] = (notes + [{"box": "", "text": ""}] * NOTE_ROWS)[: max(NOTE_ROWS, len(notes))]
        curveballs.append(view)
    decisions = []
    for item in spec.decisions if opened else ():
        typed = (answers.get("follow_ups") or {}).get(item.id) or {}
        order = list(typed.get("order") or [])
        view = decision_view(item, seed=round_.pk)
        for option in view["options"]:
            option["place"] = order.index(option["id"]) + 1 if option["id"] in order else None
        view["places"] = list(range(1, len(item.options) + 1))
        if view["number"] is not None:
            view["number"]["given"] = typed.get("number", "")
        decisions.append(view)
    boxes = [
        {"id": node["id"], "label": node.get("label") or node.get("kind") or node["id"]}
        for node in (work.design or {}).get("nodes", [])
        if isinstance(node, dict) and isinstance(node.get("id"), str)
    ]
    return {
        "has_depth": bool(spec.curveballs or spec.decisions),
        "open": opened,
        "polls": active and round_.mode == RoundMode.TIMED and not opened,
        "locked": not active,
        "curveballs": curveballs,
        "decisions": decisions,
        "current": curveballs[-1] if curveballs else None,
        "more": opened and shown < len(spec.curveballs),
        "boxes": boxes,
    }


def round_depth_next(*, round_: Round) -> Work:
    """Open the depth phase (moving there early), or show the next curveball; refused once the round ended."""
    spec = _spec(round_)
    with transaction.atomic():
        work = Work.objects.select_for_update().select_related("round").get(round_id=round_.pk)
        if work.round.status != RoundStatus.ACTIVE:
            raise DepthError("This round has ended; its depth answers can no longer change.")
        if not (spec.curveballs or spec.decisions):
            raise DepthError("This question has no curveballs or follow-ups to answer.")
        work.depth_shown = min(work.depth_shown + 1, max(1, len(spec.curveballs)))
        work.save(update_fields=["depth_shown", "updated_at"])
    round_.work = work
    return work


def _shown_at_least(round_: Round, count: int) -> Work:
    with transaction.atomic():
        work = Work.objects.select_for_update().get(round_id=round_.pk)
        if work.depth_shown < count:
            work.depth_shown = count
            work.save(update_fields=["depth_shown", "updated_at"])
    round_.work = work
    return work


def round_depth_save(*, round_: Round, answers: dict[str, Any]) -> Work:
    """Keep the depth answers (the submission's "depth" shape) for what has been shown; DepthError names the
    first problem. Which curveballs were offered is the round's to say (`round_depth_answers`), not the
    page's."""
    if "offered" in answers:
        raise DepthError("depth.offered: the round records which curveballs were offered; do not send it")
    try:
        read_submission({"depth": answers})
    except SubmissionError as error:
        field, message = error.problems[0]
        raise DepthError(f"{field}: {message}") from None
    spec = _spec(round_)
    with transaction.atomic():
        work = Work.objects.select_for_update().select_related("round").get(round_id=round_.pk)
        if work.round.status != RoundStatus.ACTIVE:
            raise DepthError("This round has ended; its depth answers can no longer change.")
        if work.depth_shown == 0:
            raise DepthError("The depth phase has not started yet.")
        shown = {item.id: item for item in spec.curveballs[: work.depth_shown]}
        decisions = {item.id: item for item in spec.decisions}
        for curveball_id, entry in (answers.get("curveballs") or {}).items():
            if curveball_id not in shown:
                raise DepthError(f"depth.curveballs.{curveball_id}: no such curveball has been shown")
            names = {line.name for line in shown[curveball_id].asked}
            for name in entry.get("numbers") or {}:
                if name not in names:
                    raise DepthError(
                        f"depth.curveballs.{curveball_id}.numbers.{name}: not a line of this curveball"
                    )
        for decision_id, entry in (answers.get("follow_ups") or {}).items():
            if decision_id not in decisions:
                raise DepthError(f"depth.follow_ups.{decision_id}: no such follow-up")
            ids = {option.id for option in decisions[decision_id].options}
            for option in entry.get("order") or []:
                if option not in ids:
                    raise DepthError(
                        f"depth.follow_ups.{decision_id}.order: {option!r} is not one of its options"
                    )
        work.depth = answers
        work.save(update_fields=["depth", "updated_at"])
    round_.work = work
    return work


def round_curveballs_offered(round_: Round) -> int:
    """How many curveballs (the first n) the candidate was offered: those they asked for, and in a timed round
    also those the clock had brought when the round ended (whether or not the page was open to show them)."""
    count = len(_spec(round_).curveballs)
    offered = min(round_.work.depth_shown, count)
    if round_.mode == RoundMode.TIMED:
        offered = max(offered, round_curveballs_due(round_, count, round_.submitted_at or timezone.now()))
    return offered


def round_depth_answers(round_: Round) -> dict[str, Any] | None:
    """The depth answers grading takes: None (not scored) unless the depth phase was opened or a timed
    round's clock reached it before the round ended; with `offered`, the curveballs offered (the others are
    reported as not offered and not counted)."""
    work = round_.work
    end = round_.submitted_at or timezone.now()
    if work.depth_shown > 0 or round_clock_in_depth(round_, end):
        answers = {key: value for key, value in (work.depth or {}).items() if key != "offered"}
        offered = _spec(round_).curveballs[: round_curveballs_offered(round_)]
        return {**answers, "offered": [curveball.id for curveball in offered]}
    return None


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}:{rest:02d}"


def _depth_phase_window(round_: Round) -> tuple[float, float] | None:
    """Where the depth phase starts on the round's plan and how long it lasts, in seconds."""
    start = 0.0
    for phase in round_.spec.get("plan", []):
        length = float(phase["minutes"]) * 60
        if phase["phase"] == DEPTH_PHASE:
            return start, length
        start += length
    return None


def round_depth_offer_words(round_: Round, report: dict[str, Any]) -> str:
    """How the depth items of a graded round were offered, and so which count: one or two sentences for the
    report, from the round's mode, its clock and what was asked for."""
    spec = _spec(round_)
    total = len(spec.curveballs)
    counted = len((report.get("depth") or {}).get("curveballs") or [])
    if round_.mode == RoundMode.TIMED:
        window = _depth_phase_window(round_)
        minutes = window[1] / 60 if window else 0
        each = minutes / total if total else 0
        words = (
            f"In a timed round the clock offers the curveballs one at a time through the {minutes:g}-minute "
            f"depth phase (the next every {each:g} minutes), or sooner when you ask for the next; "
            f"{counted} of {total} had been offered when the round ended at {_clock(round_.elapsed_s())}."
        )
    else:
        words = (
            "In a practice round a curveball is offered only when you ask for it: "
            f"you asked for {counted} of {total}."
        )
    if counted < total:
        words += (
            f" The {total - counted} never offered are listed but not counted; "
            "every curveball offered counts, answered or not."
        )
    if spec.decisions:
        words += " Every follow-up is offered once the depth phase opens, so each counts, answered or not."
    return words


def round_depth_unscored_words(round_: Round) -> str | None:
    """Why a round whose question has a depth phase has no depth score (it was never opened); None when it
    has one or the question has none."""
    spec = _spec(round_)
    if not (spec.curveballs or spec.decisions) or round_depth_answers(round_) is not None:
        return None
    if round_.mode == RoundMode.TIMED:
        window = _depth_phase_window(round_)
        at = f" at {_clock(window[0])}" if window else ""
        why = (
            f"This round ended at {_clock(round_.elapsed_s())}, "
            f"before its clock reached the depth phase{at}, and you did not move there early"
        )
    else:
        why = "The depth phase of this practice round was never opened (its curveballs come when you ask)"
    return (
        f"{why}: none of its curveballs or follow-ups was offered, so depth is not scored and does not "
        "count in the overall score. An interviewer can still score it on the rubric."
    )
