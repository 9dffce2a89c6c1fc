"""The bank's reference models recomputed by hand (issue 19's review of the models): each expected value is
derived in the comment beside it from DOMAIN.md's constants and the question's own premises, never copied
from the model's output."""

import math
from pathlib import Path

import pytest
import yaml

from grading.core.question_files import load_pack, load_question, load_workloads, read_yaml
from grading.core.question_types import SpecError
from tests.core.test_erlang import textbook_wait_tail
from tests.core.test_grader_bank import BANK, graded, question, shown


def test_ttft_utilisation_limits_come_from_its_own_30_ms_queueing_budget():
    slug = "ttft-200ms-p99"
    assert shown(slug, "queue_p99_ms") == 30
    # Erlang C, 80 ms service, p99 wait <= 30 ms: the tail C e^(-c(1-rho) 30/80) crosses 1% at rho ~0.479 for
    # 8 workers and ~0.785 for 32, both below the 0.55 and 0.84 a 50 ms wait would allow.
    for workers, name, rho in ((8, "rho_small_pool", 0.479), (32, "rho_large_pool", 0.785)):
        assert shown(slug, name) == pytest.approx(rho, abs=1e-3)
        assert textbook_wait_tail(workers, shown(slug, name), 80.0, 30.0) == pytest.approx(0.01, rel=1e-4)
    # 32 x 0.785 / 80 ms = 314 req/s; 8 x 0.479 / 80 ms = 47.9 req/s.
    assert shown(slug, "capacity_large_pool") == pytest.approx(32 * 0.7846 / 0.080, rel=1e-3)
    assert shown(slug, "capacity_small_pool") == pytest.approx(8 * 0.4791 / 0.080, rel=1e-3)


def test_ttft_limits_follow_the_queueing_budget_when_it_moves():
    model = question("ttft-200ms-p99").model.reference
    at_50 = model.evaluate({"queue_p99_ms": 0.050})
    assert float(at_50["rho_small_pool"]) == pytest.approx(0.551, abs=1e-3)
    assert float(at_50["rho_large_pool"]) == pytest.approx(0.839, abs=1e-3)
    # The limit for a 50 ms wait, 0.55, is 15% above the 30 ms one (0.55 / 0.479 = 1.148): outside the line's
    # 10% band, so a candidate who quotes it for this budget is charged; 0.50 (4% off) is correct.
    assert graded("ttft-200ms-p99", {"rho_small_pool": "0.55"})["rho_small_pool"]["verdict"] != "correct"
    assert graded("ttft-200ms-p99", {"rho_small_pool": "0.50"})["rho_small_pool"]["verdict"] == "correct"
    assert math.isclose(
        shown("ttft-200ms-p99", "idle_small_pool"), 1 - shown("ttft-200ms-p99", "rho_small_pool")
    )


def test_llm_batching_asks_the_interview_step_and_names_the_engines_extra_costs_beside_it():
    slug = "llm-batching-system"
    # The interview's step is the HBM roofline: 141.107 GB of weights + 162 sequences x 2,125 tokens x
    # 327,680 B (112.80 GB) over 8 x 3.35 TB/s x 0.7 = 18.76 TB/s is 13.535 ms; a 256-token chunk at 28,035
    # tok/s, 9.131 ms.
    assert shown(slug, "b_max") == 162  # (576 - 141.107) GB / 327,680 B = 1,327,187 tokens over 8,192
    assert shown(slug, "step_time") == pytest.approx(
        (141.107e9 + 162 * 2125 * 327_680) / 18.76e12 * 1e3, rel=1e-3
    )
    assert shown(slug, "step_time") == pytest.approx(13.535, rel=1e-3)
    assert shown(slug, "chunk_time") == pytest.approx(256 / 28_035 * 1e3, rel=1e-3)
    assert shown(slug, "tokens_s_replica") == pytest.approx(162 / 0.013535, rel=1e-3)
    # 14.02 req/s of prefill and 162 / (250 x 13.535 ms) = 47.88 req/s of decode share one replica:
    # 10.84 req/s.
    assert shown(slug, "replica_req_rate") == pytest.approx(1 / (1 / 14.0175 + 1 / 47.876), rel=1e-3)
    # The replays' engine also pays 160 all-reduces of 40 us (6.4 ms), 2 ms of overhead and each token's
    # activations: 160 x 28,672 B / 450 GB/s = 10.194 us a token, 1.651 ms for 162: a 23.586 ms step. A
    # request then costs 2,000 / 28,035 (71.34 ms) + 2,000 x 10.194 us (20.39 ms) + 250 x 23.586 / 162 ms
    # (36.40 ms).
    assert shown(slug, "engine_step") == pytest.approx(
        13.535 + 6.4 + 2 + 162 * 160 * 28_672 / 450e9 * 1e3, rel=1e-3
    )
    assert shown(slug, "engine_req_rate") == pytest.approx(
        1 / (0.07134 + 0.020388 + 250 * 0.023586 / 162), rel=2e-3
    )
    # the burst replays each replica at 6 req/s, ~77% of the engine's rate (the arithmetic's ~11 leaves room)
    assert 6 / shown(slug, "engine_req_rate") == pytest.approx(0.769, abs=0.005)


