"""A question's title, prompt and plan written from its model's values: `{name}` placeholders of given
assumptions, rendered with the values of the round (the defaults, or a variant's). Pure Python: no Django.

A placeholder is `{name}` (the value with its unit, by `report_text.format_quantity`: "6,000 tok", "5 req/s"),
`{name:n}` (the number alone: "3" in "{n_regions:n} regions") or `{name:%}` (a plain fraction as a percentage:
"60%"). It may name only a given assumption: an input of the model that the question does not ask for, or one
marked `stated: true` (the prompt states it; the candidate restates it). A derived quantity or an asked line
that is not stated never renders there: its value is an answer.

An answer placeholder, `{=name}` (with the same :n and :% forms), may name any quantity, derived and asked
alike, and only in the plan's expects: the reference's own figures at the round's values ("30k tokens =
{=kv_conv}"). Only `answer_plan` renders it, for the readers who may see answers (the interviewer during a
round, authors); `rendered_spec`, what candidates' pages read, writes it as "…". The reader refuses any other
placeholder (`template_problems`), so a stored question renders whatever values it is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from grading.core.model import ReferenceModel
from grading.core.report_text import format_number, format_percent, format_quantity

PLACEHOLDER = re.compile(r"\{(=?)([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}")
FORMATS = ("", "n", "%")
ANSWER = "="  # the mark of an answer placeholder: "{=kv_conv}"
HIDDEN = "…"  # an answer placeholder where answers may not be shown


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
    """(field, message) for every placeholder that is not a given assumption or has an unknown format, and
    every answer placeholder outside the plan's expects (fields "plan[i].expect") or naming nothing.

    `inputs` maps each input of the model to whether it is `stated`; `derived` names the derived ones."""
    problems = []
    for field, text in fields:
        for match in PLACEHOLDER.finditer(text):
            answer, name, form = match[1] == ANSWER, match[2], match[3] or ""
            if form not in FORMATS:
                problems.append(
                    (field, f"{match[0]}: the format {form!r} is none of :n (number) or :% (percent)")
                )
            elif answer and not field.startswith("plan["):
                problems.append(
                    (field, f"{match[0]}: an answer placeholder belongs only in the plan's expects")
                )
            elif name not in inputs and name not in derived:
                problems.append((field, f"{match[0]}: {name!r} is not a quantity of the model"))
            elif answer:
                continue  # any quantity: the plan's expects reach only readers who may see answers
            elif name in derived:
                problems.append(
                    (field, f"{match[0]}: {name} is derived; a placeholder names a given assumption")
                )
            elif name in asked and not inputs[name]:
                problems.append(
                    (field, f"{match[0]}: {name} is asked and not stated; its value would be an answer")
                )
    return problems


def render(
    text: str,
    values: Mapping[str, float],
    units: Mapping[str, str],
    answers: Mapping[str, float] | None = None,
) -> str:
    """`text` with each placeholder replaced by its value (display units) as the module docstring says; a
    name without a value is left as written. An answer placeholder reads `answers` (every quantity's
    value), and without them is written as "…": never a value."""

    def shown(match: re.Match[str]) -> str:
        answer, name, form = match[1] == ANSWER, match[2], match[3] or ""
        if answer and answers is None:
            return HIDDEN
        source = answers if answer and answers is not None else values
        if name not in source:
            return match[0]
        value = float(source[name])
        if form == "%":
            return format_percent(value)
        if form == "n":
            return format_number(value)
        return format_quantity(value, units.get(name, ""))

    return PLACEHOLDER.sub(shown, text)


def has_placeholders(spec: Mapping[str, Any]) -> bool:
    return any(PLACEHOLDER.search(text) for _, text in text_fields(spec))


def _display_values(
    spec: Mapping[str, Any], variant_values: Mapping[str, float] | None
) -> tuple[dict[str, float], dict[str, str], set[str]]:
    """Every quantity's value in its display unit at the defaults with `variant_values` (base units) over
    them, every quantity's unit, and the names of the model's inputs."""
    model = ReferenceModel.from_dict(spec["model"])
    base = {name: float(value) for name, value in (variant_values or {}).items() if name in model.quantities}
    values = model.evaluate(base)
    quantities = spec["model"]["quantities"]
    shown = {q["name"]: float(model.display_value(q["name"], values[q["name"]])) for q in quantities}
    units = {q["name"]: str(q.get("unit") or "") for q in quantities}
    return shown, units, {q["name"] for q in quantities if q.get("formula") is None}


def _plan(spec: Mapping[str, Any], write: Callable[[str], str]) -> list[Any]:
    return [
        {**phase, "expect": write(phase["expect"])}
        if isinstance(phase, Mapping) and isinstance(phase.get("expect"), str)
        else phase
        for phase in spec.get("plan") or []
    ]


def rendered_spec(
    spec: Mapping[str, Any], variant_values: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """A stored question (the question file as JSON) with its title, prompt and plan written from its
    model's values at the defaults, or with `variant_values` (base units) over them; the same dict when it
    has no placeholder. What anyone may read: the plan's answer placeholders are written "…" (the
    interviewer's plan is `answer_plan`)."""
    if not has_placeholders(spec):
        return dict(spec)
    shown, units, inputs = _display_values(spec, variant_values)
    given = {name: value for name, value in shown.items() if name in inputs}
    out = dict(spec)
    for key in ("title", "prompt"):
        if isinstance(out.get(key), str):
            out[key] = render(out[key], given, units)
    out["plan"] = _plan(spec, lambda text: render(text, given, units))
    return out


def answer_plan(spec: Mapping[str, Any], variant_values: Mapping[str, float] | None = None) -> list[Any]:
    """The plan with every placeholder written out, answers too, at the round's values: only for readers who
    may see the reference (the interviewer during a round, authors, the candidate after submitting)."""
    if not has_placeholders(spec):
        return list(spec.get("plan") or [])
    shown, units, inputs = _display_values(spec, variant_values)
    given = {name: value for name, value in shown.items() if name in inputs}
    return _plan(spec, lambda text: render(text, given, units, answers=shown))
