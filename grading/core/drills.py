"""Estimation drills: one asked line of a question's model, its direct inputs given, graded by the grader.

A step asks for one derived line of a question (say "KV cache per token") and gives the values of the names
its formula reads ("Transformer layers: 64; KV heads: 8; ..."). The given values come from a seeded draw of
the model's inputs inside their plausible ranges, evaluated through the model and rounded the way a person
states a premise, so a step is new every time and never the reference's own numbers.

Grading goes through the same engine as a round: the step is a small question of its own (the given values
as fixed assumptions, the asked line's formula, its check and band) and `grader.grade` reads the typed answer
with the sheet's read-back, units and messages.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from grading.core import verdicts as v
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
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
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
    question: QuestionSpec

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
    """The asked lines of `spec` a drill can ask: derived lines whose formula reads at least one name."""
    model = spec.model.reference
    return [
        asked.name
        for asked in spec.asked
        if asked.name in model.derived_names and model.formulas[asked.name].names
    ]


def drill_template_problems(spec: QuestionSpec, templates: Mapping[str, str]) -> list[tuple[str, str]]:
    """Problems with authored step wordings: each states every name the line's formula reads, and no other."""
    model = spec.model.reference
    problems: list[tuple[str, str]] = []
    for name, template in templates.items():
        if name not in model.derived_names:
            problems.append(
                (f"asked.{name}.drill", "only a derived line (one with a formula) can be drilled")
            )
            continue
        used = set(_PLACEHOLDER.findall(template))
        needed = set(model.formulas[name].names)
        missing = sorted(needed - used)
        if missing:
            problems.append(
                (
                    f"asked.{name}.drill",
                    "the wording does not give "
                    + ", ".join("{" + n + "}" for n in missing)
                    + ", so its inputs do not determine the answer",
                )
            )
        extra = sorted(used - needed)
        if extra:
            problems.append(
                (
                    f"asked.{name}.drill",
                    "the wording names " + ", ".join(extra) + ", which the formula does not read",
                )
            )
    return problems


def drill_step(spec: QuestionSpec, name: str, *, seed: int, template: str = "") -> DrillStep:
    """Draw the step for line `name` of `spec` from `seed` (deterministic); DrillError when it cannot."""
    model = spec.model.reference
    if name not in drill_lines(spec):
        raise DrillError(f"{name} is not an asked line with a formula")
    reference = model.evaluate()
    asked = next(a for a in spec.asked if a.name == name)
    deps = [q.name for q in spec.model.quantities if q.name in model.formulas[name].names]
    rng = np.random.default_rng(seed)
    for _ in range(MAX_DRAWS):
        draw = {key: float(values[0]) for key, values in model.sample_inputs(1, rng).items()}
        try:
            values = model.evaluate(draw)
        except ModelError:
            continue
        givens = tuple(_given(model, spec, dep, float(values[dep])) for dep in deps)
        if any(not math.isfinite(g.value) for g in givens):
            continue
        step_question = _step_question(spec, name, asked, givens)
        try:
            answer_base = float(step_question.model.reference.evaluate()[name])
        except ModelError:
            continue
        if not math.isfinite(answer_base) or not _distinct(answer_base, float(reference[name])):
            continue
        unit = model.quantities[name].unit
        answer = answer_base / model.units[name].factor
        answer_shown = format_quantity(answer, unit)
        shown = {g.name: g.shown for g in givens}
        arithmetic = (
            arithmetic_template(model.formulas[name].source, model.formulas[name].names).render(
                shown.__getitem__
            )
            + f" = {answer_shown}"
        )
        label = model.quantities[name].label
        return DrillStep(
            slug=spec.slug,
            name=name,
            label=label,
            unit=unit,
            seed=seed,
            givens=givens,
            prompt=_prompt(template, label, unit, givens),
            answer=answer,
            answer_shown=answer_shown,
            arithmetic=arithmetic,
            question=step_question,
        )
    raise DrillError(
        f"{name}: no draw of the inputs inside their ranges gives an answer other than the reference's "
        "(are all the inputs it reads fixed by the question?)"
    )


def drill_grade(step: DrillStep, text: str) -> dict[str, Any]:
    """Grade the typed `text` for `step`: the grader's line report, and the step's arithmetic if wrong."""
    report = grade(step.question, {"numbers": {step.name: text}})
    line = dict(report["lines"][0])
    line["arithmetic"] = step.arithmetic
    line["show_arithmetic"] = line["verdict"] != v.CORRECT
    return line


def _given(model: Any, spec: QuestionSpec, name: str, base: float) -> Given:
    quantity = model.quantities[name]
    shown_value = float(model.display_value(name, base))
    whole = _is_whole(quantity)
    value = _premise(shown_value, whole=whole)
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


def _distinct(answer: float, reference: float) -> bool:
    if reference == 0:
        return answer != 0
    return abs(answer - reference) > DISTINCT_FROM_REFERENCE * abs(reference)


def _prompt(template: str, label: str, unit: str, givens: tuple[Given, ...]) -> str:
    if template:
        shown = {g.name: g.shown for g in givens}
        return _PLACEHOLDER.sub(lambda match: shown.get(match.group(1), match.group(0)), template)
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
        model=ModelSpec(quantities=quantities, headline=name),
        asked=(Asked(name=name, phase=_DRILL_PHASE, check=asked.check, tolerance=asked.tolerance),),
        design=DesignSpec(),
        rubric=(RubricDimension("arithmetic", _LEVELS),),
        outline="",
    )
