"""How the numbers sheet reads an entry ("read as 327,680 B/tok"), without saying whether it is right."""

from grading.quantity_text import ParseFailure, parse_quantity, read_value
from grading.units import from_base, parse_unit


def _plain(value: float) -> str:
    if value != 0 and (abs(value) >= 1e15 or abs(value) < 1e-3):
        return f"{value:.4g}"
    if abs(value - round(value)) < 1e-9 * max(1.0, abs(value)):
        return f"{round(value):,}"
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


def describe_reading(spec: dict, name: str, text: str) -> dict:
    """`{"state": "empty"|"read"|"unread", "message": ...}` for one sheet entry of a question version."""
    quantity = next((q for q in spec["model"]["quantities"] if q["name"] == name), None)
    if quantity is None:
        return {"state": "unread", "message": "This question does not ask for that."}
    if not text.strip():
        return {"state": "empty", "message": ""}
    unit = parse_unit(quantity.get("unit", ""))
    value = read_value(text, unit)
    if isinstance(value, ParseFailure):
        return {"state": "unread", "message": f"Could not read this: {value.message}."}
    parsed = parse_quantity(text)
    shown = float(from_base(value, unit))
    unit_text = f" {unit.text}" if unit.text else ""
    message = f"Read as {_plain(shown)}{unit_text}"
    if not isinstance(parsed, ParseFailure):
        if parsed.dims is None and unit.text:
            message += " (no unit written, so the sheet's unit is assumed)"
        elif parsed.note:
            message += f" ({parsed.note})"
    return {"state": "read", "message": message}
