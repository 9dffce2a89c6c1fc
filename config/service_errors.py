"""The one base of the refusals services raise, and the API's answer to one no view caught.

A service refuses with a subclass of `ServiceError`: its message is shown to the person, its `status` is the
HTTP status the boundary answers with (one attribute name for every service)."""

from typing import Any

from rest_framework.response import Response
from rest_framework.views import exception_handler


class ServiceError(Exception):
    """A refusal with a message for the person; `status` is the HTTP status to answer with."""

    status: int = 400


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus a refusal a service raised and the view let through: `{"detail": message}` with
    the error's status, never a 500."""
    if isinstance(exc, ServiceError):
        return Response({"detail": str(exc)}, status=exc.status)
    return exception_handler(exc, context)
