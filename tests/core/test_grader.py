"""The grading engine on a small question written here: verdicts, error carried forward, messages, reports."""

import copy
import json

import pytest

from grading.core.grader import GRADER_VERSION, grade
from grading.core.question_reader import parse_question
from grading.core.submission import SubmissionError
from tests.core.question_builders import an_input, derived, plan

QUESTION = {
    "slug": "kv-conversations",
    "title": "KV cache per conversation",
    "track": "inference",
    "difficulty": "easy",
    "summary": "Size the KV cache of one conversation and how many fit.",
    "prompt": "How much KV cache does a 30,000-token conversation hold, and how many fit?",
    "plan": plan(
        ("intro", 1, "Restate."),
        ("numbers", 5, "KV per token."),
        ("shape", 7, "Boxes."),
        ("arithmetic", 10, "Per conversation, how many fit, how long to move."),
        ("depth", 16, "Tiers."),
    ),
    "model": {
        "headline": "conversation_kv",
        "quantities": [
            an_input("n_layers", 80, "", [24, 128], label="Layers", source="Llama-3-70B"),
            an_input("n_kv_heads", 8, "", [1, 64], label="KV heads", source="GQA"),
            an_input("head_dim", 128, "", [64, 256], label="Head dimension", source="Llama-3-70B"),
            an_input("kv_bytes_per_elem", 2, "B", [1, 2], label="Bytes per element", source="bf16"),
            an_input(
                "context_tokens", 30000, "tok", [1000, 128000], label="Conversation length", source="Premise"
            ),
            an_input(
                "kv_pool",
                435,
                "GB",
                [100, 1000],
                label="Free HBM for KV",
                source="640 GB x 0.9 - 141 GB of weights",
            ),
            an_input("link_bw", 400, "Gb/s", [100, 800], label="Link bandwidth", source="NDR InfiniBand"),
            derived(
                "kv_bytes_per_token",
                "2 * n_layers * n_kv_heads * head_dim * kv_bytes_per_elem",
                "B/tok",
                label="KV cache per token",
            ),
            derived(
                "conversation_kv",
                "kv_bytes_per_token * context_tokens",
                "GB",
                label="KV cache per conversation",
            ),
            derived(
                "conversations", "floor(kv_pool / conversation_kv)", "seq", label="Conversations that fit"
            ),
            derived("move_time", "conversation_kv / link_bw", "s", label="Time to move one conversation"),
        ],
    },
    "asked": [
        {"name": "kv_bytes_per_token", "phase": "numbers"},
        {"name": "context_tokens", "phase": "numbers"},
        {"name": "conversation_kv", "phase": "arithmetic", "weight": 2},
        {"name": "conversations", "phase": "arithmetic", "check": "count"},
        {"name": "move_time", "phase": "arithmetic", "check": "magnitude"},
    ],
    "design": {
        "nodes": [
            {"id": "gw", "kind": "gateway", "label": "Gateway", "job": "Auth.", "failure": "Overload."},
            {"id": "rt", "kind": "router", "label": "Router", "job": "Pick.", "failure": "Hot spots."},
            {"id": "eng", "kind": "engine", "label": "Engine", "job": "Decode.", "failure": "KV full."},
        ],
        "edges": [
            {"source": "client", "target": "gw"},
            {"source": "gw", "target": "rt"},
            {"source": "rt", "target": "eng"},
        ],
        "path": ["gateway", "router", "engine"],
    },
    "rubric": [{"dimension": "numbers", "levels": {1: "a", 2: "b", 3: "c", 4: "d"}}],
    "outline": "320 KiB a token, 9.83 GB a conversation.",
}

RIGHT = {
    "kv_bytes_per_token": "327,680 B",
    "context_tokens": "30,000 tokens",
    "conversation_kv": "9.83 GB",
    "conversations": "44",
    "move_time": "0.2 s",
}
REFERENCE_DESIGN = {"nodes": QUESTION["design"]["nodes"], "edges": QUESTION["design"]["edges"]}


def question() -> dict:
    return copy.deepcopy(QUESTION)


def lines_of(numbers: dict, **kwargs) -> dict:
    report = grade(question(), {"numbers": numbers}, **kwargs)
    return {line["name"]: line for line in report["lines"]}


