"""Verdicts add up, in every family: each SLO check agrees with its own actual and target, the narrative
states each check with the same verdict, and a serving run's counts add up to its arrivals, so that a
narrative can never report requests lost while a check on the share not served passes."""

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.replay_inputs import replay_inputs, replay_seed
from grading.core.sim import run_scenario
from grading.core.sim.queueing import TIMED_OUT, FleetConfig, Requests, simulate_fleet
from grading.core.sim.slo_words import is_upper, slo_sentence

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"
SHARE_KEYS = {"rejected_max_frac", "timed_out_max_frac", "failed_max_frac", "dropped_max_frac"}


@cache
def reference_entries() -> list[dict]:
    entries = []
    for path in sorted(BANK.glob("*.yaml")):
        entries.extend(replay_inputs(spec_to_dict(load_question(path)), side="reference"))
    return entries


def run(entry: dict):
    return run_scenario(
        entry["family"],
        entry["params"],
        entry["events"],
        entry["slo"],
        entry["duration_s"],
        replay_seed(1, entry["scenario"]),
    )


# Serving runs here stop two minutes after their last event has ended (ten minutes in without events): the
# checks and the narrative are the same code whatever the length, and a whole reference run of the per-step
# engine costs up to 25 s.
AFTER_THE_LAST_EVENT_S = 120.0
WITHOUT_EVENTS_S = 600.0


def shortened(entry: dict) -> dict:
    if entry["family"] != "serving":
        return entry
    ends = [event["at"] + event.get("duration", 0) for event in entry["events"]]
    horizon = max(ends) + AFTER_THE_LAST_EVENT_S if ends else WITHOUT_EVENTS_S
    return {**entry, "duration_s": min(entry["duration_s"], horizon)}


@pytest.mark.parametrize("entry", reference_entries(), ids=lambda entry: entry["scenario"])
def test_every_bank_scenarios_checks_and_narrative_agree(entry):
    result = run(shortened(entry))
    assert {check["key"] for check in result.slo_checks} == set(entry["slo"])
    for check in result.slo_checks:
        actual, target = check["actual"], check["target"]
        if np.isnan(actual):
            assert check["passed"] is False and check["reason"]
        else:
            assert check["passed"] == (
                actual <= target + 1e-9 if is_upper(check["key"]) else actual >= target - 1e-9
            )
        assert slo_sentence(check) in result.narrative  # the narrative says the same verdict, in words
    assert result.passed == all(check["passed"] for check in result.slo_checks)
    if entry["family"] == "serving":
        s = result.summary
        outcomes = s["served"] + s["rejected"] + s["timed_out"] + s["failed"] + s["unfinished"]
        assert outcomes == s["arrivals"]
        not_served = s["rejected"] + s["timed_out"] + s["failed"] + s["unfinished"]
        for check in result.slo_checks:
            if check["key"] in SHARE_KEYS:
                assert check["actual"] == pytest.approx(not_served / s["arrivals"])
        text = " ".join(result.narrative)
        assert f"Served {s['served']:,} of {s['arrivals']:,} requests" in text
        if not_served:
            assert f"{not_served:,} of {s['arrivals']:,} requests" in text


def test_the_reference_run_of_two_replicas_fail_at_once_reports_no_timeout_before_the_failure():
    entry = next(e for e in reference_entries() if e["scenario"] == "lose-two-replicas")
    (loss,) = entry["events"]
    result = run(entry)
    series = result.series
    before = [count for t, count in zip(series["t"], series["timed_out"], strict=True) if t < loss["at"]]
    assert sum(before) == 0
    assert not any("timed out" in line and f"to t={loss['at']:.0f} s" in line for line in result.narrative)


def test_a_retried_requests_queue_timeout_counts_from_when_it_was_queued_again():
    # one slot; request 0 is served from t=0, request 1 waits from t=1 and times out at t=31; the replica
    # dies at t=50 and request 0 is retried with nowhere to run: it times out 30 s after it was queued again
    # (t=80), not 30 s after it first arrived (t=30, before the failure)
    cfg = FleetConfig(replicas=[1], max_batch=1, queue_timeout_s=30.0)
    two = np.array([0.0, 1.0])
    req = Requests(two, np.zeros(2, dtype=np.int64), np.full(2, 100.0), np.zeros(2), np.zeros(2), np.zeros(2))
    loss = [{"type": "replica_loss", "at": 50.0, "count": 1, "region": 0}]
    out = simulate_fleet(cfg, req, loss, 200.0, np.random.default_rng(1), sample_dt=1.0)
    assert out.status.tolist() == [TIMED_OUT, TIMED_OUT]
    assert out.finish.tolist() == [80.0, 31.0]
    assert out.retries.tolist() == [1, 0]
