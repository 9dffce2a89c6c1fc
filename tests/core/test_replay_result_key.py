"""The key a replay's result is kept under (grading.core.replay_inputs.replay_result_key): the same for
inputs that simulate alike, different for anything the simulation reads."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from grading.core.replay_inputs import replay_result_key


@pytest.fixture
def settings() -> SimpleNamespace:
    """Stands in for pytest-django's fixture that the root conftest's autouse hook asks for (no Django)."""
    return SimpleNamespace()


INPUTS = {
    "scenario": "lose-two-replicas",
    "title": "Lose two replicas",
    "description": "Two replicas die at 60 s.",
    "family": "serving",
    "params": {"arrival_rate": 3000.0, "replicas": 60.0, "tpot_s": 0.03},
    "events": [{"at": 60, "type": "replica_loss", "count": 6}],
    "slo": {"ttft_p95_s": 2.0, "rejected_max_frac": 0.01},
    "duration_s": 420.0,
    "side": "reference",
    "fallbacks": {},
    "sources": {"replicas": {"quantity": "replicas", "from": "reference"}},
}
SEEDS = [11, 12, 13]
KEY = replay_result_key(INPUTS, SEEDS, "sim-1")


def test_what_the_simulation_does_not_read_leaves_the_key_alone():
    same = {
        **INPUTS,
        "title": "Another title",
        "description": "Other words.",
        "side": "candidate",
        "fallbacks": {"tpot": "could not read 'banana'"},
        "sources": {},
        # a JSON column may give whole numbers back as ints, and keys in any order
        "params": {"tpot_s": 0.03, "replicas": 60, "arrival_rate": 3000},
        "duration_s": 420,
    }
    assert replay_result_key(same, SEEDS, "sim-1") == KEY


@pytest.mark.parametrize(
    "change",
    [
        {"params": {**INPUTS["params"], "replicas": 61.0}},
        {"params": {**INPUTS["params"], "max_batch": 64}},
        {"events": [{"at": 61, "type": "replica_loss", "count": 6}]},
        {"slo": {"ttft_p95_s": 2.5, "rejected_max_frac": 0.01}},
        {"duration_s": 421.0},
        {"family": "events"},
    ],
)
def test_anything_the_simulation_reads_changes_the_key(change):
    assert replay_result_key({**INPUTS, **change}, SEEDS, "sim-1") != KEY


def test_the_seeds_their_order_and_the_simulator_version_change_the_key():
    assert replay_result_key(INPUTS, [11, 12, 14], "sim-1") != KEY
    assert replay_result_key(INPUTS, [12, 11, 13], "sim-1") != KEY  # results come back in seed order
    assert replay_result_key(INPUTS, SEEDS[:2], "sim-1") != KEY
    assert replay_result_key(INPUTS, SEEDS, "sim-2") != KEY