def verdicts(numbers: dict, **kwargs) -> dict:
    return {name: line["verdict"] for name, line in lines_of(numbers, **kwargs).items()}


def test_the_reference_answers_score_full_marks():
    report = grade(question(), {"numbers": RIGHT, "design": REFERENCE_DESIGN})
    assert {line["verdict"] for line in report["lines"]} == {"correct"}
    assert report["scores"] == {"numbers": 100.0, "arithmetic": 100.0, "shape": 100.0, "overall": 100.0}


def test_the_report_records_the_grader_and_the_question():
    report = grade(question(), {"numbers": RIGHT}, version=3)
    assert report["grader_version"] == GRADER_VERSION
    assert report["question"]["slug"] == "kv-conversations"
    assert report["question"]["version"] == 3
    assert len(report["question"]["fingerprint"]) == 16


def test_the_report_is_json_and_byte_identical_across_runs():
    submission = {
        "numbers": {**RIGHT, "conversation_kv": "98 GB", "move_time": "ten s"},
        "design": REFERENCE_DESIGN,
        "events": [{"t": 30, "phase": "numbers", "field": "numbers.context_tokens"}],
    }
    first = json.dumps(grade(question(), submission), sort_keys=True)
    second = json.dumps(grade(question(), copy.deepcopy(submission)), sort_keys=True)
    assert first == second


def test_a_question_spec_and_its_stored_dict_grade_the_same():
    spec = parse_question(question(), source="kv-conversations")
    submission = {"numbers": {**RIGHT, "conversations": "50"}, "design": REFERENCE_DESIGN}
    from_spec = grade(spec, submission)
    from_dict = grade(question(), submission)
    assert json.dumps(from_spec, sort_keys=True) == json.dumps(from_dict, sort_keys=True)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("kv_bytes_per_token", "320KiB"),
        ("kv_bytes_per_token", "320 KiB/tok"),
        ("kv_bytes_per_token", "327680"),  # a bare number takes the line's unit
        ("conversation_kv", "~10 GB"),
        ("conversation_kv", "9.8e9 B"),
        ("conversation_kv", "78.6 Gb"),  # bits, read as such
        ("context_tokens", "30k tok"),
        ("context_tokens", "3e4"),
        ("move_time", "200 ms"),
        ("move_time", "0.0000556 h"),
    ],
)
def test_what_people_type_is_read_in_its_own_unit(name, text):
    assert verdicts({**RIGHT, name: text})[name] == "correct"


def test_text_that_cannot_be_read_is_a_verdict_with_a_message_not_an_exception():
    line = lines_of({**RIGHT, "conversations": "a few pods"})["conversations"]
    assert line["verdict"] == "unparsed"
    assert "no number" in line["message"]
    assert line["given_text"] == "a few pods"


def test_a_blank_line_is_missing_and_shows_the_reference():
    line = lines_of({**RIGHT, "conversation_kv": "  "})["conversation_kv"]
    assert line["verdict"] == "missing"
    assert line["message"] == "Not answered; the reference is 9.83 GB."
    assert verdicts({})["conversation_kv"] == "missing"


def test_a_slip_shows_the_arithmetic_from_their_own_numbers():
    line = lines_of({**RIGHT, "conversation_kv": "98 GB"})["conversation_kv"]
    assert line["verdict"] == "arithmetic_slip"
    assert (
        line["message"] == "327,680 B/tok × 30,000 tok = 9.83 GB; you wrote 98 GB — check the power of ten."
    )
    assert line["implied"] == pytest.approx(9.8304)
    assert line["implied_shown"] == "9.83 GB"
    assert line["reference_shown"] == "9.83 GB"


def test_a_slip_costs_once_whether_later_lines_use_the_slipped_or_the_right_value():
    slipped = {**RIGHT, "conversation_kv": "12 GB"}
    assert verdicts(slipped) == {**verdicts(RIGHT), "conversation_kv": "arithmetic_slip"}
    carried = {**slipped, "conversations": "36", "move_time": "0.24 s"}  # computed from their 12 GB
    assert verdicts(carried) == {**verdicts(RIGHT), "conversation_kv": "arithmetic_slip"}


