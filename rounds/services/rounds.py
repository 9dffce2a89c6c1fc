"""Round workflows: start, submit, abandon, and closing a round at its deadline. Saving the work is
rounds.services.work.work_save."""

import logging
import math
import random

from django.db import transaction
from django.utils import timezone

from config.service_errors import ServiceError
from grading.core.question_text import rendered_spec
from grading.core.report_text import format_unit
from grading.core.review_check import FIXED_PREFIX, given_fixed_sheet
from questions.models import Question, QuestionVersion
from questions.services.grading import question_version_model
from rounds.models import Round, RoundMode, RoundStatus, Work
from rounds.services.grading import round_grade
from rounds.services.reference_checks import reference_last_checked
from rounds.services.replays import reference_replays_prepare_later, replays_enqueue_for_round
from rounds.services.variants import variant_draw

log = logging.getLogger(__name__)

# Every canvas starts with the client, so the path check never asks for an arrow from a box nobody can draw.
CLIENT_BOX = {"id": "client", "kind": "client", "label": "Client", "job": "", "failure": ""}


class RoundError(ServiceError):
    """A request the round cannot accept; the message is shown to the person."""

    status = 400


class RoundLocked(RoundError):
    status = 423


class RoundNotSubmitted(RoundError):
    """What only a submitted round has (its report, its replays) was asked of one still open."""

    status = 409


def round_start(
    *, candidate, question: Question, mode: str, variant: bool = False, seed: int | None = None
) -> Round:
    """Start a round on the question's current version; a variant draws new values for its variable inputs."""
    if mode not in RoundMode.values:
        raise RoundError(f"Unknown round mode {mode!r}: choose timed or practice.")
    version = question.current_version
    if version is None:
        raise RoundError("This question has no published version yet.")
    now = timezone.now()
    plan_minutes = sum(float(phase["minutes"]) for phase in version.spec["plan"])
    variant_values: dict[str, float] = {}
    variant_text = ""
    variant_seed = None
    if variant:
        variant_seed = seed if seed is not None else random.SystemRandom().randrange(1, 2**31)
        variant_values, variant_text = variant_draw(version, seed=variant_seed)
    with transaction.atomic():
        round_ = Round.objects.create(
            candidate=candidate,
            question_version=version,
            mode=mode,
            started_at=now,
            deadline=Round.timed_deadline(now, max(plan_minutes, 45.0)) if mode == RoundMode.TIMED else None,
            variant_seed=variant_seed,
            variant_values=variant_values,
            variant_text=variant_text,
            reference_seen_at=reference_last_checked(user=candidate, question=question, before=now),
        )
        design, numbers = round_opening_work(version=version, variant_values=variant_values)
        Work.objects.create(round=round_, design=design, numbers=numbers)
        # the reference replays need nothing of the candidate: simulated while they work, kept for submit
        transaction.on_commit(lambda: reference_replays_prepare_later(round_))
    return round_


def round_opening_work(
    *, version: QuestionVersion, variant_values: dict[str, float]
) -> tuple[dict, dict[str, str]]:
    """The design and numbers a round opens with, before the candidate's first change: the client box, or
    for a review round the design under review and its numbers. The timeline replays from here."""
    if version.spec.get("kind") == "review":
        return _review_start(version, variant_values)
    return {"nodes": [dict(CLIENT_BOX)], "edges": []}, {}


def _review_start(version: QuestionVersion, variant_values: dict[str, float]) -> tuple[dict, dict[str, str]]:
    """A review round opens on the given design (its boxes' failure texts left for the candidate to find),
    with the design's own numbers (the asked inputs, at their given or variant values) on the analysis sheet
    and the fixed design's sheet (the review's fix lines) at the given design's values."""
    spec = version.spec
    given = rendered_spec(spec, variant_values or None).get("design") or {}  # at the variant's values
    nodes = [
        {key: str(node.get(key, "") or "") for key in ("id", "kind", "label", "job")} | {"failure": ""}
        for node in given.get("nodes", [])
    ]
    edges = [
        {key: str(edge.get(key, "") or "") for key in ("source", "target", "label")}
        for edge in given.get("edges", [])
    ]
    # The canvas draws only real boxes: the client the given arrows start from becomes one.
    if any("client" in (edge["source"], edge["target"]) for edge in edges):
        nodes.insert(0, dict(CLIENT_BOX))
    model = question_version_model(version)
    values = model.evaluate(dict(variant_values or {}))
    numbers = {}
    for line in spec.get("asked", []):
        name = line["name"]
        if name in model.input_names:
            value = float(values[name]) / model.units[name].factor
            if value == math.inf:  # the design has no such limit (issue 30): the sheet reads it back so
                numbers[name] = "no limit"
                continue
            shown = str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.6g}"
            unit = model.quantities[name].unit
            numbers[name] = f"{shown} {format_unit(unit)}" if unit else shown
    # The fixed design's sheet opens on the given design too: the candidate changes what they fix.
    for name, text in given_fixed_sheet(spec, variant_values or None).items():
        numbers[FIXED_PREFIX + name] = text
    return {"nodes": nodes, "edges": edges, "marks": []}, numbers


def round_submit(*, round_id: int) -> Round:
    """Submit early (or at the deadline): grade what was saved. Submitting twice changes nothing."""
    with transaction.atomic():
        round_ = Round.objects.select_for_update().select_related("question_version").get(pk=round_id)
        if round_.status == RoundStatus.SUBMITTED:
            return round_
        if round_.status == RoundStatus.ABANDONED:
            raise RoundLocked("This round was abandoned; start a new one.")
        now = timezone.now()
        round_.submitted_at = min(now, round_.deadline) if round_.deadline else now
        round_.status = RoundStatus.SUBMITTED
        round_.record_report(round_grade(round_))
        round_.save()
        transaction.on_commit(lambda: _replays_enqueue(round_))
    return round_


def _replays_enqueue(round_: Round) -> None:
    """Queue the round's failure replays once it is submitted (idempotent: existing runs are kept). The
    submission stands whatever happens here: the replays page can queue them again on demand."""
    try:
        replays_enqueue_for_round(round_=round_)
    except Exception:
        log.exception("round %s: the failure replays could not be queued", round_.pk)


def round_abandon(*, round_id: int) -> Round:
    with transaction.atomic():
        round_ = Round.objects.select_for_update().get(pk=round_id)
        if round_.status != RoundStatus.ACTIVE:
            raise RoundLocked("Only a round in progress can be abandoned.")
        round_.status = RoundStatus.ABANDONED
        round_.save(update_fields=["status"])
    return round_


def round_close_if_expired(*, round_: Round) -> Round:
    """A timed round past its deadline is submitted (graded on what was saved) the first time anyone looks."""
    if round_.status == RoundStatus.ACTIVE and round_.is_past_deadline():
        return round_submit(round_id=round_.pk)
    return round_
