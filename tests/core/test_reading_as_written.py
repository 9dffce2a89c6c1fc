"""Issue 30, the open points: a qualifier reads the same however it is said ("each GPU", "a GPU", "per GPU"),
"no limit" reads however it is said, a unit slip is named only where what they wrote supports it, and a range
that misses says which end. Each expected verdict is worked out by hand in a comment."""

import math

import pytest

from grading.core.quantity_text import LineReading, ParseFailure, read_on_line
from tests.core.test_grader_bank import graded


def on_line(text: str, unit: str, label: str = "", *, no_limit: bool = False) -> LineReading:
    reading = read_on_line(text, unit, label, no_limit=no_limit)
    assert isinstance(reading, LineReading), reading
    return reading


# 1. "<qty> each <countable>", "<qty> a <countable>", "<qty> per <countable>" are one reading.


@pytest.mark.parametrize(
    "text",
    [
        "1.15 GB/s per GPU",
        "1.15 GB/s/GPU",
        "1.15 GB/s each GPU",
        "1.15 GB/s a GPU",
        "1.15 GB/s for each GPU",
        "1.15 GB/s for every GPU",
        "1.15 GB/s per each GPU",
        "1.15 GB/s every GPU",
        "1.15 GB/s each H100",
        "1.15 GB/s an H100",
    ],
)
def test_each_a_and_per_before_a_count_are_one_qualifier(text):
    # Every spelling is 1.15 GB/s for one GPU: the figure 1.15e9 B/s, its "per" the GPU.
    reading = on_line(text, "GB/s")
    assert reading.value == pytest.approx(1.15e9)
    assert reading.per == "GPU"


def test_a_before_a_word_that_counts_nothing_is_not_a_qualifier():
    # "$1,080 a day" is per day (a period, as before); "each" alone is one of what the line counts.
    assert on_line("$1,080 a day", "USD/day").value == pytest.approx(1080 / 86400)
    assert on_line("16.4 GB each", "GB").value == pytest.approx(16.4e9)
    assert isinstance(read_on_line("3 a lot", "GB"), ParseFailure)


def test_each_gpu_converts_where_the_chain_counts_the_gpus_and_is_a_unit_error_where_it_claims_too_much():
    # kv-cache-tiering's break-even bandwidth is 9.19 GB/s for the replica's 8 GPUs. "1.15 GB/s each GPU"
    # is 1.15 x 8 = 9.2 GB/s: right, converted. "9.2 GB/s each GPU" claims 9.2 x 8 = 73.6 GB/s: the right
    # figure labelled per GPU, a unit error, as "9.2 GB/s per GPU" always was.
    converted = graded("kv-cache-tiering", {"breakeven_bw": "1.15 GB/s each GPU"})["breakeven_bw"]
    assert converted["verdict"] == "correct"
    assert "× 8 GPUs" in converted["note"]
    for text in ("9.2 GB/s each GPU", "9.2 GB/s a GPU", "9.2 GB/s per GPU"):
        line = graded("kv-cache-tiering", {"breakeven_bw": text})["breakeven_bw"]
        assert line["verdict"] == "unit_error", text
        assert "that is 73.6 GB/s for all of them" in line["message"]


@pytest.mark.parametrize("text", ["9.8 GB per conversation", "9.8 GB a conversation", "9.8 GB/conv"])
def test_a_qualifier_the_lines_own_label_says_is_the_lines_own(text):
    # "KV cache of one conversation": 30,000 tok x 327,680 B = 9.83 GB per conversation; "9.8 GB per
    # conversation" says what the line is (2.5% under, inside 5%), not a per-conversation figure of a total.
    line = graded("kv-cache-tiering", {"kv_conv": text})["kv_conv"]
    assert line["verdict"] == "correct", line["message"]
    assert "the line's own" in line["note"]


# 2. No limit, however it is said.


@pytest.mark.parametrize(
    "text",
    [
        "there is no limit",
        "There's no cap",
        "it's unbounded",
        "it is unbounded",
        "the queue is unbounded",
        "no queue limit",
        "no upper bound",
        "There is no hard cap.",
        "not limited",
        "uncapped",
        "N/A (no limit)",
        "no limit at all",
        "unlimited",
    ],
)
def test_no_limit_reads_however_it_is_said(text):
    assert on_line(text, "req", no_limit=True).value == math.inf