def test_a_wrong_assumption_costs_once_on_its_own_line():
    numbers = {
        **RIGHT,
        "context_tokens": "300,000",
        "conversation_kv": "98.3 GB",
        "conversations": "4",
        "move_time": "2 s",
    }
    lines = lines_of(numbers)
    assert lines["context_tokens"]["verdict"] == "out_of_range"
    assert lines["context_tokens"]["message"] == (
        "300,000 is outside the plausible range 1,000 to 128,000 tok (Premise). Check the power of ten."
    )
    assert {name: line["verdict"] for name, line in lines.items() if name != "context_tokens"} == {
        "kv_bytes_per_token": "correct",
        "conversation_kv": "correct",
        "conversations": "correct",
        "move_time": "correct",
    }
    assert "is marked on its own line" in lines["conversation_kv"]["message"]


def test_an_assumption_inside_its_range_changes_the_answer_without_costing_anything():
    lines = lines_of(
        {
            **RIGHT,
            "context_tokens": "60,000",
            "conversation_kv": "19.7 GB",
            "conversations": "22",
            "move_time": "0.39 s",
        }
    )
    assert {line["verdict"] for line in lines.values()} == {"correct"}
    assert lines["conversation_kv"]["message"] == (
        "Correct from your conversation length of 60,000 tok, which is inside its plausible range."
    )


def test_an_unasked_assumption_outside_its_range_is_far_from_the_reference_once():
    numbers = {**RIGHT, "kv_pool": "20 GB", "conversations": "2"}
    line = lines_of(numbers)["conversations"]
    assert line["verdict"] == "far_from_reference"
    assert line["driver"] == "kv_pool"
    assert line["message"] == (
        "Your arithmetic holds, but 2 seq is far from the reference 44 seq: it comes from your free HBM for "
        "KV of 20 GB (reference 435 GB)."
    )


def test_off_by_a_thousand_is_a_unit_error_that_says_which():
    line = lines_of({**RIGHT, "conversation_kv": "9,830 GB"})["conversation_kv"]
    assert line["verdict"] == "unit_error"
    assert line["factor"] == 1000
    assert "1,000× too large" in line["message"] and "metric prefix" in line["message"]


def test_bits_versus_bytes_on_a_size_is_named_only_where_bits_are_written():
    # 327,680 B/tok x 30,000 tok = 9.83 GB. "9.83 Gb" is 9.83 / 8 = 1.23 GB: the right working in bits, a
    # unit error their own unit shows. "78.6 GB" (8x) names bytes, the line's own unit, and nothing in the
    # chain (sizes times a count of tokens) is in bits: an 8 is a count (64 KV heads for 8), a slip.
    written_bits = lines_of({**RIGHT, "conversation_kv": "9.83 Gb"})["conversation_kv"]
    assert written_bits["verdict"] == "unit_error"
    assert "8× too small: bits versus bytes" in written_bits["message"]
    eightfold = lines_of({**RIGHT, "conversation_kv": "78.6 GB"})["conversation_kv"]
    assert eightfold["verdict"] == "arithmetic_slip"
    assert "bits" not in eightfold["message"] and eightfold["message"].endswith("8× too high.")


def test_a_transfer_time_off_by_eight_is_bits_versus_bytes():
    line = lines_of({**RIGHT, "move_time": "0.0246 s"})["move_time"]
    assert line["verdict"] == "unit_error"
    assert "bits versus bytes" in line["message"]


def test_the_wrong_dimension_is_a_unit_error_naming_both():
    line = lines_of({**RIGHT, "conversation_kv": "9.8 GB/s"})["conversation_kv"]
    assert line["verdict"] == "unit_error"
    assert line["message"] == "'9.8 GB/s' is in GB/s; this line asks for GB."  # the unit as typed


def test_a_value_off_by_a_unit_factor_costs_once_and_later_lines_still_count():
    lines = lines_of({**RIGHT, "kv_bytes_per_token": "327,680 KB"})
    assert lines["kv_bytes_per_token"]["verdict"] == "unit_error"
    assert lines["conversation_kv"]["verdict"] == "correct"
    inputs = lines_of({**RIGHT, "context_tokens": "30M tokens"})
    assert inputs["context_tokens"]["verdict"] == "unit_error"
    assert inputs["context_tokens"]["message"] == (
        "You wrote 30M tokens, outside 1,000 to 128,000 tok; it is 1,000× too large for 30,000 tok: one "
        "metric prefix or a thousand (KB and MB, ms and s, k and M)."
    )
    assert inputs["conversation_kv"]["verdict"] == "correct"


