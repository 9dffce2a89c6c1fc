"""The serving engine, run as a generic M/G/c queue, agrees with textbook queueing theory (DOMAIN.md §3)."""

from __future__ import annotations

import heapq
from types import SimpleNamespace

import numpy as np
import pytest

from grading.core.sim import run_scenario
from grading.core.sim.arrivals import poisson_arrivals, service_times
from grading.core.sim.queueing import FleetConfig, Requests, simulate_fleet


@pytest.fixture
def settings() -> SimpleNamespace:
    """Stands in for pytest-django's fixture that the root conftest's autouse hook asks for (no Django)."""
    return SimpleNamespace()


def erlang_c(servers: int, arrival_rate: float, mu: float) -> tuple[float, float]:
    """P(wait) and mean wait Wq of M/M/c, via the stable Erlang-B recursion."""
    offered = arrival_rate / mu
    blocking = 1.0
    for k in range(1, servers + 1):
        blocking = offered * blocking / (k + offered * blocking)
    rho = offered / servers
    p_wait = blocking / (1.0 - rho * (1.0 - blocking))
    return p_wait, p_wait / (servers * mu - arrival_rate)


def pollaczek_khinchine(arrival_rate: float, mu: float, cv2: float) -> float:
    """Mean wait of M/G/1: ρ(1 + c_s²) / (2μ(1 − ρ))."""
    rho = arrival_rate / mu
    return rho * (1.0 + cv2) / (2.0 * mu * (1.0 - rho))


def queue_summary(
    servers: int, arrival_rate: float, mu: float, cv2: float, duration_s: float, seed: int
) -> dict:
    params = {"servers": servers, "arrival_rate": arrival_rate, "mu": mu, "service_cv2": cv2}
    return run_scenario("serving", params, [], {}, duration_s, seed).summary


def test_the_engine_is_an_exact_fcfs_multiserver_queue():
    # the same arrivals and service times through the Kiefer–Wolfowitz recursion (a heap of free times)
    rng = np.random.default_rng(0)
    arrival = poisson_arrivals(8.0, 5_000, rng)
    service = service_times(1.0, 1.0, arrival.size, rng)
    zeros = np.zeros(arrival.size)
    requests = Requests(arrival, zeros.astype(int), service, zeros, zeros, zeros)
    run = simulate_fleet(FleetConfig(replicas=[10]), requests, [], 5_000, rng, sample_dt=50)
    free = [0.0] * 10
    expected = np.empty(arrival.size)
    for i, t in enumerate(arrival):
        begin = max(heapq.heappop(free), t)
        expected[i] = begin
        heapq.heappush(free, begin + service[i])
    started = ~np.isnan(run.start)
    assert started.sum() >= arrival.size - 20
    assert np.array_equal(run.start[started], expected[started])


def test_an_mmc_queue_matches_the_erlang_c_mean_wait_within_3_percent_and_p_wait_within_002():
    p_wait, wq = erlang_c(10, 8.0, 1.0)
    # 6 seeds × 240k requests: one seed's mean wait has a relative sd of ~2.5%, the mean of six ~1%
    runs = [queue_summary(10, 8.0, 1.0, 1.0, 30_000, seed) for seed in range(6)]
    assert abs(np.mean([r["wait_mean_s"] for r in runs]) - wq) / wq <= 0.03
    assert abs(np.mean([r["p_wait"] for r in runs]) - p_wait) <= 0.02


def test_an_md1_queue_matches_pollaczek_khinchine_and_waits_half_as_long_as_mm1():
    md1 = queue_summary(1, 0.7, 1.0, 0.0, 300_000, seed=3)["wait_mean_s"]
    mm1 = queue_summary(1, 0.7, 1.0, 1.0, 300_000, seed=3)["wait_mean_s"]
    assert abs(md1 - pollaczek_khinchine(0.7, 1.0, 0.0)) / pollaczek_khinchine(0.7, 1.0, 0.0) <= 0.03
    assert abs(mm1 - pollaczek_khinchine(0.7, 1.0, 1.0)) / pollaczek_khinchine(0.7, 1.0, 1.0) <= 0.05
    assert 0.45 <= md1 / mm1 <= 0.55


def test_a_heavy_tailed_mg1_queue_matches_pollaczek_khinchine_within_5_percent():
    wait = np.mean([queue_summary(1, 0.5, 1.0, 4.0, 300_000, seed)["wait_mean_s"] for seed in range(3)])
    expected = pollaczek_khinchine(0.5, 1.0, 4.0)
    assert abs(wait - expected) / expected <= 0.05


def test_littles_law_holds_within_1_percent_on_a_simulated_path():
    duration = 20_000.0
    summary = queue_summary(8, 6.0, 1.0, 0.5, duration, seed=5)
    measured_rate = summary["arrivals"] / duration
    assert (
        abs(summary["in_system_mean"] - measured_rate * summary["e2e_mean_s"]) / summary["in_system_mean"]
        <= 0.01
    )


def test_littles_law_holds_for_an_llm_fleet_with_batching():
    params = {"arrival_rate": 20, "replicas": 4, "max_batch": 16, "tpot_s": 0.03, "output_tokens": 200}
    duration = 3_000.0
    summary = run_scenario("serving", params, [], {}, duration, seed=6).summary
    measured_rate = summary["arrivals"] / duration
    assert (
        abs(summary["in_system_mean"] - measured_rate * summary["e2e_mean_s"]) / summary["in_system_mean"]
        <= 0.01
    )
