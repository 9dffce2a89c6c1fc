"""How the numbers sheet reads an entry ("read as 327,680 B/tok"), without saying whether it is right."""

import math
from typing import Any

from grading.core.model import read_limit, read_number
from grading.core.quantity_text import ParseFailure, alike_counts, count_ratios, read_on_line
from grading.core.report_text import format_quantity
from grading.core.review_check import FIXED_PREFIX
from grading.core.units import from_base, parse_unit


def describe_reading(spec: dict, name: str, text: str) -> dict:
    """`{"state": "empty"|"read"|"unread", "message": ...}` for one sheet entry of a question version (a
    review's fixed-sheet entry, "fixed--NAME", is read in NAME's unit)."""
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
    per_replica: dict[str, Any] = next(
        (q for q in spec["model"]["quantities"] if q["name"] == "gpus_per_replica"), {}
    )
    alike = alike_counts(per_replica.get("value"))
    # "31 GB per node" on a per-GPU line: converted by the question's GPUs per node, as the grader does.
    ratios = count_ratios(
        (q.get("unit", ""), value)
        for q in spec["model"]["quantities"]
        if "formula" not in q and (value := read_number(q.get("value"))) is not None
    )
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
