"""The training family: Young/Daly's optimum interval, goodput SLOs, spares and checkpoint bursts."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from grading.core.sim import run_scenario


@pytest.fixture
def settings() -> SimpleNamespace:
    """Stands in for pytest-django's fixture that the root conftest's autouse hook asks for (no Django)."""
    return SimpleNamespace()


MTBF_S = 36_000.0  # the whole job fails every 10 h on average
GPUS = 1000


def young_daly_params(interval_s: float) -> dict:
    return {
        "gpus": GPUS,
        "gpus_per_node": 8,
        "gpu_failure_rate_per_day": 86_400 / MTBF_S / GPUS,
        "ckpt_interval_s": interval_s,
        "ckpt_write_s": 30.0,
        "restart_s": 0.0,
        "spare_nodes": 1000,
        "repair_s": 0.0,
        "work_s": 1000 * 3600.0,
        "runs": 40,
    }


def test_the_best_checkpoint_interval_matches_young_daly_within_10_percent():
    optimum = math.sqrt(2 * 30.0 * MTBF_S)  # 1,470 s
    intervals = optimum * np.geomspace(0.4, 2.5, 15)
    # the same seed for every interval: common random numbers make the curve smooth
    finish = [
        run_scenario("training", young_daly_params(t), [], {}, 1.0, 11).summary["time_to_finish_s"]
        for t in intervals
    ]
    best = int(np.argmin(finish))
    assert 0 < best < len(intervals) - 1
    x = (
        np.log(intervals[best - 2 : best + 3])
        if 2 <= best <= len(intervals) - 3
        else np.log(intervals[best - 1 : best + 2])
    )
    y = np.array(finish)[[int(i) for i in np.searchsorted(np.log(intervals), x)]]
    a, b, _ = np.polyfit(x, y, 2)
    fitted = math.exp(-b / (2 * a))
    assert abs(fitted - optimum) / optimum <= 0.10
    assert run_scenario("training", young_daly_params(optimum), [], {}, 1.0, 11).summary[
        "young_daly_interval_s"
    ] == pytest.approx(optimum)


def test_goodput_slo_passes_with_spares_and_fails_without_them():
    base = {"gpus": 4096, "work_s": 7 * 86400, "runs": 60, "repair_s": 3 * 86400}
    with_spares = run_scenario("training", {**base, "spare_nodes": 16}, [], {"goodput_min": 0.9}, 1.0, 12)
    without = run_scenario("training", {**base, "spare_nodes": 0}, [], {"goodput_min": 0.9}, 1.0, 12)
    assert with_spares.passed and with_spares.summary["wait_for_repair_s"] == 0
    assert not without.passed and without.summary["wait_for_repair_s"] > 0
    assert any("waited" in line for line in without.narrative)


def test_goodput_is_work_over_wall_time_and_failures_match_the_rate():
    params = {"gpus": 8192, "work_s": 20 * 86400, "runs": 100, "spare_nodes": 100}
    summary = run_scenario("training", params, [], {}, 1.0, 13).summary
    assert summary["goodput"] == pytest.approx(np.mean(20 * 86400 / summary["time_to_finish_s"]), rel=0.05)
    expected_failures = 8192 * 4.74e-4 / 86400 * (20 * 86400)  # over the work; downtime adds no failures
    assert summary["failures"] == pytest.approx(
        expected_failures * summary["time_to_finish_s"] / (20 * 86400), rel=0.15
    )


def test_checkpoint_write_time_comes_from_bytes_over_storage_bandwidth():
    params = {"ckpt_bytes": 1e12, "storage_bw": 1e12 / 60, "work_s": 86400, "runs": 5}
    fast = run_scenario("training", params, [], {"ckpt_write_max_s": 60.0}, 1.0, 14)
    slow = run_scenario("training", {**params, "storage_bw": 5e9}, [], {"ckpt_write_max_s": 60.0}, 1.0, 14)
    assert fast.passed and fast.summary["ckpt_write_s"] == pytest.approx(60.0)
    assert not slow.passed and slow.summary["ckpt_write_s"] == pytest.approx(200.0)


def test_a_correlated_failure_of_several_nodes_is_counted_and_costs_work():
    params = {"gpus": 512, "gpu_failure_rate_per_day": 0.0, "work_s": 86400, "runs": 3, "spare_nodes": 8}
    quiet = run_scenario("training", params, [], {}, 1.0, 15).summary
    events = [{"at": 4000, "type": "node_failures", "count": 4}]
    hit = run_scenario("training", params, events, {}, 1.0, 15).summary
    assert quiet["failures"] == 0 and hit["failures"] == 4
    # two checkpoints done by t=3,720 s (30 min of work + 60 s write each): 280 s of work lost on 512 GPUs
    assert hit["lost_work_gpu_hours"] == pytest.approx(512 * (4000 - 2 * 1860) / 3600)
    assert hit["time_to_finish_s"] > quiet["time_to_finish_s"]
