"""Login lockout: failed log-ins are counted per (username, client address) in the cache for a window.

After `LOGIN_FAILURE_LIMIT` failures within `LOCKOUT_WINDOW_SECONDS` that pair is refused, even with the
right password, until the window ends. A success clears the count. The count lives in the cache (Redis in
production); when the cache is unreachable the lockout is skipped and logged rather than refusing all log-ins.
"""

import hashlib
import logging

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

from interview.services.cache_counter import cache_count

logger = logging.getLogger(__name__)

LOCKOUT_WINDOW_SECONDS = 15 * 60
LOCKOUT_MESSAGE = (
    "Too many failed log-ins for this account from your address. "
    "Try again in 15 minutes, or reset your password."
)


def client_address(request: HttpRequest | None) -> str:
    # REMOTE_ADDR is what gunicorn saw; behind a proxy it must pass the client's address (docs/security.md).
    return (request.META.get("REMOTE_ADDR") if request is not None else None) or "unknown"


def _key(*, username: str, address: str) -> str:
    digest = hashlib.sha256(f"{username.strip().casefold()}\0{address}".encode()).hexdigest()
    return f"login-failures:{digest}"


def login_failure_count(*, username: str, address: str) -> int:
    try:
        return int(cache.get(_key(username=username, address=address)) or 0)
    except Exception:  # the cache is down: do not lock anyone out because of it
        logger.warning("login lockout: cache unavailable, count not read", exc_info=True)
        return 0


def login_is_locked(*, username: str, address: str) -> bool:
    return login_failure_count(username=username, address=address) >= settings.LOGIN_FAILURE_LIMIT


def login_failure_record(*, username: str, address: str) -> int:
    """Counts one failure; the window starts at the first failure and is not extended by later ones."""
    key = _key(username=username, address=address)
    return cache_count(key, window_s=LOCKOUT_WINDOW_SECONDS, what="login lockout")


def login_failures_clear(*, username: str, address: str) -> None:
    try:
        cache.delete(_key(username=username, address=address))
    except Exception:
        logger.warning("login lockout: cache unavailable, count not cleared", exc_info=True)
