"""Hand-written cases on the bank's questions for issue 19: every way people write a number is read for the
line it is typed on, so a candidate who is right is not marked wrong for how they wrote it. Reference values
come from each question's own model; the texts, verdicts and message parts are worked out by hand."""

import dataclasses

import pytest

from grading.core.grader import grade
from tests.core.test_grader_bank import base, graded, question, shown, verdicts


def only_wrong(lines: dict[str, dict]) -> list[str]:
    return [name for name, verdict in verdicts(lines).items() if verdict != "correct"]


@pytest.mark.parametrize(
    ("slug", "name", "text", "note"),
    [
        ("kv-cache-tiering", "convs_in_hbm", "44 conversations", "'conversations' read as session"),
        ("agent-sessions", "sessions_pinned", "44 chats", "'chats' read as session"),
        ("pretraining-data-pipeline", "extract_instances", "67 machines", "'machines' read as instance"),
        ("speculative-decoding", "b_break", "59 reqs", "req read as seq"),
        ("llm-batching-system", "b_max_kv", "162 seqs", "seq read as req"),
        ("token-rate-limits", "counter_ops", "20k ops/s", "'ops' read as a count"),
        ("moe-serving-on-a-rack", "weights_bytes", "1.04T", "'T' read as the T of TB"),
        ("pretraining-data-pipeline", "shard_bytes", "30T", "'T' read as the T of TB"),
        ("two-region-failover", "shed_frac", "1/6", "the fraction 1/6 read as 0.167"),
        ("token-rate-limits", "cost_ratio", "1,000:1", "the ratio 1,000:1 read as 1,000"),
        ("multi-lora-serving", "dedicated_util", "2/9 of the fleet", "the fraction 2/9 read as 0.222"),
        ("checkpoint-storage", "young_daly", "1h18m", "read as 4,680 s"),  # 78 min for 77.95 min
        ("autoscaling-cold-start", "warm_pool_cost", "€192/h", "read € as the question's currency (USD)"),
        ("internal-llm-gateway", "team_budget", "$38,880", "in the line's unit, USD/(team·month)"),
        ("gpu-credit-system", "gpu_hours_day", "98,304 GPU-hours", "in the line's unit, GPU·h/day"),
        ("kv-cache-tiering", "convs_in_hbm", "٤٤", "read the Arabic-Indic digits as 44"),
        ("rag-at-10k-qps", "rerank_gpus", "217 H100s", "'H100s' read as GPU"),  # not 217 h + 100 s
        ("moe-serving-on-a-rack", "weights_bytes", "1.04 trillion", "'trillion' read as the T of TB"),
        ("usage-billing-pipeline", "dup_prob", "1 in 1,000", "the fraction 1 in 1,000 read as 0.001"),
        ("public-playground", "in_flight_streams", "2.2k streams", "'streams' read as req"),  # 2,170
        ("internal-llm-gateway", "team_budget", "$38,880 per team", "in the line's unit, USD/(team·month)"),
        ("training-cluster-review", "spare_nodes", "none", "read 'none' as 0"),
    ],
)
def test_a_right_value_written_another_way_is_correct_with_a_note(slug, name, text, note):
    lines = graded(slug, {name: text})
    assert lines[name]["verdict"] == "correct", lines[name]["message"]
    assert note in lines[name]["note"]
    assert only_wrong(lines) == []


def test_a_scale_word_on_a_prefixed_line_does_not_leak_into_later_lines():
    # 1.04T on a TB line is 1.04 TB; the weights per GPU (1.04 TB / 72 GPUs = 14.4 GB) follow from it.
    lines = graded("moe-serving-on-a-rack", {"weights_bytes": "1.04T", "per_gpu_weights": "14.4"})
    assert only_wrong(lines) == []
    assert not any("e12" in line["message"] for line in lines.values())


@pytest.mark.parametrize("text", ["idk", "N/A", "n/a", "?"])
def test_an_explicit_non_answer_is_missing_not_unreadable(text):
    line = graded("kv-cache-tiering", {"kv_conv": text})["kv_conv"]
    assert line["verdict"] == "missing"
    assert line["message"].startswith("Not answered")


def test_none_where_zero_is_not_meant_is_missing():
    line = graded("kv-cache-tiering", {"kv_conv": "none"})["kv_conv"]  # a size in GB: "none" is no answer
    assert line["verdict"] == "missing"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1e-400", "too close to zero to compute with"),
        ("-1e999", "too far from zero to compute with"),
    ],
)
def test_numbers_beyond_floating_point_are_unreadable_and_say_which_way(text, message):
    line = graded("kv-cache-tiering", {"kv_conv": text})["kv_conv"]
    assert line["verdict"] == "unparsed"
    assert message in line["message"]


def test_minus_zero_is_read_as_zero():
    line = graded("training-cluster-review", {"spare_nodes": "-0"})["spare_nodes"]
    assert line["verdict"] == "correct"
    assert line["given"] == 0


def test_a_plain_amount_on_a_per_month_line_takes_the_line_s_period_but_an_explicit_day_converts():
    slug = "internal-llm-gateway"
    budget = shown(slug, "team_budget")  # USD per team per month
    per_day = budget / 30
    assert graded(slug, {"team_budget": f"${per_day:.2f}/day"})["team_budget"]["verdict"] == "correct"
    line = graded(slug, {"team_budget": f"${per_day:.2f}"})["team_budget"]  # read per month: 30x too low
    assert line["verdict"] != "correct"


def test_requests_per_minute_is_named_as_typed_on_a_tokens_line():
    slug = "multi-provider-gateway"
    line = graded(slug, {"fallback_demand_tpm": "600 req/min"})["fallback_demand_tpm"]
    assert line["verdict"] == "unit_error"
    assert line["message"] == "'600 req/min' is in req/min; this line asks for tok/min."


# Say how close: every line names its check and band; a loose pass is labelled so and credited less.


def test_a_pass_names_its_band_and_an_exact_one_earns_full_credit():
    lines = graded("kv-cache-tiering", {})
    assert lines["kv_conv"]["verdict_label"] == "Correct (within 5%)"  # relative, 5%
    assert lines["convs_in_hbm"]["verdict_label"] == "Correct (whole number, ±1)"  # count
    assert lines["reload_dram_s"]["verdict_label"] == "Correct (within 10%)"  # magnitude 3x, exact value
    assert lines["reload_dram_s"]["band"] == "within 3×"
    assert {line["credit"] for line in lines.values()} == {1.0}


def test_a_pass_in_an_order_of_magnitude_band_is_labelled_and_credited_less():
    reload_ms = shown("kv-cache-tiering", "reload_dram_s")  # 24.6 ms; 60 ms is 2.4x: inside 3x, beyond 10%
    line = graded("kv-cache-tiering", {"reload_dram_s": f"{2.4 * reload_ms:.3g}"})["reload_dram_s"]
    assert line["verdict"] == "correct"
    assert line["verdict_label"] == "Right order of magnitude (within 3×)"
    assert line["credit"] == 0.6
    # The reason says why it is not full credit, never a bare "Correct." (59 ms / 24.6 ms = 2.4).
    assert line["message"] == (
        "59 ms is a factor of 2.4 above 24.6 ms: within 3×, not within 10%, so 60% of the line's credit."
    )


