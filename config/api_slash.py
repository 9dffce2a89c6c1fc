"""Every API URL ends with a slash. The old slash-less forms (`/api/rounds/1/save` and the like, before the
convention) still work: such a path is answered as if the slash were there, without a redirect, so a POST
keeps its body. The schema lists only the slashed form."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


class ApiTrailingSlashMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info
        slashless = path.startswith("/api/") and not path.endswith("/")
        if slashless and not _resolves(path) and _resolves(path + "/"):
            request.path_info = path + "/"
            request.path = request.path + "/"
        return self.get_response(request)
