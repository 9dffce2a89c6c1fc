"""The bank's curveballs (issue 33): each one's reference values recomputed by hand under its change, and
every curveball and decision of the bank checked against the palette and graded right on its own values."""

import math

import pytest

from grading.core.depth import consequence_problems
from grading.core.design_check import load_index
from grading.core.drills import drill_grade, drill_lines, drill_step
from grading.core.grader import grade
from tests.core.test_grader_bank import BANK, question, right

WITH_DEPTH = sorted(
    path.stem
    for path in BANK.glob("*.yaml")
    if question(path.stem).curveballs or question(path.stem).decisions
)


def under(slug: str, curveball_id: str) -> dict[str, float]:
    """The model's values (display units) under one curveball's change."""
    spec = question(slug)
    curveball = next(item for item in spec.curveballs if item.id == curveball_id)
    model = spec.model.reference
    values = model.evaluate({name: model.base_value(name, value) for name, value in curveball.set.items()})
    return {name: float(model.display_value(name, value)) for name, value in values.items()}


def test_seven_boxes_think_time_halves():
    values = under("seven-boxes-serving-walkthrough", "think-time-halves")
    # Request 0.5 + 250 x 0.04 = 10.5 s; each user cycles 10 + 10.5 = 20.5 s: 2,000 / 20.5 = 97.56 req/s;
    # Little: 97.56 x 10.5 = 1,024.4 in flight; 1,024.4 / (64 x 0.7 = 44.8) = 22.87, so 23 replicas.
    assert values["arrival_rate"] == pytest.approx(97.56, abs=0.01)
    assert values["in_flight"] == pytest.approx(1024.4, abs=0.1)
    assert values["replicas"] == 23


def test_seven_boxes_prompts_four_times_longer():
    values = under("seven-boxes-serving-walkthrough", "prompts-four-times-longer")
    # 2,000 / 30.5 s = 65.57 req/s x 8,000 tokens = 524,590 tok/s. One replica prefills
    # 8 x 989e12 x 0.5 / (2 x 70,553,706,496) = 28,035 tok/s, so 524,590 / 28,035 = 18.71 replicas of compute.
    # KV: (8 x 80 GB x 0.9 - 141.1 GB) / 327,680 B = 1,327,187 tokens; / 8,250 a sequence = 160.9.
    assert values["prefill_tok_s"] == pytest.approx(524_590, rel=1e-4)
    assert values["prefill_share"] == pytest.approx(18.71, abs=0.01)
    assert values["max_seqs_kv"] == pytest.approx(160.9, abs=0.1)


@pytest.mark.parametrize("slug", sorted(path.stem for path in BANK.glob("*.yaml")))
def test_every_bank_question_has_two_curveballs_and_each_follow_up_as_a_decision(slug):
    spec = question(slug)
    assert len(spec.curveballs) >= 2
    assert [item for item in spec.follow_ups if item.phase == "depth"]
    assert [f"{item.phase}: {item.text}" for item in spec.follow_ups if not item.is_decision] == []
    assert all(3 <= len(item.options) <= 6 and item.orders for item in spec.follow_ups)


def test_the_seed_follow_ups_are_decisions():
    """The follow-ups the seeds list (../shared/seeds, "Expect these follow-ups") are each a decision of the
    question written from that seed."""
    seeds = {
        "internal-llm-gateway": ("fallback-masks-outage", "personal-data-audit", "governed-override"),
        "multimodal-latency": ("batching-hurts-p95", "progressive-preview", "quality-gate"),
        "shared-gpu-cluster-scheduling": ("scattered-gpus", "unfair-within-quota", "when-to-split"),
    }
    for slug, expected in seeds.items():
        assert set(expected) <= {item.id for item in question(slug).decisions}, slug


@pytest.mark.parametrize("slug", WITH_DEPTH)
def test_each_curveball_consequence_is_a_change_the_palette_can_read(slug):
    assert consequence_problems(question(slug), load_index()) == []


@pytest.mark.parametrize("slug", WITH_DEPTH)
def test_the_reference_answers_score_full_marks_on_every_curveball(slug):
    spec = question(slug)
    curveballs = {}
    for curveball in spec.curveballs:
        values = under(slug, curveball.id)
        curveballs[curveball.id] = {
            "numbers": {line.name: f"{values[line.name]:.6g}" for line in curveball.asked}
        }
    report = grade(spec, {"numbers": right(slug), "depth": {"curveballs": curveballs}})
    for item in report["depth"]["curveballs"]:
        assert item["lines_credit"] == 1.0, (item["id"], [line["message"] for line in item["lines"]])


def test_a_drill_draws_a_curveball_line_the_main_sheet_does_not_ask():
    spec = question("seven-boxes-serving-walkthrough")
    assert "prefill_share" not in {line.name for line in spec.asked}
    assert "prefill_share" in drill_lines(spec)
    step = drill_step(spec, "prefill_share", seed=3)
    # The step gives prefill_tok_s and prefill_cap_replica; its answer is their ratio.
    given = {g.name: g.value for g in step.givens}
    assert step.answer == pytest.approx(given["prefill_tok_s"] / given["prefill_cap_replica"], rel=1e-9)
    assert drill_grade(step, f"{step.answer:.4g}")["verdict"] == "correct"


def test_internal_gateway_prompts_four_times_longer():
    values = under("internal-llm-gateway", "prompts-four-times-longer")
    # (8,000 + 500) tokens x 4 B + 1 KB = 35 KB a record; 10 teams x 3 req/s = 30 req/s x 35 KB x 86,400 s
    # = 90.7 GB a day; spend 30 req/s x 8,500 tok x $2e-6 = $0.51/s x 2,592,000 s = $1.32M a month,
    # $132,192 a team.
    assert values["audit_bytes_per_req"] == pytest.approx(35.0)
    assert values["audit_bytes_per_day"] == pytest.approx(90.72, rel=1e-4)
    assert values["team_budget"] == pytest.approx(132_192, rel=1e-4)


def test_internal_gateway_seven_years_thirty_teams():
    values = under("internal-llm-gateway", "seven-years-thirty-teams")
    # 30 teams x 3 = 90 req/s; 2,500 tok x 4 B + 1 KB = 11 KB; 90 x 11,000 B x 86,400 = 85.5 GB a day;
    # x 2,555 days / 4 compression = 54.6 TB.
    assert values["req_rate"] == pytest.approx(90)
    assert values["audit_bytes_per_day"] == pytest.approx(85.536, rel=1e-4)
    assert values["audit_store"] == pytest.approx(54.64, rel=1e-3)


def test_multimodal_peak_grows_to_four():
    values = under("multimodal-latency", "peak-grows-to-four")
    # GPU time 30 x 0.1 + 0.6 = 3.6 s; rho = 4 x 3.6 / 16 = 0.9. Sakasegawa with c = 16:
    # 0.9^(sqrt(34) - 1 = 4.831) = 0.6011, / (16 x 0.1) x 3.6 s = 1.352 s (0.728 s at 3.8 edits a second).
    assert values["rho"] == pytest.approx(0.9)
    assert values["queue_wait"] == pytest.approx(1.352, abs=0.001)


def test_multimodal_distillation_keeps_sixteen_steps():
    values = under("multimodal-latency", "distillation-keeps-sixteen-steps")
    # 16 x 0.1 s / 1.6 = 1.0 s; GPU time 1.6 s; 3.8 x 0.85 = 3.23 req/s x 1.6 / 0.7 = 7.38: 8 GPUs (6 before).
    assert values["inference_opt"] == pytest.approx(1.0)
    assert values["gpus_needed_opt"] == 8


def test_agent_sessions_tools_get_faster():
    values = under("agent-sessions", "tools-get-faster")
    # A step is 1 s of thinking + 5 s of tools = 6 s; 100 steps = 600 s = 10 min; the GPU's share 1/6;
    # 2,000 sessions / 6 s = 333.3 generation steps a second.
    assert values["session_time"] == pytest.approx(10.0)
    assert values["gpu_duty"] == pytest.approx(1 / 6)
    assert values["think_rate"] == pytest.approx(333.33, abs=0.01)


def test_agent_sessions_contexts_double():
    values = under("agent-sessions", "contexts-double")
    # 64,000 tok x 320 KiB (327,680 B) = 20.97 GB a session; 434.9 GB of HBM / 20.97 = 20.7, so 20 pinned;
    # recompute: 64,000 / 28,035 tok/s = 2.283 s of linear prefill + 1,310,720 x 64,000^2 = 5.369e15 FLOP of
    # attention / 3,956 TFLOP/s = 1.357 s: 3.640 s.
    assert values["kv_keep"] == pytest.approx(20.97, abs=0.01)
    assert values["sessions_pinned"] == 20
    assert values["recompute_s"] == pytest.approx(3.640, abs=0.001)


