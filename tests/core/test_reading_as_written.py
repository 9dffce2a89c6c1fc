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
