"""The server's half of the one way htmx forms show a refusal (static/js/app.js shows it next to the form)."""

from django.http import HttpResponse


def htmx_refusal(message: str, status: int = 400) -> HttpResponse:
    """A 4xx answer to an htmx request: a short plain-text message, never swapped into the page."""
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