# The review questions count prefill in every capacity (DOMAIN.md Q01: prefill takes replica time).


def test_eight_gpu_review_prefill_alone_asks_more_than_the_eight_gpus_give():
    slug = "eight-gpu-design-review"
    # 5 req/s x 6,000 tok = 30,000 tok/s against 8 x 989e12 x 0.5 / 141.1e9 = 28,032 tok/s.
    assert shown(slug, "prefill_load") == pytest.approx(30_000 / 28_032, rel=2e-3)
    # Across the link every prompt token's activations cross 160 times: 160 x (30 us + 6,000 x 32,768 B /
    # 12.5 GB/s) = 2.521 s, after 6,000 / 28,032 = 0.214 s of compute.
    assert shown(slug, "prefill_s_tp8") == pytest.approx(
        0.2140 + 160 * (30e-6 + 6000 * 32768 / 12.5e9), rel=2e-3
    )
    # The step at 201: (141.1 + 201 x 2.0644) GB / 18.76 TB/s = 29.64 ms, + 160 x (30 us + 201 x 32,768 B /
    # 12.5 GB/s) = 89.1 ms; a request costs 2.735 s of prefill + 600 x 118.7 ms / 201 = 0.354 s: 0.324 req/s.
    assert shown(slug, "capacity_tp8") == pytest.approx(1 / (2.7354 + 600 * 0.11874 / 201), rel=3e-3)


def test_eight_gpu_review_fixed_placement_still_cannot_carry_five_requests_a_second():
    slug = "eight-gpu-design-review"
    # TP4: 67 sequences, step (141.1 + 67 x 2.0644) / 9.38 = 29.79 ms; a request costs 6,000 / 14,016 =
    # 0.428 s of prefill + 600 x 29.79 ms / 67 = 0.267 s: two replicas complete 2 / 0.695 = 2.88 req/s.
    assert shown(slug, "capacity_fixed") == pytest.approx(2 / (0.4281 + 600 * 0.02979 / 67), rel=3e-3)
    assert shown(slug, "load_fixed") > 1.7  # "the fixed design runs at ~67%" does not hold
    assert "~67%" not in question(slug).outline
    # ceil(5 x 0.695 / 0.7) = ceil(4.96) = 5 servers for the load, and one to lose: after a loss four at
    # 1.25 req/s each prefill 53.5% of the time and T = 0.428 + 8.466e13 / (9.38e12 x 0.465 - 600 x 1.25 x
    # 2.0644e9) = 30.5 s, the whole deadline. Six at 0.833 req/s each prefill 35.7% of the time, and Little's
    # law on the running batch gives T = 600 x 141.1e9 / (9.38e12 x 0.6433 - 600 x 0.8333 x 2.0644e9) = 16.9 s
    # of decoding.
    assert shown(slug, "servers_needed") == 6
    assert shown(slug, "e2e_at_load") == pytest.approx(
        0.428 + 8.466e13 / (9.38e12 * 0.6433 - 600 * 0.8333 * 2.0644e9), rel=3e-3
    )
    assert shown(slug, "e2e_at_load") < shown(slug, "deadline")
    # (30 - 17.35) s x 6 / 0.695 s = 109 requests.
    assert shown(slug, "queue_limit_fixed") == pytest.approx((30 - 17.35) * 6 / 0.6949, rel=5e-3)


