"""Variant rounds: seeded new values for a question's variable assumptions, inside their plausible ranges."""

import json
import math
from functools import lru_cache

import numpy as np

from grading.model import ReferenceModel


@lru_cache(maxsize=256)
def _compiled(model_json: str) -> ReferenceModel:
    return ReferenceModel.from_dict(json.loads(model_json))


def reference_model(spec: dict) -> ReferenceModel:
    """The compiled reference model of a stored question version (compiled once per distinct model)."""
    return _compiled(json.dumps(spec["model"], sort_keys=True))


def _nice(value: float, *, whole: bool) -> float:
    """Two significant figures, the way an interviewer would state a premise ("4,000 users", "0.35")."""
    if value == 0:
        return 0.0
    digits = 1 - int(math.floor(math.log10(abs(value))))
    rounded = round(value, digits)
    return float(round(rounded)) if whole and abs(rounded) >= 1 else float(rounded)


def _format(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.3g}"


def variant_draw(spec: dict, *, seed: int) -> tuple[dict[str, float], str]:
    """Draw the variable inputs (base units) from the seed; return them and a sentence for the prompt."""
    model = reference_model(spec)
    quantities = [q for q in spec["model"]["quantities"] if q.get("variable") and "formula" not in q]
    if not quantities:
        return {}, ""
    rng = np.random.default_rng(seed)
    samples = model.sample_inputs(1, rng, [q["name"] for q in quantities])
    values: dict[str, float] = {}
    parts: list[str] = []
    for quantity in quantities:
        name = quantity["name"]
        shown = float(model.display_value(name, float(samples[name][0])))
        low, high = quantity["range"]
        shown = min(max(_nice(shown, whole=float(low).is_integer() and float(high).is_integer()), low), high)
        values[name] = float(model.base_value(name, shown))
        unit = f" {quantity['unit']}" if quantity.get("unit") else ""
        parts.append(f"{quantity.get('label', name)}: {_format(shown)}{unit}")
    return values, "; ".join(parts)
