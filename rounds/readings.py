"""How the numbers sheet reads an entry ("read as 327,680 B/tok"), without saying whether it is right."""

import math
from collections.abc import Mapping

from grading.core.model import read_limit, read_number
from grading.core.quantity_text import ParseFailure, alike_counts, count_ratios, read_on_line
from grading.core.report_text import format_quantity
from grading.core.review_check import FIXED_PREFIX
from grading.core.units import from_base, parse_unit


def describe_reading(
    spec: dict, name: str, text: str, variant_values: Mapping[str, float] | None = None
) -> dict:
    """`{"state": "empty"|"read"|"unread", "message": ...}` for one sheet entry of a question version (a
    review's fixed-sheet entry, "fixed--NAME", is read in NAME's unit). The counts that convert a figure
    per another count (GPUs per node) are the round's: its variant's values (base units) over the defaults,
    as the grader reads them."""
    name = name.removeprefix(FIXED_PREFIX)
    quantity = next((q for q in spec["model"]["quantities"] if q["name"] == name), None)
    if quantity is None:
        return {"state": "unread", "message": "This question does not ask for that."}
    if not text.strip():
        return {"state": "empty", "message": ""}
    unit = parse_unit(quantity.get("unit", ""))
    # Read as the grader reads it: the label names the line's period and nouns; "none" is 0 where the
    # assumption's range holds 0 (the grader's rule), which says nothing about the reference value.
    # A design's limit whose range reaches unbounded reads "none" as no limit, as the grader does.
    raw_low, raw_high = quantity.get("range") or (None, None)
    low, high = read_number(raw_low), read_limit(raw_high)
    zero = low <= 0 <= high if low is not None and high is not None else None
    inputs = _round_inputs(spec, variant_values or {})
    alike = alike_counts(inputs.get("gpus_per_replica", (None, None))[1])
    # "31 GB per node" on a per-GPU line: converted by the question's GPUs per node, as the grader does.
    ratios = count_ratios(inputs.values())
    reading = read_on_line(
        text, unit, quantity.get("label", ""), zero, alike, no_limit=high == math.inf, ratios=ratios
    )
    if isinstance(reading, ParseFailure):
        if reading.kind == "missing":
            return {"state": "empty", "message": "Read as no answer."}
        return {"state": "unread", "message": f"Could not read this: {reading.message}."}
    if math.isinf(reading.value):
        return {"state": "read", "message": "Read as no limit (unbounded)"}
    message = f"Read as {format_quantity(float(from_base(reading.value, unit)), unit.text)}"
    if not reading.unit_written and unit.text:
        message += " (no unit written, so the sheet's unit is assumed)"
    if reading.note:
        message += f" ({reading.note})"
    return {"state": "read", "message": message}


def _round_inputs(spec: dict, variant_values: Mapping[str, float]) -> dict[str, tuple[str, float]]:
    """Each input quantity's (unit text, value in that unit) at the round's values."""
    inputs = {}
    for quantity in spec["model"]["quantities"]:
        if "formula" in quantity:
            continue
        unit_text = quantity.get("unit", "")
        if quantity["name"] in variant_values:
            value = float(from_base(variant_values[quantity["name"]], parse_unit(unit_text)))
        elif (default := read_number(quantity.get("value"))) is not None:
            value = default
        else:
            continue
        inputs[quantity["name"]] = (unit_text, value)
    return inputs