def test_a_pass_in_a_wide_relative_band_is_labelled_loose_and_credited_less():
    slug = "eight-gpu-design-review"  # comm_tp8 has a 30% band
    comm = shown(slug, "comm_tp8")
    line = graded(slug, {"comm_tp8": f"{1.2 * comm:.4g}"})["comm_tp8"]
    assert line["verdict"] == "correct"
    assert line["verdict_label"] == "Correct in the loose band (within 30%)"
    assert line["credit"] == 0.8
    assert (
        graded(slug, {"comm_tp8": f"{1.05 * comm:.4g}"})["comm_tp8"]["verdict_label"]
        == "Correct (within 10%)"
    )


def test_a_value_the_question_fixes_says_so_instead_of_a_range_of_one_value():
    slug = "eight-gpu-design-review"  # the prompt fixes one 100 Gb/s link between the servers
    line = graded(slug, {"inter_node_bw": "12.5 GB/s"})["inter_node_bw"]
    assert line["verdict_label"] == "Correct (the question fixes it)"
    assert line["message"].startswith("The question fixes this at 100 Gb/s")
    assert "100 to 100" not in line["message"]
    moved = graded(slug, {"inter_node_bw": "50 Gb/s"})["inter_node_bw"]
    assert moved["verdict"] == "out_of_range"
    assert moved["message"].startswith("The question fixes the link between the servers at 100 Gb/s")
    assert moved["message"].endswith("; you wrote 50 Gb/s.")


def test_a_line_that_repeats_another_names_it_instead_of_empty_arithmetic():
    slug = "autoscaling-cold-start"  # the cooldown is the cold start itself: 70 s
    line = graded(slug, {"scale_up_cooldown": "50 s"})["scale_up_cooldown"]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"] == "This line is your cold start, 70 s; you wrote 50 s — too low by 29%."


def test_an_absurd_magnitude_gets_a_plausibility_warning():
    line = graded("kv-cache-tiering", {"kv_conv": "1e41 GB"})["kv_conv"]  # 9.83 GB is the right value
    assert line["verdict"] == "arithmetic_slip"
    assert "That is 40 orders of magnitude from the reference: not a plausible value." in line["message"]


# Diagnose the real mistake.


def test_eight_times_a_reload_over_eight_links_is_one_link_not_bits_versus_bytes():
    # 9.83 GB over 8 GPUs x 50 GB/s = 24.6 ms; over one GPU's link it is 8 x 24.6 = 197 ms.
    reload = shown("kv-cache-tiering", "reload_dram_s")
    line = graded("kv-cache-tiering", {"reload_dram_s": f"{8 * reload:.4g}"})["reload_dram_s"]
    assert line["verdict"] == "arithmetic_slip"
    assert "as if your GPUs per replica were 1 instead of 8" in line["message"]
    assert "bits" not in line["message"]


def test_eight_times_a_reload_with_no_eight_in_its_own_chain_is_still_bits_versus_bytes():
    reload = shown(
        "kv-cache-tiering", "reload_nvme_s"
    )  # 9.83 GB / 25 GB/s: the KV heads' 8 does not explain it
    line = graded("kv-cache-tiering", {"reload_nvme_s": f"{8 * reload:.4g}"})["reload_nvme_s"]
    assert line["verdict"] == "unit_error"
    assert "bits versus bytes" in line["message"]


def test_no_kb_versus_kib_note_on_a_count():
    # 43 for 44 conversations is a whole neighbour; 44/43 = 1.023 is no binary prefix on a count.
    line = graded("kv-cache-tiering", {"convs_in_hbm": "43"})["convs_in_hbm"]
    assert line["verdict"] == "correct"
    assert line["message"] == "Correct."


def test_kb_for_kib_is_correct_with_the_strict_figure_unless_the_line_is_about_it():
    # llm-batching-system: 320 KB (312.5 KiB) is what the seed writes; the line is not about the distinction.
    line = graded("llm-batching-system", {"kv_bytes_per_token": "320 KB"})["kv_bytes_per_token"]
    assert line["verdict"] == "correct"
    assert (
        "strictly it is 320 KiB/tok, and 320 KB is 312 KiB/tok: KB (1,000 B) versus KiB (1,024 B)"
        in line["message"]
    )
    # kv-cache-tiering's title and prompt state "320 KB per token", as its seed does: a conversation worked
    # from it, 30,000 x 320,000 B = 9.6 GB (1.024x under 30,000 x 327,680 B = 9.83 GB), is right with the
    # strict figure, and so is 9.8 GB worked from 320 KiB. The per-token line is a premise, not asked.
    seed = graded("kv-cache-tiering", {"kv_conv": "9.6 GB"})["kv_conv"]
    assert seed["verdict"] == "correct"
    assert "strictly it is 9.83 GB: KB (1,000 B) versus KiB (1,024 B)" in seed["message"]
    assert graded("kv-cache-tiering", {"kv_conv": "9.8 GB"})["kv_conv"]["verdict"] == "correct"
    assert "kv_bytes_per_token" not in graded("kv-cache-tiering", {})
    # A derived line marked exact_prefix is about it: asked within 2% so, 320 KB for 320 KiB is 1.024x too
    # small (the 2.3% is outside the band).
    spec = question("kv-cache-tiering")
    per_token = dataclasses.replace(
        spec.asked[0], name="kv_bytes_per_token", tolerance=0.02, exact_prefix=True
    )
    strict_asked = (per_token, *spec.asked)
    report = grade(
        dataclasses.replace(spec, asked=strict_asked), {"numbers": {"kv_bytes_per_token": "320 KB"}}
    )
    strict = next(line for line in report["lines"] if line["name"] == "kv_bytes_per_token")
    assert strict["verdict"] == "unit_error" and "1.024× too small" in strict["message"]


def test_a_derived_size_off_by_gb_versus_gib_alone_is_correct_with_a_note():
    # 30,000 x 327,680 B = 9.83e9 B = 9.16 GiB: "9.16" on a GB line is the GiB figure.
    lines = graded("kv-cache-tiering", {"kv_conv": "9.16"})
    assert lines["kv_conv"]["verdict"] == "correct"
    assert (
        "strictly it is 9.83 GB" in lines["kv_conv"]["message"]
        and "GB versus GiB" in lines["kv_conv"]["message"]
    )
    assert only_wrong(lines) == []


# The reference models the review found wrong, recomputed by hand.


def test_moe_rack_sends_its_all_to_all_one_way_at_0_9_tb_s():
    # 64 tok x 10.32 MB = 0.66 GB one way at 0.9 TB/s = 0.734 ms, plus 60 x 2 x 10 us = 1.2 ms.
    assert shown("moe-serving-on-a-rack", "a2a_time") == pytest.approx(0.734 + 1.2, rel=0.01)
    # 1.3 x (1.806 + 1.934) + 2.303 = 7.16 ms; 64 x 72 / 7.16 ms = 643k tok/s.
    assert shown("moe-serving-on-a-rack", "step_time") == pytest.approx(7.16, rel=0.01)
    assert shown("moe-serving-on-a-rack", "rack_tok_s") == pytest.approx(4608 / 7.16e-3, rel=0.01)


