"""Saving a round's work: one path through the ORM for the page's autosave, the API and every database.

A save names the revision it was based on: a save from a stale tab, or on a round that no longer takes
changes, changes nothing. Each accepted save bumps the revision and appends one event per changed field."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from rounds.models import Work, WorkEvent
from rounds.outline import version_outline
from rounds.validation import (
    WorkError,
    clean_design,
    clean_fixes,
    clean_numbers,
    clean_scratch,
    refuse_unstorable_text,
)

# The columns a save reads: never the question version's text, which a save does not need.
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


class StaleRevision(WorkError):
    status = 409

    def __init__(self, current_revision: int) -> None:
        self.current_revision = current_revision
        super().__init__(
            f"This page is out of date: your work was saved from another tab or device (revision "
            f"{current_revision}). Reload to get the latest version; nothing has been overwritten."
        )

    def extra(self) -> dict[str, Any]:
        return {"current_revision": self.current_revision}


class WorkLocked(WorkError):
    status = 423


@dataclass(frozen=True)
class SaveResult:
    revision: int
    saved_fields: list[str]


def work_save(
    *,
    round_id: int,
    base_revision: int,
    candidate_id: int | None = None,
    design: Any = None,
    numbers: Any = None,
    scratch: Any = None,
    fixes: Any = None,
) -> SaveResult:
    """Apply a save based on `base_revision` (None for a field: not sent).

    With `candidate_id`, a round of someone else's raises Work.DoesNotExist (the view answers 404). The work
    and its round are locked together, so a submit that grades the round waits for the save, or the save sees
    the round closed (WorkLocked)."""
    owner = {"round__candidate_id": candidate_id} if candidate_id is not None else {}
    with transaction.atomic():
        work = (
            Work.objects.select_for_update(of=("self", "round"))
            .select_related("round__question_version")
            .only(*WORK_FIELDS, *ROUND_FIELDS, "round__question_version__content_hash")
            .get(round_id=round_id, **owner)
        )
        outline = version_outline(work.round.question_version)
        now = timezone.now()
        work_check_writable(work, base_revision=base_revision, now=now)
        changes = work_apply_changes(
            work, design=design, numbers=numbers, scratch=scratch, fixes=fixes, asked=outline.asked_names
        )
        if not changes:
            return SaveResult(revision=work.revision, saved_fields=[])
        work.revision += 1
        changed = {field.partition(".")[0] for field, _ in changes}
        work.save(update_fields=[*changed, "revision", "updated_at"])
        t, phase = save_position(work.round, now=now, plan=outline.plan)
        WorkEvent.objects.bulk_create(
            [
                WorkEvent(round_id=round_id, revision=work.revision, t=t, phase=phase, field=f, value=v)
                for f, v in changes
            ]
        )
        return SaveResult(revision=work.revision, saved_fields=[f for f, _ in changes])


def work_check_writable(work: Work, *, base_revision: int, now: datetime) -> None:
    """WorkLocked for a round that no longer takes changes, StaleRevision for a save from an old page."""
    refusal = work.round.write_refusal(now)
    if refusal is not None:
        raise WorkLocked(refusal)
    if base_revision != work.revision:
        raise StaleRevision(work.revision)


def work_apply_changes(
    work: Work, *, design: Any, numbers: Any, scratch: Any, fixes: Any, asked: frozenset[str]
) -> list[tuple[str, Any]]:
    """Validate a save's fields (None: not sent) and set on `work` those that differ; returns (field, value)
    for each change, the event log's entries. Nothing is written to the database here."""
    refuse_unstorable_text(design=design, numbers=numbers, scratch=scratch, fixes=fixes)
    changes: list[tuple[str, Any]] = []
    if design is not None:
        _set_if_changed(work, "design", clean_design(design), changes)
    if numbers is not None:
        for name, text in clean_numbers(numbers, asked).items():
            if work.numbers.get(name, "") != text:
                work.numbers[name] = text
                changes.append((f"numbers.{name}", text))
    if scratch is not None:
        _set_if_changed(work, "scratch", clean_scratch(scratch), changes)
    if fixes is not None:
        _set_if_changed(work, "fixes", clean_fixes(fixes), changes)
    return changes


def _set_if_changed(work: Work, field: str, value: Any, changes: list[tuple[str, Any]]) -> None:
    if value != getattr(work, field):
        setattr(work, field, value)
        changes.append((field, value))


def save_position(round_: Any, *, now: datetime, plan: Sequence[dict]) -> tuple[float, str]:
    """Where a save lands on the round's clock: seconds since the start and the plan phase."""
    return round_.elapsed_s(now), (round_.current_phase(now, plan=plan) or {}).get("phase", "")
