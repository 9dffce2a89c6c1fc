"""API tokens for scripts: a username and password for a token, with the log-in page's lockout."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from interview.forms_login import LockoutAuthenticationForm

TOKEN = inline_serializer("ApiToken", {"token": serializers.CharField()})
TOKEN_REFUSED = inline_serializer("ApiTokenRefused", {"error": serializers.CharField()})


class TokenInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class TokenApi(APIView):
    """`Authorization: Token <key>` on every later request. Asking again returns the same token."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    @extend_schema(request=TokenInput, responses={200: TOKEN, 400: TOKEN_REFUSED})
    def post(self, request: Request) -> Response:
        data = TokenInput(data=request.data)
        if not data.is_valid():
            return Response({"error": "Give a username and a password."}, status=status.HTTP_400_BAD_REQUEST)
        form = LockoutAuthenticationForm(request._request, data=data.validated_data)
        if not form.is_valid():
            message = (
                " ".join(str(error) for error in form.non_field_errors()) or "Wrong username or password."
            )
            return Response({"error": message}, status=status.HTTP_400_BAD_REQUEST)
        token, _ = Token.objects.get_or_create(user=form.get_user())
        return Response({"token": token.key})
