"""What a save may hold: the boundary checks of the canvas, the numbers sheet, the scratch notes and the
fixes. The page's autosave and the API share them; a refusal names the field and changes nothing.

A design's boxes and arrows and the numbers' texts are checked by the one check of a submission,
grading.core.submission.read_submission, as the grade (API and CLI) checks them: one rule, one message. What
only a save holds is checked here: the canvas's marks, notes, groups, a box's group, an arrow's id, every
other key and text it stores, the whole size, and that the question asks for each number."""

import json
from typing import Any

from config.service_errors import InvalidInput, ServiceError
from grading.core.submission import (
    MAX_BOX_TEXT,
    MAX_ID_TEXT,
    Submission,
    SubmissionError,
    read_submission,
)
from grading.core.vocabulary import FIX_CATEGORIES

MAX_SCRATCH = 20_000
MAX_FIELD_TEXT = MAX_BOX_TEXT
MAX_FIXES = 20
MAX_FIX_TEXT = 300
MAX_MARKS = 100
MAX_NOTES = 50
MAX_NOTE_TEXT = 400
MAX_GROUPS = 40
# Every stored field has a bound: keys the canvas keeps but we do not read (positions, its own extras) too.
MAX_ANY_TEXT = MAX_NOTE_TEXT
MAX_KEY_TEXT = 60
MAX_DESIGN_CHARS = 256_000  # the whole design as JSON; a real canvas of 80 boxes stays under a fifth of this


class WorkError(ServiceError):
    """A save the work cannot accept; the message is shown to the person."""

    status = 400


class WorkInvalid(InvalidInput, WorkError):
    """A save whose fields are malformed, each named: `errors` by field, the one sentence as the message."""

    code = "invalid"


def _refuse(field: str, message: str) -> WorkInvalid:
    return WorkInvalid([(field, message)])


def checked_submission(**part: Any) -> Submission:
    """The one check of a design and the numbers (grading.core.submission.read_submission); WorkInvalid
    names each problem as the grade does."""
    try:
        return read_submission(part)
    except SubmissionError as error:
        raise WorkInvalid(error.problems) from None


def clean_design(design: Any) -> dict:
    checked_submission(design=design)
    _check_bounded(design, "design")
    for index, edge in enumerate(design.get("edges") or []):
        if not isinstance(edge.get("id", ""), str) or len(edge.get("id", "")) > MAX_FIELD_TEXT:
            raise _refuse(f"design.edges[{index}].id", f"text of at most {MAX_FIELD_TEXT} characters")
    marks = design.get("marks", [])
    if not isinstance(marks, list) or len(marks) > MAX_MARKS:
        raise _refuse("design.marks", f"a list of at most {MAX_MARKS} failure marks")
    for index, mark in enumerate(marks):
        if not isinstance(mark, dict) or not all(
            isinstance(mark.get(key, ""), str) and len(mark.get(key, "")) <= MAX_FIELD_TEXT
            for key in ("target", "what", "how")
        ):
            raise _refuse(f"design.marks[{index}]", "a target, what fails and how, as short text")
    _check_notes_and_groups(design, design.get("nodes") or [])
    return design


def _check_notes_and_groups(design: dict, nodes: list) -> None:
    """Free notes and group containers (the canvas stores them beside the boxes; the grader ignores both)."""
    for index, node in enumerate(nodes):
        if not _is_id(node.get("parent", "")):
            raise _refuse(f"design.nodes[{index}].parent", "the id of a group, as text")
    notes, groups = design.get("notes", []), design.get("groups", [])
    if not isinstance(notes, list) or len(notes) > MAX_NOTES:
        raise _refuse("design.notes", f"a list of at most {MAX_NOTES} notes")
    for index, note in enumerate(notes):
        if not isinstance(note, dict) or not _is_id(note.get("id")):
            raise _refuse(f"design.notes[{index}]", "each note needs a string id")
        if not isinstance(note.get("text", ""), str) or len(note.get("text", "")) > MAX_NOTE_TEXT:
            raise _refuse(f"design.notes[{index}].text", f"text of at most {MAX_NOTE_TEXT} characters")
    if not isinstance(groups, list) or len(groups) > MAX_GROUPS:
        raise _refuse("design.groups", f"a list of at most {MAX_GROUPS} groups")
    for index, group in enumerate(groups):
        if not isinstance(group, dict) or not _is_id(group.get("id")):
            raise _refuse(f"design.groups[{index}]", "each group needs a string id")
        for key in ("label", "parent"):
            if not isinstance(group.get(key, ""), str) or len(group.get(key, "")) > MAX_FIELD_TEXT:
                raise _refuse(f"design.groups[{index}].{key}", f"text of at most {MAX_FIELD_TEXT} characters")


def _is_id(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_ID_TEXT


def _check_bounded(design: dict, where: str) -> None:
    """The whole size, then every key and text in it, read or not (the JSON parser bounds the depth)."""
    if len(json.dumps(design, ensure_ascii=False)) > MAX_DESIGN_CHARS:
        raise _refuse(where, f"at most {MAX_DESIGN_CHARS:,} characters in all")
    pending: list[tuple[str, Any]] = [(where, design)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if len(str(key)) > MAX_KEY_TEXT:
                    raise _refuse(path, f"a key of at most {MAX_KEY_TEXT} characters")
                pending.append((f"{path}.{key}", item))
        elif isinstance(value, list):
            pending.extend((f"{path}[{index}]", item) for index, item in enumerate(value))
        elif isinstance(value, str) and len(value) > MAX_ANY_TEXT:
            raise _refuse(path, f"text of at most {MAX_ANY_TEXT} characters")


def clean_numbers(numbers: Any, allowed: frozenset[str]) -> dict[str, str]:
    """The numbers as checked (a null text is a blank answer), each one the question asks for."""
    checked = checked_submission(numbers=numbers).numbers
    unasked = [
        (f"numbers.{name}", "this question does not ask for it") for name in checked if name not in allowed
    ]
    if unasked:
        raise WorkInvalid(unasked)
    return dict(checked)


def clean_scratch(scratch: Any) -> str:
    if not isinstance(scratch, str) or len(scratch) > MAX_SCRATCH:
        raise _refuse("scratch", f"text of at most {MAX_SCRATCH} characters")
    return scratch


def clean_fixes(fixes: Any) -> list[dict[str, str]]:
    if not isinstance(fixes, list) or len(fixes) > MAX_FIXES:
        raise _refuse("fixes", f"a list of at most {MAX_FIXES} fixes")
    cleaned = []
    for index, fix in enumerate(fixes):
        if not isinstance(fix, dict) or not isinstance(fix.get("text"), str):
            raise _refuse(f"fixes[{index}]", "each fix needs its text and a category")
        if len(fix["text"]) > MAX_FIX_TEXT:
            raise _refuse(f"fixes[{index}].text", f"text of at most {MAX_FIX_TEXT} characters")
        if fix.get("category") not in FIX_CATEGORIES:
            raise _refuse(f"fixes[{index}].category", f"one of {', '.join(FIX_CATEGORIES)}")
        cleaned.append({"text": fix["text"], "category": fix["category"]})
    return cleaned


def refuse_unstorable_text(**fields: Any) -> None:
    """PostgreSQL's text and jsonb refuse NUL, and UTF-8 has no lone surrogates; JSON can carry both."""
    for field, value in fields.items():
        if _holds_unstorable_text(value):
            raise _refuse(field, "the text holds a character that cannot be stored (NUL or a lone surrogate)")


def _holds_unstorable_text(value: Any) -> bool:
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
