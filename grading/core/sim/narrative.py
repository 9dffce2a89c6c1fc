"""Small helpers to write numbers and episodes in plain words."""

from __future__ import annotations

import math

import numpy as np


def num(value: float | None) -> str:
    """A number for prose: integers plainly, small values with 2–3 significant digits."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if abs(value) >= 100 or float(value).is_integer():
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def counted(value: float, noun: str) -> str:
    """A count with its noun in the number it needs: "1 replica", "3 replicas"."""
    return f"{num(value)} {noun if value == 1 else noun + 's'}"


def seconds(value: float | None) -> str:
    """A duration in seconds, or "n/a" alone where there is none (never "n/a s")."""
    text = num(value)
    return text if text == "n/a" else f"{text} s"


def at(t: float) -> str:
    """A simulated instant: 't=102 s'."""
    return f"t={num(round(t))} s"


def episodes(times: np.ndarray, gap_s: float) -> list[tuple[float, float, int]]:
    """Group sorted instants into (first, last, count) runs separated by more than `gap_s`."""
    times = np.sort(np.asarray(times, dtype=float))
    if times.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(times) > gap_s)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [times.size - 1]))
    return [(float(times[s]), float(times[e]), int(e - s + 1)) for s, e in zip(starts, ends, strict=True)]
