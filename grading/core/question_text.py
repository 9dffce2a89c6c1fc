"""A question's title, prompt and plan written from its model's values: `{name}` placeholders of given
assumptions, rendered with the values of the round (the defaults, or a variant's). Pure Python: no Django.

A placeholder is `{name}` (the value with its unit, by `report_text.format_quantity`: "6,000 tok", "5 req/s"),
`{name:n}` (the number alone: "3" in "{n_regions:n} regions") or `{name:%}` (a plain fraction as a percentage:
"60%"). It may name only a given assumption: an input of the model that the question does not ask for, or one
marked `stated: true` (the prompt states it; the candidate restates it). A derived quantity or an asked line
that is not stated never renders: its value is an answer. The reader refuses any other placeholder
(`template_problems`), so a stored question renders whatever values it is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from grading.core.model import ReferenceModel
from grading.core.report_text import format_number, format_percent, format_quantity

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}")
FORMATS = ("", "n", "%")


def text_fields(spec: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(field, text) of every templated text of a stored question: its title, prompt and plan's expects."""
    for key in ("title", "prompt"):
        text = spec.get(key)
        if isinstance(text, str):
            yield key, text
    for index, phase in enumerate(spec.get("plan") or []):
        if isinstance(phase, Mapping) and isinstance(phase.get("expect"), str):
            yield f"plan[{index}].expect", phase["expect"]


def template_problems(
    fields: Sequence[tuple[str, str]],
    inputs: Mapping[str, bool],
    derived: set[str] | frozenset[str],
    asked: set[str] | frozenset[str],
) -> list[tuple[str, str]]:
    """(field, message) for every placeholder that is not a given assumption or has an unknown format.

    `inputs` maps each input of the model to whether it is `stated`; `derived` names the derived ones."""
    problems = []
    for field, text in fields:
        for match in PLACEHOLDER.finditer(text):
            name, form = match[1], match[2] or ""
            if form not in FORMATS:
                problems.append(
                    (field, f"{match[0]}: the format {form!r} is none of :n (number) or :% (percent)")
                )
            elif name in derived:
                problems.append(
                    (field, f"{match[0]}: {name} is derived; a placeholder names a given assumption")
                )
            elif name not in inputs:
                problems.append((field, f"{match[0]}: {name!r} is not a quantity of the model"))
            elif name in asked and not inputs[name]:
                problems.append(
                    (field, f"{match[0]}: {name} is asked and not stated; its value would be an answer")
                )
    return problems


def render(text: str, values: Mapping[str, float], units: Mapping[str, str]) -> str:
    """`text` with each placeholder replaced by its value (display units) as the module docstring says; a
    name without a value is left as written."""

    def shown(match: re.Match[str]) -> str:
        name, form = match[1], match[2] or ""
        if name not in values:
            return match[0]
        value = float(values[name])
        if form == "%":
            return format_percent(value)
        if form == "n":
            return format_number(value)
        return format_quantity(value, units.get(name, ""))

    return PLACEHOLDER.sub(shown, text)


def has_placeholders(spec: Mapping[str, Any]) -> bool:
    return any(PLACEHOLDER.search(text) for _, text in text_fields(spec))


def rendered_spec(
    spec: Mapping[str, Any], variant_values: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """A stored question (the question file as JSON) with its title, prompt and plan written from its
    model's values at the defaults, or with `variant_values` (base units) over them; the same dict when it
    has no placeholder."""
    if not has_placeholders(spec):
        return dict(spec)
    model = ReferenceModel.from_dict(spec["model"])
    base = {name: float(value) for name, value in (variant_values or {}).items() if name in model.quantities}
    values = model.evaluate(base)
    inputs = [q for q in spec["model"]["quantities"] if q.get("formula") is None]
    shown = {q["name"]: float(model.display_value(q["name"], values[q["name"]])) for q in inputs}
    units = {q["name"]: str(q.get("unit") or "") for q in inputs}
    out = dict(spec)
    for key in ("title", "prompt"):
        if isinstance(out.get(key), str):
            out[key] = render(out[key], shown, units)
    out["plan"] = [
        {**phase, "expect": render(phase["expect"], shown, units)}
        if isinstance(phase, Mapping) and isinstance(phase.get("expect"), str)
        else phase
        for phase in spec.get("plan") or []
    ]
    return out
