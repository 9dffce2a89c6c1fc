from typing import Any

from django import template

register = template.Library()


@register.filter
def dict_get(mapping: Any, key: str) -> Any:
    """`{{ mapping|dict_get:key }}`: a dict lookup with a variable key; empty text when absent."""
    if not isinstance(mapping, dict):
        return ""
    value = mapping.get(key)
    return "" if value is None else value


@register.filter
def pairs(mapping: Any) -> list:
    """`{% for key, value in mapping|pairs %}`: a dict's items even when one of its keys is "items" (the
    template lookup `mapping.items` would read that key instead)."""
    return list(mapping.items()) if isinstance(mapping, dict) else []


@register.filter
def duration(seconds: Any) -> str:
    """Seconds as m:ss (or h:mm:ss)."""
    try:
        total = max(0, int(round(float(seconds))))
    except (TypeError, ValueError):
        return ""
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@register.filter
def verdict_words(verdict: Any) -> str:
    """A verdict code as people read it: "arithmetic_slip" -> "Arithmetic slip"."""
    from grading.core.verdicts import LABELS

    return LABELS.get(str(verdict), str(verdict))


@register.simple_tag
def bands_explained() -> str:
    """What a line's band means for its credit, from the grader's own constants."""
    from grading.core import verdicts as v
    from grading.core.report_text import format_percent

    inner = format_percent(v.INNER_BAND)
    magnitude, relative = (format_percent(v.LOOSE_CREDIT[kind]) for kind in ("magnitude", "relative"))
    return (
        f"Each line names its band. Inside “within 5%” or “within {inner}” a line is correct. A line "
        f"checked for its order of magnitude (“within 3×”) is correct within {inner} of what your inputs "
        f"imply and earns {magnitude} of its credit up to 3× away; a wide band (“within 30%”) is correct "
        f"within {inner} and earns {relative} beyond it."
    )


@register.simple_tag
def reference_rows(version) -> list[dict]:
    """Every quantity of a question version's model at its defaults, for authors and admins."""
    from grading.core.model import describe_model
    from grading.core.report_text import format_quantity
    from questions.services.grading import question_version_spec

    spec = question_version_spec(version)
    rows = describe_model(spec)
    for row in rows:
        row["display"] = format_quantity(row["value"], row["unit"])
        row["source"] = spec.model.quantity(row["name"]).source
    return rows