def test_kb_for_kib_is_within_tolerance_but_noted():
    line = lines_of({**RIGHT, "kv_bytes_per_token": "320 KB"})["kv_bytes_per_token"]
    assert line["verdict"] == "correct"
    assert "KB (1,000 B) versus KiB (1,024 B)" in line["message"]


def test_gb_for_gib_alone_is_correct_with_the_strict_figure_and_named():
    line = lines_of({**RIGHT, "conversation_kv": "9.16 GB"})["conversation_kv"]  # 9.83e9 B read in GiB
    assert line["verdict"] == "correct"
    assert "strictly it is 9.83 GB" in line["message"] and "GB versus GiB" in line["message"]


def test_counts_accept_the_neighbouring_whole_numbers():
    assert verdicts({**RIGHT, "conversations": "45"})["conversations"] == "correct"
    assert verdicts({**RIGHT, "conversations": "43"})["conversations"] == "correct"
    assert verdicts({**RIGHT, "conversations": "46"})["conversations"] == "arithmetic_slip"


def test_order_of_magnitude_lines_accept_a_factor_of_three():
    assert verdicts({**RIGHT, "move_time": "0.55 s"})["move_time"] == "correct"
    assert verdicts({**RIGHT, "move_time": "0.07 s"})["move_time"] == "correct"
    assert verdicts({**RIGHT, "move_time": "1 s"})["move_time"] == "arithmetic_slip"


def test_a_line_tolerance_comes_from_the_question():
    custom = question()
    custom["asked"][2]["tolerance"] = 0.2
    report = grade(custom, {"numbers": {**RIGHT, "conversation_kv": "11.5 GB"}})
    assert report["lines"][2]["verdict"] == "correct"
    assert verdicts({**RIGHT, "conversation_kv": "11.5 GB"})["conversation_kv"] == "arithmetic_slip"


def test_a_division_by_zero_in_their_numbers_is_graded_not_raised():
    lines = lines_of({**RIGHT, "kv_bytes_per_token": "0", "conversations": "44"})
    assert lines["conversations"]["verdict"] in {"correct", "arithmetic_slip"}


def test_a_variant_round_moves_the_reference():
    report = grade(
        question(),
        {"numbers": {**RIGHT, "context_tokens": "60,000", "conversation_kv": "19.7 GB"}},
        overrides={"context_tokens": 60_000},
    )
    lines = {line["name"]: line for line in report["lines"]}
    assert lines["conversation_kv"]["reference_shown"] == "19.7 GB"
    assert lines["conversation_kv"]["verdict"] == "correct"
    assert report["variant"] == {"context_tokens": 60000.0}


def test_a_variant_must_name_an_input():
    with pytest.raises(ValueError, match="inputs"):
        grade(question(), {"numbers": RIGHT}, overrides={"conversation_kv": 1e9})


def test_numbers_for_quantities_the_question_lacks_are_listed():
    report = grade(question(), {"numbers": {**RIGHT, "kv_per_token": "320 KiB"}})
    assert report["unknown_numbers"] == ["kv_per_token"]


def test_a_malformed_submission_raises_naming_the_field():
    with pytest.raises(SubmissionError) as caught:
        grade(question(), {"numbers": {"conversation_kv": 9.8}})
    assert caught.value.problems == [("numbers.conversation_kv", "expected text")]


def test_the_sensitivity_names_the_assumptions_that_move_the_headline_most():
    report = grade(question(), {"numbers": RIGHT})
    names = [item["name"] for item in report["sensitivity"]]
    assert len(names) == 3
    assert set(names) <= {"n_layers", "n_kv_heads", "head_dim", "kv_bytes_per_elem", "context_tokens"}
    assert all(item["elasticity"] == pytest.approx(1.0) for item in report["sensitivity"])


