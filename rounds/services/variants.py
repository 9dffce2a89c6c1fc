"""Variant rounds: seeded new values for a question's variable assumptions, inside their plausible ranges."""

import math

import numpy as np

from grading.core.report_text import format_quantity
from questions.models import QuestionVersion
from questions.services.grading import question_version_model, question_version_spec


def _nice(value: float, *, whole: bool) -> float:
    """Two significant figures, the way an interviewer would state a premise ("4,000 users", "0.35")."""
    if value == 0:
        return 0.0
    digits = 1 - int(math.floor(math.log10(abs(value))))
    rounded = round(value, digits)
    return float(round(rounded)) if whole and abs(rounded) >= 1 else float(rounded)


def variant_draw(version: QuestionVersion, *, seed: int) -> tuple[dict[str, float], str]:
    """Draw the variable inputs (base units) from the seed; return them and a sentence for the prompt."""
    model = question_version_model(version)
    quantities = [q for q in question_version_spec(version).model.quantities if q.variable and q.is_input]
    if not quantities:
        return {}, ""
    rng = np.random.default_rng(seed)
    samples = model.sample_inputs(1, rng, [q.name for q in quantities])
    values: dict[str, float] = {}
    parts: list[str] = []
    for quantity in quantities:
        shown = float(model.display_value(quantity.name, float(samples[quantity.name][0])))
        assert quantity.range is not None  # an input's range (read_model checks every input has one)
        low, high = quantity.range
        shown = min(max(_nice(shown, whole=float(low).is_integer() and float(high).is_integer()), low), high)
        values[quantity.name] = float(model.base_value(quantity.name, shown))
        parts.append(f"{quantity.label or quantity.name}: {format_quantity(shown, quantity.unit)}")
    return values, "; ".join(parts)
