"""The events family: duplicates, losses and ledger error against closed forms; rate-limit settlement."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from grading.core.sim import run_scenario
from grading.core.sim.events import loss_probability


@pytest.fixture
def settings() -> SimpleNamespace:
    """Stands in for pytest-django's fixture that the root conftest's autouse hook asks for (no Django)."""
    return SimpleNamespace()


RATE, DURATION = 200.0, 1000.0


def stream(**params) -> dict:
    return {"event_rate": RATE, **params}


def within_sigmas(actual: float, n: int, p: float, sigmas: float = 4.0) -> bool:
    return abs(actual - n * p) <= sigmas * math.sqrt(n * p * (1 - p)) + 1


def test_without_idempotency_duplicates_are_billed_at_the_duplicate_rate():
    result = run_scenario("events", stream(idempotency=0, dup_prob=0.02, drop_prob=0.0), [], {}, DURATION, 1)
    s = result.summary
    assert within_sigmas(s["duplicates_applied"], s["events"], 0.02)
    assert s["ledger_error_frac"] == pytest.approx(0.02, abs=0.004)


def test_with_idempotency_keys_no_duplicate_is_billed():
    s = run_scenario("events", stream(idempotency=1, dup_prob=0.02), [], {}, DURATION, 1).summary
    assert s["duplicates_applied"] == 0 and s["duplicates_blocked"] > 0


def test_keys_that_expire_before_the_redelivery_let_duplicates_through():
    params = stream(idempotency=1, dup_prob=0.05, drop_prob=0.0, key_ttl_s=30, redelivery_delay_s=30)
    s = run_scenario("events", params, [], {}, DURATION, 2).summary
    assert within_sigmas(s["duplicates_applied"], s["events"], 0.05 * math.exp(-1))


def test_losses_after_retries_match_the_closed_form():
    params = stream(drop_prob=0.1, retry_prob=0.5, max_retries=2, dup_prob=0.0)
    s = run_scenario("events", params, [], {}, DURATION, 3).summary
    p_lost = loss_probability(0.1, 0.5, 2)
    assert p_lost == pytest.approx(0.1 * 0.5 + 0.1 * 0.5 * 0.1 * 0.5 + (0.1 * 0.5) ** 2 * 0.1)
    assert within_sigmas(s["lost"], s["events"], p_lost)


def test_a_broker_outage_longer_than_the_retry_budget_loses_events():
    params = stream(drop_prob=0.0, dup_prob=0.0, retry_prob=1.0, max_retries=3, retry_delay_s=5)
    events = [{"at": 200, "type": "outage", "duration": 60}]
    s = run_scenario("events", params, events, {"lost_max_frac": 0.0}, DURATION, 4)
    # an event sent in [200, 245) has all 4 attempts (0, 5, 10, 15 s later) inside the window
    assert s.summary["lost"] == pytest.approx(RATE * 45, rel=0.1)
    assert not s.passed


def test_a_consumer_replay_double_bills_without_keys_and_not_with_them():
    events = [{"at": 500, "type": "replay", "duration": 60}]
    without = run_scenario(
        "events", stream(idempotency=0, dup_prob=0.0), events, {"ledger_error_max_frac": 0.01}, DURATION, 5
    )
    with_keys = run_scenario(
        "events", stream(idempotency=1, dup_prob=0.0), events, {"ledger_error_max_frac": 0.01}, DURATION, 5
    )
    assert without.summary["duplicates_applied"] == pytest.approx(RATE * 60, rel=0.1)
    assert not without.passed and with_keys.passed


def limiter(**params) -> dict:
    base = {"event_rate": 50.0, "tokens_per_event": 1000, "limit_tok_s": 30_000, "reserve_tokens": 2000}
    return {**base, "drop_prob": 0.0, "dup_prob": 0.0, **params}


def test_lost_settlements_strand_reservations_and_under_admit():
    clean = run_scenario("events", limiter(), [], {"under_admission_max_frac": 0.1}, DURATION, 6)
    lossy = run_scenario(
        "events", limiter(drop_prob=0.5, retry_prob=0.0), [], {"under_admission_max_frac": 0.1}, DURATION, 6
    )
    assert clean.passed
    assert lossy.summary["lost_settlements"] > 0
    assert lossy.summary["under_admission_frac"] > clean.summary["under_admission_frac"] + 0.1
    assert not lossy.passed


def test_double_settlements_without_keys_refund_twice_and_over_admit():
    params = limiter(dup_prob=0.5, idempotency=0, reserve_tokens=4000, event_rate=80.0)
    result = run_scenario("events", params, [], {"over_admission_max_frac": 0.0}, DURATION, 7)
    assert result.summary["double_settlements"] > 0
    assert result.summary["over_admission_frac"] > 0
    assert not result.passed
    keyed = run_scenario(
        "events", {**params, "idempotency": 1}, [], {"over_admission_max_frac": 0.0}, DURATION, 7
    )
    assert keyed.passed