def test_there_is_none_is_no_limit_only_where_the_line_may_have_no_limit():
    assert on_line("there is none", "req", no_limit=True).value == math.inf
    assert isinstance(read_on_line("there is none", "req"), ParseFailure)


def test_a_design_with_no_limit_said_in_a_sentence_is_right_on_its_limit_line():
    # eight-gpu-design-review's FIFO has no limit (its range reaches unbounded): "there is no limit" is it.
    line = graded("eight-gpu-design-review", {"queue_limit": "there is no limit"})["queue_limit"]
    assert line["verdict"] == "correct", line["message"]


# 3. A unit slip is named only where what they wrote supports it.


def test_a_wrong_count_with_no_unit_written_is_a_slip_not_bits_versus_bytes():
    # kv-cache-tiering: floor((8 x 80 GB x 0.9 - 70.6e9 x 2 B) / 9.8 GB) = floor(434.9 / 9.8) = 44. They
    # wrote the conversation's 9.8 GB on its own line, so 5 is not "9.8 GB taken as 78.4 GB (bits)": a count
    # (44 / 8 GPUs = 5.5, or a wrong method), an arithmetic slip, 44 / 5 = 8.8x low. No unit is named.
    line = graded("kv-cache-tiering", {"kv_conv": "9.8 GB", "convs_in_hbm": "5 (44 in HBM)"})["convs_in_hbm"]
    assert line["verdict"] == "arithmetic_slip"
    assert line["message"].endswith("you wrote 5 (44 in HBM) — 8.8× too low.")
    assert "bits" not in line["message"]


def test_with_the_size_unwritten_a_bare_count_still_gets_no_bits_from_a_chain_of_sizes():
    # The same 5 with the conversation's size left blank: the size (30,000 tok x 320 KiB) is worked from
    # sizes only, no link or bits in its chain, so 8x in it is no bits versus bytes either.
    line = graded("kv-cache-tiering", {"kv_conv": "", "convs_in_hbm": "5"})["convs_in_hbm"]
    assert line["verdict"] == "arithmetic_slip"
    assert "bits" not in line["message"]


def test_bits_on_a_transfer_are_still_named():
    # model-artifact-distribution: 141 TB from the origin over 40 Gb/s = 141e12 x 8 / 40e9 = 28,200 s = 7.83
    # h; the link read as 40 GB/s gives 3,525 s = 0.98 h, 8x short. A link in bits is in the chain: bits
    # versus bytes is named.
    line = graded("model-artifact-distribution", {"origin_only_time": "0.98 h"})["origin_only_time"]
    assert line["verdict"] == "unit_error"
    assert "8× too small: bits versus bytes" in line["message"]


# 4. A range that misses its band says which end.


def test_a_range_that_misses_says_which_ends_fall_outside_the_band():
    # multimodal-latency: 0.1 s + 3.5 MB x 8 / 20 Mb/s = 0.1 + 1.4 = 1.5 s, band within 20%.
    # "2-2.5 s": 2 / 1.5 = 1.333 (33% high) and 2.5 / 1.5 = 1.667 (67% high): both ends outside.
    both = graded("multimodal-latency", {"network_s": "2-2.5 s"})["network_s"]
    assert both["verdict"] == "arithmetic_slip"
    assert both["message"].endswith(
        "you wrote 2-2.5 s: both ends are outside the band (within 20%): 2 s too high by 33%; 2.5 s too high "
        "by 67%."
    )
    # "1-1.4 s": 1 / 1.5 = 0.667 (33% low) is outside; 1.4 / 1.5 = 0.933 (6.7% low) is inside.
    one = graded("multimodal-latency", {"network_s": "1-1.4 s"})["network_s"]
    assert one["verdict"] == "arithmetic_slip"
    assert one["message"].endswith(
        "you wrote 1-1.4 s: its low end, 1 s, is outside the band (within 20%), too low by 33%; its high "
        "end, 1.4 s, is inside."
    )


def test_an_assumption_typed_as_a_range_says_which_end_leaves_its_range():
    # serverless-gpu-warm-pool's weight load bandwidth is plausible up to 12.5 GB/s (13.1 with the 5% band):
    # "10-14 GB/s" has its high end, 14 GB/s, outside; "20-25 GB/s" has both, and says nothing more.
    one = graded("serverless-gpu-warm-pool", {"weight_load_bw": "10-14 GB/s"})["weight_load_bw"]
    assert one["verdict"] == "out_of_range"
    assert one["message"].endswith("Its high end, 14 GB/s, is the one outside.")
    both = graded("serverless-gpu-warm-pool", {"weight_load_bw": "20-25 GB/s"})["weight_load_bw"]
    assert both["verdict"] == "out_of_range" and "end" not in both["message"]


