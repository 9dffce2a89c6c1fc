"""API tokens bound to the password: a token's key is a nonce and an HMAC of the nonce with the user's
password hash, so any password change (the page, a reset link, the admin, the shell) makes every older token
fail, as Django's session hash does for sessions. Logging out everywhere deletes them outright."""

from django.contrib.auth.models import User
from django.utils.crypto import constant_time_compare, get_random_string, salted_hmac
from rest_framework.authtoken.models import Token

from config.service_errors import ServiceError

NONCE_LENGTH = 20


class TokenRefused(ServiceError):
    """A wrong username or password, or a locked account: no token."""

    status = 400


_HEX = "0123456789abcdef"


def _key_for(*, user: User, nonce: str) -> str:
    mac = salted_hmac("sevenbox.api-token", f"{nonce}{user.password}", algorithm="sha256").hexdigest()
    return nonce + mac[: 40 - NONCE_LENGTH]


def api_token_is_current(*, token: Token) -> bool:
    expected = _key_for(user=token.user, nonce=token.key[:NONCE_LENGTH])
    return constant_time_compare(token.key, expected)


def api_token_issue(*, user: User) -> str:
    """The user's token; the same one while the password stays the same, a new one after a change."""
    token = Token.objects.filter(user=user).first()
    if token is not None and api_token_is_current(token=token):
        return token.key
    Token.objects.filter(user=user).delete()
    key = _key_for(user=user, nonce=get_random_string(NONCE_LENGTH, _HEX))
    return Token.objects.create(user=user, key=key).key


def api_tokens_revoke(*, user: User) -> int:
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted
