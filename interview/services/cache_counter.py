"""A counter in the cache (Redis) that fails open: rate limits and lockouts count with it, and while the cache
is unreachable they count nothing and log it, rather than failing every request."""

import logging

from django.core.cache import cache

logger = logging.getLogger(__name__)


def cache_count(key: str, *, window_s: int, what: str) -> int:
    """Adds one to `key`, which expires `window_s` after its first count; returns the new count, or 0 when
    the cache is unreachable (`what` names the counter in the warning)."""
    try:
        cache.add(key, 0, timeout=window_s)
        try:
            return cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=window_s)
            return 1
    except Exception:  # noqa: BLE001 - any cache failure: fail open
        logger.warning("%s: cache unavailable, not counted", what, exc_info=True)
        return 0