def test_eight_gpu_review_names_the_engines_tp4_step_beside_the_interviews():
    slug = "eight-gpu-design-review"
    # The interview's TP4 step is the HBM reads (29.79 ms); the replays' engine adds 160 NVLink all-reduces of
    # 40 us + 67 x 24,576 B / 450 GB/s (3.66 us): 6.985 ms, and 2 ms of overhead: 38.77 ms.
    assert shown(slug, "step_tp4") == pytest.approx((141.1 + 67 * 2.0644) / 9.38, rel=2e-3)
    assert shown(slug, "comm_tp4") == pytest.approx(160 * (40e-6 + 67 * 24_576 / 450e9) * 1e3, rel=2e-3)
    assert shown(slug, "step_tp4_engine") == pytest.approx(29.79 + 6.985 + 2, rel=2e-3)
    # The replays judge the six servers against 55 s at p95 (the prompt's 30 s is the interview's deadline).
    assert {s.name: s.slo["e2e_p95_s"] for s in question(slug).scenarios} == {
        "steady-load": 55,
        "long-documents": 55,
        "losing-a-server": 55,
    }


@pytest.mark.parametrize("scenario", ["steady-load", "long-documents", "losing-a-server"])
def test_eight_gpu_review_replays_time_each_step_with_the_link_for_tp8_and_nvlink_for_tp4(scenario):
    from grading.core.question_export import spec_to_dict
    from grading.core.replay_inputs import replay_inputs
    from grading.core.sim.family_specs import resolve_params
    from grading.core.sim.serving import replica_model
    from grading.core.sim.serving_spec import SERVING

    spec = spec_to_dict(question("eight-gpu-design-review"))
    fixed = {"gpus": "24", "tp_gpus": "4", "max_batch_cfg": "67 req"}
    engines = {}
    for side, numbers in (("reference", None), ("candidate", fixed)):
        (inputs,) = [e for e in replay_inputs(spec, side=side, numbers=numbers) if e["scenario"] == scenario]
        assert "tpot_s" not in inputs["params"]  # no step time fixed for the whole run
        engines[side] = replica_model(resolve_params(SERVING, inputs["params"]))
    given, tp4 = engines["reference"], engines["candidate"]
    # TP8 over the two 4-GPU servers: 141.1 GB of weights over 8 x 2.345 TB/s = 7.521 ms, 320 KiB of KV a
    # token
    # over the same = 17.47 ns; prefill 8 x 3,504 = 28,032 tok/s; the all-reduces cross the 12.5 GB/s link:
    # every token 160 x 28,672 B (0.367 ms) and a step 160 x 30 us = 4.8 ms; 2 ms of overhead
    assert given.tpot_base_s == pytest.approx(141.1e9 / 18.76e12, rel=1e-9)
    assert given.tpot_per_kv_token_s == pytest.approx(327_680 / 18.76e12, rel=1e-9)
    assert given.prefill_tok_s == pytest.approx(28_032, rel=1e-9)
    assert given.comm_s_per_token == pytest.approx(160 * 28_672 / 12.5e9, rel=1e-9)
    assert given.comm_s_per_step == pytest.approx(160 * 30e-6, rel=1e-9)
    # so a step of the KV-bound 201 sequences of 6,300 tokens on average: 2 + 7.521 + 201 x 6,300 x 17.47 ns
    # (22.12) + 4.8 + 201 x 0.367 (73.77) = 110.2 ms (the interview's ring of 32,768 B a token and no overhead
    # gives ~119 ms)
    assert given.tpot(201, 6300) == pytest.approx(0.002 + 0.02964 + 0.0048 + 201 * 0.00036700, rel=2e-3)
    assert given.tpot(201, 6300) == pytest.approx(0.11021, rel=2e-3)
    # TP4 inside a server: on NVLink, 160 x 40 us = 6.4 ms a step and 160 x 24,576 B / 450 GB/s = 8.738 us a
    # token; 141.1 GB / 9.38 TB/s = 15.04 ms of weights, 14,016 tok/s of prefill; 67 sequences step at
    # 2 + 15.04 + 14.75 + 6.4 + 0.585 = 38.77 ms (step_tp4_engine; the interview's step_tp4 is 29.79 ms)
    assert tp4.comm_s_per_step == pytest.approx(160 * 40e-6, rel=1e-9)
    assert tp4.comm_s_per_token == pytest.approx(160 * 24_576 / 450e9, rel=1e-9)
    assert tp4.tpot_base_s == pytest.approx(141.1e9 / 9.38e12, rel=1e-9)
    assert tp4.prefill_tok_s == pytest.approx(14_016, rel=1e-9)
    assert tp4.tpot(67, 6300) == pytest.approx(0.03877, rel=2e-3)