def test_nvlink_4_counted_both_ways_is_outside_a_one_way_range():
    quantity = question("moe-total-or-active").model.reference.quantities["nvlink_bw_per_gpu"]
    assert tuple(quantity.range) == (400, 450)  # 900 GB/s is both directions of NVLink 4


def test_training_review_goodput_is_per_failure_cycle_with_the_nightly_check_s_delay():
    slug = "training-cluster-review"
    # MTBF 1 / (1,024 x 4.74e-4 / day) = 49.45 h; lost work 49.45 - 24 / (e^(24/49.45) - 1) = 11.03 h;
    # down 12 h (half the nightly period) + 2 h + 12 h = 26 h; goodput 38.42 / 75.45 x 24 / 24.156 = 0.506.
    assert shown(slug, "lost_per_failure") == pytest.approx(11.03 + 26, rel=0.005)
    assert shown(slug, "goodput_est") == pytest.approx(0.506, rel=0.005)
    # The first-order answer (0.65) is now off by far more than the line's 10% band.
    assert graded(slug, {"goodput_est": "0.65"})["goodput_est"]["verdict"] != "correct"


# Carry the error forward every time.


def test_a_wrong_dimension_used_as_typed_afterwards_costs_one_line():
    # 12 GB/s typed for the conversation's size; the count after it uses 12 GB:
    # floor((8 x 80 GB x 0.9 - 141.2 GB) / 12 GB) = floor(36.2) = 36.
    lines = graded("kv-cache-tiering", {"kv_conv": "12 GB/s", "convs_in_hbm": "36"})
    assert lines["kv_conv"]["verdict"] == "unit_error"
    assert only_wrong(lines) == ["kv_conv"]


def test_a_wrong_dimension_then_the_right_value_afterwards_also_costs_one_line():
    lines = graded("kv-cache-tiering", {"kv_conv": "9.83 GB/s"})  # the count after it is the reference 44
    assert only_wrong(lines) == ["kv_conv"]


