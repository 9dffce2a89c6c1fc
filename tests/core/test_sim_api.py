"""The simulator's public surface: families, validation, determinism, serialisation and progress."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from grading.core.sim import FAMILIES, ScenarioResult, run_scenario


@pytest.fixture
def settings() -> SimpleNamespace:
    """Stands in for pytest-django's fixture that the root conftest's autouse hook asks for (no Django)."""
    return SimpleNamespace()


README = Path(__file__).resolve().parents[2] / "grading" / "core" / "sim" / "README.md"

SMALL = {
    "serving": (
        {"arrival_rate": 20, "replicas": 4, "max_batch": 32},
        [{"at": 60, "type": "replica_loss", "count": 1}],
    ),
    "training": (
        {"gpus": 512, "work_s": 3 * 86400, "runs": 20},
        [{"at": 3600, "type": "node_failures", "count": 2}],
    ),
    "pipeline": ({"items": 1e5}, [{"at": 10, "type": "stage_outage", "stage": "transform", "duration": 20}]),
    "events": ({"event_rate": 50, "limit_tok_s": 40_000}, [{"at": 100, "type": "outage", "duration": 30}]),
}


def run_small(family: str, seed: int = 1, progress=None) -> ScenarioResult:
    params, events = SMALL[family]
    duration = 86400.0 if family == "training" else 600.0
    return run_scenario(family, params, events, {}, duration, seed, progress)


def test_every_family_documents_its_parameters_events_and_slo_keys():
    assert set(FAMILIES) == {"serving", "training", "pipeline", "events"}
    for spec in FAMILIES.values():
        assert spec.params and spec.events and spec.slo
        for param in spec.params:
            assert param.name and param.description and param.default is not None


def test_the_readme_documents_every_parameter_event_type_and_slo_key():
    text = README.read_text()
    documented = set(re.findall(r"`([a-z0-9_]+)`", text))
    for spec in FAMILIES.values():
        for name in [p.name for p in spec.params] + [e.type for e in spec.events] + [s.key for s in spec.slo]:
            assert name in documented, f"{spec.name}: {name} is missing from README.md"


@pytest.mark.parametrize("family", sorted(SMALL))
def test_the_same_inputs_and_seed_give_the_same_result(family):
    first = json.dumps(run_small(family, seed=7).to_dict(), sort_keys=True)
    again = json.dumps(run_small(family, seed=7).to_dict(), sort_keys=True)
    assert first == again


@pytest.mark.parametrize("family", ["serving", "training", "events"])
def test_a_different_seed_gives_a_different_path(family):
    assert run_small(family, seed=1).to_dict()["summary"] != run_small(family, seed=2).to_dict()["summary"]


@pytest.mark.parametrize("family", sorted(SMALL))
def test_the_result_is_json_serialisable_with_short_series_on_a_common_axis(family):
    data = run_small(family).to_dict()
    json.dumps(data, allow_nan=False)
    series = data["series"]
    assert 2 <= len(series["t"]) <= 300
    assert all(len(values) == len(series["t"]) for values in series.values())
    assert data["narrative"] and all(isinstance(line, str) for line in data["narrative"])


@pytest.mark.parametrize("family", sorted(SMALL))
def test_progress_is_reported_in_chunks_up_to_one(family):
    seen: list[float] = []
    run_small(family, progress=seen.append)
    assert len(seen) >= 2
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0)


def test_a_progress_callback_can_cancel_a_run():
    class Cancelled(Exception):
        pass

    def cancel(fraction: float) -> None:
        if fraction > 0.3:
            raise Cancelled

    with pytest.raises(Cancelled):
        run_small("serving", progress=cancel)


@pytest.mark.parametrize(
    ("params", "events", "slo", "message"),
    [
        ({"replicaz": 3}, [], {}, "unknown parameter"),
        ({}, [{"at": 1, "type": "meteor"}], {}, "unknown type"),
        ({}, [{"at": 1, "type": "burst", "factor": 2}], {}, "duration"),
        ({}, [], {"ttft_p42_s": 1}, "unknown SLO key"),
    ],
)
def test_it_refuses_unknown_names_and_missing_event_fields(params, events, slo, message):
    with pytest.raises(ValueError, match=message):
        run_scenario("serving", params, events, slo, 60, 1)


def test_it_refuses_an_unknown_family():
    with pytest.raises(ValueError, match="unknown scenario family"):
        run_scenario("weather", {}, [], {}, 60, 1)


def test_slo_checks_report_target_actual_and_verdict():
    result = run_scenario(
        "serving", {"arrival_rate": 5}, [], {"ttft_p95_s": 2.0, "gpu_busy_min_frac": 0.99}, 300, 1
    )
    checks = {c["key"]: c for c in result.slo_checks}
    assert checks["ttft_p95_s"]["passed"] and not checks["gpu_busy_min_frac"]["passed"]
    assert not result.passed
    assert checks["ttft_p95_s"]["actual"] == pytest.approx(result.summary["ttft_p95_s"])


def test_it_refuses_a_replay_too_big_to_simulate():
    with pytest.raises(ValueError, match="more than"):
        run_scenario("serving", {"arrival_rate": 1e4}, [], {}, 3600, 1)