def test_gateway_review_pool_cannot_carry_forty_requests_a_second_on_four_replicas():
    slug = "gateway-fallback-review"
    # The interview's step is the HBM reads: KV room (72 - 16) GB / 128 KiB = 427,246 tok, 185.8 sequences of
    # 2,300; step (16 + 185.8 x 2,150 x 131,072 B) / 2.345 TB/s = 29.15 ms; a request costs 2,000 / 30,000 =
    # 66.7 ms + 300 x 29.15 / 185.8 ms.
    assert shown(slug, "tpot_full_batch") == pytest.approx(
        (16e9 + 185.76 * 2150 * 131_072) / 2.345e9, rel=2e-3
    )
    assert shown(slug, "pool_capacity") == pytest.approx(4 / (0.06667 + 300 * 0.02915 / 185.76), rel=3e-3)
    # With the fixed batch of 96: (16 + 96 x 0.2818) / 2.345 = 18.36 ms; 66.7 + 300 x 18.36 / 96 = 124.0 ms a
    # request: four replicas 32.2 req/s; the peak, 2 x 40 req/s, keeps ceil(80 x 0.124) = ceil(9.92) = 10
    # busy.
    assert shown(slug, "tpot_fixed") == pytest.approx((16 + 96 * 0.28180) / 2.345, rel=2e-3)
    assert shown(slug, "capacity_fixed") == pytest.approx(4 / (0.06667 + 300 * 0.018360 / 96), rel=3e-3)
    assert shown(slug, "replicas_needed") == 10
    assert shown(slug, "e2e_at_load") < shown(slug, "deadline")
    # The replays' engine adds 2 ms a step: 20.36 ms a token, 66.7 + 300 x 20.36 / 96 = 130.3 ms a request, so
    # the replayed 60% rise (64 req/s) keeps 64 x 0.1303 / 10 = 83% of the ten busy.
    assert shown(slug, "replica_s_engine") == pytest.approx(0.06667 + 300 * 0.020360 / 96, rel=3e-3)
    assert shown(slug, "peak_busy_engine") == pytest.approx(64 * 0.13029 / 10, rel=3e-3)
    peak = [s for s in question(slug).scenarios if s.name == "peak-hour"][0]
    assert [e["factor"] for e in peak.events if e["type"] == "burst"] == [1.6]


