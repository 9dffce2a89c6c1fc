"""Waiting in tests for something another thread, process or service does."""

import time
from collections.abc import Callable
from typing import Any


def wait_for(
    predicate: Callable[[], Any], *, timeout_s: float, interval_s: float = 0.1, what: str = "the condition"
) -> Any:
    """The predicate's first truthy value; AssertionError after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval_s)
    raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