# 5. Fresh phrasings a timed candidate types, each a general rule.


@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        ("(9.8 GB)", 9.8e9, ""),  # the answer in brackets
        ("[9.8 GB]", 9.8e9, ""),
        ("9.8 GB;", 9.8e9, ""),  # punctuation after it
        ("9.8 GB!", 9.8e9, ""),
        ("9.8 GB?", 9.8e9, "unsure"),  # unsure, read as written and approximate
        ("9 800 MB", 9.8e9, "'9 800' read as 9,800"),  # SI spacing of thousands
        ("9.8 Gigabytes", 9.8e9, ""),  # a spelled-out unit in any letter case
        ("9.8 Gbytes", 9.8e9, ""),
        ("KV 9.8 GB", 9.8e9, "'KV' read as a label"),  # a label with no ":" or "="
        ("9.8gb", 9.8e9, "'gb' read as GB (this line is in bytes)"),  # the line's bytes, not bits
        ("9.8 GB of KV", 9.8e9, "'of KV' read as a note"),
    ],
)
def test_fresh_spellings_of_a_size_read_on_a_size_line(text, value, note):
    reading = on_line(text, "GB")
    assert reading.value == pytest.approx(value)
    assert note in reading.note


def test_lowercase_gb_takes_the_lines_bits_or_bytes_and_is_the_wrong_dimension_elsewhere():
    # "100 gb/s" on a Gb/s line is 100 Gb/s = 12.5e9 B/s; on a GB/s line 100e9 B/s; on a time line the
    # wrong dimension either way.
    assert on_line("100 gb/s", "Gb/s").value == pytest.approx(12.5e9)
    assert on_line("100 gb/s", "GB/s").value == pytest.approx(100e9)
    failure = read_on_line("1.4 gb", "s")
    assert isinstance(failure, ParseFailure) and failure.kind == "dimension"
    assert failure.message == "'1.4 gb' is in GB; this line asks for s"


def test_a_negated_figure_is_not_read_as_a_label_and_its_number():
    assert isinstance(read_on_line("not 9.8 GB", "GB"), ParseFailure)


@pytest.mark.parametrize(
    ("text", "value"), [("no more than 100", 100), ("max 100", 100), ("maximum 100", 100)]
)
def test_a_stated_bound_is_read_as_the_value(text, value):
    reading = on_line(text, "req")
    assert reading.value == value and "as the value itself" in reading.note


@pytest.mark.parametrize(
    ("text", "per_second"),
    [("$4,608 daily", 4608 / 86400), ("$192 hourly", 192 / 3600), ("$138k monthly", 138e3 / (30 * 86400))],
)
def test_a_period_adjective_after_the_amount_is_per_that_period(text, per_second):
    # "daily" is per day: $4,608 / 86,400 s. It was read as a note and the amount taken per hour (24x).
    assert on_line(text, "USD/h").value == pytest.approx(per_second)


def test_qps_is_a_request_rate_and_queries_are_no_pairs():
    # ttft-200ms-p99: 32 workers carry 313.9 req/s; "314 QPS" is 314 requests a second (one query is one
    # request). rag-at-10k-qps reranks 10,000 x 50 = 500k pairs/s: "500k QPS" counts queries, not pairs.
    line = graded("ttft-200ms-p99", {"capacity_large_pool": "314 QPS"})["capacity_large_pool"]
    assert line["verdict"] == "correct" and "one query is one request" in line["note"]
    pairs = graded("rag-at-10k-qps", {"rerank_pairs_s": "500k QPS"})["rerank_pairs_s"]
    assert pairs["verdict"] == "unit_error"


