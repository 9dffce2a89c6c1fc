"""What the interviewer sees and the candidate does not: the reference model's values at the round's
variant."""

import math
from typing import Any

from grading.core.model import ModelError
from grading.core.report_text import format_number
from questions.services.grading import question_version_model
from rounds.models import Round


def reference_values(round_: Round) -> list[dict[str, Any]]:
    """Every quantity of the reference model at the round's variant (its defaults otherwise), for display."""
    spec = round_.spec
    asked = {line["name"]: line["phase"] for line in spec.get("asked", [])}
    try:
        model = question_version_model(round_.question_version)
        values = model.evaluate(round_.variant_values or None)
    except (ModelError, KeyError):
        return []
    rows = []
    for quantity in spec["model"]["quantities"]:
        name = quantity["name"]
        shown = float(model.display_value(name, values[name]))
        unit = quantity.get("unit", "")
        display = format_number(shown) + (f" {unit}" if unit else "")
        rows.append(
            {
                "name": name,
                "label": quantity.get("label", name),
                "display": "no limit" if shown == math.inf else display,
                "formula": quantity.get("formula", ""),
                "asked_phase": asked.get(name, ""),
                "varied": name in (round_.variant_values or {}),
            }
        )
    return rows
