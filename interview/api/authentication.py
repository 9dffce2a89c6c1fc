from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from interview.services.api_tokens import api_token_is_current


class PasswordBoundTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, refused once the password has changed since the token was issued."""

    def authenticate_credentials(self, key: str):
        user, token = super().authenticate_credentials(key)
        if not api_token_is_current(token=token):
            raise AuthenticationFailed("Invalid token.")
        return user, token
