"""Arrival times of a non-homogeneous Poisson process with piecewise-constant rate changes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from grading.core.sim.family_specs import about


def rate_multiplier(
    t: np.ndarray,
    events: Sequence[dict[str, Any]],
    diurnal_amplitude: float = 0.0,
    diurnal_period_s: float = 86400.0,
) -> np.ndarray:
    """Multiplier of the base arrival rate at times `t` from burst and step events and the diurnal cycle."""
    t = np.asarray(t, dtype=float)
    factor = np.ones_like(t)
    if diurnal_amplitude:
        factor *= np.maximum(0.0, 1.0 + diurnal_amplitude * np.sin(2.0 * math.pi * t / diurnal_period_s))
    for event in events:
        if event["type"] == "step":
            factor = np.where(t >= event["at"], factor * event["factor"], factor)
        elif event["type"] == "burst":
            inside = (t >= event["at"]) & (t < event["at"] + event["duration"])
            factor = np.where(inside, factor * event["factor"], factor)
    return factor


MAX_RATE_CELLS = 200_000  # rate grid cells; a diurnal period far shorter than the run is refused, not gridded


def _rate_grid(
    duration_s: float, events: Sequence[dict[str, Any]], diurnal_amplitude: float, diurnal_period_s: float
) -> np.ndarray:
    """Edges of the cells on which the arrival rate is held constant."""
    edges = {0.0, float(duration_s)}
    for event in events:
        if event["type"] in ("step", "burst"):
            edges.add(event["at"])
            if event["type"] == "burst":
                edges.add(event["at"] + event["duration"])
    if diurnal_amplitude:
        cell = diurnal_period_s / 500.0
        if duration_s / cell > MAX_RATE_CELLS:
            raise ValueError(
                f"diurnal_period_s is {diurnal_period_s:.6g} s: a cycle that short over {duration_s:.6g} s "
                f"cannot be simulated (at least {500 * duration_s / MAX_RATE_CELLS:.6g} s)"
            )
        edges.update(np.arange(0.0, duration_s, cell).tolist())
    return np.array(sorted(e for e in edges if 0.0 <= e <= duration_s))


def _cell_means(
    rate: float,
    grid: np.ndarray,
    events: Sequence[dict[str, Any]],
    diurnal_amplitude: float,
    diurnal_period_s: float,
) -> np.ndarray:
    lengths = np.diff(grid)
    mids = grid[:-1] + lengths / 2.0
    return np.maximum(
        rate * rate_multiplier(mids, events, diurnal_amplitude, diurnal_period_s) * lengths, 0.0
    )


def expected_arrivals(
    rate: float,
    duration_s: float,
    events: Sequence[dict[str, Any]] = (),
    diurnal_amplitude: float = 0.0,
    diurnal_period_s: float = 86400.0,
) -> float:
    """The mean number of arrivals `poisson_arrivals` draws, computed without drawing them."""
    grid = _rate_grid(duration_s, events, diurnal_amplitude, diurnal_period_s)
    return float(_cell_means(rate, grid, events, diurnal_amplitude, diurnal_period_s).sum())


def check_arrival_cap(expected: float, cap: int, what: str, source: str) -> None:
    """Refuse, before anything is drawn, a run whose mean count alone is over `cap` (memory stays bounded)."""
    if not expected <= cap:
        raise ValueError(
            f"{what}: {source} gives about {about(expected)} over the run, more than the {cap:,} one replay "
            "may simulate"
        )


def poisson_arrivals(
    rate: float,
    duration_s: float,
    rng: np.random.Generator,
    events: Sequence[dict[str, Any]] = (),
    diurnal_amplitude: float = 0.0,
    diurnal_period_s: float = 86400.0,
) -> np.ndarray:
    """Sorted arrival times in [0, duration_s) for `rate` shaped by burst/step events and a diurnal cycle.

    The rate is constant between event edges (exact); with a diurnal cycle it is held constant on a grid of
    1/500 of the period as well.
    """
    grid = _rate_grid(duration_s, events, diurnal_amplitude, diurnal_period_s)
    counts = rng.poisson(_cell_means(rate, grid, events, diurnal_amplitude, diurnal_period_s))
    lengths = np.diff(grid)
    starts = np.repeat(grid[:-1], counts)
    widths = np.repeat(lengths, counts)
    times = starts + rng.random(starts.size) * widths
    return np.sort(times)


def gamma_lengths(mean: float, cv: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """`n` positive integer lengths with the given mean and coefficient of variation (gamma; cv 0 = fixed)."""
    if cv * cv < 1e-12:  # fixed (a spread this small would overflow the gamma's shape)
        return np.full(n, max(1.0, round(mean)))
    shape = 1.0 / (cv * cv)
    return np.maximum(1.0, np.round(rng.gamma(shape, mean / shape, n)))


def service_times(mean: float, cv2: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """`n` service times with the given mean and squared CV: 1 exponential, 0 deterministic, else gamma."""
    if cv2 < 1e-12:  # deterministic (a spread this small would overflow the gamma's shape)
        return np.full(n, mean)
    if cv2 == 1.0:
        return rng.exponential(mean, n)
    shape = 1.0 / cv2
    return rng.gamma(shape, mean / shape, n)
