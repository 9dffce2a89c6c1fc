"""Rate limits on what anyone can ask for repeatedly: accounts, reset mail, invitation links. Each counts in
the cache (interview/services/cache_counter.py, failing open) per subject, an address or a user, for a window
from its first count."""

import hashlib
import logging
from typing import NamedTuple

from django.core.cache import cache

from interview.services.cache_counter import cache_count

logger = logging.getLogger(__name__)


class RateLimit(NamedTuple):
    name: str
    limit: int
    window_s: int
    message: str


SIGN_UP = RateLimit("sign-up", 10, 3600, "Too many accounts made from your address: try again in an hour.")
PASSWORD_RESET = RateLimit(
    "password-reset", 10, 3600, "Too many reset requests from your address: try again in an hour."
)
# Per mail address, silent: the page must not reveal whether an address has an account.
PASSWORD_RESET_MAIL = RateLimit("password-reset-mail", 3, 3600, "")
INVITATION_LINK = RateLimit(
    "invitation-link", 20, 3600, "You made 20 invitation links in the last hour: try again later."
)
INVITATION_ACCEPT = RateLimit(
    "invitation-accept", 20, 600, "Too many invitation links tried: wait 10 minutes and try again."
)


ALL_LIMITS = (SIGN_UP, PASSWORD_RESET, PASSWORD_RESET_MAIL, INVITATION_LINK, INVITATION_ACCEPT)


def _key(limit: RateLimit, subject: str) -> str:
    return f"rate:{limit.name}:{hashlib.sha256(subject.strip().casefold().encode()).hexdigest()}"


def rate_limit_exceeded(*, limit: RateLimit, subject: str) -> bool:
    """Counts one more request by `subject` (an address, a user id, a mail address); True past the limit."""
    count = cache_count(_key(limit, subject), window_s=limit.window_s, what=f"{limit.name} rate limit")
    return count > limit.limit


def rate_limits_lift(*, subject: str) -> None:
    """Forgets every count of `subject` (an operator's unlock)."""
    try:
        cache.delete_many([_key(limit, subject) for limit in ALL_LIMITS])
    except Exception:
        logger.warning("rate limits: cache unavailable, counts not cleared", exc_info=True)
