"""A question's title, prompt and plan written from its model's values: `{name}` placeholders of given
assumptions, rendered with the values of the round (the defaults, or a variant's). Pure Python: no Django.

A placeholder is `{name}` (the value with its unit, by `report_text.format_quantity`: "6,000 tok", "5 req/s"),
`{name:n}` (the number alone: "3" in "{n_regions:n} regions") or `{name:%}` (a plain fraction as a percentage:
"60%"). It may name only a given assumption: an input of the model that the question does not ask for, or one
marked `stated: true` (the prompt states it; the candidate restates it). A derived quantity or an asked line
that is not stated never renders there: its value is an answer.

An answer placeholder, `{=name}` (with the same :n and :% forms), may name any quantity, derived and asked
alike, and only in the texts shown with the reference (`answers_shown`): the plan's expects, the replay
scenarios' descriptions and the reference design's boxes (of a review question only the failures: its boxes'
jobs are the design under review, which the candidate reads during the round): the reference's figures at the
round's values
("30k tokens = {=kv_conv}"). Only `answer_texts` (and `answer_plan`) render it, for the readers who may see
answers (the interviewer during a round, authors, the candidate after submitting); `rendered_spec`, what
candidates' pages read, writes it as "…". The reader refuses any other placeholder (`template_problems`), so
a stored question renders whatever values it is given.
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


BOX_TEXTS = ("job", "failure")  # the reference design's box texts that may be templated
SCENARIO_TEXTS = ("title", "description")  # a replay's, shown with its charts after submit


def text_fields(spec: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(field, text) of every templated text of a stored question: its title, prompt, plan's expects,
    scenarios' descriptions and design boxes' jobs and failures."""
    for key in ("title", "prompt"):
        text = spec.get(key)
        if isinstance(text, str):
            yield key, text
    for index, phase in enumerate(spec.get("plan") or []):
        if isinstance(phase, Mapping) and isinstance(phase.get("expect"), str):
            yield f"plan[{index}].expect", phase["expect"]
    for index, scenario in enumerate(spec.get("scenarios") or []):
        for key in SCENARIO_TEXTS:
            if isinstance(scenario, Mapping) and isinstance(scenario.get(key), str):
                yield f"scenarios[{index}].{key}", scenario[key]
    for index, node in enumerate((spec.get("design") or {}).get("nodes") or []):
        for key in BOX_TEXTS:
            if isinstance(node, Mapping) and isinstance(node.get(key), str):
                yield f"design.nodes[{index}].{key}", node[key]


def answers_shown(field: str, kind: str = "design") -> bool:
    """Whether a templated field is shown only to readers who may see answers: the plan's expects, the
    scenarios' titles and descriptions (replays run after submit) and the reference design's boxes, but for a
    review question only their failures: the candidate works on its design during the round, its jobs shown
    and its failures left out (rounds.services.rounds._review_start)."""
    if field.startswith(("plan[", "scenarios[")):
        return True
    return field.startswith("design.") and (kind != "review" or field.endswith(".failure"))


