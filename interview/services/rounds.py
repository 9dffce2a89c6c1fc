"""Round workflows: start, save (with revision), submit, abandon, and locking at the deadline."""

import random
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from designs.models import Work, WorkEvent
from interview.models import Question, Round, RoundMode, RoundStatus
from interview.services.grading import round_grade
from interview.services.variants import variant_draw
from interview.services.version_outline import version_outline

MAX_NUMBER_TEXT = 200
MAX_SCRATCH = 20_000
MAX_DESIGN_NODES = 80
MAX_DESIGN_EDGES = 200
MAX_FIELD_TEXT = 300


class RoundError(Exception):
    """A request the round cannot accept; the message is shown to the person."""

    status_code = 400


class StaleRevision(RoundError):
    status_code = 409

    def __init__(self, current_revision: int) -> None:
        self.current_revision = current_revision
        super().__init__(
            f"This page is out of date: your work was saved from another tab or device (revision "
            f"{current_revision}). Reload to get the latest version; nothing has been overwritten."
        )


class RoundLocked(RoundError):
    status_code = 423


@dataclass(frozen=True)
class SaveResult:
    revision: int
    saved_fields: list[str]


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
        variant_values, variant_text = variant_draw(version.spec, seed=variant_seed)
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
        )
        Work.objects.create(round=round_, design={"nodes": [], "edges": []}, numbers={})
    return round_


def _clean_design(design: Any) -> dict:
    if not isinstance(design, dict):
        raise RoundError("design: expected an object with nodes and edges.")
    nodes, edges = design.get("nodes", []), design.get("edges", [])
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise RoundError("design: nodes and edges must be lists.")
    if len(nodes) > MAX_DESIGN_NODES or len(edges) > MAX_DESIGN_EDGES:
        raise RoundError(f"design: at most {MAX_DESIGN_NODES} boxes and {MAX_DESIGN_EDGES} arrows.")
    for index, node in enumerate(nodes):
        if not isinstance(node, dict) or not isinstance(node.get("id"), str):
            raise RoundError(f"design.nodes[{index}]: each box needs a string id.")
        for key in ("kind", "label", "job", "failure"):
            if not isinstance(node.get(key, ""), str) or len(node.get(key, "")) > MAX_FIELD_TEXT:
                raise RoundError(f"design.nodes[{index}].{key}: text of at most {MAX_FIELD_TEXT} characters.")
    for index, edge in enumerate(edges):
        if not isinstance(edge, dict) or not all(isinstance(edge.get(k), str) for k in ("source", "target")):
            raise RoundError(f"design.edges[{index}]: each arrow needs a source and a target id.")
    return design


def _clean_numbers(numbers: Any, allowed: set[str]) -> dict[str, str]:
    if not isinstance(numbers, dict):
        raise RoundError("numbers: expected an object of name -> text.")
    cleaned = {}
    for name, text in numbers.items():
        if name not in allowed:
            raise RoundError(f"numbers.{name}: this question does not ask for it.")
        if not isinstance(text, str) or len(text) > MAX_NUMBER_TEXT:
            raise RoundError(f"numbers.{name}: text of at most {MAX_NUMBER_TEXT} characters.")
        cleaned[name] = text
    return cleaned


def round_save(
    *,
    round_id: int,
    base_revision: int,
    candidate_id: int | None = None,
    design: Any = None,
    numbers: Any = None,
    scratch: Any = None,
) -> SaveResult:
    """Apply a save based on `base_revision`; a stale base or a locked round changes nothing.

    With `candidate_id`, a round of someone else's raises Work.DoesNotExist (the caller answers 404).
    The question version's text is not loaded: versions are immutable, so their outline is cached."""
    owner = {"round__candidate_id": candidate_id} if candidate_id is not None else {}
    with transaction.atomic():
        work = Work.objects.select_for_update().select_related("round").get(round_id=round_id, **owner)
        round_ = work.round
        outline = version_outline(round_.question_version_id)
        now = timezone.now()
        if round_.status != RoundStatus.ACTIVE:
            raise RoundLocked(
                f"This round is {round_.get_status_display().lower()}; it no longer accepts changes."
            )
        if round_.is_past_deadline(now):
            raise RoundLocked(
                "Time is up: the round locked at its deadline and was graded on what was saved."
            )
        if base_revision != work.revision:
            raise StaleRevision(work.revision)
        changes: list[tuple[str, Any]] = []
        if design is not None:
            design = _clean_design(design)
            if design != work.design:
                work.design = design
                changes.append(("design", design))
        if numbers is not None:
            for name, text in _clean_numbers(numbers, outline.asked_names).items():
                if work.numbers.get(name, "") != text:
                    work.numbers[name] = text
                    changes.append((f"numbers.{name}", text))
        if scratch is not None:
            if not isinstance(scratch, str) or len(scratch) > MAX_SCRATCH:
                raise RoundError(f"scratch: text of at most {MAX_SCRATCH} characters.")
            if scratch != work.scratch:
                work.scratch = scratch
                changes.append(("scratch", scratch))
        if not changes:
            return SaveResult(revision=work.revision, saved_fields=[])
        work.revision += 1
        work.save(update_fields=["design", "numbers", "scratch", "revision", "updated_at"])
        t = round_.elapsed_s(now)
        phase = (round_.current_phase(now, plan=outline.plan) or {}).get("phase", "")
        WorkEvent.objects.bulk_create(
            [
                WorkEvent(round=round_, revision=work.revision, t=t, phase=phase, field=f, value=v)
                for f, v in changes
            ]
        )
        return SaveResult(revision=work.revision, saved_fields=[f for f, _ in changes])


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
        round_.report = round_grade(round_)
        round_.score = round_.report["scores"]["overall"]
        round_.save()
    return round_


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


def rounds_close_expired() -> int:
    """The periodic sweep: grade every timed round whose deadline passed."""
    expired = Round.objects.filter(status=RoundStatus.ACTIVE, deadline__lte=timezone.now()).values_list(
        "pk", flat=True
    )
    for round_id in expired:
        round_submit(round_id=round_id)
    return len(expired)
