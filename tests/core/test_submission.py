"""Checking a submission before grading: every problem names its field."""

import pytest

from grading.core.submission import SubmissionError, read_submission


def problems_of(data) -> list[tuple[str, str]]:
    with pytest.raises(SubmissionError) as caught:
        read_submission(data)
    return caught.value.problems


def test_a_full_submission_reads_into_boxes_arrows_and_events():
    submission = read_submission(
        {
            "numbers": {"kv_bytes_per_token": "320 KiB", "blank": "", "skipped": None},
            "design": {
                "nodes": [
                    {"id": "gw", "kind": "gateway", "label": "Gateway", "job": "j", "failure": "f", "x": 3}
                ],
                "edges": [{"source": "client", "target": "gw"}],
                "marks": [],
            },
            "events": [{"t": 12.5, "phase": "numbers", "field": "numbers.kv_bytes_per_token"}],
        }
    )
    assert submission.numbers == {"kv_bytes_per_token": "320 KiB", "blank": "", "skipped": ""}
    assert submission.boxes[0].kind == "gateway"
    assert submission.arrows[0].source == "client"
    assert submission.events[0].t == 12.5


def test_an_empty_submission_is_a_blank_sheet_without_a_design():
    submission = read_submission({})
    assert submission.numbers == {}
    assert submission.boxes is None
    assert submission.events is None


def test_a_number_that_is_not_text_names_its_field():
    assert problems_of({"numbers": {"kv_bytes_per_token": 320}}) == [
        ("numbers.kv_bytes_per_token", "expected text")
    ]


def test_an_unknown_top_level_field_is_refused_so_a_typo_is_not_a_blank_sheet():
    assert problems_of({"number": {}})[0][0] == "number"


def test_design_problems_name_the_node_or_edge():
    problems = problems_of(
        {
            "design": {
                "nodes": [{"id": "a"}, {"id": "a"}, {"label": "no id"}, "box"],
                "edges": [{"source": "a", "target": "nowhere"}, {"source": "a"}],
            }
        }
    )
    fields = [field for field, _ in problems]
    assert "design.nodes[1].id" in fields  # used twice
    assert "design.nodes[2].id" in fields  # missing
    assert "design.nodes[3]" in fields  # not an object
    assert "design.edges[0].target" in fields
    assert "design.edges[1].target" in fields


def test_event_times_must_be_seconds_from_the_start():
    problems = problems_of({"events": [{"t": -1, "phase": "numbers", "field": "design"}, {"t": "soon"}]})
    assert [field for field, _ in problems] == ["events[0].t", "events[1].t"]


def test_the_error_message_lists_every_field():
    with pytest.raises(SubmissionError, match=r"numbers\.a: expected text; design: expected an object"):
        read_submission({"numbers": {"a": 1}, "design": []})


def test_a_submission_that_is_not_an_object_is_refused():
    assert problems_of(["numbers"]) == [("submission", "expected an object with numbers, design and events")]


def test_the_grade_reads_a_design_within_the_saves_limits_and_refuses_one_past_them():
    # The save's limits (rounds/validation.py): 80 boxes, 200 arrows, 300 characters a box text, 200 a number.
    boxes = [{"id": f"b{index}", "kind": "gateway", "job": "j" * 300} for index in range(80)]
    read_submission({"design": {"nodes": boxes, "edges": []}, "numbers": {"rate": "9" * 200}})
    too_many = [*boxes, {"id": "b80"}]
    with pytest.raises(SubmissionError, match="design.nodes"):
        read_submission({"design": {"nodes": too_many, "edges": []}})
    long_job = [{"id": "b0", "job": "j" * 301}]
    with pytest.raises(SubmissionError, match=r"design.nodes\[0\].job"):
        read_submission({"design": {"nodes": long_job, "edges": []}})
    with pytest.raises(SubmissionError, match="numbers.rate"):
        read_submission({"numbers": {"rate": "9" * 201}})
