"""The pipeline family: the slowest stage sets the pace; outages and buffers shape the backlog."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from grading.core.sim import run_scenario


@pytest.fixture
def settings() -> SimpleNamespace:
    """Stands in for pytest-django's fixture that the root conftest's autouse hook asks for (no Django)."""
    return SimpleNamespace()


STAGES = [
    {"name": "download", "throughput": 500.0, "buffer": 0.0},
    {"name": "tokenize", "throughput": 200.0, "buffer": 5000.0},
    {"name": "shard", "throughput": 400.0, "buffer": 5000.0},
]


def test_completion_time_matches_items_over_the_slowest_stage():
    result = run_scenario("pipeline", {"stages": STAGES, "items": 100_000}, [], {}, 1000, 1)
    assert result.summary["bottleneck"] == "tokenize"
    assert result.summary["completion_s"] == pytest.approx(100_000 / 200, rel=0.01)
    assert result.summary["analytic_completion_s"] == pytest.approx(500)


def test_a_slow_source_sets_the_pace_instead():
    params = {"stages": STAGES, "items": 50_000, "source_rate": 100}
    result = run_scenario("pipeline", params, [], {}, 1000, 1)
    assert result.summary["completion_s"] == pytest.approx(500, rel=0.01)


def test_flat_stage_parameters_work_like_the_list():
    flat = {
        "stage1_throughput": 500,
        "stage2_throughput": 200,
        "stage2_buffer": 5000,
        "stage3_throughput": 400,
    }
    result = run_scenario("pipeline", {**flat, "items": 100_000}, [], {}, 1000, 1)
    assert result.summary["bottleneck"] == "stage2"
    assert result.summary["completion_s"] == pytest.approx(500, rel=0.01)


def test_an_outage_of_the_bottleneck_delays_completion_by_its_length_and_fills_the_buffer():
    events = [{"at": 100, "type": "stage_outage", "stage": "tokenize", "duration": 60}]
    slo = {"completion_max_s": 520}
    result = run_scenario("pipeline", {"stages": STAGES, "items": 100_000}, events, slo, 1000, 1)
    assert result.summary["completion_s"] == pytest.approx(560, rel=0.01)
    assert result.summary["backlog_max"] == pytest.approx(5000, rel=0.01)
    assert not result.passed
    assert "tokenize stopped for 60 s" in " ".join(result.narrative)


def test_the_completion_slo_passes_when_there_is_time():
    result = run_scenario(
        "pipeline", {"stages": STAGES, "items": 100_000}, [], {"completion_max_s": 520}, 1000, 1
    )
    assert result.passed


def test_unfinished_work_is_reported_when_the_window_is_too_short():
    result = run_scenario(
        "pipeline", {"stages": STAGES, "items": 100_000}, [], {"completion_max_s": 520}, 300, 1
    )
    assert result.to_dict()["summary"]["completion_s"] is None
    assert result.summary["completed_items"] == pytest.approx(300 * 200, rel=0.02)
    assert not result.passed


def test_a_flat_stage_without_a_throughput_is_refused():
    with pytest.raises(ValueError, match="stage2_throughput missing"):
        run_scenario("pipeline", {"stage1_throughput": 10, "stage2_buffer": 5}, [], {}, 100, 1)