def test_a_figure_restated_in_another_unit_after_approximately_is_a_note():
    # rag-at-10k-qps: the reranker needs 217 GPUs (its check: within 3x). "217 GPUs ≈ 28 nodes" answers in
    # GPUs and restates it in nodes; "27 nodes = 216 GPUs" and "27 × 8 = 216 GPUs" state 216 GPUs as the
    # result (216 / 217 is inside 3x); "28 nodes" alone would be nodes on a GPU line.
    for text in ("217 GPUs ≈ 28 nodes", "27 nodes = 216 GPUs", "27 × 8 = 216 GPUs"):
        line = graded("rag-at-10k-qps", {"rerank_gpus": text})["rerank_gpus"]
        assert line["verdict"] == "correct", (text, line["message"])
    # A leading figure that does not fit the line is still the wrong dimension: "27 nodes (216 GPUs)".
    assert graded("rag-at-10k-qps", {"rerank_gpus": "27 nodes (216 GPUs)"})["rerank_gpus"]["verdict"] == (
        "unit_error"
    )


def test_servers_are_the_replicas_where_a_replica_is_one_node():
    # autoscaling-cold-start: 12 warm replicas of one 8xH100 node each; "12 servers" names nodes, which this
    # question counts as replicas.
    line = graded("autoscaling-cold-start", {"warm_pool": "12 servers"})["warm_pool"]
    assert line["verdict"] == "correct"
    assert "'servers' read as node" in line["note"]


@pytest.mark.parametrize(
    ("text", "value"), [("x2.8", 2.8), ("×2.8", 2.8), ("2.8-fold", 2.8), ("2.8 fold", 2.8)]
)
def test_a_ratio_with_its_sign_first_or_as_fold_is_a_ratio(text, value):
    assert on_line(text, "").value == pytest.approx(value)


def test_a_power_of_ten_in_superscript_is_a_power_of_ten():
    # "3.6 × 10²⁵" is 3.6e25, as "3.6 × 10^25" is.
    assert on_line("3.6 × 10²⁵ FLOP", "FLOP").value == pytest.approx(3.6e25)


def test_a_per_qualifier_that_names_what_the_line_is_one_of_is_the_lines_own():
    # ttft-200ms-p99: the longest prompt inside 100 ms at 28,035 tok/s is 2,804 tokens; "2,800 tokens per
    # request" says it is one prompt's (a prompt is one request): right. kv-cache-tiering's recompute of
    # a conversation's prefix (its chain: "Tokens in a conversation"): "1.4 s per conversation" is right.
    line = graded("ttft-200ms-p99", {"max_prompt": "2,800 tokens per request"})["max_prompt"]
    assert line["verdict"] == "correct", line["message"]
    line = graded("kv-cache-tiering", {"recompute_s": "1.4 s per conversation"})["recompute_s"]
    assert line["verdict"] == "correct", line["message"]


def test_a_per_qualifier_on_a_figure_that_is_of_none_of_them_is_still_a_unit_error():
    # ten-thousand-gpu-cluster: the checkpoint is 405e9 params x 12 B = 4.86 TB, all of it; "4.86 TB per
    # node" claims 1,280 times that. agent-sessions: a session of 100 x (1 + 60) s = 101.7 min is no figure
    # per GPU.
    line = graded("ten-thousand-gpu-cluster", {"ckpt_bytes": "4.86 TB per node"})["ckpt_bytes"]
    assert line["verdict"] == "unit_error"
    line = graded("agent-sessions", {"session_time": "102 per GPU"})["session_time"]
    assert line["verdict"] == "unit_error"


@pytest.mark.parametrize(
    ("text", "unit", "value", "note"),
    [
        ("12k output tok/s", "tok/s", 12e3, "'output' read as a note on 'tok'"),
        ("13.5 ms per decode step", "ms", 13.5e-3, "'decode' read as a note on 'step'"),
        ("44 active conversations", "session", 44, "'active' read as a note"),
    ],
)
def test_a_word_describing_the_count_after_it_is_a_note(text, unit, value, note):
    # The count after the word is read ("tok", "step", "conversations" as sessions); the word says which.
    reading = on_line(text, unit)
    assert reading.value == pytest.approx(value)
    assert note in reading.note


def test_a_word_before_no_count_is_still_unread():
    assert isinstance(read_on_line("44 foo", "session"), ParseFailure)


@pytest.mark.parametrize(
    ("text", "unit", "seconds", "how"),
    [
        ("1:10", "s", 70, "m:ss"),  # 1 min 10 s on a line of seconds
        ("01:10", "ms", 70, "m:ss"),
        ("1:18", "min", 78 * 60, "h:mm"),  # 1 h 18 min on a line of minutes
        ("0:01:10", "s", 70, "h:mm:ss"),
    ],
)
def test_a_clock_duration_reads_on_a_line_of_time(text, unit, seconds, how):
    reading = on_line(text, unit)
    assert reading.value == pytest.approx(seconds)
    assert how in reading.note


