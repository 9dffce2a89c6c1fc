"""An authored drill wording: `{name}` placeholders, one for each name the asked line's formula reads."""

from __future__ import annotations

import re
from collections.abc import Collection

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def formula_names(formula: str, quantities: Collection[str]) -> set[str]:
    """The quantity names a formula reads (function names and other words are not quantities)."""
    return {word for word in _IDENTIFIER.findall(formula) if word in quantities}


def wording_problems(wording: str, needed: Collection[str]) -> list[str]:
    """What is wrong with a wording: a name the formula reads that it does not give (so the step's inputs do
    not determine its answer), or a placeholder the formula does not read."""
    used = set(PLACEHOLDER.findall(wording))
    problems = []
    missing = sorted(set(needed) - used)
    if missing:
        given = ", ".join("{" + name + "}" for name in missing)
        problems.append(f"the wording does not give {given}, so its inputs do not determine the answer")
    extra = sorted(used - set(needed))
    if extra:
        problems.append("the wording names " + ", ".join(extra) + ", which the formula does not read")
    return problems
