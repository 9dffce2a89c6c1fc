"""Round workflows: start, save (with revision), submit, abandon, and locking at the deadline."""

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from designs.models import Work, WorkEvent
from grading.core.report_text import format_unit
from grading.core.vocabulary import FIX_CATEGORIES
from grading.services import question_version_model
from interview.models import Question, QuestionVersion, Round, RoundMode, RoundStatus
from interview.services.grading import round_grade
from interview.services.reference_checks import reference_last_checked
from interview.services.variants import variant_draw
from interview.services.version_outline import version_outline

MAX_NUMBER_TEXT = 200
MAX_SCRATCH = 20_000
MAX_DESIGN_NODES = 80
MAX_DESIGN_EDGES = 200
MAX_FIELD_TEXT = 300
MAX_FIXES = 20
MAX_FIX_TEXT = 300
MAX_MARKS = 100

log = logging.getLogger(__name__)

# Every canvas starts with the client, so the path check never asks for an arrow from a box nobody can draw.
CLIENT_BOX = {"id": "client", "kind": "client", "label": "Client", "job": "", "failure": ""}


# The columns a save reads: never the question version's text, which an autosave does not need.
WORK_FIELDS = ("id", "round_id", "design", "numbers", "scratch", "fixes", "revision", "updated_at")
ROUND_FIELDS = tuple(
    f"round__{name}"
    for name in (
        "id",
        "candidate_id",
        "question_version_id",
        "status",
        "started_at",
        "deadline",
        "submitted_at",
        "mode",
    )
)


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
        if version.spec.get("kind") == "review":
            design, numbers = _review_start(version, variant_values)
        else:
            design, numbers = {"nodes": [dict(CLIENT_BOX)], "edges": []}, {}
        Work.objects.create(round=round_, design=design, numbers=numbers)
    return round_


def _review_start(version: QuestionVersion, variant_values: dict[str, float]) -> tuple[dict, dict[str, str]]:
    """A review round opens on the given design (its boxes' failure texts left for the candidate to find) and
    with the design's own numbers (the asked inputs, at their given or variant values) on the sheet."""
    spec = version.spec
    given = spec.get("design") or {}
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
            shown = str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.6g}"
            unit = model.quantities[name].unit
            numbers[name] = f"{shown} {format_unit(unit)}" if unit else shown
    return {"nodes": nodes, "edges": edges, "marks": []}, numbers


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
    marks = design.get("marks", [])
    if not isinstance(marks, list) or len(marks) > MAX_MARKS:
        raise RoundError(f"design.marks: a list of at most {MAX_MARKS} failure marks.")
    for index, mark in enumerate(marks):
        if not isinstance(mark, dict) or not all(
            isinstance(mark.get(key, ""), str) and len(mark.get(key, "")) <= MAX_FIELD_TEXT
            for key in ("target", "what", "how")
        ):
            raise RoundError(f"design.marks[{index}]: a target, what fails and how, as short text.")
    return design


def _clean_numbers(numbers: Any, allowed: frozenset[str]) -> dict[str, str]:
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


def _clean_fixes(fixes: Any) -> list[dict[str, str]]:
    if not isinstance(fixes, list) or len(fixes) > MAX_FIXES:
        raise RoundError(f"fixes: a list of at most {MAX_FIXES} fixes.")
    cleaned = []
    for index, fix in enumerate(fixes):
        if not isinstance(fix, dict) or not isinstance(fix.get("text"), str):
            raise RoundError(f"fixes[{index}]: each fix needs its text and a category.")
        if len(fix["text"]) > MAX_FIX_TEXT:
            raise RoundError(f"fixes[{index}].text: text of at most {MAX_FIX_TEXT} characters.")
        if fix.get("category") not in FIX_CATEGORIES:
            raise RoundError(f"fixes[{index}].category: one of {', '.join(FIX_CATEGORIES)}.")
        cleaned.append({"text": fix["text"], "category": fix["category"]})
    return cleaned


