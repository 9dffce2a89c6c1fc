"""Login lockout: failed log-ins are counted in the cache for a window, three ways, so that guessing is
stopped and nobody can lock the real user out.

- per (username, client address): `LOGIN_FAILURE_LIMIT` failures lock that pair, even with the right password;
- per username from anywhere: `LOGIN_ACCOUNT_FAILURE_LIMIT` failures lock the account for every browser that
  has not logged in to it before, so an attacker with many addresses gets no more guesses than that;
- per client address over all usernames: `LOGIN_ADDRESS_FAILURE_LIMIT` failures stop password spraying.

A browser that has logged in to the account carries a signed device cookie and passes the last two locks, so
the real user keeps a way in; a new browser waits out the window or resets the password (the reset logs in and
leaves the cookie). A success clears only its own pair's count. The counts live in the cache (Redis in
production); when the cache is unreachable the lockout is skipped and logged rather than refusing all log-ins.
The client address comes from config/client_address.py (trusted proxies only).
"""

import hashlib
import logging
from enum import StrEnum

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from interview.services.cache_counter import cache_count

logger = logging.getLogger(__name__)

LOCKOUT_WINDOW_SECONDS = 15 * 60
DEVICE_COOKIE = "sevenbox_device"
DEVICE_COOKIE_SALT = "login-device"
DEVICE_COOKIE_MAX_AGE_S = 180 * 24 * 3600


class Lock(StrEnum):
    PAIR = "locked_out"
    ACCOUNT = "account_locked_out"
    ADDRESS = "address_locked_out"


LOCK_MESSAGES = {
    Lock.PAIR: (
        "Too many failed log-ins for this account from your address. "
        "Try again in 15 minutes, or reset your password."
    ),
    Lock.ACCOUNT: (
        "Too many failed log-ins for this account from many places, so it only opens from a browser that has "
        "logged in to it before. Try again in 15 minutes, or reset your password: the link in the mail logs "
        "you in."
    ),
    Lock.ADDRESS: "Too many failed log-ins from your address. Try again in 15 minutes.",
}
LOCKOUT_MESSAGE = LOCK_MESSAGES[Lock.PAIR]


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _username(username: str) -> str:
    return username.strip().casefold()


def _keys(*, username: str, address: str) -> dict[Lock, str]:
    name = _username(username)
    return {
        Lock.PAIR: f"login-failures:{_digest(name, address)}",
        Lock.ACCOUNT: f"login-failures:account:{_digest(name)}",
        Lock.ADDRESS: f"login-failures:address:{_digest(address)}",
    }


def _limits() -> dict[Lock, int]:
    return {
        Lock.PAIR: settings.LOGIN_FAILURE_LIMIT,
        Lock.ACCOUNT: settings.LOGIN_ACCOUNT_FAILURE_LIMIT,
        Lock.ADDRESS: settings.LOGIN_ADDRESS_FAILURE_LIMIT,
    }


def _counts(*, username: str, address: str) -> dict[Lock, int]:
    keys = _keys(username=username, address=address)
    try:
        stored = cache.get_many(list(keys.values()))
    except Exception:  # the cache is down: do not lock anyone out because of it
        logger.warning("login lockout: cache unavailable, count not read", exc_info=True)
        stored = {}
    return {lock: int(stored.get(key) or 0) for lock, key in keys.items()}


def login_failure_count(*, username: str, address: str) -> int:
    return _counts(username=username, address=address)[Lock.PAIR]


def login_lock(*, username: str, address: str, known_device: bool) -> Lock | None:
    """The lock that refuses this attempt, or None; a known device passes the account and address locks."""
    counts = _counts(username=username, address=address)
    limits = _limits()
    for lock in (Lock.PAIR, Lock.ACCOUNT, Lock.ADDRESS):
        if known_device and lock is not Lock.PAIR:
            continue
        if counts[lock] >= limits[lock]:
            return lock
    return None


def login_is_locked(*, username: str, address: str) -> bool:
    return login_lock(username=username, address=address, known_device=False) is not None


def login_failure_record(*, username: str, address: str) -> int:
    """Counts one failure three ways; each window starts at its first failure and is not extended by later
    ones. Returns the (username, address) pair's count."""
    keys = _keys(username=username, address=address)
    window_s = LOCKOUT_WINDOW_SECONDS
    counts = {lock: cache_count(key, window_s=window_s, what="login lockout") for lock, key in keys.items()}
    return counts[Lock.PAIR]


def login_failures_clear(*, username: str, address: str) -> None:
    """After a success: the pair's count only (clearing the others would hand an attacker new guesses)."""
    try:
        cache.delete(_keys(username=username, address=address)[Lock.PAIR])
    except Exception:
        logger.warning("login lockout: cache unavailable, count not cleared", exc_info=True)


def login_account_failures_clear(*, username: str) -> None:
    """After a password reset: the account-wide count (the mail proved the owner)."""
    try:
        cache.delete(_keys(username=username, address="")[Lock.ACCOUNT])
    except Exception:
        logger.warning("login lockout: cache unavailable, count not cleared", exc_info=True)


def login_lockout_lift(*, username: str, address: str) -> None:
    """Forgets all three counts that touch this username and address (an operator's unlock)."""
    try:
        cache.delete_many(list(_keys(username=username, address=address).values()))
    except Exception:
        logger.warning("login lockout: cache unavailable, counts not cleared", exc_info=True)


def login_device_is_known(*, request: HttpRequest | None, username: str) -> bool:
    if request is None or not username:
        return False
    remembered = request.get_signed_cookie(
        DEVICE_COOKIE, default=None, salt=DEVICE_COOKIE_SALT, max_age=DEVICE_COOKIE_MAX_AGE_S
    )
    return remembered == _username(username)


def login_device_remember(*, response: HttpResponse, username: str) -> None:
    response.set_signed_cookie(
        DEVICE_COOKIE,
        _username(username),
        salt=DEVICE_COOKIE_SALT,
        max_age=DEVICE_COOKIE_MAX_AGE_S,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