def test_an_assumption_the_prompt_fixes_is_charged_once_on_the_first_line_it_moves():
    # "a 70B model in bf16 on one 8xH100 node": HBM is 80 GB per GPU, not an H200's 141 GB.
    # With 141: 8 x 141 GB x 0.9 - 141.2 GB = 874 GB free, / 327,680 B/tok = 2.67M tokens.
    slug = "llm-batching-system"
    kv_cap = (8 * 141e9 * 0.9 - base(slug, "weights_bytes")) / base(slug, "kv_bytes_per_token")
    batch = int(kv_cap // base(slug, "max_context"))  # 2.67M tokens / 8,192 per sequence = 325
    lines = graded(slug, {"hbm_per_gpu": "141", "kv_cap_tokens": f"{kv_cap:.4g}", "b_max_kv": str(batch)})
    line = lines["kv_cap_tokens"]
    assert line["verdict"] == "far_from_reference"
    assert "the question fixes it at 80 GB/GPU" in line["message"]
    assert lines["b_max_kv"]["verdict"] == "correct"  # the batch after it follows and is not charged again
    assert "already marked on the" in lines["b_max_kv"]["message"]


def test_a_per_gpu_figure_on_a_per_replica_line_is_converted_by_the_chain_s_gpus_and_said():
    # Break-even 9.19 GB/s for the 8-GPU replica; 9.19 / 8 = 1.15 GB/s is one GPU's share, x 8 is the line.
    per_gpu = shown("kv-cache-tiering", "breakeven_bw") / 8
    line = graded("kv-cache-tiering", {"breakeven_bw": f"{per_gpu:.3g} GB/s per GPU"})["breakeven_bw"]
    assert line["verdict"] == "correct"
    assert (
        line["note"]
        == "you wrote a per-GPU figure; this line is for all of them: × 8 GPUs (your GPUs per replica)"
    )


def test_a_per_gpu_label_on_the_replica_s_figure_is_a_unit_error_not_read_as_written():
    # 9.19 GB/s "per GPU" would be 73.5 GB/s for the replica (x 8 GPUs in its chain): the qualifier is read,
    # and the figure is right for the replica, so the label is the mistake (issue 30).
    line = graded("kv-cache-tiering", {"breakeven_bw": "9.19 GB/s per GPU"})["breakeven_bw"]
    assert line["verdict"] == "unit_error"
    assert "that is 73.5 GB/s for all of them" in line["message"]


# An assumption outside its range is a unit slip only by the real factor and for a unit people write.


def test_an_assumption_seven_times_too_large_is_out_of_range_not_a_unit_factor():
    # 350 req/s for 50: 7x is no unit factor (it was "24x too large for 14.6 req/s: hours versus days").
    line = graded("autoscaling-cold-start", {"delta_rate": "350"})["delta_rate"]
    assert line["verdict"] == "out_of_range"
    assert line["message"].startswith("350 is outside the plausible range 10 to 200 req/s")
    assert "×" not in line["message"]


def test_an_assumption_sixty_times_too_large_on_a_per_second_line_is_requests_per_minute():
    # 3,000 / 60 = 50 req/s exactly: the figure per minute.
    line = graded("autoscaling-cold-start", {"delta_rate": "3000"})["delta_rate"]
    assert line["verdict"] == "unit_error"
    assert line["message"] == (
        "You wrote 3000, outside 10 to 200 req/s; it is 60× too large for 50 req/s: seconds versus minutes "
        "(or minutes versus hours)."
    )


@pytest.mark.parametrize(
    ("slug", "name", "text"),
    [
        ("eight-gpu-design-review", "max_batch_cfg", "256000"),  # 1,000x a batch of 256: no milli-request
        ("eight-gpu-design-review", "max_batch_cfg", "0.256"),  # nobody writes 0.256k for 256
        ("forty-five-minute-plan", "think_time", "0.02"),  # 20 s as 0.02: kiloseconds are no unit
        ("multi-lora-serving", "lora_rank", "800"),  # 100x a rank of 8 is no percentage: a rank is no share
    ],
)
def test_an_assumption_off_by_a_factor_no_unit_explains_is_out_of_range(slug, name, text):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "out_of_range"
    assert "outside the plausible range" in line["message"] and "×" not in line["message"]


@pytest.mark.parametrize(
    ("slug", "name", "text", "factor", "meaning"),
    [
        ("forty-five-minute-plan", "think_time", "20000", "1,000× too large for 20 s", "metric prefix"),  # ms
        ("rag-at-10k-qps", "cache_hit_rate", "70", "100× too large for 0.7", "percentage"),  # 70 %
        ("eight-gpu-design-review", "max_batch_cfg", "256k", "1,000× too large for 256 req", "metric prefix"),
    ],
)
def test_an_assumption_off_by_the_real_factor_of_a_written_unit_is_a_unit_error(
    slug, name, text, factor, meaning
):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "unit_error"
    assert factor in line["message"] and meaning in line["message"]


def test_an_assumption_in_minutes_that_is_not_the_reference_is_out_of_range_and_its_value_carries():
    # think_time "0.5" meant half a minute, 30 s: 40x the reference 20 s, so no factor is named. The lines
    # computed from 30 s still count: arrivals 3,000 / (30 + 10.5 s) = 74.07 req/s, in flight 74.07 x 10.5 s
    # = 777.8, replicas ceil(777.8 / (64 x 0.7)) = ceil(17.36) = 18, prefill 74.07 x 2,000 / 28,035 = 5.284.
    lines = graded(
        "forty-five-minute-plan",
        {
            "think_time": "0.5",
            "arrival_rate": "74.07",
            "in_flight": "777.8",
            "replicas": "18",
            "prefill_share": "5.284",
        },
    )
    assert lines["think_time"]["verdict"] == "out_of_range"
    assert lines["think_time"]["message"].startswith("0.5 is outside the plausible range 5 to 60 s")
    assert only_wrong(lines) == ["think_time"]
    assert lines["arrival_rate"]["message"] == (
        "Correct from your think time between requests of 30 s, which is marked on its own line."
    )


# A factor hidden inside one term of a sum is found when the chain shows it, and carried forward.


def test_a_weight_load_in_bits_inside_the_cold_start_is_named_as_that_term():
    # The load time left unwritten: 141.1 GB at 3 GB/s read as 3 Gb/s (0.375 GB/s) is 376.3 s, and 5 +
    # 376.3 + 15 + 3 = 399.3 s. Later lines from their 399 s: uncovered 15 + 399.3 - 60 = 354.3 s, backlog
    # 50 x 399.3 = 19,965 req.
    later = {"uncovered_s": "354", "backlog_nopool": "19,965", "scale_up_cooldown": "399 s"}
    lines = graded("autoscaling-cold-start", {"weight_load_time": "", "t_cold": "399", **later})
    line = lines["t_cold"]
    assert line["verdict"] == "unit_error"
    assert line["factor"] == 8
    assert line["message"] == (
        "5 s + (141 GB / 3 GB/s) + 15 s + 3 s = 70 s; you wrote 399, which is that with your weight load "
        "bandwidth into a new replica 8× too small (0.375 GB/s instead of 3 GB/s): bits versus bytes."
    )
    assert only_wrong(lines) == ["weight_load_time", "t_cold"]  # the blank line is missing


def test_a_term_their_own_sheet_shows_is_not_read_as_taken_in_another_unit():
    # They wrote the load time, 47 s, on its own line: 399 for 5 + 47 + 15 + 3 = 70 s is not that term
    # taken 8x (376 s), their sheet says they used 47 s (another term may still fit: 5 min + 47 + 15 + 3 =
    # 365 s is within 10% of 399).
    line = graded("autoscaling-cold-start", {"weight_load_time": "47 s", "t_cold": "399"})["t_cold"]
    assert "time to load the weights" not in line["message"] and "bits" not in line["message"]
    # 120 s fits no term's unit: 120 / 70.04 = 1.713, a slip said as a percentage under 2x: 71% high.
    line = graded("autoscaling-cold-start", {"weight_load_time": "47 s", "t_cold": "120"})["t_cold"]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"].endswith("you wrote 120 — too high by 71%.")


def test_minutes_written_as_seconds_in_one_term_of_the_plan_are_named_and_carried():
    # 5 + 7 + 10 + 16 x 60 + 5 = 987 "minutes"; the slack after it is 45 - 987 = -942.
    lines = graded("forty-five-minute-plan", {"planned_min": "987", "slack_min": "-942"})
    line = lines["planned_min"]
    assert line["verdict"] == "unit_error"
    assert (
        "your minutes for depth 60× too large (960 min instead of 16 min): seconds versus minutes"
        in (line["message"])
    )
    assert only_wrong(lines) == ["planned_min"]


def test_a_small_slip_in_a_sum_is_not_read_as_a_hidden_factor():
    # 62 for 70.04 s (beyond 10%): the container start 1,000x too small, 65.04 s, moves the sum by 7% only.
    line = graded("autoscaling-cold-start", {"t_cold": "62"})["t_cold"]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"].endswith("you wrote 62 — too low by 11%.")


def test_a_bandwidth_read_as_bits_one_step_down_in_the_cold_start_is_named():
    # Weight load time not written: the sum opens it up, 141.1 GB / 3 GB/s. At 3 Gb/s (0.375 GB/s) the load
    # takes 376.3 s and the cold start 5 + 376.3 + 15 + 3 = 399.3 s.
    numbers = {"weight_load_time": "", "t_cold": "399"}
    line = graded("autoscaling-cold-start", numbers)["t_cold"]
    assert line["verdict"] == "unit_error"
    assert line["message"].startswith("5 s + (141 GB / 3 GB/s) + 15 s + 3 s = 70 s; you wrote 399")
    assert line["message"].endswith(
        "your weight load bandwidth into a new replica 8× too small (0.375 GB/s instead of 3 GB/s): bits "
        "versus bytes."
    )


# An input whose unit slip lands inside its range: the later lines show which value they used.


def test_bits_typed_for_a_bandwidth_used_as_bytes_later_charge_the_input_and_credit_the_cold_start():
    # "4 Gb/s" reads as 0.5 GB/s, inside 0.04 to 12.5 GB/s, but their cold start 2 + 8 + 16 GB / 4 GB/s + 6
    # = 20 s is computed from 4 GB/s (from 0.5 GB/s it would be 2 + 8 + 32 + 6 = 48 s).
    lines = graded("serverless-gpu-warm-pool", {"weight_load_bw": "4 Gb/s"})
    line = lines["weight_load_bw"]
    assert line["verdict"] == "unit_error"
    assert (
        line["message"]
        == "You wrote 4 Gb/s, which is 0.5 GB/s; your later lines use 4 GB/s: bits versus bytes."
    )
    assert only_wrong(lines) == ["weight_load_bw"]


def test_bits_typed_for_a_bandwidth_and_used_as_bits_cost_nothing():
    # From 0.5 GB/s: cold start 48 s, mean warm 0.5/s x 48 s = 24, p99 24 + 2.326 x sqrt(24) = 35.4 -> 36,
    # idle 36 x $2/h x 24 h = $1,728/day, margin 1 - (100 + 36) x $2 / $350 = 0.223.
    numbers = {
        "weight_load_bw": "4 Gb/s",
        "t_cold": "48",
        "warm_mean": "24",
        "warm_pool": "36",
        "idle_cost_day": "1728",
        "margin": "0.223",
    }
    assert only_wrong(graded("serverless-gpu-warm-pool", numbers)) == []


def test_a_term_left_out_of_the_sum_is_a_slip_not_a_term_a_thousand_times_too_small():
    # 5 + 15 + 3 = 23 s without the 47 s weight load: 70.04 / 23 = 3.05x too low. A load 1,000x too small
    # (0.047 s) gives 23.05 s as well, so it names no unit.
    line = graded("autoscaling-cold-start", {"t_cold": "23"})["t_cold"]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"].endswith(
        "you wrote 23, which is that without your time to load the weights (47 s): an arithmetic slip."
    )


