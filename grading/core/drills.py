"""Estimation drills: one asked line of a question's model, its direct inputs given, graded by the grader.

A step asks for one derived line of a question (say "KV cache per token") and gives the values of the names
its formula reads ("Transformer layers: 64; KV heads: 8; ..."). The given values come from a seeded draw of
the model's inputs inside their plausible ranges, evaluated through the model and rounded the way a person
states a premise, so a step is new every time and never the reference's own numbers. A draw whose answer is
0 or of the other sign than the reference's (phases that overrun the round, a clamp at zero) is drawn again:
every step has a sensible answer.

Grading goes through the same engine as a round: the step is a small question of its own (the given values
as fixed assumptions, the asked line's formula, its check and band) and `grader.grade` reads the typed answer
with the sheet's read-back, units and messages.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from grading.core import verdicts as v
from grading.core.drill_wording import PLACEHOLDER
from grading.core.grader import grade
from grading.core.model import ModelError, ModelSpec, Quantity
from grading.core.question_types import Asked, DesignSpec, Phase, QuestionSpec, RubricDimension
from grading.core.report_text import arithmetic_template, format_quantity

# How many draws a step may try before it is declared impossible (its inputs are all fixed by the question,
# or every draw lands on the reference's own answer).
MAX_DRAWS = 24
# A step's answer must differ from the question's reference value by more than this share, so that a drill
# never hands out the reference's answer.
DISTINCT_FROM_REFERENCE = 0.1
PREMISE_DIGITS = 2
_DRILL_PHASE = "arithmetic"
_LEVELS = {1: "-", 2: "-", 3: "-", 4: "-"}


class DrillError(ValueError):
    """A line that cannot be drilled, with the reason an author reads."""


@dataclass(frozen=True)
class Given:
    """One premise of a step: a name its formula reads, with the value stated in the prompt."""

    name: str
    label: str
    value: float  # in `unit`
    unit: str
    shown: str


@dataclass(frozen=True)
class DrillStep:
    """One drawn step: what the candidate reads, and the small question that grades their answer."""

    slug: str
    name: str
    label: str
    unit: str
    seed: int
    givens: tuple[Given, ...]
    prompt: str
    answer: float  # in `unit`
    answer_shown: str
    arithmetic: str  # the formula with the given numbers, "= answer"
    question: QuestionSpec  # the step as a small question; grade it with `overrides`
    overrides: Mapping[str, float]  # the givens in base units

    def as_dict(self) -> dict[str, Any]:
        """What a client needs to show the step (the answer is not in it)."""
        return {
            "slug": self.slug,
            "name": self.name,
            "label": self.label,
            "unit": self.unit,
            "seed": self.seed,
            "prompt": self.prompt,
            "givens": [{"name": g.name, "label": g.label, "shown": g.shown} for g in self.givens],
        }


def drill_lines(spec: QuestionSpec) -> list[str]:
    """The asked lines of `spec` a drill can ask: derived lines whose formula reads at least one name, the
    main sheet's first, then the curveballs' lines the main sheet does not ask."""
    model = spec.model.reference
    return [
        asked.name
        for asked in _drillable(spec)
        if asked.name in model.derived_names and model.formulas[asked.name].names
    ]


def _drillable(spec: QuestionSpec) -> list[Asked]:
    lines = {asked.name: asked for asked in spec.asked}
    for curveball in spec.curveballs:
        for asked in curveball.asked:
            lines.setdefault(asked.name, asked)
    return list(lines.values())


def drill_samples(spec: QuestionSpec, *, count: int = 2) -> list[dict[str, Any]]:
    """For the editor: `count` sample steps of each line a drill can ask, or why it cannot be drilled."""
    samples: list[dict[str, Any]] = []
    for name in drill_lines(spec):
        label = spec.model.reference.quantities[name].label
        try:
            steps = [drill_step(spec, name, seed=seed) for seed in range(1, count + 1)]
        except DrillError as error:
            samples.append({"name": name, "label": label, "steps": [], "refusal": str(error)})
            continue
        shown = [{"prompt": step.prompt, "answer": step.answer_shown} for step in steps]
        samples.append({"name": name, "label": label, "steps": shown, "refusal": ""})
    return samples


@dataclass(frozen=True)
class _LineDrill:
    """What every draw of one line shares, made once: the step question, the reference answer, the names."""

    question: QuestionSpec  # the givens as assumptions at the reference's values; a draw passes overrides
    asked: Asked
    deps: tuple[str, ...]
    upstream_inputs: tuple[str, ...]
    reference_answer: float  # base units


_LINE_CACHE: OrderedDict[tuple[int, str], tuple[QuestionSpec, _LineDrill]] = OrderedDict()
_LINE_CACHE_SIZE = 512


def _line_drill(spec: QuestionSpec, name: str) -> _LineDrill:
    key = (id(spec), name)
    hit = _LINE_CACHE.get(key)
    if hit is not None and hit[0] is spec:
        return hit[1]
    model = spec.model.reference
    if name not in drill_lines(spec):
        raise DrillError(f"{name} is not an asked line with a formula")
    reference = model.evaluate()
    asked = next(a for a in _drillable(spec) if a.name == name)
    deps = tuple(q.name for q in spec.model.quantities if q.name in model.formulas[name].names)
    upstream = model.upstream(name)
    inputs = tuple(n for n in model.input_names if n in upstream)
    at_reference = tuple(_given(model, dep, float(reference[dep]), rounded=False) for dep in deps)
    line = _LineDrill(
        _step_question(spec, name, asked, at_reference), asked, deps, inputs, float(reference[name])
    )
    _LINE_CACHE[key] = (spec, line)  # the strong reference keeps the id from being reused
    if len(_LINE_CACHE) > _LINE_CACHE_SIZE:
        _LINE_CACHE.popitem(last=False)
    return line


def drill_step(spec: QuestionSpec, name: str, *, seed: int) -> DrillStep:
    """Draw the step for line `name` of `spec` from `seed` (deterministic); DrillError when it cannot."""
    model = spec.model.reference
    line = _line_drill(spec, name)
    step_model = line.question.model.reference
    rng = np.random.default_rng(seed)
    for _ in range(MAX_DRAWS):
        draw = {
            key: float(values[0]) for key, values in model.sample_inputs(1, rng, line.upstream_inputs).items()
        }
        try:
            values = model.evaluate(draw)
        except ModelError:
            continue
        givens = tuple(_given(model, dep, float(values[dep])) for dep in line.deps)
        if any(not math.isfinite(g.value) for g in givens):
            continue
        overrides = {g.name: float(model.base_value(g.name, g.value)) for g in givens}
        try:
            answer_base = float(step_model.evaluate(overrides)[name])
        except ModelError:
            continue
        if not math.isfinite(answer_base) or not _distinct(answer_base, line.reference_answer):
            continue
        if not _same_sign(answer_base, line.reference_answer):
            continue  # "-2 minutes left" from phases that overrun the round: not a sensible step
        unit = model.quantities[name].unit
        answer = answer_base / model.units[name].factor
        answer_shown = format_quantity(answer, unit)
        shown = {g.name: g.shown for g in givens}
        formula = model.formulas[name]
        arithmetic = arithmetic_template(formula.source, formula.names).render(shown.__getitem__)
        label = model.quantities[name].label
        return DrillStep(
            slug=spec.slug,
            name=name,
            label=label,
            unit=unit,
            seed=seed,
            givens=givens,
            prompt=_prompt(line.asked.drill, label, unit, givens),
            answer=answer,
            answer_shown=answer_shown,
            arithmetic=f"{arithmetic} = {answer_shown}",
            question=line.question,
            overrides=overrides,
        )
    raise DrillError(
        f"{name}: no draw of the inputs inside their ranges gives an answer of the reference's sign other "
        "than the reference's own (are all the inputs it reads fixed by the question?)"
    )


def drill_grade(step: DrillStep, text: str) -> dict[str, Any]:
    """Grade the typed `text` for `step`: the grader's line report, and the step's arithmetic if wrong."""
    report = grade(step.question, {"numbers": {step.name: text}}, overrides=step.overrides)
    line = dict(report["lines"][0])
    line["arithmetic"] = step.arithmetic
    line["show_arithmetic"] = line["verdict"] != v.CORRECT
    return line


def _given(model: Any, name: str, base: float, *, rounded: bool = True) -> Given:
    quantity = model.quantities[name]
    value = float(model.display_value(name, base))
    if rounded:
        value = _premise(value, whole=_is_whole(quantity))
    if quantity.range:
        low, high = quantity.range
        value = min(max(value, low), high)
    return Given(name, quantity.label or name, value, quantity.unit, format_quantity(value, quantity.unit))


def _is_whole(quantity: Quantity) -> bool:
    if quantity.range is not None:
        low, high = quantity.range
        return (
            float(low).is_integer() and float(high).is_integer() and float(quantity.value or 0).is_integer()
        )
    return False


def _premise(value: float, *, whole: bool) -> float:
    """A value as a person states it: two significant figures (whole numbers stay whole)."""
    if value == 0 or not math.isfinite(value):
        return value
    digits = PREMISE_DIGITS - 1 - int(math.floor(math.log10(abs(value))))
    rounded = round(value, digits)
    if whole and abs(rounded) >= 1:
        return float(round(rounded))
    return float(rounded)


def _same_sign(answer: float, reference: float) -> bool:
    """A positive reference asks for a positive answer (and a negative one a negative): never 0 or a flip."""
    if reference == 0:
        return True
    return answer != 0 and (answer > 0) == (reference > 0)


def _distinct(answer: float, reference: float) -> bool:
    if reference == 0:
        return answer != 0
    return abs(answer - reference) > DISTINCT_FROM_REFERENCE * abs(reference)


def _prompt(template: str, label: str, unit: str, givens: tuple[Given, ...]) -> str:
    if template:
        shown = {g.name: g.shown for g in givens}
        return PLACEHOLDER.sub(lambda match: shown.get(match.group(1), match.group(0)), template)
    premises = "; ".join(f"{g.label}: {g.shown}" for g in givens)
    return f"{premises}. {label}?"


def _step_question(spec: QuestionSpec, name: str, asked: Asked, givens: tuple[Given, ...]) -> QuestionSpec:
    """The step as a question of its own: the givens as fixed assumptions, the formula, check and band."""
    quantity = spec.model.quantity(name)
    quantities = tuple(
        Quantity(
            name=g.name,
            label=g.label,
            unit=g.unit,
            value=g.value,
            range=(g.value, g.value),
            source="given in the step",
        )
        for g in givens
    ) + (Quantity(name=name, label=quantity.label, unit=quantity.unit, formula=quantity.formula),)
    return QuestionSpec(
        slug=f"{spec.slug}--{name}",
        title=quantity.label,
        track=spec.track,
        difficulty=spec.difficulty,
        kind="design",
        summary="",
        prompt="",
        plan=(Phase(_DRILL_PHASE, 1, ""),),
        model=ModelSpec(quantities=quantities),  # no headline: a step has no sensitivity to explain
        asked=(Asked(name=name, phase=_DRILL_PHASE, check=asked.check, tolerance=asked.tolerance),),
        design=DesignSpec(),
        rubric=(RubricDimension("arithmetic", _LEVELS),),
        outline="",
    )