@pytest.mark.parametrize("scenario", ["peak-hour", "pool-outage"])
def test_gateway_review_replays_time_each_step_from_the_batch_the_engine_holds(scenario):
    from grading.core.question_export import spec_to_dict
    from grading.core.replay_inputs import replay_inputs
    from grading.core.sim.family_specs import resolve_params
    from grading.core.sim.serving import replica_model
    from grading.core.sim.serving_spec import SERVING

    (inputs,) = [
        entry
        for entry in replay_inputs(spec_to_dict(question("gateway-fallback-review")), side="reference")
        if entry["scenario"] == scenario
    ]
    assert "tpot_s" not in inputs["params"]  # no step time fixed for the whole run
    engine = replica_model(resolve_params(SERVING, inputs["params"]))
    # a step reads 16 GB of weights and 128 KiB per token of KV held at 2.345 TB/s: 6.823 ms + 55.89 ns a
    # token, plus 2 ms of overhead (one GPU: no all-reduce), so the KV-bound batch of 185.8 sequences of 2,150
    # tokens on average steps at 31.15 ms (the arithmetic's 29.15 ms of reads and the engine's 2 ms), and a
    # batch of 21 at 11.4 ms; prefill computes
    # 30,000 tok/s (2 x 8e9 FLOP a token)
    assert engine.tpot_base_s == pytest.approx(16e9 / 2.345e12, rel=1e-9)
    assert engine.tpot_per_kv_token_s == pytest.approx(131_072 / 2.345e12, rel=1e-9)
    assert engine.comm_s_per_step == 0 and engine.comm_s_per_token == 0
    assert engine.tpot(185.76, 2150) == pytest.approx(29.15e-3 + 0.002, rel=2e-3)
    assert engine.tpot(185.76, 2150) == pytest.approx(
        shown("gateway-fallback-review", "tpot_full_batch") / 1e3 + 0.002, rel=2e-3
    )
    assert engine.tpot(21.37, 2150) == pytest.approx((16 + 21.37 * 0.2818) / 2345 + 0.002, rel=3e-3)
    assert engine.prefill_tok_s == pytest.approx(30_000, rel=1e-9)
    assert engine.kv_capacity_tokens == pytest.approx((72e9 - 16e9) / 131_072, rel=1e-9)


@pytest.mark.parametrize(
    ("slug", "capacity", "prefill"),
    [
        ("eight-gpu-design-review", "capacity_tp8", "prefill_rate_gpu"),
        ("eight-gpu-design-review", "capacity_fixed", "prefill_rate_gpu"),
        ("eight-gpu-design-review", "fleet_capacity", "prefill_rate_gpu"),
        ("gateway-fallback-review", "pool_capacity", "prefill_rate"),
        ("gateway-fallback-review", "capacity_fixed", "prefill_rate"),
    ],
)
def test_every_capacity_of_the_review_questions_reads_the_prefill_rate(slug, capacity, prefill):
    assert prefill in question(slug).model.reference.upstream(capacity)


# Shared workload figures: one source (questions/bank/workloads.yaml) that every question uses.

WORKLOADS = Path(__file__).resolve().parents[2] / "questions" / "bank" / "workloads.yaml"
SHARED_RATE = "chat_replica_rate_70b_tp8"


def test_the_70b_replica_rate_is_derived_from_domain_constants_with_prefill_counted():
    # Prefill: 8 x 989e12 x 0.5 / (2 x 70.55e9) = 28,035 tok/s, so 2,000 tokens take 71.3 ms of the replica;
    # decode: 64 sequences at 40 ms a token give each request 250 x 0.040 / 64 = 156.3 ms: 1 / 0.2276 s.
    prefill_rate = 8 * 989e12 * 0.5 / (2 * 70.553706496e9)
    assert prefill_rate == pytest.approx(28_035, rel=1e-4)
    figure = load_workloads(WORKLOADS)[SHARED_RATE]
    assert figure["value"] == pytest.approx(1 / (2000 / prefill_rate + 250 * 0.040 / 64), rel=2e-3)


@pytest.mark.parametrize("slug", ["multi-lora-serving", "training-and-inference-one-fleet"])
def test_both_questions_that_serve_the_70b_chat_workload_take_the_one_shared_rate(slug):
    quantity = question(slug).model.reference.quantities[SHARED_RATE]
    assert quantity.value == 4.39 and quantity.source.startswith("Shared workload figure")