def test_phase_scores_follow_line_weights_and_the_overall_follows_plan_minutes():
    report = grade(question(), {"numbers": {**RIGHT, "conversation_kv": "98 GB"}})
    # arithmetic: conversation_kv (weight 2) slipped for 0.25, the two others full: (0.5 + 2) / 4
    assert report["scores"]["arithmetic"] == 62.5
    assert report["scores"]["numbers"] == 100.0
    assert report["scores"]["shape"] is None  # no design submitted, so not graded
    assert report["scores"]["overall"] == round((5 * 100 + 10 * 62.5) / 15, 1)
    assert report["score_weights"] == {"arithmetic": 10.0, "numbers": 5.0}


def test_an_empty_design_scores_nothing_on_shape():
    report = grade(question(), {"numbers": RIGHT, "design": {"nodes": [], "edges": []}})
    assert report["scores"]["shape"] == 0.0
    assert [c["verdict"] for c in report["design"]["components"]] == ["missing"] * 3


def test_pacing_compares_time_per_phase_with_the_plan():
    events = [
        {"t": 200, "phase": "numbers", "field": "numbers.kv_bytes_per_token"},
        {"t": 500, "phase": "shape", "field": "design"},
        {"t": 1300, "phase": "arithmetic", "field": "numbers.conversation_kv"},
    ]
    report = grade(question(), {"numbers": RIGHT, "events": events})
    rows = {row["phase"]: row for row in report["pacing"]}
    assert rows["numbers"]["spent_s"] == 200.0 and rows["numbers"]["planned_s"] == 300.0
    assert rows["shape"]["spent_s"] == 300.0
    assert rows["arithmetic"]["spent_s"] == 800.0
    assert grade(question(), {"numbers": RIGHT})["pacing"] is None


UNITS_QUESTION = {
    **{
        key: QUESTION[key]
        for key in ("title", "track", "difficulty", "summary", "prompt", "plan", "rubric", "design")
    },
    "slug": "units",
    "outline": "-",
    "model": {
        "headline": "total",
        "quantities": [
            {
                "name": name,
                "label": name,
                "value": value,
                "unit": unit,
                "range": [value / 10, value * 10],
                "source": "test",
            }
            for name, value, unit in (
                ("kv", 327_680, "B/tok"),
                ("hbm_bw", 3.35, "TB/s"),
                ("rate", 1.7e6, "tok/s"),
                ("power", 14, "MW"),
                ("users", 2000, "user"),
                ("cold", 70, "s"),
                ("window", 1.5, "h"),
                ("conversation", 10, "GB"),
                ("link", 400, "Gb/s"),
            )
        ]
        + [{"name": "total", "label": "total", "formula": "kv * rate", "unit": "B/s"}],
    },
    "asked": [
        {"name": name, "phase": "numbers"}
        for name in ("kv", "hbm_bw", "rate", "power", "users", "cold", "window", "conversation", "link")
    ],
}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("kv", "320 KiB"),
        ("kv", "320KiB"),
        ("kv", "327.68 KB"),
        ("hbm_bw", "3.35 TB/s"),
        ("rate", "1.7M tok/s"),
        ("rate", "1.7e6 tokens/s"),
        ("power", "14 MW"),
        ("users", "2,000"),
        ("cold", "70 s"),
        ("window", "1.5 h"),
        ("window", "90 min"),
        ("conversation", "~10 GB"),
        ("link", "400 Gb/s"),
        ("link", "50 GB/s"),
    ],
)
def test_the_forms_people_write_are_read(name, text):
    report = grade(copy.deepcopy(UNITS_QUESTION), {"numbers": {name: text}})
    line = next(line for line in report["lines"] if line["name"] == name)
    assert line["verdict"] == "correct", line["message"]
    assert line["given"] == pytest.approx(line["reference"], rel=1e-3)


def test_a_few_pods_stays_unparsed_with_a_message():
    report = grade(copy.deepcopy(UNITS_QUESTION), {"numbers": {"users": "a few pods"}})
    line = next(line for line in report["lines"] if line["name"] == "users")
    assert line["verdict"] == "unparsed" and line["message"]


def test_ten_pods_is_read_as_10_pods_the_wrong_dimension_for_users():
    # Number words are read: pods on a count of users is a unit of the wrong dimension, a unit error.
    report = grade(copy.deepcopy(UNITS_QUESTION), {"numbers": {"users": "ten pods"}})
    line = next(line for line in report["lines"] if line["name"] == "users")
    assert line["verdict"] == "unit_error", line["message"]