def test_a_rate_without_its_count_noun_is_not_called_a_per_count_figure():
    # "50 per second" on a req/s line leaves the requests out; nothing in it is "per request".
    line = graded("autoscaling-cold-start", {"delta_rate": "50 per second"})["delta_rate"]
    assert line["verdict"] == "correct"
    assert line["note"] == ""


@pytest.mark.parametrize(
    ("slug", "name", "text", "factor"),
    [
        # 100,000 jobs x 10 us = 1 s; 60 is 60x on the right working (issue 30: a unit error on every line
        # alike, minutes in the chain or not).
        ("job-scheduler-100k-jobs", "scan_time", "60", "60× too large: seconds versus minutes"),
        # 45 - 43 = 2 min of slack; 7,200 is 3,600x: 2 "hours" in seconds.
        ("forty-five-minute-plan", "slack_min", "7200", "3,600× too large: seconds versus hours"),
        # 2,000 jobs / 60 s = 33.3 debits a second; 0.56/s is 60x too small (the 60 s read as an hour).
        ("gpu-credit-system", "debit_rate", "0.56/s", "60× too small: seconds versus minutes"),
    ],
)
def test_sixty_or_3600_times_on_the_right_working_is_a_unit_error_wherever_time_is(slug, name, text, factor):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "unit_error", line["message"]
    assert factor in line["message"]


def test_sixty_times_gpu_hours_from_minutes_in_the_chain_is_minutes_versus_hours():
    # 256 GPUs x (30 / 2 + 5) min = 5,120 GPU-minutes = 85.3 GPU-hours: 5,120 is the figure in minutes.
    line = graded("shared-gpu-cluster-scheduling", {"preempt_naive": "5120"})["preempt_naive"]
    assert line["verdict"] == "unit_error"
    assert "60× too large: seconds versus minutes (or minutes versus hours)" in line["message"]


# A period the line's label names and its unit leaves out: "Revenue per month" in USD.


@pytest.mark.parametrize(
    ("text", "note"),
    [
        # 1,000 events/s x 30 days x 86,400 s = 2.592bn events x $0.0075 = $19.44M a month.
        ("$19.4M/month", "read as 19.4M USD per month, the line's period"),
        ("$19.4M per month", "read as 19.4M USD per month, the line's period"),
        ("$648k/day", "a figure per day; this line is per month: × 30"),  # 648k x 30 = 19.44M
        ("$27k/h", "a figure per h; this line is per month: × 720"),  # 27k x 720 = 19.44M
    ],
)
def test_a_money_figure_per_the_line_s_own_period_reads_as_the_line_s_total(text, note):
    lines = graded("usage-billing-pipeline", {"month_revenue": text})
    assert lines["month_revenue"]["verdict"] == "correct", lines["month_revenue"]["message"]
    assert note in lines["month_revenue"]["note"]
    assert only_wrong(lines) == []


def test_a_figure_per_another_period_on_a_per_month_line_is_converted_not_read_as_the_total():
    # $19.4M per day is 30 x $19.4M = $582M a month: 30x the $19.44M the line asks for.
    line = graded("usage-billing-pipeline", {"month_revenue": "$19.4M/day"})["month_revenue"]
    assert line["verdict"] != "correct"
    assert "a figure per day; this line is per month: × 30" in line["note"]


def test_a_count_per_the_line_s_own_period_reads_as_the_count():
    # Usage events per month: 1,000 events/s x 2,592,000 s = 2.592bn.
    line = graded("usage-billing-pipeline", {"month_events": "2.59bn events/month"})["month_events"]
    assert line["verdict"] == "correct", line["message"]


# FLOPs with the prefix spelled out.


@pytest.mark.parametrize(
    ("slug", "name", "text"),
    [
        ("ten-thousand-gpu-cluster", "train_flops", "36.45 yottaFLOP"),  # 6 x 405e9 x 15e12 = 3.645e25 FLOP
        ("ten-thousand-gpu-cluster", "train_flops", "36,450 zettaFLOP"),
        ("ten-thousand-gpu-cluster", "train_flops", "36.45 YFLOP"),
        ("ten-thousand-gpu-cluster", "train_flops", "3.645e7 exaFLOPs"),
        ("ten-thousand-gpu-cluster", "train_flops", "36 yottaflops"),
        # 21 x 30 x 52 = 32,760 tokens: 2 x 14e9 x 32,760 + 819,200 x 32,760^2 = 1.796e15 FLOP a pass,
        # x 40 steps x 2 passes = 143.7e15 FLOP.
        ("video-generation-serving", "flops_request", "143.7 petaFLOPs"),
        ("video-generation-serving", "flops_request", "0.1437 exaFLOP"),
        ("video-generation-serving", "flops_pass", "1.8 petaFLOP/step"),
    ],
)
def test_flops_with_a_spelled_out_prefix_are_read(slug, name, text):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "correct", line["message"]


def test_a_spelled_out_flop_rate_is_a_rate():
    # exaFLOP/s and petaFLOPS are per second: on a FLOP line they are the wrong dimension.
    for text in ("0.1437 exaFLOP/s", "143.7 petaFLOPS"):
        line = graded("video-generation-serving", {"flops_request": text})["flops_request"]
        assert line["verdict"] == "unit_error"
        assert line["message"].endswith("this line asks for PFLOP.")


def test_a_value_with_a_unit_squared_in_the_arithmetic_is_bracketed_whole():
    # The attention term squares the 32,760 tokens (21 x 30 x 52), unit and all: (32,760 tok)^2.
    line = graded("video-generation-serving", {"flops_pass": "3.5"})["flops_pass"]
    assert line["verdict"] == "arithmetic_slip"
    assert "819,200 FLOP/tok^2 × (32,760 tok)^2 = 1.8 PFLOP/step; you wrote 3.5" in line["message"]
    assert "tok ^ 2" not in line["message"]


def test_an_opened_up_step_that_is_one_call_is_not_bracketed_again():
    # The batch is min(b_max_slo, b_max_kv); opened up inside the step time it reads min(...), not (min(...)).
    lines = graded("llm-batching-system", {"b_max": "", "step_time": "1"})
    assert "+ min(" in lines["step_time"]["message"]
    assert "(min(" not in lines["step_time"]["message"]