def test_multi_lora_fleet_is_sized_from_the_shared_rate():
    # ceil(100 req/s / (4.39 x 0.8 x 0.7)) = ceil(40.68) = 41 replicas = 328 GPUs; today's 100 replicas run at
    # 100 / 439 = 22.8%.
    assert shown("multi-lora-serving", "lora_replicas") == 41
    assert shown("multi-lora-serving", "lora_gpus") == 328
    assert shown("multi-lora-serving", "dedicated_util") == pytest.approx(100 / 439, rel=1e-3)
    # One fleet: 691.2 GPUs of mean demand / 8 x 4.39 = 379.3 req/s.
    assert shown("training-and-inference-one-fleet", "mean_arrival") == pytest.approx(
        691.2 / 8 * 4.39, rel=1e-4
    )


def with_rate(tmp_path: Path, entry: dict) -> Path:
    data = read_yaml(BANK / "multi-lora-serving.yaml")
    data["model"]["quantities"] = [
        entry if item.get("name") == SHARED_RATE else item for item in data["model"]["quantities"]
    ]
    path = tmp_path / "multi-lora-serving.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_a_question_redefining_a_shared_figure_with_another_value_is_refused(tmp_path):
    own = {
        "name": SHARED_RATE,
        "label": "Requests per second one replica serves",
        "value": 10,
        "unit": "req/(s*replica)",
        "range": [5, 20],
        "source": "70B TP8, prefill included",
    }
    with pytest.raises(SpecError) as refused:
        load_question(with_rate(tmp_path, own), workloads=load_workloads(WORKLOADS))
    (field, message), *_ = refused.value.problems
    assert field == f"model.{SHARED_RATE}"
    assert "redefines the shared workload figure" in message and "value, range" in message


def test_a_question_restating_a_shared_figure_with_the_same_numbers_loads(tmp_path):
    # An exported pack holds resolved values; read back beside the bank's figures it must still load.
    same = {**load_workloads(WORKLOADS)[SHARED_RATE], "source": "exported"}
    spec = load_question(with_rate(tmp_path, same), workloads=load_workloads(WORKLOADS))
    assert spec.model.reference.quantities[SHARED_RATE].value == 4.39


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"name": SHARED_RATE, "shared": True, "value": 10}, "takes value from the shared figure"),
        ({"name": "no_such_figure", "shared": True}, "'no_such_figure' is not a shared workload figure"),
        ({"name": SHARED_RATE, "shared": "yes"}, "shared must be true"),
    ],
)
def test_a_shared_quantity_takes_nothing_but_its_name_label_and_note(tmp_path, entry, expected):
    with pytest.raises(SpecError) as refused:
        load_question(with_rate(tmp_path, entry), workloads=load_workloads(WORKLOADS))
    assert any(expected in message for _, message in refused.value.problems)


def test_the_bank_loads_its_shared_figures_from_beside_the_palette():
    specs, errors = load_pack(BANK)
    assert errors == []
    users = [spec.slug for spec in specs if SHARED_RATE in spec.model.reference.quantities]
    assert users == ["multi-lora-serving", "training-and-inference-one-fleet"]


# The audit (docs/bank-audit.md).


def test_token_limits_fleet_capacity_uses_the_achievable_decode_rate_and_counts_prefill():
    slug = "token-rate-limits"
    # Decode at 64 sequences and 70% of 8 x 3.35 TB/s: (141.1 + 64 x 2,000 x 327,680 B) / 18.76 TB/s = 9.757
    # ms, 64 / 9.757 ms = 6,560 tok/s; a request takes 1,000 / 28,035 + 250 / 6,560 = 73.8 ms of the replica.
    step = (141.1e9 + 64 * 2000 * 327_680) / (8 * 3.35e12 * 0.7)
    assert 64 / step == pytest.approx(6560, rel=2e-3)
    per_replica = 250 / (1000 / 28_035 + 250 / 6560)
    assert shown(slug, "fleet_output_tpm") == pytest.approx(40 * per_replica * 60, rel=1e-3)
    # 500 tenants x 200k tok/min = 100M against ~8.1M: ~12x, not the 4.4x of the bound at 100% bandwidth.
    assert shown(slug, "oversubscription") == pytest.approx(100e6 / (40 * per_replica * 60), rel=1e-3)


