from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config.health import healthz, ping


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    # Resolved per request: the manifest of hashed static names may not exist when URLs are imported.
    return HttpResponsePermanentRedirect(static("favicon.svg"))


# Swagger UI sets inline styles; scripts stay 'self'-only on this page too.
API_DOCS_CSP: dict[str, list[str]] = {**settings.SECURE_CSP, "style-src": [CSP.SELF, CSP.UNSAFE_INLINE]}

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("ping", ping, name="ping"),
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/docs/",
        csp_override(API_DOCS_CSP)(SpectacularSwaggerSplitView.as_view(url_name="api-schema")),
        name="api-docs",
    ),
    path("api/", include("interview.api.urls")),
    path("api/", include("drills.api_urls")),
    path("", include("drills.urls")),
    path("", include("interview.urls")),
]

handler404 = "config.errors.not_found"