def test_a_bare_number_quoted_as_the_driver_carries_the_line_s_unit():
    # "141" on the HBM-per-GPU line is 141 GB/GPU; the lines after it name it so, not as a bare 141.
    # 8 x 141 GB x 0.9 - 141.2 GB = 874 GB free, / 327,680 B/tok = 2.67M tokens, / 8,192 = 325 sequences.
    slug = "llm-batching-system"
    kv_cap = (8 * 141e9 * 0.9 - base(slug, "weights_bytes")) / base(slug, "kv_bytes_per_token")
    lines = graded(slug, {"hbm_per_gpu": "141", "kv_cap_tokens": f"{kv_cap:.4g}", "b_max_kv": "325"})
    assert "from your HBM per GPU of 141 GB/GPU (reference 80 GB/GPU)" in lines["kv_cap_tokens"]["message"]
    assert lines["b_max_kv"]["message"].startswith("Correct from your HBM per GPU of 141 GB/GPU, which")


def test_eight_times_a_whole_sum_with_one_byte_term_is_a_slip_not_bits_versus_bytes():
    # 5 + 47 + 15 + 3 = 70 s; 560 is 8x the whole sum, but only the 47 s weight load could be in bits (in
    # bits the sum is 5 + 376 + 15 + 3 = 399 s), so 560 is no bits-versus-bytes slip.
    line = graded("autoscaling-cold-start", {"t_cold": "560"})["t_cold"]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"] == "5 s + 47 s + 15 s + 3 s = 70 s; you wrote 560 — 8× too high."


def test_eight_times_a_count_of_sizes_over_sizes_is_a_slip_not_bits_versus_bytes():
    # floor(434.9 GB / 9.83 GB) = 44 sessions; 352 is 8 x 44, but no link is in the chain to be in bits.
    line = graded("agent-sessions", {"sessions_pinned": "352"})["sessions_pinned"]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"] == "floor(435 GB / 9.83 GB) = 44 sessions; you wrote 352 — 8× too high."


def test_eight_times_a_line_whose_chain_counts_eight_gpus_is_not_called_bits_versus_bytes():
    # The break-even bandwidth counts the replica's 8 GPUs; 8x it is no bits-versus-bytes slip (and taking
    # the GPUs as one would make it smaller, not larger).
    breakeven = shown("kv-cache-tiering", "breakeven_bw")
    line = graded("kv-cache-tiering", {"breakeven_bw": f"{8 * breakeven:.4g}"})["breakeven_bw"]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"].endswith("8× too high.")
    assert "bits" not in line["message"]


def test_no_kb_versus_kib_note_on_a_line_in_bits():
    # 1 TB / 60 s = 16.7 GB/s = 133 Gb/s; 136.5 is 2.4% above (1.024x), inside the 5% band, and nobody
    # writes Gib/s: correct with no binary-prefix note.
    line = graded("checkpoint-storage", {"burst_bw_bits": "136.5"})["burst_bw_bits"]
    assert line["verdict"] == "correct"
    assert line["message"] == "Correct."


# A slip by 24 is named hours versus days only where the chain has days; 60 and 3,600 are seconds, minutes and
# hours wherever time is (issue 30: one unit slip, one diagnosis on every line alike).


@pytest.mark.parametrize(
    ("slug", "name", "text", "message"),
    [
        # 5 + 7 + 10 + 16 + 5 = 43 min planned, 45 - 43 = 2 min of slack: 48 is 24x, and nothing is in days.
        (
            "forty-five-minute-plan",
            "slack_min",
            "48",
            "45 min - 43 min = 2 min; you wrote 48 — 24× too high.",
        ),
        # 256 GPUs x (1 + 10) min = 2,816 GPU-minutes = 46.9 GPU-hours; 1,126 is 24x: hours, but no days.
        (
            "job-scheduler-100k-jobs",
            "cost_graceful",
            "1126",
            "256 GPUs × (1 min + 10 min) = 46.9 GPU·h; you wrote 1126 — 24× too high.",
        ),
    ],
)
def test_a_slip_by_24_with_no_days_in_the_chain_is_a_slip(slug, name, text, message):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"] == message


def test_a_slip_by_24_where_the_chain_is_per_day_is_hours_versus_days():
    # 30 req/s x 11 KB = 28.5 GB a day, x 90 days / 4 = 0.642 TB; 15.4 TB is 24x (a day's bytes per hour).
    line = graded("internal-llm-gateway", {"audit_store": "15.4"})["audit_store"]
    assert line["verdict"] == "unit_error"
    assert line["message"].endswith("you wrote 15.4, 24× too large: hours versus days.")


# A bare number with a qualifier is in the line's unit, qualified.


def test_a_bare_number_per_gpu_on_a_duration_line_is_in_minutes_and_the_qualifier_is_a_unit_error():
    # 100 steps x (1 s + 60 s) = 6,100 s = 101.7 min; "102 per GPU" is 102 min, in the line's unit, but a
    # session's time is no figure per GPU (nothing in its chain counts GPUs): a wrong dimension, not a slip.
    line = graded("agent-sessions", {"session_time": "102 per GPU"})["session_time"]
    assert line["verdict"] == "unit_error", line["message"]
    assert line["message"].endswith(
        "you wrote 102 per GPU: the figure is right for the whole line, not per GPU."
    )


def test_a_bare_number_per_gpu_on_a_gpu_hours_line_is_converted_by_the_chain_s_gpus():
    # One credit per GPU per hour: 24 GPU-hours a day per GPU, x 4,096 GPUs = 98,304 GPU-hours a day.
    line = graded("gpu-credit-system", {"gpu_hours_day": "24 per GPU"})["gpu_hours_day"]
    assert line["verdict"] == "correct", line["message"]
    assert line["note"] == (
        "you wrote a per-GPU figure; this line is for all of them: × 4,096 GPUs (your GPUs in the cluster)"
    )


def test_a_per_gpu_line_written_per_gpu_is_its_own_figure():
    # 1 TB / 256 GPUs = 3.91 GB per GPU: "/GPU" is what the line asks, nothing to say.
    line = graded("checkpoint-storage", {"bytes_per_new_gpu": "3.91/GPU"})["bytes_per_new_gpu"]
    assert line["verdict"] == "correct"
    assert line["note"] == ""


@pytest.mark.parametrize(
    ("slug", "name", "text"),
    [
        ("token-rate-limits", "large_kv_bytes", "16.4 GB each"),  # 50,000 tok x 327,680 B = 16.4 GB a request
        ("kv-cache-tiering", "convs_in_hbm", "44 each"),
    ],
)
def test_each_is_read_as_the_line_s_own_figure(slug, name, text):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "correct", line["message"]
    assert line["note"] == "'each' read as the line's own figure"


def test_none_on_an_assumption_whose_range_holds_zero_is_zero():
    # The share of usage events duplicated by retries ranges from 0 (exactly-once delivery) to 0.05: "none"
    # is 0, inside it. (A design's limit that may be absent reads "none" as no limit:
    # test_bank_says_what_it_means.)
    line = graded("usage-billing-pipeline", {"dup_prob": "none"})["dup_prob"]
    assert line["verdict"] == "correct", line["message"]
    assert line["note"] == "read 'none' as 0"


def test_none_on_a_count_assumption_whose_range_excludes_zero_is_missing_not_out_of_range():
    # Keys per request range from 2 to 1,000: "none" is no answer, not 0 keys ("none is outside ...").
    line = graded("feature-store-no-leakage", {"keys_per_req": "none"})["keys_per_req"]
    assert line["verdict"] == "missing"
    assert line["message"].startswith("Not answered")


