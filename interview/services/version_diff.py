"""The difference between two versions of a question, section by section (and quantity by quantity for the
model), as unified-diff lines of the YAML an author reads."""

import difflib
from dataclasses import dataclass
from typing import Any

from questions.services.packs import yaml_dump


@dataclass
class SectionDiff:
    name: str
    lines: list[tuple[str, str]]  # (css class, text)


def _without_empties(value: Any) -> Any:
    """Empty lists, mappings and text, and None, are what a section left out means: drop them."""
    if isinstance(value, dict):
        kept = {key: _without_empties(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in (None, "", [], {})}
    if isinstance(value, list):
        return [_without_empties(item) for item in value]
    return value


def version_diff(old: dict[str, Any], new: dict[str, Any]) -> list[SectionDiff]:
    """Field by field, and quantity by quantity for the model; only what changed. Give both sides in their
    canonical form (authoring.draft_canonical: defaults filled in); empty sections count as absent."""
    old, new = _without_empties(old), _without_empties(new)
    sections = []
    keys = [key for key in dict.fromkeys([*old, *new]) if key != "model"]
    for key in keys:
        lines = _diff_lines(old.get(key), new.get(key))
        if lines:
            sections.append(SectionDiff(key, lines))
    old_model, new_model = old.get("model") or {}, new.get("model") or {}
    if old_model.get("headline") != new_model.get("headline"):
        headline = _diff_lines(old_model.get("headline"), new_model.get("headline"))
        sections.append(SectionDiff("model.headline", headline))
    old_q = {q.get("name"): q for q in old_model.get("quantities", []) if isinstance(q, dict)}
    new_q = {q.get("name"): q for q in new_model.get("quantities", []) if isinstance(q, dict)}
    for name in dict.fromkeys([*old_q, *new_q]):
        lines = _diff_lines(old_q.get(name), new_q.get(name))
        if lines:
            sections.append(SectionDiff(f"model.{name}", lines))
    return sections


def _diff_lines(old: Any, new: Any) -> list[tuple[str, str]]:
    if old == new:
        return []
    before, after = _dump_lines(old), _dump_lines(new)
    lines = []
    for line in list(difflib.unified_diff(before, after, lineterm="", n=2))[2:]:
        kind = {"+": "added", "-": "removed", "@": "hunk"}.get(line[:1], "same")
        lines.append((kind, line))
    return lines


def _dump_lines(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str | int | float):
        return str(value).splitlines()
    return yaml_dump(value).splitlines()
