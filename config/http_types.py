"""Request types for type checking views: Django and DRF build the plain classes at run time; these say what
the middleware and the permission in front of a view guarantee about them."""

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails
from rest_framework.request import Request


class HtmxRequest(HttpRequest):
    """A request through django-htmx's middleware (settings.MIDDLEWARE): `request.htmx` is set."""

    htmx: HtmxDetails


class AuthedRequest(HtmxRequest):
    """A request behind `login_required`: `request.user` is a signed-in User."""

    user: User


class AuthedApiRequest(Request):
    """A DRF request behind IsAuthenticated (the default permission): `request.user` is a signed-in User."""

    user: User