def test_a_ratio_on_a_line_with_a_unit_says_it_is_a_plain_number():
    # "1:10" on a line of bytes is the ratio 0.1, no size: said as a plain number (it said "is in None").
    failure = read_on_line("1:10", "GB")
    assert isinstance(failure, ParseFailure) and failure.kind == "dimension"
    assert failure.message == "'1:10' is a plain number; this line asks for GB"


def test_per_m_is_per_minute_and_per_m_tokens_is_per_million():
    # "30M tok/m": 30e6 tokens a minute = 500,000 tok/s ("m" after "/" is a minute; nothing here is a
    # length). "$0.97/M tokens", spaced or not, is $0.97 per million tokens = 9.7e-7 USD a token.
    assert on_line("30M tok/m", "tok/min").value == pytest.approx(500_000)
    assert on_line("$0.97/M tokens", "USD/tok").value == pytest.approx(9.7e-7)
    assert on_line("$0.97 per M tokens", "USD/tok").value == pytest.approx(9.7e-7)


@pytest.mark.parametrize("text", ["ρ = 1.2", "ρ≈1.2", "overloaded, 120%"])
def test_a_greek_label_or_a_word_and_a_comma_before_the_figure_is_a_label(text):
    # two-region-failover: each survivor carries 0.6 x 2 = 1.2 of its capacity; the symbol or the word before
    # it names it.
    assert on_line(text, "").value == pytest.approx(1.2)


# 5. The work in flight by any of its names: requests, sequences, conversations, connections, streams.


@pytest.mark.parametrize("text", ["44 sequences", "44 requests", "44 streams", "44 connections", "44 convos"])
def test_a_line_of_conversations_takes_the_in_flight_work_by_any_of_its_names(text):
    # kv-cache-tiering: floor((8 x 80 GB x 0.9 - 141 GB) / 9.83 GB) = floor(434.9 / 9.83) = 44 conversations.
    # Each of them is a sequence in the batch, served one request at a time over one connection: 44 of any.
    line = graded("kv-cache-tiering", {"convs_in_hbm": text})["convs_in_hbm"]
    assert line["verdict"] == "correct", (text, line)


@pytest.mark.parametrize("text", ["2,170 connections", "2170 sessions", "2170 conversations", "2170 streams"])
def test_a_line_of_open_streams_takes_connections_and_conversations(text):
    # public-playground: streams open at peak = peak rate x stream time, ~2,170 by Little's law (its note).
    line = graded("public-playground", {"in_flight_streams": text})["in_flight_streams"]
    assert line["verdict"] == "correct", (text, line)


def test_a_count_of_another_kind_on_a_line_of_conversations_is_still_a_unit_error():
    # 44 GPUs and 44 tokens count hardware and text, not work in flight: the wrong dimension for 44 sessions.
    for text in ("44 GPUs", "44 tokens"):
        line = graded("kv-cache-tiering", {"convs_in_hbm": text})["convs_in_hbm"]
        assert line["verdict"] == "unit_error", (text, line)


# 6. Tokens and requests with a scale glued on, as price sheets and dashboards write them.


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("300 ktok/s", "tok/s", 300e3),  # k = 1e3: 300 x 1,000 tokens a second
        ("0.3 Mtok/s", "tok/s", 0.3e6),  # M = 1e6: the same 300,000
        ("0.3 Mtokens/s", "tok/s", 0.3e6),
        ("1.33 Mtok", "tok", 1.33e6),  # kv room of 1.33M tokens
        ("2 Btok", "tok", 2e9),
        ("$0.60/Mtok", "USD/tok", 0.60 / 1e6),  # 60 cents a million tokens is 6e-7 dollars a token
        ("300 kreq/s", "req/s", 300e3),
    ],
)
def test_a_scale_glued_to_tokens_or_requests_multiplies_them(text, unit, value):
    assert on_line(text, unit).value == pytest.approx(value)


def test_a_lower_case_m_glued_to_tokens_is_not_read_as_millions():
    # "mtok" could be milli-tokens or a typo for Mtok; neither is read as a million.
    assert isinstance(read_on_line("12 mtok/s", "tok/s"), ParseFailure)


# 7. Shorthand for what a line counts: "top-50" names its number, "q/s" is queries a second.


