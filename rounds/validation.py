"""What a save may hold: the boundary checks of the canvas, the numbers sheet, the scratch notes and the
fixes. The page's autosave and the API share them; a refusal names the field and changes nothing."""

import json
from typing import Any

from config.service_errors import ServiceError
from grading.core.submission import MAX_BOX_TEXT, MAX_EDGES, MAX_ID_TEXT, MAX_NODES, MAX_NUMBER_TEXT
from grading.core.vocabulary import FIX_CATEGORIES

MAX_SCRATCH = 20_000
MAX_DESIGN_NODES = MAX_NODES
MAX_DESIGN_EDGES = MAX_EDGES
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


def clean_design(design: Any) -> dict:
    if not isinstance(design, dict):
        raise WorkError("design: expected an object with nodes and edges.")
    nodes, edges = design.get("nodes", []), design.get("edges", [])
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise WorkError("design: nodes and edges must be lists.")
    if len(nodes) > MAX_DESIGN_NODES or len(edges) > MAX_DESIGN_EDGES:
        raise WorkError(f"design: at most {MAX_DESIGN_NODES} boxes and {MAX_DESIGN_EDGES} arrows.")
    _check_bounded(design, "design")
    for index, node in enumerate(nodes):
        if not isinstance(node, dict) or not _is_id(node.get("id")):
            raise WorkError(
                f"design.nodes[{index}]: each box needs a string id of at most {MAX_ID_TEXT} characters."
            )
        for key in ("kind", "label", "job", "failure"):
            if not isinstance(node.get(key, ""), str) or len(node.get(key, "")) > MAX_FIELD_TEXT:
                raise WorkError(f"design.nodes[{index}].{key}: text of at most {MAX_FIELD_TEXT} characters.")
    for index, edge in enumerate(edges):
        if not isinstance(edge, dict) or not all(_is_id(edge.get(k)) for k in ("source", "target")):
            raise WorkError(f"design.edges[{index}]: each arrow needs a source and a target id.")
        for key in ("id", "label"):
            if not isinstance(edge.get(key, ""), str) or len(edge.get(key, "")) > MAX_FIELD_TEXT:
                raise WorkError(f"design.edges[{index}].{key}: text of at most {MAX_FIELD_TEXT} characters.")
    marks = design.get("marks", [])
    if not isinstance(marks, list) or len(marks) > MAX_MARKS:
        raise WorkError(f"design.marks: a list of at most {MAX_MARKS} failure marks.")
    for index, mark in enumerate(marks):
        if not isinstance(mark, dict) or not all(
            isinstance(mark.get(key, ""), str) and len(mark.get(key, "")) <= MAX_FIELD_TEXT
            for key in ("target", "what", "how")
        ):
            raise WorkError(f"design.marks[{index}]: a target, what fails and how, as short text.")
    _check_notes_and_groups(design, nodes)
    return design


def _check_notes_and_groups(design: dict, nodes: list) -> None:
    """Free notes and group containers (the canvas stores them beside the boxes; the grader ignores both)."""
    for index, node in enumerate(nodes):
        if not _is_id(node.get("parent", "")):
            raise WorkError(f"design.nodes[{index}].parent: the id of a group, as text.")
    notes, groups = design.get("notes", []), design.get("groups", [])
    if not isinstance(notes, list) or len(notes) > MAX_NOTES:
        raise WorkError(f"design.notes: a list of at most {MAX_NOTES} notes.")
    for index, note in enumerate(notes):
        if not isinstance(note, dict) or not _is_id(note.get("id")):
            raise WorkError(f"design.notes[{index}]: each note needs a string id.")
        if not isinstance(note.get("text", ""), str) or len(note.get("text", "")) > MAX_NOTE_TEXT:
            raise WorkError(f"design.notes[{index}].text: text of at most {MAX_NOTE_TEXT} characters.")
    if not isinstance(groups, list) or len(groups) > MAX_GROUPS:
        raise WorkError(f"design.groups: a list of at most {MAX_GROUPS} groups.")
    for index, group in enumerate(groups):
        if not isinstance(group, dict) or not _is_id(group.get("id")):
            raise WorkError(f"design.groups[{index}]: each group needs a string id.")
        for key in ("label", "parent"):
            if not isinstance(group.get(key, ""), str) or len(group.get(key, "")) > MAX_FIELD_TEXT:
                raise WorkError(f"design.groups[{index}].{key}: text of at most {MAX_FIELD_TEXT} characters.")


def _is_id(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_ID_TEXT


def _check_bounded(design: dict, where: str) -> None:
    """The whole size, then every key and text in it, read or not (the JSON parser bounds the depth)."""
    if len(json.dumps(design, ensure_ascii=False)) > MAX_DESIGN_CHARS:
        raise WorkError(f"{where}: at most {MAX_DESIGN_CHARS:,} characters in all.")
    pending: list[tuple[str, Any]] = [(where, design)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if len(str(key)) > MAX_KEY_TEXT:
                    raise WorkError(f"{path}: a key of at most {MAX_KEY_TEXT} characters.")
                pending.append((f"{path}.{key}", item))
        elif isinstance(value, list):
            pending.extend((f"{path}[{index}]", item) for index, item in enumerate(value))
        elif isinstance(value, str) and len(value) > MAX_ANY_TEXT:
            raise WorkError(f"{path}: text of at most {MAX_ANY_TEXT} characters.")


def clean_numbers(numbers: Any, allowed: frozenset[str]) -> dict[str, str]:
    if not isinstance(numbers, dict):
        raise WorkError("numbers: expected an object of name -> text.")
    cleaned = {}
    for name, text in numbers.items():
        if name not in allowed:
            raise WorkError(f"numbers.{name}: this question does not ask for it.")
        if not isinstance(text, str) or len(text) > MAX_NUMBER_TEXT:
            raise WorkError(f"numbers.{name}: text of at most {MAX_NUMBER_TEXT} characters.")
        cleaned[name] = text
    return cleaned


def clean_scratch(scratch: Any) -> str:
    if not isinstance(scratch, str) or len(scratch) > MAX_SCRATCH:
        raise WorkError(f"scratch: text of at most {MAX_SCRATCH} characters.")
    return scratch


def clean_fixes(fixes: Any) -> list[dict[str, str]]:
    if not isinstance(fixes, list) or len(fixes) > MAX_FIXES:
        raise WorkError(f"fixes: a list of at most {MAX_FIXES} fixes.")
    cleaned = []
    for index, fix in enumerate(fixes):
        if not isinstance(fix, dict) or not isinstance(fix.get("text"), str):
            raise WorkError(f"fixes[{index}]: each fix needs its text and a category.")
        if len(fix["text"]) > MAX_FIX_TEXT:
            raise WorkError(f"fixes[{index}].text: text of at most {MAX_FIX_TEXT} characters.")
        if fix.get("category") not in FIX_CATEGORIES:
            raise WorkError(f"fixes[{index}].category: one of {', '.join(FIX_CATEGORIES)}.")
        cleaned.append({"text": fix["text"], "category": fix["category"]})
    return cleaned


def refuse_unstorable_text(**fields: Any) -> None:
    """PostgreSQL's text and jsonb refuse NUL, and UTF-8 has no lone surrogates; JSON can carry both."""
    for field, value in fields.items():
        if _holds_unstorable_text(value):
            raise WorkError(
                f"{field}: the text holds a character that cannot be stored (NUL or a lone surrogate)."
            )


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
