"""The compiled step loop (grading/core/sim/engine_kernel.py) against the reference Python loop (engine.py):
the same requests give the same records, bit for bit (every request's status, start, first token, finish,
TPOT, retries and preemptions, the samples, the log, the step count), across scenarios that take every
branch (chunked and serial prefill, KV blocks with recompute and swap preemption, queue limits and timeouts,
replica and region losses with and without retry, an outage with a fallback, the autoscaler with a warm
pool, regions and routing) and several seeds."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from grading.core.sim import run_scenario
from grading.core.sim.engines import ENGINE_ENV, chosen_engine, simulate_engines
from grading.core.sim.family_specs import resolve_events, resolve_params
from grading.core.sim.serving import base_arrival_rate, replica_model, run_serving, simulate_serving
from grading.core.sim.serving_spec import SERVING


@pytest.fixture
def settings() -> SimpleNamespace:
    """Stands in for pytest-django's fixture that the root conftest's autouse hook asks for (no Django)."""
    return SimpleNamespace()


LLAMA_70B = {"n_params": 70e9, "gpus_per_replica": 4, "n_layers": 80, "hidden_size": 8192}

SCENARIOS = {
    "light, chunked": ({"arrival_rate": 4, "replicas": 2, "max_batch": 64}, [], 300),
    "queue, loss, timeout": (
        {"arrival_rate": 14, "replicas": 4, "max_batch": 32, "queue_timeout_s": 4, "queue_limit": 200},
        [
            {"at": 100, "type": "replica_loss", "count": 2},
            {"at": 150, "type": "burst", "factor": 1.5, "duration": 60},
        ],
        300,
    ),
    "loss without retry": (
        {"arrival_rate": 10, "replicas": 3, "max_batch": 32, "retry_lost": 0},
        [{"at": 80, "type": "replica_loss", "count": 1}],
        240,
    ),
    "serial prefill, swap": (
        {
            **LLAMA_70B,
            "arrival_rate": 3,
            "replicas": 2,
            "max_batch": 64,
            "chunked_prefill": 0,
            "preemption": 1,
            "kv_capacity_tokens": 60_000,
            "prompt_tokens": 3000,
            "output_tokens": 800,
        },
        [],
        300,
    ),
    "kv-bound, recompute, tp across nodes": (
        {
            **LLAMA_70B,
            "gpus_per_replica": 8,
            "gpus_per_node": 4,
            "arrival_rate": 4,
            "replicas": 2,
            "max_batch": 64,
            "kv_capacity_tokens": 80_000,
            "prompt_tokens": 2500,
            "output_tokens": 1000,
            "output_cv": 0.5,
        },
        [{"at": 120, "type": "kv_pressure", "prompt_tokens": 6000, "duration": 60}],
        300,
    ),
    "regions, region loss, routing": (
        {
            "arrival_rate": 18,
            "replicas": 3,
            "regions": 3,
            "max_batch": 24,
            "routing": 1,
            "queue_timeout_s": 6,
        },
        [{"at": 90, "type": "region_loss", "region": 1, "duration": 60}],
        300,
    ),
    "home regions, region loss for good": (
        {"arrival_rate": 12, "replicas": 2, "regions": 2, "max_batch": 32},
        [{"at": 100, "type": "region_loss", "region": 0, "retry": 0}],
        240,
    ),
    "outage with a fallback": (
        {"arrival_rate": 10, "replicas": 3, "max_batch": 32, "fallback_rate": 4},
        [{"at": 60, "type": "provider_outage", "duration": 40}],
        200,
    ),
    "autoscaler, warm pool, added replicas": (
        {
            "arrival_rate": 12,
            "replicas": 2,
            "max_batch": 24,
            "min_replicas": 2,
            "max_replicas": 8,
            "warm_pool": 2,
            "cold_start_s": 30,
            "cooldown_s": 30,
            "scale_down_cooldown_s": 60,
        },
        [
            {"at": 40, "type": "step", "factor": 1.6},
            {"at": 150, "type": "add_replicas", "count": 1},
            {"at": 200, "type": "step", "factor": 0.3},
        ],
        400,
    ),
}


def fleet_records(params: dict, events: list, duration_s: float, seed: int, engine: str):
    p = resolve_params(SERVING, params)
    model = replica_model(p)
    resolved = resolve_events(SERVING, events)
    return simulate_serving(p, resolved, model, base_arrival_rate(p, model), duration_s, seed, engine=engine)[
        1
    ]


def assert_same_records(compiled, reference) -> None:
    for name in ("status", "start", "first_token", "finish", "tpot", "retries", "preempted", "preempt_times"):
        ours, theirs = getattr(compiled, name), getattr(reference, name)
        assert ours.dtype == theirs.dtype, name
        assert np.array_equal(ours, theirs, equal_nan=True), name
    assert compiled.samples.keys() == reference.samples.keys()
    for key, values in reference.samples.items():
        assert np.array_equal(compiled.samples[key], values, equal_nan=True), key
    assert compiled.log == reference.log
    assert (compiled.area, compiled.replica_seconds) == (reference.area, reference.replica_seconds)
    assert (compiled.engine_steps, compiled.swaps) == (reference.engine_steps, reference.swaps)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("case", SCENARIOS, ids=str)
def test_the_compiled_loop_gives_the_reference_loops_records_bit_for_bit(case, seed):
    params, events, duration_s = SCENARIOS[case]
    compiled = fleet_records(params, events, duration_s, seed, "compiled")
    reference = fleet_records(params, events, duration_s, seed, "python")
    assert reference.engine_steps > 1000  # the scenario steps its engines
    assert_same_records(compiled, reference)


def test_the_scenarios_take_the_branches_they_are_named_for():
    """Each branch the bit-for-bit test relies on happens in its scenario (seed 1, reference loop)."""

    def run(case):
        return fleet_records(*SCENARIOS[case], 1, "python")

    statuses = {case: set(run(case).status.tolist()) for case in SCENARIOS}
    assert 3 in statuses["queue, loss, timeout"]  # timed out
    assert 4 in statuses["loss without retry"]  # failed
    assert 5 in statuses["outage with a fallback"] and 2 in statuses["outage with a fallback"]
    swap = run("serial prefill, swap")
    assert swap.swaps > 0
    recompute = run("kv-bound, recompute, tp across nodes")
    assert recompute.preempted.sum() > 0 and recompute.swaps == 0
    scaled = [kind for _, kind, _ in run("autoscaler, warm pool, added replicas").log]
    assert {"scale_up", "scale_down", "add", "ready"} <= set(scaled)
    moved = [info for _, kind, info in run("regions, region loss, routing").log if kind == "region_loss"]
    assert moved and moved[0]["moved"] > 0


def test_a_replay_result_is_the_same_on_either_loop():
    params, events, duration_s = SCENARIOS["queue, loss, timeout"]
    slo = {"ttft_p95_s": 2.0}
    compiled = run_scenario("serving", params, events, slo, duration_s, 4)
    reference = run_serving(params, events, slo, duration_s, 4, engine="python")
    assert compiled.to_dict() == reference.to_dict()


def test_the_engine_is_chosen_by_name_and_an_unknown_one_is_refused(monkeypatch):
    monkeypatch.delenv(ENGINE_ENV, raising=False)
    assert chosen_engine() == "compiled"
    monkeypatch.setenv(ENGINE_ENV, "python")
    assert chosen_engine() == "python"
    monkeypatch.setenv(ENGINE_ENV, "numba")
    with pytest.raises(ValueError, match="SEVENBOX_SIM_ENGINE='numba'"):
        chosen_engine()


def test_without_numba_a_replay_raises_and_says_how_to_choose_the_reference(monkeypatch):
    """No silent fallback: the compiled module cannot be imported, and the replay says so."""
    monkeypatch.setitem(sys.modules, "grading.core.sim.engine_compiled", None)
    with pytest.raises(RuntimeError, match="needs numba.*SEVENBOX_SIM_ENGINE=python"):
        simulate_engines(None, None, [], 1.0, None, 1.0, engine="compiled")  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_a_replay_leaves_its_fleet_to_reference_counting_not_to_the_cycle_collector(engine: str) -> None:
    """A fleet held only by a reference cycle (the controls' handlers bound to themselves, a queue view
    holding its fleet) outlived its run until the cyclic collector happened to run: a worker kept a run's rows
    (~400 MB for rag-at-10k-qps) per run, several GB over a submission, and faulted in fresh pages each run.
    With the collector off, nothing of the run may be left once it returns."""
    import gc

    from grading.core.sim.queueing import Controls, Fleet

    gc.collect()
    gc.disable()
    try:
        # a loss and a queue timeout: the control events and the queue views both take part
        params, events, duration_s = SCENARIOS["queue, loss, timeout"]
        run_serving(params, events, {"ttft_p95_s": 2.0}, duration_s, 1, engine=engine)
        left = [obj for obj in gc.get_objects() if isinstance(obj, (Fleet, Controls))]
    finally:
        gc.enable()
    assert left == []


@pytest.mark.parametrize(
    ("tokens", "block", "expected"),
    [(0, 16, 0), (1, 16, 1), (16, 16, 1), (17, 16, 2), (2_000, 16, 125), (2_001, 16, 126), (7, 3, 3)],
)
def test_a_kernels_kv_blocks_are_whole_blocks_rounded_up(tokens: int, block: int, expected: int) -> None:
    from grading.core.sim.engine_kernel import blocks

    assert blocks(float(tokens), float(block)) == expected


@given(tokens=st.integers(0, 2**40), block=st.integers(1, 1_024))
def test_a_kernels_kv_blocks_equal_the_reference_loops_floor_division_for_whole_tokens(tokens, block) -> None:
    from grading.core.sim.engine_kernel import blocks

    assert blocks(float(tokens), float(block)) == -(-float(tokens) // float(block))