# The four questions that sized 70B replicas by decode slots alone (64 / 10 s = 6.4 req/s a replica) now add
# each request's prefill as replica time: a replica prefills 8 x 989e12 x 0.5 / (2 x 70.55e9) = 28,035 tok/s.

PREFILL_RATE = 28_035
CHAT_REPLICA_TIME = 2000 / PREFILL_RATE + 250 * 0.040 / 64  # 71.3 ms of prefill + 156.3 ms of decode steps


def test_two_region_capacity_counts_each_requests_prefill():
    slug = "two-region-failover"
    # 40 replicas / 0.2276 s = 175.8 req/s a region, not the 40 x 64 / 10 s = 256 of the slots alone.
    assert shown(slug, "region_capacity") == pytest.approx(40 / CHAT_REPLICA_TIME, rel=1e-3)
    assert shown(slug, "region_capacity") == pytest.approx(175.8, rel=1e-3)
    # Two regions at 60%: 2 x 0.6 x 175.8 = 210.9 req/s; the survivor's 20% excess is 35.2 req/s, so 30 s
    # pile up 1,054 requests and a 70 s cold start 2,461.
    assert shown(slug, "offered_total") == pytest.approx(1.2 * 175.76, rel=1e-3)
    assert shown(slug, "backlog_30s") == pytest.approx(0.2 * 175.76 * 30, rel=1e-3)
    assert shown(slug, "backlog_cold") == pytest.approx(0.2 * 175.76 * 70, rel=1e-3)
    # N-1 at 80%: 210.9 req/s x 0.2276 s / 0.8 = 2 x 0.6 x 40 / 0.8 = 60 replicas a region (the rate cancels).
    assert shown(slug, "replicas_n1") == 60
    assert shown(slug, "extra_gpus") == (120 - 80) * 8


def test_shared_cluster_inference_pool_adds_prefill_to_the_decode_slots():
    slug = "shared-gpu-cluster-scheduling"
    # Little's law: 60 req/s x 250 tok x 40 ms = 600 decoding, 600 / 64 = 9.375 replicas of slots; prefill
    # 60 x 2,000 / 28,035 = 4.280 replicas; (9.375 + 4.280) / 0.7 = 19.51, so 20 replicas (160 GPUs), not the
    # 15 of the slots alone.
    assert shown(slug, "in_flight") == 600
    assert shown(slug, "prefill_replicas") == pytest.approx(60 * 2000 / PREFILL_RATE, rel=1e-4)
    assert shown(slug, "replicas") == 20
    assert shown(slug, "inference_gpus") == 160
    # Night trough at 35%: ceil(0.35 x 19.51) = ceil(6.83) = 7 replicas, 56 GPUs; 160 - 56 = 104 lendable;
    # 1,024 - 160 = 864 GPUs for training.
    assert shown(slug, "lendable_gpus") == 104
    assert shown(slug, "training_gpus") == 864


def test_warm_pool_covers_the_bursts_prefill_as_well_as_its_decode_slots():
    slug = "autoscaling-cold-start"
    # +50 req/s x 10 s = 500 decoding, 500 / 64 = 7.81 replicas; prefill 50 x 2,000 / 28,035 = 3.57 replicas;
    # ceil(11.38) = 12 warm replicas = 96 GPUs = $192 an hour at $2 a GPU-hour (8 by the slots alone).
    assert shown(slug, "burst_prefill_replicas") == pytest.approx(50 * 2000 / PREFILL_RATE, rel=1e-4)
    assert shown(slug, "warm_pool_raw") == pytest.approx(500 / 64 + 50 * 2000 / PREFILL_RATE, rel=1e-4)
    assert shown(slug, "warm_pool") == 12
    assert shown(slug, "warm_pool_cost") == pytest.approx(12 * 8 * 2, rel=1e-9)
    assert shown(slug, "replica_rps") == pytest.approx(1 / CHAT_REPLICA_TIME, rel=1e-3)


