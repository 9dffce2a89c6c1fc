"""A database that is restarting answers 503 with a message the autosave client shows and retries on.

Django turns an OperationalError or InterfaceError from a view into a 500 page; a save that fails because
PostgreSQL is restarting is neither the candidate's fault nor a bug, and the connection is replaced on the
next request (CONN_HEALTH_CHECKS), so the app itself needs no restart.
"""

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

RETRY_AFTER_S = 5
MESSAGE = "The database is restarting: your last change was not saved. Retrying…"
PAGE = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Back in a moment</title></head>"
    "<body><h1>Back in a moment</h1><p>The database is restarting: your last change was not saved. "
    "Reload this page in a few seconds.</p></body></html>"
)


def wants_json(request: HttpRequest) -> bool:
    accept = request.headers.get("Accept", "")
    return (
        request.path.startswith("/api/")
        or request.content_type == "application/json"
        or "application/json" in accept
        or request.headers.get("HX-Request") == "true"
    )


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.warning("database unavailable on %s %s: %s", request.method, request.path, exception)
        if wants_json(request):
            response: HttpResponse = JsonResponse({"error": MESSAGE, "retry": True}, status=503)
        else:
            response = HttpResponse(PAGE, status=503)
        response["Retry-After"] = str(RETRY_AFTER_S)
        response["Cache-Control"] = "no-store"
        return response