def test_a_word_joined_to_its_number_by_a_hyphen_is_a_label():
    # rag-at-10k-qps reranks the top 50 candidates a query: "top-50" is 50, as "top 50" and "k=50" are.
    for text in ("top-50", "top 50", "k=50"):
        assert on_line(text, "pair/query").value == 50, text
    assert isinstance(read_on_line("not-5", "pair/query"), ParseFailure)  # a denial is never a label


def test_q_per_second_is_queries_per_second():
    # 50 q/s per node is 50 queries a second on one node: rag-at-10k-qps's qps_per_node, 50.
    line = graded("rag-at-10k-qps", {"qps_per_node": "50 q/s per node"})["qps_per_node"]
    assert line["verdict"] == "correct", line


# 8. A day's figure on a monthly line is a unit slip (days versus months), where the chain has months.


@pytest.mark.parametrize("text", ["98,304", "98,304 GPU-h", "98304 GPU hours"])
def test_a_day_s_figure_on_a_monthly_line_is_a_unit_error(text):
    # gpu-credit-system: 4,096 GPUs x 24 h = 98,304 GPU-h a day, x 30 = 2,949,120 GPU-h a month. The day's
    # figure on the month's line is the right working under the wrong period: 30x, days versus months.
    line = graded("gpu-credit-system", {"gpu_hours_month": text})["gpu_hours_month"]
    assert line["verdict"] == "unit_error", line
    assert "days versus months" in line["message"]


def test_thirty_times_too_much_where_no_month_is_in_sight_is_an_arithmetic_slip():
    # checkpoint-storage: 1 TB / 60 s = 16.7 GB/s; 500 GB/s is 30x, but nothing in the chain is a day or a
    # month (bytes and seconds only), so no period explains it.
    line = graded("checkpoint-storage", {"burst_bw": "500 GB/s"})["burst_bw"]
    assert line["verdict"] == "arithmetic_slip", line


# 9. A noun that names another count is read, and is the wrong dimension, not unreadable.


@pytest.mark.parametrize("text", ["480 H100s", "480 H100 GPUs", "480 cards"])
def test_gpus_by_their_model_name_on_a_line_of_nodes_are_a_unit_error(text):
    # rag-at-10k-qps: 3,000 LLM queries/s / 50 per node = 60 nodes = 480 GPUs at 8 a node. "480 H100s" is the
    # right working counted in GPUs where nodes are asked: the wrong dimension (GPUs for nodes), a unit error.
    line = graded("rag-at-10k-qps", {"llm_nodes": text})["llm_nodes"]
    assert line["verdict"] == "unit_error", line
    assert repr(text) in line["message"]


# 10. A count per another period on a line whose label names its period converts; "B/mo" there is a billion.


@pytest.mark.parametrize("text", ["86.4M/day", "86.4M per day", "2.592B/mo", "2.592 B per month", "30,000/s"])
def test_a_count_per_period_converts_to_the_period_the_label_names(text):
    # usage-billing-pipeline's "Usage events per month" (unit: event): 1,000 events/s x 86,400 s = 86.4M a
    # day, x 30 = 2.592e9 a month. "2.592B/mo" is a billion a month (the line is no size, so B is no byte);
    # 30,000/s is 30,000 x 2,592,000 s = 7.78e10 a month.
    reading = on_line(text, "event", "Usage events per month")
    expected = 30_000 * 2_592_000 if text.endswith("/s") else 2.592e9
    assert reading.value == pytest.approx(expected)


def test_b_per_second_on_a_line_in_bytes_stays_bytes():
    # "2.6B/s" on a GB/s line is 2.6 bytes a second, as typed (2.6e-9 GB/s), never a billion.
    assert on_line("2.6B/s", "GB/s").value == pytest.approx(2.6)


# 11. Words people type: bits in lower case, bucks, "m" for minutes on a line of time, a dash before a note.


@pytest.mark.parametrize(
    "text, unit, label, value",
    [
        ("133 gbit/s", "Gb/s", "", 133e9 / 8),  # gigabits, 16.6 GB/s
        ("26.7 MBit/s", "MB/s", "", 26.7e6 / 8),  # megabits
        ("200 bucks", "USD", "", 200.0),
        ("~45m", "min", "Recovery time", 45 * 60.0),  # minutes: the bank measures no length
        ("6 servers (5 + 1 spare)", "replica", "4-GPU servers (one TP4 replica each) for the load", 6.0),
    ],
)
def test_words_people_type_for_units(text, unit, label, value):
    assert on_line(text, unit, label).value == pytest.approx(value)