def test_playground_replicas_and_fleet_output_count_the_prefill_of_short_prompts():
    slug = "public-playground"
    # Peak 500k x 10 / 86,400 s x 3 = 173.6 req/s; 173.6 x 12 s / 64 = 32.55 replicas of slots and
    # 173.6 x 500 / 28,035 = 3.10 of prefill: (32.55 + 3.10) / 0.7 = 50.9, so 51 replicas (49 by the slots).
    peak = 500_000 * 10 / 86_400 * 3
    assert math.ceil((peak * 12 / 64 + peak * 500 / PREFILL_RATE) / 0.7) == 51
    assert shown(slug, "replicas_uncapped") == 51
    assert shown(slug, "peak_shed_frac") == pytest.approx(1 - 32 / 51, rel=1e-9)
    # A replica's 64 streams make 300 tokens an answer in 500 / 28,035 + 12 / 64 = 0.2053 s of its time:
    # 1,461 tok/s, not 64 / 40 ms = 1,600. 32 replicas at 70% make 32 x 1,461 x 0.7 x 86,400 = 2.83B tokens a
    # day, against the 500k x 5,000 = 2.5B the quotas allow.
    per_replica = 300 / (500 / PREFILL_RATE + 12 / 64)
    assert per_replica == pytest.approx(1461.0, rel=1e-3)
    assert shown(slug, "quota_vs_fleet") == pytest.approx(2.5e9 / (32 * per_replica * 0.7 * 86_400), rel=1e-3)


@pytest.mark.parametrize(
    ("slug", "capacity"),
    [
        ("two-region-failover", "region_capacity"),
        ("two-region-failover", "replicas_n1"),
        ("shared-gpu-cluster-scheduling", "replicas"),
        ("shared-gpu-cluster-scheduling", "trough_gpus"),
        ("autoscaling-cold-start", "warm_pool"),
        ("autoscaling-cold-start", "replica_rps"),
        ("public-playground", "replicas_uncapped"),
        ("public-playground", "fleet_daily_tokens"),
    ],
)
def test_every_replica_capacity_of_the_slot_sized_questions_reads_the_prefill_rate(slug, capacity):
    assert "prefill_rate" in question(slug).model.reference.upstream(capacity)


@pytest.mark.parametrize(
    ("slug", "rate"),
    [
        ("two-region-failover", lambda v: 1 / v["replica_time"]),
        ("shared-gpu-cluster-scheduling", lambda v: v["peak_rate"] / v["busy_replicas"]),
        ("autoscaling-cold-start", lambda v: v["replica_rps"]),
    ],
)
def test_questions_on_the_shared_chat_workload_imply_the_shared_replica_rate(slug, rate):
    # Their 2,000-token prompts, 250-token answers and 64 sequences at 40 ms are the shared figure's workload,
    # so the rate their own chain implies is the one workloads.yaml gives (4.39 req/s).
    values = {name: float(value) for name, value in question(slug).model.reference.evaluate().items()}
    assert rate(values) == pytest.approx(load_workloads(WORKLOADS)[SHARED_RATE]["value"], rel=2e-3)


def test_disaggregated_prefill_decode_fixes_the_h100s_bandwidth_its_prompt_states():
    quantity = question("disaggregated-prefill-decode").model.reference.quantities["hbm_bw"]
    assert tuple(quantity.range) == (3.35, 3.35)  # 8xH100 nodes: H200's 4.8 TB/s is not inside the range


def test_a_question_copied_into_a_folder_without_the_figures_resolves_them_from_the_bank(tmp_path):
    # A pack copied elsewhere (the test packs, an import) has no workloads.yaml beside it.
    (tmp_path / "multi-lora-serving.yaml").write_text(
        (BANK / "multi-lora-serving.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    specs, errors = load_pack(tmp_path)
    assert errors == [] and specs[0].model.reference.quantities[SHARED_RATE].value == 4.39
