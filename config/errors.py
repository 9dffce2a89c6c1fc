"""The 404 answer: JSON under /api/ in the API's one error shape (what API clients parse), a short message
to htmx (static/js/app.js shows it next to the form), the usual page everywhere else."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found

from config.service_errors import error_body


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("Not found.", "not_found"), status=404)
    if request.headers.get("HX-Request") == "true":
        return HttpResponse(
            "That is not here any more, or it is not yours.", status=404, content_type="text/plain"
        )
    return page_not_found(request, exception)