def template_problems(
    fields: Sequence[tuple[str, str]],
    inputs: Mapping[str, bool],
    derived: set[str] | frozenset[str],
    asked: set[str] | frozenset[str],
    kind: str = "design",
) -> list[tuple[str, str]]:
    """(field, message) for every placeholder that is not a given assumption or has an unknown format, and
    every answer placeholder outside the texts shown with answers (`answers_shown`) or naming nothing.

    `inputs` maps each input of the model to whether it is `stated`; `derived` names the derived ones;
    `kind` is the question's ("review" keeps answers off its design)."""
    problems = []
    for field, text in fields:
        for match in PLACEHOLDER.finditer(text):
            answer, name, form = match[1] == ANSWER, match[2], match[3] or ""
            if form not in FORMATS:
                problems.append(
                    (field, f"{match[0]}: the format {form!r} is none of :n (number) or :% (percent)")
                )
            elif answer and not answers_shown(field, kind):
                problems.append(
                    (
                        field,
                        f"{match[0]}: an answer placeholder belongs only in the plan's expects, the"
                        " scenarios' descriptions and the boxes of a design question's reference design",
                    )
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


def _written(spec: Mapping[str, Any], write: Callable[[str], str]) -> dict[str, Any]:
    """`spec` with its plan's expects, its scenarios' descriptions and its design boxes' texts written by
    `write`."""
    out = dict(spec)
    out["plan"] = [
        {**phase, "expect": write(phase["expect"])}
        if isinstance(phase, Mapping) and isinstance(phase.get("expect"), str)
        else phase
        for phase in spec.get("plan") or []
    ]
    if spec.get("scenarios"):
        out["scenarios"] = [
            {
                **scenario,
                **{key: write(scenario[key]) for key in SCENARIO_TEXTS if isinstance(scenario.get(key), str)},
            }
            if isinstance(scenario, Mapping)
            else scenario
            for scenario in spec["scenarios"]
        ]
    design = spec.get("design")
    if isinstance(design, Mapping) and design.get("nodes"):
        out["design"] = {
            **design,
            "nodes": [
                {**node, **{key: write(node[key]) for key in BOX_TEXTS if isinstance(node.get(key), str)}}
                if isinstance(node, Mapping)
                else node
                for node in design["nodes"]
            ],
        }
    return out


def rendered_spec(
    spec: Mapping[str, Any], variant_values: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """A stored question (the question file as JSON) with its templated texts (`text_fields`) written from
    its model's values at the defaults, or with `variant_values` (base units) over them; the same dict when
    it has no placeholder. What anyone may read: answer placeholders are written "…" (the texts with
    answers are `answer_texts`)."""
    if not has_placeholders(spec):
        return dict(spec)
    shown, units, inputs = _display_values(spec, variant_values)
    given = {name: value for name, value in shown.items() if name in inputs}
    out = _written(spec, lambda text: render(text, given, units))
    for key in ("title", "prompt"):
        if isinstance(out.get(key), str):
            out[key] = render(out[key], given, units)
    return out


def answer_texts(
    spec: Mapping[str, Any], variant_values: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """The stored question with the texts shown beside the reference written out, answers too, at the round's
    values (the defaults with `variant_values` over them): the plan, the scenarios' descriptions and the
    reference design's boxes. Only for readers who may see the reference: the interviewer during a round,
    authors, the candidate after submitting. Title and prompt are as `rendered_spec` writes them."""
    if not has_placeholders(spec):
        return dict(spec)
    shown, units, inputs = _display_values(spec, variant_values)
    given = {name: value for name, value in shown.items() if name in inputs}
    out = rendered_spec(spec, variant_values)
    written = _written(spec, lambda text: render(text, given, units, answers=shown))
    out["plan"], out["scenarios"] = written["plan"], written.get("scenarios", spec.get("scenarios"))
    if "design" in written:  # a review's jobs hold given assumptions only (`answers_shown`)
        out["design"] = written["design"]
    return out


def written_at_defaults(model: ReferenceModel, texts: Sequence[str]) -> list[str]:
    """`texts` with every placeholder, answers too, written at the model's defaults: what the grader reads
    of the reference's own boxes (the words it recognises in them, never a placeholder's name)."""
    if not any(PLACEHOLDER.search(text) for text in texts):
        return list(texts)
    values = model.evaluate({})
    shown = {name: float(model.display_value(name, values[name])) for name in model.quantities}
    units = {name: quantity.unit for name, quantity in model.quantities.items()}
    return [render(text, shown, units, answers=shown) for text in texts]


def answer_plan(spec: Mapping[str, Any], variant_values: Mapping[str, float] | None = None) -> list[Any]:
    """The plan with every placeholder written out, answers too, at the round's values: only for readers who
    may see the reference (the interviewer during a round, authors, the candidate after submitting)."""
    return list(answer_texts(spec, variant_values).get("plan") or [])
