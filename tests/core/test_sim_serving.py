"""The serving family: derived timing, closed loops, KV pressure, outages, losses, SLOs, narrative."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from grading.core.sim import run_scenario
from grading.core.sim.family_specs import resolve_params
from grading.core.sim.serving import base_arrival_rate, replica_model
from grading.core.sim.serving_spec import SERVING
from grading.core.sim.slo_words import NOT_SERVED


@pytest.fixture
def settings() -> SimpleNamespace:
    """Stands in for pytest-django's fixture that the root conftest's autouse hook asks for (no Django)."""
    return SimpleNamespace()


LLAMA_70B = {"n_params": 70_553_706_496, "gpus_per_replica": 8, "mbu": 1.0}


def resolved(**params) -> dict:
    return resolve_params(SERVING, params)


def test_decode_and_prefill_times_follow_domain_formulas_for_70b_on_8_h100():
    # Llama-3 70B (80 layers of width 8,192) on 8 H100s, all at full bandwidth (mbu 1, kv_mbu 1):
    # weights 141.107 GB / (8 × 3.35 TB/s) = 5.2652 ms; KV 327,680 B / 26.8 TB/s = 12.227 ns a token of
    # context;
    # 160 all-reduces × 40 us = 6.4 ms a step, and each token moves 2 × 7/8 × 8,192 × 2 B = 28,672 B through
    # each at 450 GB/s: 160 × 63.716 ns = 10.195 us a token; 2 ms of overhead a step. The matmuls run at
    # 8 × 989 TFLOP/s × 0.5 / (2 × 70.55e9) = 28,035 tok/s: 64 tokens take 2.28 ms (< 5.27, memory-bound),
    # 256 take 9.131 ms (compute-bound).
    model = replica_model(resolved(**LLAMA_70B, kv_mbu=1.0, n_layers=80, hidden_size=8192))
    assert model.tpot(1, 2000) * 1e3 == pytest.approx(2 + 5.2652 + 6.4 + 0.0102 + 0.02445, rel=1e-3)
    assert model.tpot(64, 2000) * 1e3 == pytest.approx(2 + 5.2652 + 6.4 + 0.6525 + 1.5650, rel=1e-3)
    assert model.tpot(256, 2000) * 1e3 == pytest.approx(2 + 9.131 + 6.4 + 2.610 + 6.2601, rel=1e-3)
    assert model.prefill_tok_s == pytest.approx(28_035, rel=0.001)
    assert model.kv_capacity_tokens == pytest.approx(1.327e6, rel=0.002)


def test_a_model_without_layers_and_width_takes_the_llama_shape_from_its_parameters():
    # 70.55e9 / (12 × 128²) = 358,836, whose cube root is 71.1: 71 layers, width √(70.55e9 / (12 × 71)) =
    # 9,100;
    # 8e9 / 196,608 = 40,690: 34.4, so 34 layers of √(8e9 / 408) = 4,428
    from grading.core.sim.serving import layers_and_width

    assert layers_and_width(resolved(n_params=70_553_706_496)) == pytest.approx((71, 9100.0), rel=1e-3)
    assert layers_and_width(resolved(n_params=8e9)) == pytest.approx((34, 4428.1), rel=1e-3)
    # one GPU has no all-reduce; sixteen span two 8-GPU nodes and all-reduce over the 50 GB/s network
    one = replica_model(resolved(n_params=8e9, gpus_per_replica=1, hbm_bytes=80e9))
    assert one.comm_s_per_step == 0 and one.comm_s_per_token == 0
    two_nodes = replica_model(
        resolved(**{**LLAMA_70B, "gpus_per_replica": 16}, n_layers=80, hidden_size=8192)
    )
    assert two_nodes.comm_s_per_step == pytest.approx(160 * 60e-6)
    assert two_nodes.comm_s_per_token == pytest.approx(160 * 2 * 15 / 16 * 8192 * 2 / 50e9)


def test_a_step_waits_for_the_interconnect_a_latency_and_the_bytes_of_every_token_it_carries():
    # Lone requests (about one every 500 s, each done in ~4 s) on one replica: a 1,000-token prompt, 101
    # tokens out. Each token of a step sends 1 MB over a 1 GB/s link (1 ms); the step's collectives take 5 ms.
    params = {
        "arrival_rate": 0.002,
        "replicas": 1,
        "prompt_tokens": 1000,
        "prompt_cv": 0,
        "output_tokens": 101,
        "output_cv": 0,
        "tpot_s": 0.02,
        "prefill_tok_s": 10_000,
        "interconnect_bytes_per_token": 1e6,
        "interconnect_bw": 1e9,
        "interconnect_latency_s": 0.005,
    }
    s = run_scenario("serving", params, [], {}, 3000, seed=1).summary
    assert s["completed"] >= 3 and s["queue_max"] == 0
    # the prompt's one step: max(20 ms, 1,000 / 10,000 = 100 ms) + 5 ms + 1,000 x 1 ms = 1.105 s to the first
    # token; each decode step: max(20 ms, 0.1 ms) + 5 ms + 1 ms = 26 ms (not the 20 ms tpot_s alone)
    assert s["ttft_p50_s"] == pytest.approx(1.105, rel=1e-9)
    assert s["tpot_p50_s"] == pytest.approx(0.026, rel=1e-9)
    assert s["e2e_p50_s"] == pytest.approx(1.105 + 100 * 0.026, rel=1e-9)


def test_closed_loop_users_become_a_rate_through_the_response_time_law_with_prefill_taking_replica_time():
    # One replica, serial prefill, fixed lengths: a 2,000-token prompt at 20,000 tok/s is a 0.1 s step that
    # stalls every decode. At X = 2 req/s prefill takes 20% of the replica, so the 40 ms decode steps come at
    # 1 / ((1 - 0.2) / 0.04) = 50 ms apart (20 decoding, 20 / 20,000 s of compute < 40 ms: memory-bound).
    # R = the wait for the prefills ahead (P-K: 2 x 0.1^2 / (2 x 0.8) = 0.0125 s) + the prompt's own 0.1 s
    # step + half a 50 ms step in progress + 200 decode steps of 50 ms = 10.1375 s; N = X (Z + R) = 60.275.
    p = resolved(
        users=2 * 30.1375,
        think_time_s=20,
        replicas=1,
        tpot_s=0.04,
        prefill_tok_s=20_000,
        prompt_tokens=2000,
        prompt_cv=0,
        output_tokens=201,
        output_cv=0,
        chunked_prefill=0,
    )
    rate = base_arrival_rate(p, replica_model(p))
    assert rate == pytest.approx(2.0, rel=1e-6)
    # with prefill free (R = 0.1 + 201 x 0.04 = 8.14 s) the same users would send 2.14 req/s
    assert p["users"] / (20 + 0.1 + 201 * 0.04) > 2.14


@pytest.mark.parametrize(
    "params",
    [
        {"users": 300, "think_time_s": 10, "replicas": 4, "max_batch": 64, "tpot_s": 0.04},
        {"users": 200, "think_time_s": 5, "replicas": 2, "max_batch": 128, **LLAMA_70B, "mbu": 0.7},
    ],
)
def test_the_closed_loop_rate_is_the_response_time_law_at_the_response_time_the_engine_gives(params):
    # run the engine open-loop at the closed loop's rate X: the users' cycle N / (Z + R) at the engine's own
    # mean response R must give X back (within 4%; the engine's R includes prefill taking replica time)
    closed = run_scenario("serving", params, [], {}, 400, seed=5).summary
    rate = closed["arrival_rate"]
    open_loop = {key: value for key, value in params.items() if key not in ("users", "think_time_s")}
    engine = run_scenario("serving", {**open_loop, "arrival_rate": rate}, [], {}, 400, seed=5).summary
    assert engine["queue_max"] == 0
    assert params["users"] / (params["think_time_s"] + engine["e2e_mean_s"]) == pytest.approx(rate, rel=0.04)


def test_kv_pressure_caps_the_batch_at_the_prompts_the_kv_cache_holds_and_growing_batches_are_preempted():
    params = {
        **LLAMA_70B,
        "mbu": 0.7,
        "arrival_rate": 12,
        "replicas": 2,
        "prompt_cv": 0,
        "output_cv": 0,
    }
    events = [{"at": 60, "type": "kv_pressure", "prompt_tokens": 30_000, "duration": 240}]
    result = run_scenario("serving", params, events, {"ttft_p95_s": 1.5}, 400, seed=3)
    t = np.array(result.series["t"])
    in_service = np.array(result.series["in_service"])[(t >= 120) & (t < 300)]
    # (8 × 80 GB × 0.9 − 141.1 GB of weights) / 327,680 B = 1.327M KV tokens per replica, 82,937 blocks of 16;
    # an admission leaves 1% (829 blocks) free, so 82,108 blocks take 43 prompts of 30,000 tokens (1,875
    # blocks
    # each, 80,625), not a 44th (82,500); two replicas hold 86
    assert in_service.max() == 86
    assert result.summary["queue_max"] > 0
    assert not result.passed


KV_BOUND = {
    "arrival_rate": 2,
    "replicas": 1,
    "kv_capacity_tokens": 10_000,
    "prompt_tokens": 1000,
    "prompt_cv": 0,
    "output_tokens": 2000,
    "output_cv": 0,
}


@pytest.mark.parametrize("swap", [0, 1])
def test_a_batch_that_outgrows_the_kv_cache_is_preempted_counted_and_told(swap):
    # 10 prompts of 1,000 tokens fill 10,000 tokens of KV, but only 3 requests of 3,000 tokens fit at full
    # length: the growing batch must preempt
    result = run_scenario("serving", {**KV_BOUND, "preemption": swap}, [], {}, 300, seed=2)
    s = result.summary
    assert s["preemptions"] > 0 and s["preempted_requests"] > 0
    assert sum(result.series["preemptions"]) == s["preemptions"]
    assert s["swaps"] == (s["preemptions"] if swap else 0)
    how = "swapped their KV" if swap else "prefilled again (recompute)"
    assert any(f"{s['preemptions']:,} preemptions of" in line and how in line for line in result.narrative)


def test_a_provider_outage_sheds_what_the_fallback_cannot_take():
    params = {"arrival_rate": 20, "replicas": 8, "fallback_rate": 12, "prompt_cv": 0, "output_cv": 0}
    events = [{"at": 100, "type": "provider_outage", "duration": 100}]
    result = run_scenario("serving", params, events, {"dropped_max_frac": 0.0}, 400, seed=4)
    in_flight = 20 * (2000 / 28_035 + 250 * 0.04)  # Little: requests caught mid-stream need the fallback too
    assert result.summary["rejected"] == pytest.approx((20 - 12) * 100 + in_flight - 12, rel=0.1)
    assert result.summary["fallback_served"] >= 12 * 100 * 0.95
    assert not result.passed


def test_requests_in_flight_on_a_lost_replica_are_retried_or_fail():
    base = {"arrival_rate": 30, "replicas": 8, "max_batch": 64}
    events = [{"at": 120, "type": "replica_loss", "count": 2}]
    retried = run_scenario("serving", base, events, {"failed_max_frac": 0.0}, 300, seed=5)
    failed = run_scenario("serving", {**base, "retry_lost": 0}, events, {"failed_max_frac": 0.0}, 300, seed=5)
    assert retried.passed and retried.summary["retried"] > 0 and retried.summary["failed"] == 0
    assert not failed.passed and failed.summary["failed"] > 0


def test_a_queue_timeout_turns_long_waits_into_timeouts():
    params = {"arrival_rate": 40, "replicas": 4, "max_batch": 32, "queue_timeout_s": 15}
    result = run_scenario("serving", params, [], {"timed_out_max_frac": 0.01}, 300, seed=6)
    assert result.summary["timed_out"] > 0
    assert result.summary["ttft_p99_s"] <= 15 + 1.0
    assert not result.passed


def test_losing_a_region_moves_its_traffic_to_the_survivor():
    params = {"arrival_rate": 20, "replicas": 8, "regions": 2}
    events = [{"at": 100, "type": "region_loss", "region": 1}]
    result = run_scenario("serving", params, events, {"dropped_max_frac": 0.0}, 300, seed=7)
    assert result.summary["served"] == result.summary["arrivals"] - result.summary["unfinished"]
    assert result.series["replicas_running"][-1] == 4
    assert any("region 1 went down" in line for line in result.narrative)


def test_the_autoscaler_adds_replicas_under_a_burst_and_the_slo_holds_with_headroom():
    params = {"arrival_rate": 10, "replicas": 4, "max_batch": 64, "max_replicas": 16, "warm_pool": 4}
    events = [{"at": 60, "type": "burst", "factor": 2.0, "duration": 300}]
    result = run_scenario(
        "serving", params, events, {"ttft_p95_s": 2.0, "dropped_max_frac": 0.0}, 600, seed=8
    )
    assert result.summary["replicas_max"] > 4
    assert result.passed


def burst_during_cold_start(warm_pool: int, queue_limit: float) -> dict:
    return {
        "arrival_rate": 16,
        "replicas": 4,
        "max_batch": 64,
        "output_cv": 0,
        "max_replicas": 16,
        "warm_pool": warm_pool,
        "cold_start_s": 70,
        "queue_limit": queue_limit,
    }


def test_the_narrative_tells_what_broke_and_when_in_a_burst_during_a_cold_start():
    events = [{"at": 60, "type": "burst", "factor": 3.0, "duration": 300}]
    result = run_scenario(
        "serving", burst_during_cold_start(2, 300), events, {"rejected_max_frac": 0.0}, 600, 9
    )
    text = " ".join(result.narrative)
    assert "At t=60 s a burst multiplied arrivals by 3" in text
    assert "from the warm pool" in text
    assert "cold (ready at t=" in text
    assert "The queue hit its limit of 300 at t=" in text
    assert "new replicas became ready at t=" in text
    assert f"SLO {NOT_SERVED} ≤ 0%" in text
    assert "missed" in text and result.summary["rejected"] > 0


def test_a_share_not_served_slo_counts_timeouts_losses_and_requests_left_waiting_not_only_rejections():
    # 16 slots for ~20 req/s of 2 s work: the queue grows, requests time out after 5 s and nobody is rejected
    params = {"servers": 16, "mu": 0.5, "service_cv2": 1, "arrival_rate": 20.0, "queue_timeout_s": 5.0}
    result = run_scenario("serving", params, [], {"rejected_max_frac": 0.1}, 600, 3)
    s = result.summary
    assert s["rejected"] == 0 and s["timed_out"] > 0.1 * s["arrivals"]
    not_served = s["rejected"] + s["timed_out"] + s["failed"] + s["unfinished"]
    (check,) = result.slo_checks
    assert check["actual"] == pytest.approx(not_served / s["arrivals"]) and check["passed"] is False
    assert f"{not_served:,} of {s['arrivals']:,} requests" in " ".join(result.narrative)


def test_a_bigger_warm_pool_and_a_quicker_autoscaler_absorb_the_same_burst():
    events = [{"at": 60, "type": "burst", "factor": 3.0, "duration": 300}]
    params = {**burst_during_cold_start(8, 300), "scale_interval_s": 5, "cooldown_s": 10}
    result = run_scenario("serving", params, events, {"rejected_max_frac": 0.0}, 600, 9)
    assert result.passed


@pytest.mark.parametrize(
    ("params", "events"),
    [
        ({"servers": 64, "mu": 0.1, "arrival_rate": 4.8}, [{"at": 900, "type": "replica_loss", "count": 8}]),
        (
            {"servers": 8, "mu": 1.0, "service_cv2": 0, "arrival_rate": 6, "queue_timeout_s": 20},
            [{"at": 100, "type": "burst", "factor": 1.6, "duration": 100}],
        ),
        (
            {
                "servers": 16,
                "mu": 0.25,
                "arrival_rate": 3.2,
                "max_replicas": 64,
                "warm_pool": 2,
                "queue_limit": 300,
            },
            [{"at": 60, "type": "burst", "factor": 3.0, "duration": 300}],
        ),
    ],
)
def test_the_generic_queues_numpy_fast_path_gives_exactly_the_event_loops_records(
    params, events, monkeypatch
):
    import grading.core.sim.serving as serving
    from grading.core.sim.queueing import simulate_fleet

    consumed = fast_path_arrivals(monkeypatch)
    fast = run_scenario("serving", params, events, {}, 1200, seed=10).to_dict()
    assert sum(consumed) > 0  # the fast path ran
    monkeypatch.setattr(serving, "simulate_fleet", lambda *a, **k: simulate_fleet(*a, **{**k, "fast": False}))
    slow = run_scenario("serving", params, events, {}, 1200, seed=10).to_dict()
    assert fast == slow


def fast_path_arrivals(monkeypatch) -> list[int]:
    """A list that collects the arrivals each fast-path window starts."""
    from grading.core.sim.queueing import FastPath

    consumed: list[int] = []
    forward = FastPath.forward

    def counted(self, i0, t_end):
        m, stopped = forward(self, i0, t_end)
        consumed.append(m)
        return m, stopped

    monkeypatch.setattr(FastPath, "forward", counted)
    return consumed


@pytest.mark.parametrize(("rate", "fast_path_runs"), [(0.3, False), (2.0, False), (4.0, True)])
def test_the_fast_path_runs_only_where_its_windows_hold_on_average_the_64_arrivals_it_needs_to_pay(
    rate, fast_path_runs, monkeypatch
):
    # a 20 s window holds 20 x rate arrivals on average: 6 and 40 are too few, 80 enough; with 1,000
    # servers of 100 s each (rho <= 0.5) nobody waits, so only the count of arrivals decides
    consumed = fast_path_arrivals(monkeypatch)
    run_scenario("serving", {"servers": 1000, "mu": 0.01, "arrival_rate": rate}, [], {}, 600, seed=4)
    assert (sum(consumed) > 0) is fast_path_runs


def kv_block_run(count: int, block: int, watermark: float):
    """`count` requests at t=0 on one replica of 160 KV tokens: 40-token prompts, 60 out, 10 ms steps."""
    from grading.core.sim.engine import simulate_engine_fleet
    from grading.core.sim.queueing import FleetConfig, Requests

    cfg = FleetConfig(
        replicas=[1],
        max_batch=8,
        kv_capacity=160.0,
        tpot_base_s=0.01,
        prefill_tok_s=1e6,
        kv_block_tokens=block,
        kv_watermark_frac=watermark,
    )
    zeros = np.zeros(count)
    prompt, out = np.full(count, 40.0), np.full(count, 60.0)
    req = Requests(zeros, zeros.astype(np.int64), zeros, zeros, out, prompt + out, prompt_tokens=prompt)
    return simulate_engine_fleet(cfg, req, [], 2.0, np.random.default_rng(1), sample_dt=0.5)


def test_kv_grows_a_block_at_a_time_and_the_newest_is_preempted_when_the_next_blocks_do_not_fit():
    # 160 tokens are 10 blocks of 16. Step 1 (0-10 ms) prefills request 0 alone (it arrived first and the
    # replica started at once); step 2 prefills 1 and 2 beside 0's first decode. At the start of step k
    # (k >= 2) request 0 holds 40 + (k - 2) tokens and 1 and 2 one fewer. At k = 11, 0 holds 49 tokens (4
    # blocks) and 1 and 2 hold 48 (3 blocks each, full): 10 blocks held and 2 more needed for their next
    # tokens, so the newest (2) is preempted at t = 0.10 s. Counted in tokens (blocks of 1, no watermark) the
    # three fit until 3 x 54 + 1 > 160 at k = 16, t = 0.15 s.
    blocks = kv_block_run(3, 16, 0.1)
    tokens = kv_block_run(3, 1, 0.0)
    assert blocks.preempt_times[0] == pytest.approx(0.10, abs=1e-9)
    assert blocks.preempted[0] == 0 and blocks.preempted[2] >= 1  # the oldest never, the newest first
    assert tokens.preempt_times[0] == pytest.approx(0.15, abs=1e-9)


def test_an_admission_leaves_the_watermark_free():
    # Three prompts of 3 blocks fill 9 of 10 blocks, all that a watermark of 10% (1 block) leaves: a fourth
    # arrival waits in the queue (it starts once a request finishes). Without the watermark, in tokens, 4 x 40
    # = 160 fits and it starts at once.
    with_watermark = kv_block_run(4, 16, 0.1)
    without = kv_block_run(4, 1, 0.0)
    assert with_watermark.start[:3].tolist() == [0.0, 0.0, 0.0] and with_watermark.start[3] > 0.5
    assert without.start.tolist() == [0.0, 0.0, 0.0, 0.0]