def test_autoscaling_burst_triples():
    values = under("autoscaling-cold-start", "burst-triples")
    # Cold start 5 + 141.107 GB / 3 GB/s (47.04 s) + 15 + 3 = 70.04 s; 150 req/s x 70.04 = 10,505 requests.
    # Pool: 150 x 10 s = 1,500 in flight / 64 = 23.44 replicas of slots + 150 x 2,000 / 28,035 = 10.70 of
    # prefill = 34.14, so 35 replicas; 35 x 8 GPUs x $2 = $560 an hour.
    assert values["backlog_nopool"] == pytest.approx(10_505, abs=1)
    assert values["warm_pool"] == 35
    assert values["warm_pool_cost"] == pytest.approx(560)


def test_autoscaling_registry_pull():
    values = under("autoscaling-cold-start", "registry-pull")
    # 141.107 GB / 0.5 GB/s = 282.21 s of loading + 23 s = 305.21 s cold; 15 s of detection + 305.21 - 60 s of
    # burst build = 260.21 s uncovered; 50 req/s x 305.21 s = 15,261 requests; the cooldown is one cold start.
    assert values["t_cold"] == pytest.approx(305.21, abs=0.01)
    assert values["uncovered_s"] == pytest.approx(260.21, abs=0.01)
    assert values["backlog_nopool"] == pytest.approx(15_261, abs=1)
    assert values["scale_up_cooldown"] == pytest.approx(305.21, abs=0.01)


def test_checkpoint_storage_grows_to_4tb():
    values = under("checkpoint-storage", "checkpoint-grows-4tb")
    # 4 TB in 60 s = 66.67 GB/s = 533.3 Gb/s; drained over the other 1,800 - 60 = 1,740 s: 4e12 / 1,740
    # = 2,298.9 MB/s; each of the 256 resuming GPUs loads 4,000 GB / 256 = 15.625 GB.
    assert values["burst_bw"] == pytest.approx(66.667, abs=0.001)
    assert values["burst_bw_bits"] == pytest.approx(533.33, abs=0.01)
    assert values["drain_bw"] == pytest.approx(2_298.9, abs=0.1)
    assert values["bytes_per_new_gpu"] == pytest.approx(15.625)


def test_checkpoint_storage_job_grows_to_16k():
    values = under("checkpoint-storage", "job-grows-16k")
    # 4.74e-4 x 16,384 = 7.766 failures a day, one every 24 / 7.766 = 3.090 h = 11,125 s.
    # Young/Daly: sqrt(2 x 60 s x 11,125 s) = 1,155.4 s = 19.26 min. Each failure loses 16,384 GPUs x
    # (15 + 10) min = 6,826.7 GPU-h; x 7.766 a day = 53,016 GPU-h a day.
    failures_a_day = 4.74e-4 * 16_384
    assert values["job_mtbf"] == pytest.approx(24 / failures_a_day, rel=1e-9)
    assert values["job_mtbf"] == pytest.approx(3.090, abs=0.001)
    assert values["young_daly"] == pytest.approx(19.26, abs=0.01)
    assert values["rollback_per_day"] == pytest.approx(failures_a_day * 16_384 * 25 / 60, rel=1e-9)
    assert values["rollback_per_day"] == pytest.approx(53_016, abs=1)


def test_disaggregated_traffic_fivefold():
    values = under("disaggregated-prefill-decode", "traffic-fivefold")
    # Decode step (141.1 GB + 128 x 2,125 tok x 327,680 B = 89.13 GB) / (8 x 3.35 TB/s x 0.7 = 18.76 TB/s)
    # = 12.272 ms, so a decode node makes 128 / 12.272 ms = 10,430 tok/s. At 100 req/s:
    # link 100 x 2,000 x 327,680 B = 65.5 GB/s = 524.3 Gb/s; prefill ceil(200,000 / (28,035 x 0.8) = 8.92) = 9
    # and decode ceil(25,000 / (10,430 x 0.8) = 3.00) = 3 nodes: 12. The monolith gets (1 - 12.272 / 40) of
    # each step window for prefill: 0.6932 x 28,035 / 2,000 = 9.717 req/s a node; ceil(100 / (9.717 x 0.8)
    # = 12.86) = 13 nodes.
    decode_step = (141.1e9 + 128 * 2_125 * 327_680) / (8 * 3.35e12 * 0.7)
    decode_tps = 128 / decode_step
    assert decode_tps == pytest.approx(10_430, abs=1)
    assert 100 * 250 / (decode_tps * 0.8) == pytest.approx(2.996, abs=0.001)
    assert values["link_bw"] == pytest.approx(524.288)
    assert values["disagg_nodes"] == 9 + 3
    assert values["mono_nodes"] == 13


def test_disaggregated_prompts_double():
    values = under("disaggregated-prefill-decode", "prompts-double")
    # Mean context 4,000 + 125 = 4,125 tok: 128 x 4,125 x 327,680 B = 173.0 GB + 141.1 GB = 314.1 GB
    # / 18.76 TB/s = 16.744 ms; 128 / 16.744 ms = 7,644.6 tok/s. Ratio (4,000 / 28,035 = 0.14268 s) /
    # (250 / 7,644.6 = 0.032703 s) = 4.363. Link 20 x 4,000 x 327,680 B = 26.2 GB/s = 209.7 Gb/s.
    # Monolith: (1 - 16.744 / 40) x 28,035 / 4,000 = 4.075 req/s a node.
    assert values["decode_step"] == pytest.approx(16.744, abs=0.001)
    assert values["ratio"] == pytest.approx(4.363, abs=0.001)
    assert values["link_bw"] == pytest.approx(209.7152)
    assert values["mono_rate_per_node"] == pytest.approx(4.075, abs=0.001)