def test_m_stays_unread_where_the_line_is_no_time():
    # "45m" on a USD line could be minutes or millions: neither is read.
    assert isinstance(read_on_line("45m", "USD"), ParseFailure)


def test_a_dash_before_the_note_of_no_limit():
    reading = on_line("none — unbounded", "req", "Queue limit", no_limit=True)
    assert reading.value == math.inf
    assert "'unbounded' read as a note" in reading.note


# 12. Shown working whose head is in another dimension: the stated result is the answer.


def test_the_stated_result_is_the_answer_where_the_working_starts_with_a_share():
    # usage-billing-pipeline: $19.44M a month x 5% cancelled = $972k. "5% of rev = $0.97M" shows the share
    # and then the result; the result is the answer (0.2% off), not the 5%.
    assert on_line("5% of rev = $0.97M", "USD", "Revenue lost").value == pytest.approx(970_000)
    line = graded("usage-billing-pipeline", {"cancel_loss": "5% of rev = $0.97M"})["cancel_loss"]
    assert line["verdict"] == "correct", line


def test_a_restated_figure_that_fits_the_line_still_wins_over_the_result():
    # "217 GPUs ≈ 28 nodes" on a GPU line: the leading figure fits, the restatement is a note.
    assert on_line("217 GPUs ≈ 28 nodes", "GPU").value == 217


# 13. A period the candidate wrote is evidence of a period slip; a % typed is evidence of a percentage slip.


@pytest.mark.parametrize(
    "slug, name, text",
    [
        # 4,096 GPUs x 24 h = 98,304 GPU-h a day, labelled a month: 30x, days versus months.
        ("gpu-credit-system", "gpu_hours_day", "98,304 GPU-h/month"),
        # 32 replicas x 8 GPUs x $2/h x 24 h = $12,288 a day, labelled a month.
        ("public-playground", "free_tier_cost_day", "$12.3k/mo"),
        # 18 warm GPUs x $2/h x 24 h = $864 a day, labelled a month.
        ("serverless-gpu-warm-pool", "idle_cost_day", "$864/mo"),
    ],
)
def test_a_day_s_figure_labelled_monthly_is_a_unit_error(slug, name, text):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "unit_error", line


def test_a_ratio_typed_as_a_percentage_is_a_unit_error_however_large():
    # token-rate-limits: 500 tenants x 200,000 tok/min = 1e8 sold over ~8.13M the fleet makes = 12.3x.
    # "12.3%" is 0.123: the right figure with a % sign, a percentage slip, as "0.8%" for 0.8 is; a bare
    # 1,230 (no % typed) is no percentage of anything and stays an arithmetic slip.
    line = graded("token-rate-limits", {"oversubscription": "12.3%"})["oversubscription"]
    assert line["verdict"] == "unit_error", line
    line = graded("token-rate-limits", {"oversubscription": "1230"})["oversubscription"]
    assert line["verdict"] == "arithmetic_slip", line


def test_a_year_s_label_on_a_month_s_count_is_a_unit_error():
    # usage-billing-pipeline: 2.59e9 events is the month's count; "/ yr" claims it for a year, 12.2x (365 / 30
    # days) too few a month: the right working under the wrong period, a unit error.
    line = graded("usage-billing-pipeline", {"month_events": "2.59e9 / yr"})["month_events"]
    assert line["verdict"] == "unit_error", line


# 14. A link read as bytes is a premise the later lines over it may follow.


def test_a_link_read_as_bytes_in_one_line_carries_into_the_lines_after_it():
    # training-disaster-recovery: 5 TB over the 100 Gb/s link takes 400 s (6.67 min). Read as 100 GB/s it is
    # 50 s: a unit error, charged there. Over the same 100 GB/s, replication uses 5 TB / 1,800 s / 100 GB/s
    # = 2.78% of the link, and the RPO is 30 + 0.83 = 30.8 min: both follow their reading, so both are right.
    lines = graded("training-disaster-recovery", {"repl_time": "50 s", "repl_util": "2.8%", "rpo": "~31 min"})
    assert lines["repl_time"]["verdict"] == "unit_error", lines["repl_time"]
    assert lines["repl_util"]["verdict"] == "correct", lines["repl_util"]
    assert lines["rpo"]["verdict"] == "correct", lines["rpo"]
    # The reference's own figures after it stay right (22% of the link, 36.7 min).
    lines = graded("training-disaster-recovery", {"repl_time": "50 s", "repl_util": "22%", "rpo": "36.7 min"})
    assert lines["repl_util"]["verdict"] == "correct", lines["repl_util"]
    assert lines["rpo"]["verdict"] == "correct", lines["rpo"]


