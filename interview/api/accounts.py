"""API tokens for scripts: a username and password for a token, with the log-in page's lockout."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.service_errors import ErrorSerializer
from interview.forms_login import LockoutAuthenticationForm
from interview.services.api_tokens import TokenRefused, api_token_issue

TOKEN = inline_serializer("ApiToken", {"token": serializers.CharField()})


class TokenInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


TOKEN_DESCRIPTION = (
    "Trade a username and password for an API token, for scripts: send `Authorization: Token <key>` on every "
    "later request. Asking again returns the same token while the password stays the same. A token stops "
    "working when the password changes (the page, a reset link, an admin) and when the user logs out "
    "everywhere. Wrong passwords count towards the log-in page's lockout (per account and address, per "
    "account, per address) and a locked account answers 400 with the lockout's message."
)


class TokenApi(APIView):
    """Username and password for a token; the log-in page's lockout applies."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    @extend_schema(
        summary="Get an API token",
        description=TOKEN_DESCRIPTION,
        request=TokenInput,
        responses={200: TOKEN, 400: ErrorSerializer},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        form = LockoutAuthenticationForm(request._request, data=data.validated_data)
        if not form.is_valid():
            raise TokenRefused(
                " ".join(str(error) for error in form.non_field_errors()) or "Wrong username or password."
            )
        return Response({"token": api_token_issue(user=form.get_user())})