def test_a_hundred_times_a_plain_line_far_above_one_is_no_percentage():
    # log2(100,000) = 16.6 comparisons; 1,661 is 100x, but 1,661% of a count of comparisons means nothing.
    line = graded("job-scheduler-100k-jobs", {"heap_compares": "1661"})["heap_compares"]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"] == "log2(100,000 jobs) = 16.6; you wrote 1661 — check the power of ten."


def test_a_hundred_times_an_overcommit_near_one_is_still_a_percentage():
    # (8 x 80 GB x 0.9 - 141.2 GB) / 327,680 B = 1.33M tokens; 256 x 6,600 / 1.33M = 1.27, written as 127.3.
    line = graded("eight-gpu-design-review", {"kv_overcommit": "127.3"})["kv_overcommit"]
    assert line["verdict"] == "unit_error"
    assert line["message"].endswith("100× too large: a percentage written as a fraction, or the reverse.")


def test_a_rate_in_one_per_second_prints_as_per_second():
    # New instances 0.5 a second x a 20 s cold start = 10 warm on average; "0.5/s", not "0.5 1/s".
    line = graded("serverless-gpu-warm-pool", {"warm_mean": "80"})["warm_mean"]
    assert line["message"] == "0.5/s × 20 s = 10; you wrote 80 — 8× too high."


def test_a_label_that_starts_with_a_name_keeps_its_capitals_inside_a_sentence():
    # Rank 16: 16 x (2 x 8,192 + 8,192 + 1,024) x 80 layers x 2 B = 65.5 MB an adapter, twice the reference.
    lines = graded("multi-lora-serving", {"lora_rank": "16", "adapter_bytes": "65.5"})
    assert lines["adapter_bytes"]["verdict"] == "correct"
    assert lines["adapter_bytes"]["message"] == (
        "Correct from your LoRA rank of 16, which is inside its plausible range."
    )  # not "loRA rank"


@pytest.mark.parametrize(
    ("slug", "name", "text"),
    [
        ("rag-at-10k-qps", "qps_per_node", "50 QPS"),  # an input: 50 queries a second a node, in 20 to 100
        ("llm-batching-system", "tokens_s_replica", "12k tps"),  # 162 x 1 tok / 13.5 ms = 11,969 tok/s
        (
            "multi-provider-gateway",
            "fallback_demand_tpm",
            "3.6M TPM",
        ),  # 50 x 0.6 x 2,000 x 60 = 3.6M a minute
        (
            "gpu-credit-system",
            "gpu_hours_day",
            "98.3k GPUh/day",
        ),  # 4,096 GPUs x 24 h = 98,304 GPU-hours a day
        ("kv-cache-tiering", "breakeven_bw", "9.19GBps"),  # a capital B is bytes: 9.19 GB/s, not Gb/s
        ("token-rate-limits", "counter_ops", "20,000 1/s"),  # the unit as the question writes it: 1/s
        ("usage-billing-pipeline", "dup_prob", "1/1e3"),  # a fraction with its denominator in e-notation
    ],
)
def test_rate_abbreviations_and_unit_spellings_people_write_are_read(slug, name, text):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "correct", line["message"]
    assert "bits" not in line["note"]


def test_a_spelled_out_scale_word_needs_no_note():
    # "1.33 million tokens" says what it is; "'million' read as million" says nothing.
    line = graded("llm-batching-system", {"kv_cap_tokens": "1.33 million tokens"})["kv_cap_tokens"]
    assert line["verdict"] == "correct"
    assert line["note"] == ""


# An assumption typed with the wrong unit on its number: the unit meant is one people write, charged once.


@pytest.mark.parametrize(
    ("slug", "name", "text", "message"),
    [
        # One 100 Gb/s link; "100 GB/s" is 8x that, and 100 in Gb/s is what they meant.
        (
            "eight-gpu-design-review",
            "inter_node_bw",
            "100 GB/s",
            "You wrote 100 GB/s, the question fixes it at 100 Gb/s; it is 8× too large for 100 Gb/s: bits "
            "versus bytes.",
        ),
        # Audit records kept 90 days; 90 h is 24x too short, and 90 in days is the retention.
        (
            "internal-llm-gateway",
            "retention",
            "90 h",
            "You wrote 90 h, outside 7 to 2,555 days; it is 24× too small for 90 days: hours versus days.",
        ),
        # The NFS filer sustains 2 GB/s; 2 Gb/s is 0.25 GB/s, outside 1 to 100 GB/s.
        (
            "training-cluster-review",
            "storage_bw",
            "2 Gb/s",
            "You wrote 2 Gb/s, outside 1 to 100 GB/s; it is 8× too small for 2 GB/s: bits versus bytes.",
        ),
    ],
)
def test_an_assumption_with_the_wrong_unit_on_the_right_number_is_one_unit_error(slug, name, text, message):
    lines = graded(slug, {name: text})
    assert lines[name]["verdict"] == "unit_error"
    assert lines[name]["message"] == message
    assert only_wrong(lines) == [name]  # the lines after it, from the value meant, are not charged again


def test_a_line_in_bits_whose_sum_holds_a_product_is_named_whole_not_by_one_factor():
    # 1 TB / (30 min - 60 s) = 1e12 B / 1,740 s = 575 MB/s; 574.7 Mb/s is that in bits: the whole line 8x,
    # not "your checkpoint size 8x too small" (the size is a factor of the whole, not a term of the sum).
    line = graded("checkpoint-storage", {"drain_bw": "574.7 Mb/s"})["drain_bw"]
    assert line["verdict"] == "unit_error"
    assert line["message"] == (
        "1 TB / (30 min - 60 s) = 575 MB/s; you wrote 574.7 Mb/s, 8× too small: bits versus bytes."
    )


def test_a_divisor_per_day_is_bracketed_in_the_arithmetic():
    # (1 - 0.99) / (20 a day) = 0.01 x 86,400 s / 20 = 43.2 s; 43.2 ms is 1,000x too small.
    line = graded("training-and-inference-one-fleet", {"max_reclaim_for_bursts": "43.2 ms"})
    assert line["max_reclaim_for_bursts"]["message"] == (
        "(1 - 0.99) / (20/day) = 43.2 s; you wrote 43.2 ms, 1,000× too small: one metric prefix or a "
        "thousand (KB and MB, ms and s, k and M)."
    )


# The line's own label names what it counts.


