"""Links into the drills from other pages: a question's steps, with a report's missed lines first."""

from urllib.parse import urlencode

from django import template
from django.urls import reverse

register = template.Library()


@register.simple_tag
def drill_steps_url(slug: str, report: dict | None = None) -> str:
    """The question's drill page; with a graded report, the lines it did not mark correct come first."""
    url = reverse("drill-question", args=[slug])
    missed = [line["name"] for line in (report or {}).get("lines", []) if line.get("verdict") != "correct"]
    return f"{url}?{urlencode({'first': ','.join(missed)})}" if missed else url
