"""The parts of the small questions core tests write by hand, as a question file spells them (plain dicts)."""


def an_input(
    name: str, value: float, unit: str, bounds: list[float], *, label: str = "", source: str = "cfg"
) -> dict:
    """An assumption with its plausible range; the label defaults to the name in title case."""
    return {
        "name": name,
        "label": label or name.title(),
        "value": value,
        "unit": unit,
        "range": bounds,
        "source": source,
    }


def derived(name: str, formula: str, unit: str, *, label: str = "") -> dict:
    """A line worked out from others by `formula`."""
    return {"name": name, "label": label or name.title(), "formula": formula, "unit": unit}


def plan(*phases: tuple[str, float, str]) -> list[dict]:
    """The 45-minute plan from (phase, minutes, what is expected) rows."""
    return [{"phase": phase, "minutes": minutes, "expect": expect} for phase, minutes, expect in phases]