@pytest.mark.parametrize(
    ("slug", "name", "text", "note"),
    [
        # 4,000 nodes / a 30 s resync = 133 reconciles a second, counted in nodes.
        ("gpu-cloud-provisioning", "reconcile_rate", "133 reconciles/s", "'reconciles' read as node"),
        ("gpu-cloud-provisioning", "spare_nodes", "92 spares", "'spares' read as node"),  # "Fleet spare pool"
        # 2,000 jobs a minute = 33.3 debits a second, counted in jobs ("Debit events per second").
        ("gpu-credit-system", "debit_rate", "33.3 debits/s", "'debits' read as job"),
        # (1 - 0.8^5) / (1 - 0.8) = 3.36 "Expected tokens per target step", a plain number in the bank.
        ("speculative-decoding", "e_tokens", "3.36 tokens per step", "read as what the line counts"),
        # 1,280 nodes of 8 GPUs: the "8xH100" describes them.
        ("ten-thousand-gpu-cluster", "nodes", "1,280 8xH100 nodes", "'8xH100' read as a description"),
    ],
)
def test_a_noun_of_the_line_s_own_label_names_what_it_counts(slug, name, text, note):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "correct", line["message"]
    assert note in line["note"]


def test_a_noun_the_label_does_not_name_is_still_unreadable():
    line = graded("kv-cache-tiering", {"convs_in_hbm": "44 widgets"})["convs_in_hbm"]
    assert line["verdict"] == "unparsed"


def test_notes_and_messages_print_the_line_s_unit_as_the_report_does():
    # GPU·h/day and req/(s·team), with the middle dot, not the bank's "GPU*h/day".
    line = graded("gpu-credit-system", {"gpu_hours_day": "98,304 per GPU"})["gpu_hours_day"]
    assert line["note"] == (
        "you wrote a per-GPU figure; it is read as this line's figure (GPU·h/day), not converted"
    )
    wrong = graded("internal-llm-gateway", {"req_per_team": "3 GB"})["req_per_team"]
    assert wrong["message"] == "'3 GB' is in GB; this line asks for req/(s·team)."


def test_a_count_a_few_off_says_how_many_and_its_band():
    # 4,096 GPUs / 8 per node = 512 nodes; 510 is 2 short, beyond the count's ±1 (not "too low by 0.4%").
    line = graded("gpu-credit-system", {"nodes": "510"})["nodes"]
    assert line["verdict"] == "arithmetic_slip"
    assert (
        line["message"]
        == "4,096 GPUs / 8 GPUs/node = 512 nodes; you wrote 510 — 2 too low (whole number, ±1)."
    )


def test_a_factor_of_eight_is_not_bits_when_the_shown_working_is_all_in_bytes():
    # 9.83 GB / 25 GB/s = 393 ms. "9.83 GB / 3.2 GB/s = 3.1 s" is 7.9× that, but their own working divides
    # bytes by bytes per second: the 8 comes from the bandwidth they took, not from bits, an arithmetic slip.
    # The bare "3.1 s" and working that names Gb/s keep the bits-versus-bytes diagnosis.
    working = graded("kv-cache-tiering", {"reload_nvme_s": "9.83 GB / 3.2 GB/s = 3.1 s"})["reload_nvme_s"]
    assert working["verdict"] == "arithmetic_slip"
    assert "bits" not in working["message"]
    for text in ("3.1 s", "9.83 GB / 25 Gb/s = 3.1 s"):
        line = graded("kv-cache-tiering", {"reload_nvme_s": text})["reload_nvme_s"]
        assert line["verdict"] == "unit_error"
        assert line["message"].endswith("8× too large: bits versus bytes.")


def test_a_unit_factor_is_not_named_when_the_shown_working_gives_the_result_as_written():
    # 9.83 GB / 25 GB/s = 393 ms. "9.8 GB/0.4 GB/s = 25 s": their working computes 24.5 s, the result they
    # wrote; the 64× is in the bandwidth they took, not a slip of seconds for minutes: an arithmetic slip.
    line = graded("kv-cache-tiering", {"reload_nvme_s": "9.8 GB/0.4 GB/s = 25 s"})["reload_nvme_s"]
    assert line["verdict"] == "arithmetic_slip"
    assert "minutes" not in line["message"]
    # The right working with the result in the wrong unit is still a unit slip: 9.83 / 25 is 0.393 s, not
    # 393 s.
    line = graded("kv-cache-tiering", {"reload_nvme_s": "9.83 GB / 25 GB/s = 393 s"})["reload_nvme_s"]
    assert line["verdict"] == "unit_error"
    # Working that shows the factor itself (× 100) is the slip shown: 0.269 as 27, a unit error.
    line = graded("kv-cache-tiering", {"saved_frac": "0.27 x 100 = 27"})["saved_frac"]
    assert line["verdict"] == "unit_error"


@pytest.mark.parametrize("text", ["idk tbh", "no idea, sorry", "skipped - ran out of time"])
def test_a_non_answer_with_filler_words_is_missing(text):
    line = graded("kv-cache-tiering", {"recompute_s": text})["recompute_s"]
    assert line["verdict"] == "missing"


def test_a_per_gpu_label_on_an_assumption_for_the_whole_is_a_unit_error():
    # The design's one 100 Gb/s link joins the two servers: "per GPU" claims 100 Gb/s for each of eight GPUs.
    line = graded("eight-gpu-design-review", {"inter_node_bw": "100 Gbps per GPU"})["inter_node_bw"]
    assert line["verdict"] == "unit_error"
    assert line["message"].startswith("You wrote 100 Gbps per GPU: the link between the servers is one")
    assert graded("eight-gpu-design-review", {"inter_node_bw": "100 Gbps"})["inter_node_bw"]["verdict"] == (
        "correct"
    )


def test_per_gpu_on_an_assumption_is_harmless_where_the_question_s_unit_holds_one_gpu():
    # serverless-gpu-warm-pool serves one GPU per instance: 4 GB/s per GPU is 4 GB/s into the instance.
    line = graded("serverless-gpu-warm-pool", {"weight_load_bw": "4 GB/s per GPU"})["weight_load_bw"]
    assert line["verdict"] == "correct"


def test_a_stated_value_written_with_the_other_prefix_is_the_same_premise():
    # The design's filer sustains 2 GB/s; "2 GiB per second" (2.15 GB/s) is the same number with the binary
    # prefix, not a contradicting premise. 3 GB/s is one.
    line = graded("training-cluster-review", {"storage_bw": "2 GiB per second"})["storage_bw"]
    assert line["verdict"] == "correct" and "GB versus GiB" in line["message"]
    assert graded("training-cluster-review", {"storage_bw": "3 GB/s"})["storage_bw"]["verdict"] == (
        "far_from_reference"
    )


def test_a_premise_is_charged_on_the_first_line_it_moves_even_one_read_with_the_other_prefix():
    # 380 layers for 80: KV per conversation 30,000 × 2 × 380 × 8 × 128 × 2 B = 46.7 GB (the candidate
    # wrote 46.7 GiB, the same number with the binary prefix, 50.1 GB): far from 9.83 GB, charged there;
    # the HBM line after it (435 GB / 46.7 GB = 9) only repeats the premise and is correct.
    lines = graded("kv-cache-tiering", {"n_layers": "380", "kv_conv": "46.7 GiB", "convs_in_hbm": "9"})
    assert lines["kv_conv"]["verdict"] == "far_from_reference"
    assert lines["convs_in_hbm"]["verdict"] == "correct"