def tp4_replica_seconds(prompt_tokens: int) -> tuple[int, float]:
    """A TP4 server's batch and replica time per document, by the interview's arithmetic of the review
    question: KV room (4 x 80 GB x 0.9 - 141.1 GB) / 327,680 B a token; a step reads the weights and the
    batch's KV at 4 x 2.345 TB/s; prefill at 4 x 3,504 tok/s."""
    sequence = prompt_tokens + 600
    batch = int((4 * 80e9 * 0.9 - 141.1e9) / 327_680 // sequence)
    kv_read = (prompt_tokens + 300) * 327_680
    step = (141.1e9 + batch * kv_read) / (4 * 2.345e12)
    prefill = prompt_tokens / (4 * 3_504)
    return batch, prefill + 600 * step / batch


def test_eight_gpu_review_load_rises_to_eight():
    values = under("eight-gpu-design-review", "load-rises-to-eight")
    # 6,000-token documents: 448,303 tokens of KV room / 6,600 = 67 a server; step 279.4 GB / 9.38 TB/s
    # = 29.79 ms; prefill 6,000 / 14,016 = 0.4281 s; replica time 0.4281 + 600 x 29.79 ms / 67 = 0.6948 s,
    # so two servers complete 2.878 req/s.
    batch, replica_s = tp4_replica_seconds(6_000)
    assert batch == 67
    assert replica_s == pytest.approx(0.6948, abs=1e-4)
    # Prefill alone: 8 x 6,000 / (8 x 3,504) = 1.712 of the eight GPUs; 8 / 2.878 = 2.779 the two servers;
    # servers ceil(8 x 0.6948 / 0.7 = 7.94) + 1 spare = 9.
    assert values["prefill_load"] == pytest.approx(8 * 6_000 / (8 * 3_504))
    assert values["load_fixed"] == pytest.approx(8 * replica_s / 2, rel=1e-6)
    assert values["load_fixed"] == pytest.approx(2.779, abs=0.001)
    assert values["servers_needed"] == 9


def test_eight_gpu_review_documents_grow_to_8000():
    values = under("eight-gpu-design-review", "documents-grow-to-8000")
    # 8,600-token sequences: 256 of them need 2,201,600 tokens against (576 - 141.1) GB / 327,680 B
    # = 1,327,209 of room: 1.659 times over. Prefill 5 x 8,000 / 28,032 = 1.427 of the eight GPUs.
    # TP4: 448,303 / 8,600 = 52 a server; step 282.5 GB / 9.38 TB/s = 30.12 ms; prefill 8,000 / 14,016 =
    # 0.5708 s; replica time 0.5708 + 600 x 30.12 ms / 52 = 0.9183 s: two servers complete 2.178 req/s;
    # servers ceil(5 x 0.9183 / 0.7 = 6.56) + 1 = 8.
    batch, replica_s = tp4_replica_seconds(8_000)
    assert batch == 52
    assert replica_s == pytest.approx(0.9183, abs=1e-4)
    assert values["kv_overcommit"] == pytest.approx(256 * 8_600 / (434.9e9 / 327_680), rel=1e-9)
    assert values["kv_overcommit"] == pytest.approx(1.659, abs=0.001)
    assert values["prefill_load"] == pytest.approx(1.427, abs=0.001)
    assert values["capacity_fixed"] == pytest.approx(2 / replica_s, rel=1e-6)
    assert values["servers_needed"] == 8


def test_eval_pipeline_one_hour_turnaround():
    values = under("eval-pipeline-10m-prompts", "one-hour-turnaround")
    # 10M prompts in 3,600 s = 2,777.8 prompts/s. A prompt takes 1,000 / 28,035 + 250 / 10,400 = 0.05971 s of
    # a replica (16.75 prompts/s); 9M after the 10% cache hits / 3,600 s = 2,500 prompts/s / (16.75 x 0.8)
    # = 186.6, so 187 replicas, which finish 9M / (187 x 16.75 x 0.8 = 2,505.5/s) = 0.998 h.
    replica_s = 1_000 / 28_035 + 250 / 10_400
    assert values["rate_fast"] == pytest.approx(2_777.78, abs=0.01)
    assert 2_500 * replica_s / 0.8 == pytest.approx(186.6, abs=0.1)
    assert values["replicas_fast"] == 187
    assert values["completion_fast"] == pytest.approx(9e6 * replica_s / (187 * 0.8) / 3_600, rel=1e-9)
    assert values["completion_fast"] == pytest.approx(0.998, abs=0.001)


def test_eval_pipeline_outputs_grow_to_1000():
    values = under("eval-pipeline-10m-prompts", "outputs-grow-to-1000")
    # 1,000 / 28,035 = 0.03567 s of prefill + 1,000 / 10,400 = 0.09615 s of decode = 0.13182 s a prompt;
    # 625 prompts/s x 0.13182 / 0.8 = 103.0 replicas (ceil 103); 9M x 0.13182 s x 8 GPUs / 0.8
    # = 3,295.6 GPU-h.
    replica_s = 1_000 / 28_035 + 1_000 / 10_400
    assert values["replica_s_per_prompt"] == pytest.approx(replica_s, rel=1e-9)
    assert values["replica_s_per_prompt"] == pytest.approx(0.13182, abs=1e-5)
    assert 625 * replica_s / 0.8 == pytest.approx(102.99, abs=0.01)
    assert values["replicas_fast"] == 103
    assert values["gpu_hours"] == pytest.approx(3_295.6, abs=0.1)


def test_feature_store_five_hundred_candidates():
    values = under("feature-store-no-leakage", "five-hundred-candidates")
    # 10,000 req/s x 501 keys = 5.01M key reads a second x 100 features x 8 B = 4,008 MB/s. Fifty shards
    # each meeting q with q^50 = 0.99: q = exp(ln 0.99 / 50) = 0.999799, so 2.01e-4 of a shard's lookups
    # may run over (5.02e-4 with 20 shards).
    assert values["lookup_rate"] == pytest.approx(5.01e6)
    assert values["online_read_bw"] == pytest.approx(4_008)
    assert values["shard_tail_frac"] == pytest.approx(2.0099e-4, rel=1e-4)


def test_feature_store_ninety_day_window():
    values = under("feature-store-no-leakage", "ninety-day-window")
    # 2e8 samples a day x 90 days = 1.8e10 rows x 200 features x 8 B = 28.8 TB; the feature log joined:
    # 6e7 keys x 1 snapshot a day x 90 days x 800 B = 4.32 TB.
    assert values["training_rows"] == pytest.approx(1.8e10)
    assert values["training_set_bytes"] == pytest.approx(28.8)
    assert values["feature_log_bytes"] == pytest.approx(4.32)


def test_forty_five_minute_plan_agent_mode_prompts():
    values = under("forty-five-minute-plan", "agent-mode-prompts")
    # 3,000 developers / (20 s + 0.5 + 250 x 0.04 = 30.5 s) = 98.36 req/s x 9,000 tokens = 885,246 tok/s;
    # / 28,035 tok/s a replica = 31.58 replicas of prefill compute (7.02 at 2,000-token prompts).
    assert values["prefill_tok_s"] == pytest.approx(3_000 / 30.5 * 9_000, rel=1e-9)
    assert values["prefill_tok_s"] == pytest.approx(885_246, abs=1)
    assert values["prefill_share"] == pytest.approx(31.58, abs=0.01)


def test_forty_five_minute_plan_whole_company_launch():
    values = under("forty-five-minute-plan", "whole-company-launch")
    # 6,000 / 30.5 s = 196.72 req/s; x 10.5 s = 2,065.6 in flight; / (64 x 0.7 = 44.8) = 46.1, so 47 replicas.
    assert values["arrival_rate"] == pytest.approx(196.72, abs=0.01)
    assert values["in_flight"] == pytest.approx(2_065.6, abs=0.1)
    assert values["replicas"] == 47


def test_gpu_cloud_fleet_grows_fourfold():
    values = under("gpu-cloud-provisioning", "fleet-grows-fourfold")
    # 16,000 nodes / 30 s = 533.3 reconciles a second x 0.05 s = 26.7 in progress. 128,000 GPUs x 4.74e-4
    # = 60.67 node failures a day x 3 days = 182.0 nodes in repair; x 2 = 364.03, so 365 spares.
    assert values["reconcile_rate"] == pytest.approx(533.33, abs=0.01)
    assert values["reconciles_in_flight"] == pytest.approx(26.67, abs=0.01)
    assert values["nodes_in_repair"] == pytest.approx(182.016)
    assert values["spare_nodes"] == 365


def test_gpu_cloud_bad_gpu_batch():
    values = under("gpu-cloud-provisioning", "bad-gpu-batch")
    # 32,000 GPUs x 1e-3 = 32 failures a day x 3 days = 96 in repair, x 2 = 192 spares; the 512-GPU job:
    # 512 x 1e-3 x 3 x 2 = 3.07, so 4 spares.
    assert values["nodes_in_repair"] == pytest.approx(96)
    assert values["spare_nodes"] == 192
    assert values["job_spares"] == 4


def test_gpu_cloud_pull_within_ninety_seconds():
    values = under("gpu-cloud-provisioning", "pull-within-ninety-seconds")
    # 10 s x 2 strikes = 20 s to detect + 60 s to drain = 80 s = 1.33 min; + 300 s for a spare = 380 s;
    # 512 GPUs x 380 s = 54.04 GPU-h stalled a failure (76.8 before).
    assert values["time_to_pull"] == pytest.approx(80 / 60)
    assert values["restart_time"] == pytest.approx(380)
    assert values["stall_gpu_hours"] == pytest.approx(512 * 380 / 3_600)


def test_gpu_credits_cluster_grows_to_16k():
    values = under("gpu-credit-system", "cluster-grows-to-16k")
    # 16,384 / 8 = 2,048 nodes; 16,384 x 720 h = 11,796,480 GPU-h a month; the idle 10% at $2 = $2,359,296;
    # a team's guarantee 16,384 / 8 = 2,048 GPUs waits at most a 30-minute grace: 1,024 GPU-h.
    assert values["nodes"] == 2_048
    assert values["gpu_hours_month"] == pytest.approx(16_384 * 720)
    assert values["idle_cost_month"] == pytest.approx(16_384 * 720 * 0.1 * 2)
    assert values["starved_gpu_hours"] == pytest.approx(1_024)


def test_gpu_credits_ten_second_debits():
    values = under("gpu-credit-system", "ten-second-debits")
    # 2,000 jobs / 10 s = 200 debits a second x 2,592,000 s = 518.4M a month; each is worth
    # 3,686.4 busy GPUs x 10 s x $2/h / 2,000 jobs = $0.01024.
    assert values["debit_rate"] == pytest.approx(200)
    assert values["debits_month"] == pytest.approx(518.4e6)
    assert values["debit_value"] == pytest.approx(3_686.4 * 10 / 3_600 * 2 / 2_000)
    assert values["debit_value"] == pytest.approx(0.01024)


def test_observability_batch_halves_for_latency():
    values = under("inference-observability", "batch-halves-for-latency")
    # 32 tokens a 12 ms step = 2,666.7 tok/s a replica; 8 GPUs x $2/h = $0.004444/s / 2,666.7 = $1.667e-6 a
    # token; a span at $1.7e-6 is 1.02 times that; the 16-sequence tenant is half of the batch.
    assert values["gpu_cost_per_token"] == pytest.approx(8 * 2 / 3_600 / (32 / 0.012), rel=1e-9)
    assert values["gpu_cost_per_token"] == pytest.approx(1.6667e-6, rel=1e-4)
    assert values["trace_to_serving"] == pytest.approx(1.02)
    assert values["tenant_share"] == pytest.approx(0.5)


def test_observability_fleet_grows_to_50k():
    values = under("inference-observability", "fleet-grows-to-50k")
    # 50,000 GPUs x 30 series = 1.5M; x 1,000 tenant values = 1.5B series x 4 KiB (4,096 B) = 6.144 TB;
    # / 2M series a shard = 750 shards.
    assert values["base_series"] == pytest.approx(1.5e6)
    assert values["series_with_tenant"] == pytest.approx(1.5e9)
    assert values["tenant_tsdb_memory"] == pytest.approx(6.144)
    assert values["shards_needed"] == 750


def test_job_scheduler_a_million_pending():
    values = under("job-scheduler-100k-jobs", "a-million-pending")
    # 1,000,000 jobs x 10 us = 10 s a scan; log2(1e6) = 19.93 comparisons; at 1 job a second the backlog
    # is 1,000,000 s = 277.8 h of queue (Little's law).
    assert values["scan_time"] == pytest.approx(10)
    assert values["heap_compares"] == pytest.approx(19.93, abs=0.01)
    assert values["backlog_wait"] == pytest.approx(1e6 / 3_600)


def test_job_scheduler_topology_scoring():
    values = under("job-scheduler-100k-jobs", "topology-scoring")
    # 100,000 x 20 us = 2 s a scan, two 1 s ticks; the index checks 64 bucket heads x 20 us = 1.28 ms.
    assert values["scan_time"] == pytest.approx(2)
    assert values["scan_share"] == pytest.approx(2)
    assert values["index_time"] == pytest.approx(1.28)


def test_kv_tiering_fp8():
    values = under("kv-cache-tiering", "fp8-kv")
    # 2 x 80 layers x 8 heads x 128 x 1 B = 163,840 B = 160 KiB a token; x 30,000 = 4.915 GB a conversation;
    # (8 x 80 GB x 0.9 - 141.107 GB) / 4.915 GB = 88.5, so 88 in HBM. Break-even: 163,840 B x (8 x 989e12
    # x 0.5) FLOP/s / (2 x 70.55e9) FLOP a token = 4.593 GB/s.
    assert values["kv_bytes_per_token"] == pytest.approx(160)
    assert values["kv_conv"] == pytest.approx(4.9152)
    assert values["convs_in_hbm"] == 88
    assert values["breakeven_bw"] == pytest.approx(163_840 * 8 * 989e12 * 0.5 / (2 * 70_553_706_496) / 1e9)
    assert values["breakeven_bw"] == pytest.approx(4.593, abs=0.001)


def test_kv_tiering_contexts_grow_to_64k():
    values = under("kv-cache-tiering", "contexts-grow-to-64k")
    # 64,000 x 327,680 B = 20.97 GB; 434.89 GB / 20.97 = 20.7, so 20 conversations in HBM. Recompute:
    # 2 x 70.55e9 x 64,000 = 9.031e15 FLOP + attention 2 x 80 x 8,192 x 64,000^2 = 5.369e15 = 1.440e16 FLOP
    # / 3.956e15 FLOP/s = 3.640 s; reload 20.97 GB / 400 GB/s = 52.4 ms; 0.2 returns a second x (3.640 -
    # 0.052) s = 0.7175 of a replica saved.
    recompute = (2 * 70_553_706_496 * 64_000 + 2 * 80 * 8_192 * 64_000**2) / (8 * 989e12 * 0.5)
    assert values["kv_conv"] == pytest.approx(20.97, abs=0.01)
    assert values["convs_in_hbm"] == 20
    assert values["recompute_s"] == pytest.approx(recompute, rel=1e-9)
    assert values["recompute_s"] == pytest.approx(3.640, abs=0.001)
    assert values["saved_frac"] == pytest.approx(0.2 * (recompute - 64_000 * 327_680 / 400e9), rel=1e-9)
    assert values["saved_frac"] == pytest.approx(0.7175, abs=0.0001)


def test_kv_tiering_slow_nvme_fast_prefill():
    values = under("kv-cache-tiering", "slow-nvme-fast-prefill")
    # Prefill at 8 x 989e12 x 0.7 = 5.538e15 FLOP/s: (4.233e15 + 1.180e15) / 5.538e15 = 0.977 s; break-even
    # 327,680 B x 5.538e15 / 1.411e11 = 12.86 GB/s; NVMe reads 9.83 GB at 7 GB/s in 1,404 ms, slower than
    # recomputing.
    assert values["recompute_s"] == pytest.approx(0.9773, abs=0.0001)
    assert values["breakeven_bw"] == pytest.approx(12.86, abs=0.01)
    assert values["reload_nvme_s"] == pytest.approx(30_000 * 327_680 / 7e9 * 1e3)
    assert values["reload_nvme_s"] > values["recompute_s"] * 1e3


def test_artifact_distribution_model_grows_to_405b():
    values = under("model-artifact-distribution", "model-grows-to-405b")
    # 405e9 x 2 B = 810 GB; a thousand nodes need 810 TB: at 40 Gb/s (5 GB/s) from the origin 162,000 s
    # = 45 h.
    # One copy over a 100 Gb/s NIC: 810 GB x 8 / 100 Gb/s = 64.8 s; the disk (5 GB/s) and the origin's one
    # copy take 162 s, the slowest pipe, x 3 swarm overhead = 486 s.
    assert values["artifact_bytes"] == pytest.approx(810)
    assert values["origin_only_time"] == pytest.approx(45)
    assert values["one_copy_time"] == pytest.approx(64.8)
    assert values["fanout_time"] == pytest.approx(486)


def test_artifact_distribution_config_only_release():
    values = under("model-artifact-distribution", "config-only-release")
    # A tenth of 141.107 GB = 14.11 GB a node, 14.11 TB for the fleet; from the origin 14.11e12 B / 5 GB/s
    # = 2,822 s = 0.784 h; one copy over 100 Gb/s 1.129 s; the slowest pipe (disk or origin, 2.822 s) x 3
    # = 8.47 s.
    assert values["fleet_bytes"] == pytest.approx(14.1107, abs=1e-4)
    assert values["origin_only_time"] == pytest.approx(14.1107e12 / 5e9 / 3_600, rel=1e-4)
    assert values["one_copy_time"] == pytest.approx(1.1289, abs=1e-4)
    assert values["fanout_time"] == pytest.approx(8.466, abs=0.001)


def test_artifact_distribution_slow_nics():
    values = under("model-artifact-distribution", "slow-nics")
    # 141.107 GB x 8 / 25 Gb/s = 45.15 s, now slower than the disk's and the origin's 28.2 s: x 3 = 135.5 s.
    assert values["one_copy_time"] == pytest.approx(45.15, abs=0.01)
    assert values["fanout_time"] == pytest.approx(3 * 45.154, abs=0.01)


def moe_rack_step(batch: int, context: int, imbalance: float) -> float:
    """A Kimi K2 decode step on an NVL72 rack in seconds: the hottest GPU reads its 1.04e12 / 72 B of experts
    at 8 TB/s and runs 60 x 2 all-to-alls of 10 us plus its tokens' 8 x 7,168 x 3 B x 60 layers at 0.9 TB/s,
    times the imbalance; then its batch's latent KV (61 x 1,152 B a token) at 8 TB/s."""
    experts = 1.04e12 / 72 / 8e12
    all_to_all = 60 * 2 * 10e-6 + batch * 8 * 7_168 * 3 * 60 / 0.9e12
    return imbalance * (experts + all_to_all) + batch * context * 61 * 1_152 / 8e12


def test_moe_rack_contexts_grow_to_16k():
    values = under("moe-serving-on-a-rack", "contexts-grow-to-16k")
    # 1.3 x (1.806 ms of experts + 1.934 ms of all-to-all) = 4.861 ms + 64 x 16,384 x 70,272 B / 8 TB/s
    # = 9.211 ms: 14.07 ms; 72 x 64 tokens / 14.07 ms = 327,456 tok/s; compute 64 x 2 x 32.6e9 FLOP /
    # 2,250 TFLOP/s = 1.855 ms, 0.132 of the step.
    step = moe_rack_step(64, 16_384, 1.3)
    assert values["step_time"] == pytest.approx(step * 1e3, rel=1e-6)
    assert values["step_time"] == pytest.approx(14.07, abs=0.01)
    assert values["rack_tok_s"] == pytest.approx(72 * 64 / step, rel=1e-6)
    assert values["compute_share"] == pytest.approx(64 * 2 * 3.26e10 / 2.25e15 / step, rel=1e-6)
    assert values["compute_share"] == pytest.approx(0.1318, abs=0.0001)


def test_moe_rack_hot_expert():
    values = under("moe-serving-on-a-rack", "hot-expert")
    # 2.0 x 3.740 ms + 2.303 ms of KV = 9.782 ms: 4,608 / 9.782 ms = 471,079 tok/s; the imbalance costs
    # (2.0 - 1) x 3.740 ms = 3.740 ms of every step (1.122 ms at 1.3).
    assert values["rack_tok_s"] == pytest.approx(72 * 64 / moe_rack_step(64, 4_096, 2.0), rel=1e-6)
    assert values["rack_tok_s"] == pytest.approx(471_079, abs=1)
    assert values["imbalance_cost"] == pytest.approx(3.740, abs=0.001)


def test_moe_rack_batch_halves_for_latency():
    values = under("moe-serving-on-a-rack", "batch-halves-for-latency")
    # KV 32 x 4,096 x 70,272 B / 8 TB/s = 1.151 ms; step 1.3 x (1.806 + 1.2 + 0.367) ms + 1.151 ms = 5.536 ms;
    # 72 x 32 / 5.536 ms = 416,210 tok/s; compute 32 x 2 x 32.6e9 / 2,250 TFLOP/s = 0.927 ms, 0.168 of it.
    step = moe_rack_step(32, 4_096, 1.3)
    assert values["kv_read"] == pytest.approx(1.151, abs=0.001)
    assert values["rack_tok_s"] == pytest.approx(72 * 32 / step, rel=1e-6)
    assert values["rack_tok_s"] == pytest.approx(416_210, abs=1)
    assert values["compute_share"] == pytest.approx(0.1675, abs=0.0001)


def test_moe_total_or_active_fp8_on_186gb():
    values = under("moe-total-or-active", "fp8-on-nvl72")
    # 1.04e12 x 16 B = 16.64 TB / 186 GB = 89.5 GPUs. 6 x 32.6e9 = 195.6 GFLOP a token x 15.5e12 tokens
    # = 3.032e24 FLOP / (2,048 x 1,979e12 x 0.3 = 1.216e18 FLOP/s) = 2.494e6 s = 28.86 days. A GPU trains
    # 593.7e12 / 195.6e9 = 3,035 tok/s x 8 x 7,168 x 60 x 3 B (10.32 MB) x 2 = 62.66 GB/s of all-to-all.
    assert values["gpus_for_state"] == pytest.approx(16.64e12 / 186e9, rel=1e-9)
    assert values["train_days"] == pytest.approx(6 * 32.6e9 * 15.5e12 / (2_048 * 1_979e12 * 0.3) / 86_400)
    assert values["train_days"] == pytest.approx(28.86, abs=0.01)
    assert values["a2a_bw_per_gpu"] == pytest.approx(62.66, abs=0.01)


def test_moe_total_or_active_active_doubles():
    values = under("moe-total-or-active", "active-doubles")
    # 6 x 65e9 = 390 GFLOP a token; 1.04e12 / 65e9 = 16; 390e9 x 15.5e12 / (2,048 x 989e12 x 0.3) = 9.948e6 s
    # = 115.1 days.
    assert values["flops_per_token"] == pytest.approx(390)
    assert values["compute_ratio"] == pytest.approx(16)
    assert values["train_days"] == pytest.approx(115.14, abs=0.01)


def test_multi_lora_rank_64_adapters():
    values = under("multi-lora-serving", "rank-64-adapters")
    # Rank 64 on q (8,192 + 8,192) and v (8,192 + 1,024) in 80 layers: 64 x 25,600 x 80 = 131.07M parameters
    # x 2 B = 262.1 MB; a hundred = 26.2 GB; 100 req/s / (4.39 x 0.7 x 0.7 = 2.151) = 46.5, so 47 replicas;
    # one adapter over PCIe at 25 GB/s: 10.49 ms.
    assert values["adapter_bytes"] == pytest.approx(64 * 25_600 * 80 * 2 / 1e6)
    assert values["adapters_total"] == pytest.approx(26.2144)
    replicas_raw = 100 / (4.39 * 0.7 * 0.7)
    assert replicas_raw == pytest.approx(46.49, abs=0.01)
    assert values["lora_replicas"] == 47
    assert values["adapter_load_time"] == pytest.approx(10.486, abs=0.001)


def test_multi_lora_five_hundred_variants():
    values = under("multi-lora-serving", "five-hundred-variants")
    # Dedicated: 500 replicas x 8 = 4,000 GPUs at 300 / (500 x 4.39) = 0.137 busy. Shared: 500 x 32.77 MB
    # = 16.38 GB of adapters; 300 / (4.39 x 0.8 x 0.7 = 2.458) = 122.03, so 123 replicas.
    assert values["dedicated_gpus"] == 4_000
    assert values["dedicated_util"] == pytest.approx(300 / (500 * 4.39))
    assert values["adapters_total"] == pytest.approx(16.384)
    replicas_raw = 300 / (4.39 * 0.8 * 0.7)
    assert replicas_raw == pytest.approx(122.03, abs=0.01)
    assert values["lora_replicas"] == 123


def test_multi_provider_primary_share_80():
    values = under("multi-provider-gateway", "primary-share-80")
    # 50 calls/s x 0.8 = 40 on the primary x 2,000 tokens = 80,000 tok/s = 4.8M tok/min; the secondaries'
    # 2M tok/min / 2,000 = 16.67 calls/s: 16.67 / 40 = 0.417 served, 40 - 16.67 = 23.33 calls/s shed.
    assert values["fallback_demand_tpm"] == pytest.approx(4.8e6)
    assert values["fallback_served_frac"] == pytest.approx(2e6 / 60 / 2_000 / 40)
    assert values["shed_rps"] == pytest.approx(40 - 2e6 / 60 / 2_000)


def test_multi_provider_traffic_quadruples():
    values = under("multi-provider-gateway", "traffic-quadruples")
    # 200 x 2,000 = 400,000 tok/s x $5e-6 = $2/s x 2,592,000 s = $5,184,000 a month, $129,600 a team;
    # the primary's 120 calls/s against 16.67 of fallback: 0.139 served, 103.3 calls/s shed.
    assert values["monthly_spend"] == pytest.approx(5_184_000)
    assert values["team_budget"] == pytest.approx(129_600)
    assert values["fallback_served_frac"] == pytest.approx(16.667 / 120, rel=1e-4)
    assert values["shed_rps"] == pytest.approx(103.33, abs=0.01)


def test_gateway_fallback_load_rises_to_sixty():
    values = under("gateway-fallback-review", "load-rises-to-sixty")
    # KV room (72 GB - 16 GB) / 131,072 B = 427,246 tokens: 185.76 sequences of 2,300. A full step reads
    # 16 GB + 185.76 x 2,150 x 131,072 B = 68.35 GB at 2.345 TB/s: 29.15 ms. A request takes 2,000 / 30,000
    # = 0.0667 s of prefill + 300 x 29.15 ms / 185.76 = 0.0471 s = 0.1137 s, so four replicas complete
    # 35.17 req/s and 60 is 1.706 of that. With the batch of 96 a step takes
    # (16 + 96 x 0.2818) GB / 2.345 TB/s = 18.36 ms, a request 0.0667 + 300 x 18.36 ms / 96 = 0.1240 s;
    # ceil(2 x 60 x 0.1240 = 14.88) = 15 replicas. An outage rejects 60 - 6 = 54 a second.
    kv_read = 2_150 * 131_072
    fit = 56e9 / 131_072 / 2_300
    replica_s = 2_000 / 30_000 + 300 * (16e9 + fit * kv_read) / 2.345e12 / fit
    assert values["pool_load"] == pytest.approx(60 * replica_s / 4, rel=1e-6)
    assert values["pool_load"] == pytest.approx(1.706, abs=0.001)
    peak_replicas = 2 * 60 * (2_000 / 30_000 + 300 * (16e9 + 96 * kv_read) / 2.345e12 / 96)
    assert peak_replicas == pytest.approx(14.88, abs=0.01)
    assert values["replicas_needed"] == 15
    assert values["outage_rejected"] == 54


def test_gateway_fallback_prompts_double():
    values = under("gateway-fallback-review", "prompts-double")
    # 256 x 4,300 tokens = 1,100,800 against 427,246 of room: 2.577 times over. The batch of 96 reads
    # 16 GB + 96 x 4,150 x 131,072 B = 68.22 GB a step: 29.09 ms; a full batch answers in 4,000 / 30,000
    # = 0.1333 s + 300 x 29.09 ms = 8.861 s. A request takes 0.1333 + 300 x 29.09 ms / 96 = 0.2242 s of a
    # replica: ceil(2 x 40 x 0.2242 = 17.94) = 18 replicas.
    step = (16e9 + 96 * 4_150 * 131_072) / 2.345e12
    assert values["kv_overcommit"] == pytest.approx(256 * 4_300 / (56e9 / 131_072), rel=1e-9)
    assert values["kv_overcommit"] == pytest.approx(2.577, abs=0.001)
    assert values["e2e_fixed"] == pytest.approx(4_000 / 30_000 + 300 * step, rel=1e-9)
    assert values["e2e_fixed"] == pytest.approx(8.861, abs=0.001)
    peak_replicas = 2 * 40 * (4_000 / 30_000 + 300 * step / 96)
    assert peak_replicas == pytest.approx(17.94, abs=0.01)
    assert values["replicas_needed"] == 18


def batching_step(batch: int, weights: float) -> float:
    """The interview's 70B TP8 decode step in seconds: the weights and the batch's KV (2,125 tokens of
    327,680 B each) read at 8 x 3.35 TB/s x 0.7."""
    return (weights + batch * 2_125 * 327_680) / 18.76e12


def test_llm_batching_contexts_to_32k():
    values = under("llm-batching-system", "contexts-to-32k")
    # KV room (576 - 141.107) GB / 327,680 B = 1,327,187 tokens / 32,768 reserved = 40.5, so 40 sequences;
    # a step reads 141.1 GB + 40 x 0.696 GB = 169.0 GB at 18.76 TB/s: 9.006 ms; 40 / 9.006 ms = 4,441 tok/s.
    assert values["b_max_kv"] == 40
    assert values["step_time"] == pytest.approx(batching_step(40, 141.107e9) * 1e3, rel=1e-4)
    assert values["step_time"] == pytest.approx(9.006, abs=0.001)
    assert values["tokens_s_replica"] == pytest.approx(4_441, abs=1)


def test_llm_batching_tpot_tightens_to_20ms():
    values = under("llm-batching-system", "tpot-tightens-to-20ms")
    # A 256-token chunk takes 256 / 28,035 = 9.13 ms; (20 - 9.13) ms x 18.76 TB/s = 203.9 GB, less 141.1 GB
    # of weights = 62.8 GB / 696.3 MB a sequence = 90.2, so 90 (below the KV's 162); the step is 10.86 ms
    # and 90 / 10.86 ms = 8,286 tok/s.
    budget = (0.020 - 256 / 28_035) * 18.76e12 - 141.107e9
    assert budget / (2_125 * 327_680) == pytest.approx(90.2, abs=0.05)
    assert values["b_max"] == 90
    assert values["step_time"] == pytest.approx(batching_step(90, 141.107e9) * 1e3, rel=1e-4)
    assert values["tokens_s_replica"] == pytest.approx(8_286, abs=1)


def test_llm_batching_fp8_weights():
    values = under("llm-batching-system", "fp8-weights")
    # 70.55 GB of weights; (576 - 70.55) GB / 327,680 B = 1,542,500 tokens / 8,192 = 188 sequences; a step
    # reads 70.55 + 188 x 0.696 GB = 201.5 GB in 10.74 ms: 188 / 10.74 ms = 17,506 tok/s.
    assert values["weights_bytes"] == pytest.approx(70.554, abs=0.001)
    assert values["kv_cap_tokens"] == pytest.approx((576e9 - 70_553_706_496) / 327_680, rel=1e-9)
    assert values["b_max_kv"] == 188
    assert values["tokens_s_replica"] == pytest.approx(188 / batching_step(188, 70_553_706_496), rel=1e-4)
    assert values["tokens_s_replica"] == pytest.approx(17_506, abs=1)


def test_pretraining_raw_is_100x():
    values = under("pretraining-data-pipeline", "raw-is-100x")
    # 15e12 tokens x 4 B = 60 TB of clean text x 100 = 6 PB raw; over two weeks (1,209,600 s) 4.96 GB/s;
    # / (50 MB/s x 0.75) = 132.3, so 133 extraction machines.
    assert values["raw_bytes"] == pytest.approx(6)
    assert values["pipeline_in_bw"] == pytest.approx(6e15 / 1_209_600 / 1e9)
    machines_raw = 6e15 / 1_209_600 / 37.5e6
    assert machines_raw == pytest.approx(132.28, abs=0.01)
    assert values["extract_instances"] == 133


def test_pretraining_model_shrinks_to_70b():
    values = under("pretraining-data-pipeline", "model-shrinks-to-70b")
    # 10,240 x 989e12 x 0.4 = 4.051e18 FLOP/s / (6 x 70e9) = 9.645M tok/s; x 2 B = 19.29 MB/s of shards;
    # 15e12 / 9.645e6 = 1.555e6 s = 18.0 days.
    assert values["train_tok_s"] == pytest.approx(10_240 * 989e12 * 0.4 / (6 * 7e10))
    assert values["shard_read_bw"] == pytest.approx(19.29, abs=0.01)
    assert values["train_days"] == pytest.approx(18.0, abs=0.01)


def test_playground_front_page_day():
    values = under("public-playground", "front-page-day")
    # 1.5M users x 10 messages / 86,400 s = 173.6 req/s x 3 = 520.8 at peak; x 12.5 s open = 6,510 streams.
    # Decode 520.8 x 12 s / 64 = 97.66 replicas + prefill 520.8 x 500 / 28,035 = 9.29 = 106.9 / 0.7 = 152.8,
    # so 153; the 32-replica cap serves 32 / 153 of it: 0.791 waits or is turned away.
    assert values["peak_req_rate"] == pytest.approx(1.5e7 / 86_400 * 3)
    assert values["in_flight_streams"] == pytest.approx(6_510.4, abs=0.1)
    assert values["replicas_uncapped"] == 153
    assert values["peak_shed_frac"] == pytest.approx(1 - 32 / 153)


def test_playground_reasoning_answers():
    values = under("public-playground", "reasoning-answers")
    # 173.6 req/s x (0.5 + 1,000 x 0.04 = 40.5 s) = 7,031 streams x 64 KiB = 460.8 MB; decode 173.6 x 40 s
    # / 64 = 108.5 replicas + 3.10 of prefill = 111.6 / 0.7 = 159.4, so 160.
    assert values["in_flight_streams"] == pytest.approx(7_031.25)
    assert values["stream_memory"] == pytest.approx(7_031.25 * 65_536 / 1e6)
    assert values["replicas_uncapped"] == 160


def test_rag_hit_rate_is_40():
    values = under("rag-at-10k-qps", "hit-rate-is-40")
    # 10,000 x (1 - 0.4) = 6,000 queries/s reach the LLM / 50 a node = 120 nodes; against 200 without a
    # cache it saves 1 - 120 / 200 = 0.4.
    assert values["llm_qps"] == pytest.approx(6_000)
    assert values["llm_nodes"] == 120
    assert values["nodes_saved_frac"] == pytest.approx(0.4)


def test_rag_deeper_reranking():
    values = under("rag-at-10k-qps", "deeper-reranking")
    # 10,000 x 100 = 1M pairs/s x 512 tokens = 5.12e8 tok/s x 2 x 335M FLOP = 3.43e17 FLOP/s / (989e12 x 0.4)
    # = 867.1, so 868 GPUs in ceil(868 / 8) = 109 nodes.
    assert values["rerank_pairs_s"] == pytest.approx(1e6)
    gpus_raw = 5.12e8 * 2 * 3.35e8 / (989e12 * 0.4)
    assert gpus_raw == pytest.approx(867.1, abs=0.1)
    assert values["rerank_gpus"] == 868
    assert values["rerank_nodes"] == 109


def test_fair_share_burst_was_yesterday():
    values = under("research-cluster-fair-share", "burst-was-yesterday")
    # 512 GPUs x 5 days = 2,560 GPU-days x 2^(-1/7) = 2,318.7; a full cluster's decayed usage is
    # 2,048 x 7 / ln 2 = 20,682 GPU-days, so U_B = 0.25 + 0.1121 = 0.3621 and
    # F_B = 2^(-0.3621 / 0.25) = 0.366.
    decayed = 2_560 * 2 ** (-1 / 7)
    usage = 0.25 + decayed / (2_048 * 7 / math.log(2))
    assert values["burst_decayed"] == pytest.approx(decayed)
    assert values["u_b"] == pytest.approx(usage)
    assert values["u_b"] == pytest.approx(0.3621, abs=0.0001)
    assert values["f_b"] == pytest.approx(2 ** (-usage / 0.25))
    assert values["f_b"] == pytest.approx(0.3664, abs=0.0001)


def test_fair_share_two_week_half_life():
    values = under("research-cluster-fair-share", "two-week-half-life")
    # 2,048 x 14 / ln 2 = 41,365 GPU-days; the week-old burst keeps 2^(-7/14) = 0.7071 of 2,560 = 1,810.2;
    # it falls under 10% after 14 x log2(10) = 46.5 days.
    assert values["decayed_total"] == pytest.approx(2_048 * 14 / math.log(2))
    assert values["burst_decayed"] == pytest.approx(1_810.19, abs=0.01)
    assert values["t_forget"] == pytest.approx(14 * math.log2(10))


def test_serverless_seventy_b_on_four_gpus():
    values = under("serverless-gpu-warm-pool", "seventy-b-on-four-gpus")
    # 140 GB / 4 GB/s = 35 s; 2 + 8 + 35 + 6 = 51 s cold. 0.5/s x 51 s = 25.5 in flight + 2.326 x sqrt(25.5)
    # = 37.2, so 38 warm instances x 4 GPUs x $2 x 24 h = $7,296 a day. Revenue 100 x 4 x $3.5 = $1,400/h
    # against (100 + 38) x 4 x $2 = $1,104/h: margin 0.211.
    assert values["t_cold"] == pytest.approx(51)
    pool_p99 = 25.5 + 2.326 * math.sqrt(25.5)
    assert pool_p99 == pytest.approx(37.25, abs=0.01)
    assert values["warm_pool"] == 38
    assert values["idle_cost_day"] == pytest.approx(7_296)
    assert values["margin"] == pytest.approx(1 - 1_104 / 1_400)


def test_serverless_slow_pulls_more_demand():
    values = under("serverless-gpu-warm-pool", "slow-pulls-more-demand")
    # 2 + 58 + 4 + 6 = 70 s; 2/s x 70 s = 140 in flight + 2.326 x sqrt(140) = 167.5, so 168. Snapshots:
    # 2/s x 5 s = 10 + 2.326 x sqrt(10) = 17.4, so 18.
    assert values["t_cold"] == pytest.approx(70)
    assert values["warm_mean"] == pytest.approx(140)
    assert values["warm_pool"] == math.ceil(140 + 2.326 * math.sqrt(140))
    assert values["warm_pool"] == 168
    assert values["warm_pool_snapshot"] == 18


def test_shared_cluster_peak_doubles():
    values = under("shared-gpu-cluster-scheduling", "peak-doubles")
    # 120 req/s x 10 s = 1,200 decoding / 64 = 18.75 replicas + 120 x 2,000 / 28,035 = 8.56 of prefill
    # = 27.31 / 0.7 = 39.0, so 40 replicas, 320 GPUs; the trough needs ceil(27.31 x 0.35 / 0.7 = 13.66) = 14
    # replicas, 112 GPUs, so 208 can be lent at night.
    busy = 1_200 / 64 + 120 * 2_000 / 28_035
    assert values["in_flight"] == pytest.approx(1_200)
    assert busy / 0.7 == pytest.approx(39.02, abs=0.01)
    assert values["replicas"] == 40
    assert values["inference_gpus"] == pytest.approx(320)
    assert values["lendable_gpus"] == pytest.approx(320 - 14 * 8)


def test_shared_cluster_agent_prompts():
    values = under("shared-gpu-cluster-scheduling", "agent-prompts")
    # 60 x 8,000 / 28,035 = 17.12 replicas of prefill + 9.375 of decode = 26.50 / 0.7 = 37.9, so 38: 304 GPUs.
    assert values["prefill_replicas"] == pytest.approx(17.12, abs=0.01)
    assert values["replicas"] == 38
    assert values["inference_gpus"] == pytest.approx(304)


def test_speculative_long_drafts_high_acceptance():
    values = under("speculative-decoding", "long-drafts-high-acceptance")
    # (1 - 0.9^9) / (1 - 0.9) = (1 - 0.3874) / 0.1 = 6.126 tokens a step; / (8 x 0.05 + 1 = 1.4) = 4.376;
    # break-even 989 / 3.35 = 295.2 tokens per weight read / 9 positions = 32.8 sequences; TPOT
    # 141.1 GB / 26.8 TB/s = 5.265 ms x 1.4 / 6.126 = 1.203 ms.
    tokens = (1 - 0.9**9) / 0.1
    assert values["e_tokens"] == pytest.approx(tokens)
    assert values["speedup"] == pytest.approx(tokens / 1.4)
    assert values["b_break"] == pytest.approx(989 / 3.35 / 9)
    assert values["tpot_spec"] == pytest.approx(141.1 / 26.8 * 1.4 / tokens, rel=1e-6)
    assert values["tpot_spec"] == pytest.approx(1.203, abs=0.001)


def test_speculative_heavier_draft():
    values = under("speculative-decoding", "heavier-draft")
    # 3.362 tokens a step (0.8, drafts of 4) / (4 x 0.15 + 1 = 1.6) = 2.101; TPOT 5.265 ms x 1.6 / 3.362
    # = 2.506 ms; after the regression (1 - 0.6^5) / 0.4 = 2.306 / 1.6 = 1.441.
    tokens = (1 - 0.8**5) / 0.2
    assert values["speedup"] == pytest.approx(tokens / 1.6)
    assert values["tpot_spec"] == pytest.approx(2.506, abs=0.001)
    assert values["speedup_degraded"] == pytest.approx((1 - 0.6**5) / 0.4 / 1.6)


def test_ten_thousand_gpu_bigger_checkpoint_lower_mfu():
    values = under("ten-thousand-gpu-cluster", "bigger-checkpoint-lower-mfu")
    # 450e9 x 14 B = 6.3 TB in 60 s = 105 GB/s. 6 x 450e9 x 15e12 = 4.05e25 FLOP / (10,240 x 989e12 x 0.35
    # = 3.545e18 FLOP/s) = 1.143e7 s = 132.2 days.
    assert values["ckpt_bytes"] == pytest.approx(6.3)
    assert values["ckpt_write_bw"] == pytest.approx(105)
    assert values["train_days"] == pytest.approx(4.05e25 / (10_240 * 989e12 * 0.35) / 86_400)
    assert values["train_days"] == pytest.approx(132.24, abs=0.01)


def test_ten_thousand_gpu_twelve_thousand_gpus():
    values = under("ten-thousand-gpu-cluster", "twelve-thousand-gpus")
    # 12,000 / 8 = 1,500 nodes in ceil(1,500 / 128) = 12 pods: 1,536 nodes, 12,288 GPUs. Leaves
    # 12,288 / 32 = 384, spines as many, core 12,288 / 64 / 2 = 96: 864 switches. 3.645e25 FLOP /
    # (12,288 x 989e12 x 0.4) = 86.8 days; power 1,536 x 10.2 kW + 864 x 1.5 kW = 16.96 MW.
    assert values["nodes"] == 1_536
    assert values["switches"] == pytest.approx(864)
    assert values["train_days"] == pytest.approx(3.645e25 / (12_288 * 989e12 * 0.4) / 86_400)
    assert values["it_power"] == pytest.approx((1_536 * 10.2 + 864 * 1.5) / 1_000)


def test_token_limits_two_hundred_k_prompts():
    values = under("token-rate-limits", "two-hundred-k-prompts")
    # 200,000 / 50 = 4,000 times the cheap request; 200,000 x 327,680 B = 65.5 GB of KV; 600 requests a
    # minute x 200,000 = 120M tokens a minute = 2M tok/s / 28,035 = 71.3 replicas of prefill.
    assert values["cost_ratio"] == pytest.approx(4_000)
    assert values["large_kv_bytes"] == pytest.approx(65.536)
    assert values["worst_tpm"] == pytest.approx(1.2e8)
    assert values["worst_case_replicas"] == pytest.approx(2e6 / 28_035)


def test_token_limits_max_tokens_32k():
    values = under("token-rate-limits", "max-tokens-32k")
    # 1,000 + 32,768 = 33,768 tokens reserved against 1,250 used: 27.0 times; 10 req/s x 10 s = 100 in
    # flight x 33,768 = 3.38M tokens held.
    assert values["reserve_per_req"] == pytest.approx(33_768)
    assert values["over_reserve"] == pytest.approx(33_768 / 1_250)
    assert values["reserved_in_flight"] == pytest.approx(3_376_800)


def test_one_fleet_trough_rises_to_60():
    values = under("training-and-inference-one-fleet", "trough-rises-to-60")
    # Mean 1,024 x 1.6 / 2 = 819.2 GPUs; the separate pool 1,228.8 idles 409.6. Ramp 1,024 x 0.4 / 6 h
    # = 68.27 GPU/h x 130 s = 2.47 GPUs of buffer; lendable 1,228.8 - 819.2 x 1.2 - 2.47 = 243.3 GPUs,
    # 5,839 GPU-h a day.
    lendable = 1_228.8 - 819.2 * 1.2 - 1_024 * 0.4 / 6 * 130 / 3_600
    assert values["mean_demand"] == pytest.approx(819.2)
    assert values["idle_separate"] == pytest.approx(409.6)
    assert values["lendable_gpus"] == pytest.approx(lendable)
    assert values["lendable_gpus"] == pytest.approx(243.3, abs=0.1)
    assert values["won_day"] == pytest.approx(lendable * 24)


def test_one_fleet_fast_reclaim_fewer_bursts():
    values = under("training-and-inference-one-fleet", "fast-reclaim-fewer-bursts")
    # 15 + 45 + 10 = 70 s to reclaim; 10 bursts x 70 s = 700 s of 86,400 = 0.0081 of the day exposed; the
    # p99 allows 1% of the day over 10 bursts: 86.4 s each, more than the 70 s reclaim.
    assert values["t_reclaim"] == pytest.approx(70)
    assert values["exposure_frac"] == pytest.approx(700 / 86_400)
    assert values["max_reclaim_for_bursts"] == pytest.approx(86.4)
    assert values["t_reclaim"] < values["max_reclaim_for_bursts"]


def test_training_review_failure_rate_doubles():
    values = under("training-cluster-review", "failure-rate-doubles")
    # 1,024 GPUs x 1e-3 = 1.024 failures a day: one every 23.44 h. Work lost with daily checkpoints:
    # 23.44 - 24 / (e^(24 / 23.44) - 1) = 9.99 h; down 12 h (nightly check) + 2 h + 12 h (repair) = 26 h.
    # Goodput (23.44 - 9.99) / (23.44 + 26) x 24 / (24 + 560 s) = 0.270; Young/Daly sqrt(2 x 0.1556 h
    # x 23.44 h) = 2.70 h.
    mtbf = 24 / 1.024
    lost = mtbf - 24 / (math.exp(24 / mtbf) - 1)
    assert values["job_mtbf"] == pytest.approx(23.4375)
    assert values["goodput_est"] == pytest.approx((mtbf - lost) / (mtbf + 26) * 24 / (24 + 560 / 3_600))
    assert values["goodput_est"] == pytest.approx(0.2703, abs=0.0001)
    assert values["young_daly"] == pytest.approx(math.sqrt(2 * 560 / 3_600 * mtbf))


def test_training_review_heartbeat_and_spares():
    values = under("training-cluster-review", "heartbeat-and-spares")
    # A failure waits half of 0.05 h = 0.025 h (90 s) to be noticed, then the 2 h restart; four spares
    # remove the repair wait. Lost per failure 11.03 h of work (daily checkpoints, MTBF 49.45 h) + 2.025 h
    # = 13.06 h; goodput (49.45 - 11.03) / (49.45 + 2.025) x 0.99356 = 0.7415; back in 7,290 s.
    mtbf = 24 / (1_024 * 4.74e-4)
    lost = mtbf - 24 / (math.exp(24 / mtbf) - 1)
    assert values["lost_per_failure"] == pytest.approx(lost + 2.025)
    assert values["lost_per_failure"] == pytest.approx(13.058, abs=0.001)
    assert values["goodput_est"] == pytest.approx((mtbf - lost) / (mtbf + 2.025) * 24 / (24 + 560 / 3_600))
    assert values["restart_downtime"] == pytest.approx(7_290)


def test_disaster_recovery_link_is_25g():
    values = under("training-disaster-recovery", "link-is-25g")
    # 5 TB x 8 / 25 Gb/s = 1,600 s = 26.7 min a copy; every 30 minutes that is 0.889 of the link; the work
    # at risk is 30 + 26.7 = 56.7 min.
    assert values["repl_time"] == pytest.approx(1_600 / 60)
    assert values["repl_util"] == pytest.approx(1_600 / 1_800)
    assert values["rpo"] == pytest.approx(30 + 1_600 / 60)


def test_disaster_recovery_bigger_checkpoint_hourly():
    values = under("training-disaster-recovery", "bigger-checkpoint-hourly")
    # 15 TB x 8 / 100 Gb/s = 1,200 s = 20 min a copy, a third of each hour; at risk 60 + 20 = 80 min.
    assert values["repl_time"] == pytest.approx(20)
    assert values["repl_util"] == pytest.approx(1 / 3)
    assert values["rpo"] == pytest.approx(80)


def test_ttft_users_on_another_continent():
    values = under("ttft-200ms-p99", "users-on-another-continent")
    # 80 + 10 + 5 + 30 + 25 = 150 ms of overhead leaves 50 ms for prefill; one replica prefills
    # 8 x 989e12 x 0.5 / (2 x 70.55e9) = 28,035 tok/s, so 0.05 s x 28,035 = 1,402 tokens.
    rate = 8 * 989e12 * 0.5 / (2 * 70_553_706_496)
    assert values["overhead_ms"] == pytest.approx(150)
    assert values["prefill_budget"] == pytest.approx(50)
    assert values["max_prompt"] == pytest.approx(0.05 * rate)


def test_ttft_fp8_prefill():
    values = under("ttft-200ms-p99", "fp8-prefill")
    # 8 x 1,979e12 x 0.5 / (2 x 70.55e9) = 56,099 tok/s; x 0.1 s = 5,610 tokens; x 0.2 s = 11,220.
    rate = 8 * 1_979e12 * 0.5 / (2 * 70_553_706_496)
    assert values["prefill_rate"] == pytest.approx(rate)
    assert values["prefill_rate"] == pytest.approx(56_099, abs=1)
    assert values["max_prompt"] == pytest.approx(0.1 * rate)
    assert values["max_prompt_all"] == pytest.approx(0.2 * rate)


def test_two_region_regions_at_70():
    values = under("two-region-failover", "regions-at-70")
    # The survivor takes 2 x 0.7 = 1.4 of its capacity; it sheds 0.4 / 1.4 = 0.286. A region completes
    # 40 / (2,000 / 28,035 + 10 / 64 = 0.2276 s) = 175.76 req/s, so 0.4 x 175.76 x 30 s = 2,109 requests
    # pile up in the window.
    capacity = 40 / (2_000 / 28_035 + 10 / 64)
    assert values["survivor_load"] == pytest.approx(1.4)
    assert values["shed_frac"] == pytest.approx(0.4 / 1.4)
    assert values["backlog_30s"] == pytest.approx(0.4 * capacity * 30)
    assert values["backlog_30s"] == pytest.approx(2_109, abs=1)


def test_two_region_third_region():
    values = under("two-region-failover", "third-region")
    # Three regions at 60% lose one: the other two take 3 x 0.6 / 2 = 0.9 of their capacity, nothing to shed;
    # each may run at 0.8 x 2 / 3 = 0.533 and still absorb a loss at 80%.
    assert values["survivor_load"] == pytest.approx(0.9)
    assert values["shed_frac"] == pytest.approx(0)
    assert values["u_max"] == pytest.approx(0.8 * 2 / 3)


def test_billing_traffic_tenfold():
    values = under("usage-billing-pipeline", "traffic-tenfold")
    # 10,000 events/s x 2,592,000 s = 2.592e10 events x $0.0075 = $194.4M a month; duplicates at 0.1% bill
    # $194,400 too much; keys for 48 h: 10,000 x 172,800 s x 40 B = 69.1 GB.
    assert values["event_rate"] == pytest.approx(10_000)
    assert values["month_revenue"] == pytest.approx(2.592e10 * (1_250 * 3e-6 + 250 * 1.5e-5))
    assert values["overbill_no_idem"] == pytest.approx(194_400)
    assert values["dedup_store_bytes"] == pytest.approx(69.12)


def test_billing_reasoning_outputs():
    values = under("usage-billing-pipeline", "reasoning-outputs")
    # A request is 1,250 x $3e-6 + 2,000 x $1.5e-5 = $0.03375; x 2.592e9 = $87.48M a month; duplicates
    # $87,480; 5% cancelled streams billed nothing would lose $4.374M.
    assert values["month_revenue"] == pytest.approx(2.592e9 * 0.03375)
    assert values["overbill_no_idem"] == pytest.approx(87_480)
    assert values["cancel_loss"] == pytest.approx(4_374_000)


def test_video_distilled_twenty_steps():
    values = under("video-generation-serving", "distilled-twenty-steps")
    # A pass over 21 x 30 x 52 = 32,760 tokens: 2 x 14e9 x 32,760 + 819,200 x 32,760^2 = 1.796e15 FLOP;
    # x 20 steps x 1 pass = 35.93 PFLOP / (8 x 989e12 x 0.4 = 3.165e15) = 11.35 s; + 10 s = 21.35 s of a
    # node: 21.35 x 8 x $2 / 3,600 = $0.0949; ceil(0.4 x 21.35 / 0.8 = 10.7) = 11 nodes.
    per_pass = 2 * 14e9 * 32_760 + 819_200 * 32_760**2
    denoise = 20 * per_pass / (8 * 989e12 * 0.4)
    assert values["flops_request"] == pytest.approx(20 * per_pass / 1e15)
    assert values["denoise_time"] == pytest.approx(denoise)
    assert values["cost_per_video"] == pytest.approx((denoise + 10) * 8 * 2 / 3_600)
    assert values["nodes_needed"] == 11


def test_video_ten_second_videos():
    values = under("video-generation-serving", "ten-second-videos")
    # 1 + 160 / 4 = 41 latent frames x 30 x 52 = 63,960 tokens; a pass is 2 x 14e9 x 63,960 = 1.791e15
    # + 819,200 x 63,960^2 = 3.351e15: 5.142 PFLOP; x 80 passes / 3.165e15 = 130.0 s; with 10 s after,
    # ceil(0.4 x 140.0 / 0.8 = 69.99) = 70 nodes.
    per_pass = 2 * 14e9 * 63_960 + 819_200 * 63_960**2
    assert values["tokens"] == pytest.approx(63_960)
    assert values["flops_pass"] == pytest.approx(per_pass / 1e15)
    assert values["denoise_time"] == pytest.approx(80 * per_pass / (8 * 989e12 * 0.4))
    assert values["nodes_needed"] == 70