def round_save(
    *,
    round_id: int,
    base_revision: int,
    candidate_id: int | None = None,
    design: Any = None,
    numbers: Any = None,
    scratch: Any = None,
    fixes: Any = None,
) -> SaveResult:
    """Apply a save based on `base_revision`; a stale base or a locked round changes nothing.

    With `candidate_id`, a round of someone else's raises Work.DoesNotExist (the caller answers 404).
    The question version's text is not loaded: versions are immutable, so their outline is cached.
    On PostgreSQL the page's autosave first tries `interview.services.autosave_fast`, which shares the checks
    below and falls back here for anything but a plain, current save."""
    owner = {"round__candidate_id": candidate_id} if candidate_id is not None else {}
    with transaction.atomic():
        work = (
            Work.objects.select_for_update()
            .select_related("round__question_version")
            .only(*WORK_FIELDS, *ROUND_FIELDS, "round__question_version__content_hash")
            .get(round_id=round_id, **owner)
        )
        round_ = work.round
        outline = version_outline(round_.question_version_id, round_.question_version.content_hash)
        now = timezone.now()
        round_check_writable(round_, work, base_revision=base_revision, now=now)
        changes = work_apply_changes(
            work, design=design, numbers=numbers, scratch=scratch, fixes=fixes, asked=outline.asked_names
        )
        if not changes:
            return SaveResult(revision=work.revision, saved_fields=[])
        work.revision += 1
        work.save(update_fields=["design", "numbers", "scratch", "fixes", "revision", "updated_at"])
        t, phase = save_position(round_, now=now, plan=outline.plan)
        WorkEvent.objects.bulk_create(
            [
                WorkEvent(round=round_, revision=work.revision, t=t, phase=phase, field=f, value=v)
                for f, v in changes
            ]
        )
        return SaveResult(revision=work.revision, saved_fields=[f for f, _ in changes])


def round_check_writable(round_: Round, work: Work, *, base_revision: int, now: datetime) -> None:
    """RoundLocked for a round that no longer takes changes, StaleRevision for a save from an old page."""
    if round_.status != RoundStatus.ACTIVE:
        raise RoundLocked(
            f"This round is {round_.get_status_display().lower()}; it no longer accepts changes."
        )
    if round_.is_past_deadline(now):
        raise RoundLocked("Time is up: the round locked at its deadline and was graded on what was saved.")
    if base_revision != work.revision:
        raise StaleRevision(work.revision)


def work_apply_changes(
    work: Work, *, design: Any, numbers: Any, scratch: Any, fixes: Any, asked: frozenset[str]
) -> list[tuple[str, Any]]:
    """Validate a save's fields (None: not sent) and set on `work` those that differ; returns (field, value)
    for each change, the event log's entries. Nothing is written to the database here."""
    for field, value in (("design", design), ("numbers", numbers), ("scratch", scratch), ("fixes", fixes)):
        if _holds_unstorable_text(value):
            raise RoundError(
                f"{field}: the text holds a character that cannot be stored (NUL or a lone surrogate)."
            )
    changes: list[tuple[str, Any]] = []
    if design is not None:
        design = _clean_design(design)
        if design != work.design:
            work.design = design
            changes.append(("design", design))
    if numbers is not None:
        for name, text in _clean_numbers(numbers, asked).items():
            if work.numbers.get(name, "") != text:
                work.numbers[name] = text
                changes.append((f"numbers.{name}", text))
    if scratch is not None:
        if not isinstance(scratch, str) or len(scratch) > MAX_SCRATCH:
            raise RoundError(f"scratch: text of at most {MAX_SCRATCH} characters.")
        if scratch != work.scratch:
            work.scratch = scratch
            changes.append(("scratch", scratch))
    if fixes is not None:
        fixes = _clean_fixes(fixes)
        if fixes != work.fixes:
            work.fixes = fixes
            changes.append(("fixes", fixes))
    return changes


def _holds_unstorable_text(value: Any) -> bool:
    """PostgreSQL's text and jsonb refuse NUL, and UTF-8 has no lone surrogates; JSON can carry both."""
    if isinstance(value, str):
        return "\x00" in value or not value.isascii() and not _encodes_as_utf8(value)
    if isinstance(value, dict):
        return any(_holds_unstorable_text(key) or _holds_unstorable_text(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_unstorable_text(item) for item in value)
    return False


def _encodes_as_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def save_position(round_: Round, *, now: datetime, plan: Sequence[dict]) -> tuple[float, str]:
    """Where a save lands on the round's clock: seconds since the start and the plan phase."""
    return round_.elapsed_s(now), (round_.current_phase(now, plan=plan) or {}).get("phase", "")


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
    from grading.replays import replays_enqueue_for_round

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


def rounds_close_expired() -> int:
    """The periodic sweep: grade every timed round whose deadline passed."""
    expired = Round.objects.filter(status=RoundStatus.ACTIVE, deadline__lte=timezone.now()).values_list(
        "pk", flat=True
    )
    for round_id in expired:
        round_submit(round_id=round_id)
    return len(expired)
