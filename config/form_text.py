"""Text no database column can hold is refused where it enters: a NUL character in any submitted form field
or query parameter answers 400 naming the field, instead of a psycopg DataError (a 500) deep in a view.

An htmx form gets the short plain-text refusal static/js/app.js shows next to it; a plain form gets a page
with the message and a way back (the browser keeps what was typed). The API's serializers refuse NUL
themselves."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme

NUL = "\x00"


def unstorable_field(data: QueryDict) -> str | None:
    for name, values in data.lists():
        if NUL in name or any(isinstance(value, str) and NUL in value for value in values):
            return name.replace(NUL, "")
    return None


def refusal_message(field: str) -> str:
    return f"“{field}” contains a NUL character (\\0), which cannot be stored. Remove it and send again."


class UnstorableTextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            return self.get_response(request)
        field = unstorable_field(request.GET)
        if field is None and request.method == "POST" and request.content_type != "application/json":
            field = unstorable_field(request.POST)
        if field is None:
            return self.get_response(request)
        message = refusal_message(field)
        if request.headers.get("HX-Request") == "true":
            return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
        referer = request.headers.get("Referer", "")
        back = referer if url_has_allowed_host_and_scheme(referer, {request.get_host()}) else "/"
        return render(request, "form_refused.html", {"message": message, "back": back}, status=400)