# 15. A line that is an earlier line in another unit repeats the candidate's figure: charged once.


def test_the_same_quantity_in_another_unit_follows_the_figure_they_wrote_first():
    # checkpoint-storage: the burst is 1 TB / 60 s = 16.7 GB/s = 133 Gb/s, asked twice. "1.67 GB/s" is a 10x
    # slip (an arithmetic slip); "13.3 Gb/s" is 1.67 GB/s x 8, the same figure in bits: not charged again.
    # The reference's 133 Gb/s stays right; a right first line and a slipped second one is still a slip.
    lines = graded("checkpoint-storage", {"burst_bw": "1.67 GB/s", "burst_bw_bits": "13.3 Gb/s"})
    assert lines["burst_bw"]["verdict"] == "arithmetic_slip", lines["burst_bw"]
    assert lines["burst_bw_bits"]["verdict"] == "correct", lines["burst_bw_bits"]
    lines = graded("checkpoint-storage", {"burst_bw": "1.67 GB/s", "burst_bw_bits": "133 Gb/s"})
    assert lines["burst_bw_bits"]["verdict"] == "correct", lines["burst_bw_bits"]
    lines = graded("checkpoint-storage", {"burst_bw": "16.7 GB/s", "burst_bw_bits": "13.3 Gb/s"})
    assert lines["burst_bw_bits"]["verdict"] == "arithmetic_slip", lines["burst_bw_bits"]


# 16. A figure per one count on a line per another converts where the question says how many make one.


def test_a_per_node_figure_on_a_per_gpu_line_converts_by_the_gpus_in_a_node():
    # checkpoint-storage: 1 TB over 256 new GPUs is 3.91 GB a GPU; a node holds 8 (its GPUs per node), so
    # "31 GB per node" is 31 / 8 = 3.88 GB a GPU: right (0.8% off). "3.9 GB per node" is the GPU's figure
    # labelled per node (0.49 GB a GPU): the right working with the wrong qualifier, a unit error.
    line = graded("checkpoint-storage", {"bytes_per_new_gpu": "31 GB per node"})["bytes_per_new_gpu"]
    assert line["verdict"] == "correct", line
    assert "÷ 8" in line["note"]
    line = graded("checkpoint-storage", {"bytes_per_new_gpu": "3.9 GB per node"})["bytes_per_new_gpu"]
    assert line["verdict"] == "unit_error", line


def test_a_per_gpu_figure_on_a_per_node_assumption_converts():
    # rag-at-10k-qps: 50 LLM queries/s a node (range 20 to 100); "6.25 qps/GPU" x 8 GPUs a node = 50.
    line = graded("rag-at-10k-qps", {"qps_per_node": "6.25 qps/GPU"})["qps_per_node"]
    assert line["verdict"] == "correct", line


def test_a_count_of_nodes_on_a_gpu_count_is_still_the_wrong_dimension():
    # rag-at-10k-qps: 217 reranker GPUs; "28 nodes" names no "per": nodes where GPUs are asked, a unit error.
    line = graded("rag-at-10k-qps", {"rerank_gpus": "28 nodes"})["rerank_gpus"]
    assert line["verdict"] == "unit_error", line


# 17. "PF", "TF": the FLOP word of the line (an amount or a rate), as "gb" takes the line's bytes or bits.


@pytest.mark.parametrize(
    "text, unit, value",
    [
        ("144 PF", "PFLOP", 144e15),  # video-generation's FLOPs per video: an amount
        ("1.8 × 40 × 2 = 144 PF", "PFLOP", 144e15),  # the stated result of the working
        ("989 TF", "TFLOP/(s*GPU)", 989e12),  # a GPU's peak: a rate, 989 TFLOP/s
    ],
)
def test_pf_and_tf_are_flops_in_the_line_s_own_dimension(text, unit, value):
    assert on_line(text, unit).value == pytest.approx(value)


def test_pf_on_a_line_with_no_flops_stays_unread():
    assert isinstance(read_on_line("144 PF", "GB"), ParseFailure)
