"""A serving replica's capacity on the engine: the highest steady arrival rate one replica sustains within a
latency SLO, found by bracketing and bisection over short seeded runs (issue 32's bank audit)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grading.core.sim.seeds import run_scenario_seeds

LATENCY_KEYS = (
    "ttft_p50_s",
    "ttft_p95_s",
    "ttft_p99_s",
    "tpot_p95_s",
    "tpot_p99_s",
    "e2e_p95_s",
    "e2e_p99_s",
)
# Past capacity the queue grows: requests still queued at the end of the window are "not served".
NOT_SERVED_MAX = 0.02
GROWTH = 1.25  # bracketing step
# The fleet around one replica, taken away: no autoscaler, warm pool, regions, fallback or admission limits.
ONE_REPLICA = {
    "replicas": 1.0,
    "regions": 1.0,
    "warm_pool": 0.0,
    "min_replicas": 0.0,
    "max_replicas": 0.0,
    "fallback_rate": 0.0,
    "users": 0.0,
    "queue_limit": None,
    "queue_timeout_s": None,
}


@dataclass(frozen=True)
class Capacity:
    """The highest rate found to be sustained (`rate`, req/s) and the lowest found not to be (`above`)."""

    rate: float
    above: float
    runs: int  # simulated runs the search took


def one_replica(params: Mapping[str, Any]) -> dict[str, Any]:
    """A serving scenario's parameters for one replica on its own at a steady rate."""
    return {**params, **ONE_REPLICA}


def latency_slo(slo: Mapping[str, float]) -> dict[str, float]:
    """The scenario's latency targets, and at most NOT_SERVED_MAX of arrivals left queued (overload)."""
    return {
        **{key: target for key, target in slo.items() if key in LATENCY_KEYS},
        "dropped_max_frac": NOT_SERVED_MAX,
    }


def sustains(
    params: Mapping[str, Any], slo: Mapping[str, float], rate: float, seeds: Sequence[int], duration_s: float
) -> bool:
    """Every seed's run at `rate` meets the SLO."""
    runs = run_scenario_seeds("serving", {**params, "arrival_rate": rate}, [], dict(slo), duration_s, seeds)
    return runs.met == runs.runs


def replica_capacity(
    params: Mapping[str, Any],
    slo: Mapping[str, float],
    *,
    guess: float,
    seeds: Sequence[int],
    duration_s: float,
    resolution: float = 0.02,
) -> Capacity:
    """The highest arrival rate one replica (`one_replica(params)`) sustains within `latency_slo(slo)` on
    every seed, to within `resolution` (relative): bracketed from `guess` by factors of GROWTH, then bisected.
    Raises ValueError when nothing down to guess / 1000 or up to guess x 1000 brackets it."""
    replica, targets = one_replica(params), latency_slo(slo)
    runs = 0

    def ok(rate: float) -> bool:
        nonlocal runs
        runs += len(seeds)
        return sustains(replica, targets, rate, seeds, duration_s)

    low, high = guess, guess
    if ok(guess):
        while ok(high := high * GROWTH):
            low = high
            if high > guess * 1000:
                raise ValueError(f"sustains more than {high:g} req/s: no capacity bracketed")
    else:
        while not ok(low := low / GROWTH):
            high = low
            if low < guess / 1000:
                raise ValueError(f"sustains not even {low:g} req/s: no capacity bracketed")
    while high / low - 1 > resolution:
        middle = (low * high) ** 0.5
        low, high = (middle, high) if ok(middle) else (low, middle)
    return Capacity(rate=low, above=high, runs=runs)
