"""`manage.py grade SLUG SUBMISSION.json [--json]`: a submission's report against the published version."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db
SLUG = KV_QUESTION


@pytest.fixture
def published(tmp_path):
    return load_questions(tmp_path, SLUG)[SLUG]


def write(tmp_path, data) -> str:
    path = tmp_path / "submission.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def grade_command(*args: str) -> str:
    out = io.StringIO()
    call_command("grade", *args, stdout=out)
    return out.getvalue()


def test_it_prints_the_report_as_json(published, tmp_path):
    submission = write(tmp_path, {"numbers": {"kv_conv": "98 GB", "reload_dram_s": "25 ms"}})
    report = json.loads(grade_command(SLUG, submission, "--json"))
    lines = {line["name"]: line for line in report["lines"]}
    assert lines["reload_dram_s"]["verdict"] == "correct"  # 9.83 GB / (8 x 50 GB/s) = 24.6 ms
    assert lines["kv_conv"]["verdict"] == "arithmetic_slip"
    assert "check the power of ten" in lines["kv_conv"]["message"]
    assert report["question"] == {
        "slug": SLUG,
        "version": 1,
        "fingerprint": report["question"]["fingerprint"],
    }


def test_the_json_report_is_byte_identical_on_a_second_run(published, tmp_path):
    submission = write(tmp_path, {"numbers": {"kv_conv": "~10 GB"}, "design": {"nodes": [], "edges": []}})
    assert grade_command(SLUG, submission, "--json") == grade_command(SLUG, submission, "--json")


def test_without_json_it_prints_a_summary_a_person_can_read(published, tmp_path):
    submission = write(tmp_path, {"numbers": {"kv_conv": "98 GB"}})
    text = grade_command(SLUG, submission)
    assert f"{SLUG} version 1" in text
    assert "Arithmetic slip" in text and "check the power of ten" in text
    assert "Scores:" in text and "What moves the answer most" in text


def test_a_malformed_submission_exits_with_the_field_named(published, tmp_path):
    submission = write(tmp_path, {"numbers": {"kv_conv": 9.8}})
    with pytest.raises(CommandError, match=r"numbers\.kv_conv: expected text"):
        grade_command(SLUG, submission, "--json")


def test_a_box_without_an_id_is_named_by_its_position(published, tmp_path):
    submission = write(tmp_path, {"design": {"nodes": [{"label": "no id"}], "edges": []}})
    with pytest.raises(CommandError, match=r"design\.nodes\[0\]\.id: is required"):
        grade_command(SLUG, submission)


def test_a_file_that_is_not_json_is_refused(published, tmp_path):
    with pytest.raises(CommandError, match="Cannot read the submission"):
        grade_command(SLUG, write(tmp_path, "{not json"))


def test_an_unknown_question_is_refused(tmp_path):
    with pytest.raises(CommandError, match="No published question 'nope'"):
        grade_command("nope", write(tmp_path, {"numbers": {}}))


def reference_design(nonsense: bool = False) -> dict:
    from grading.core.question_files import read_yaml
    from questions.services.question_bank import CORE_PACK

    design = read_yaml(CORE_PACK / f"{SLUG}.yaml")["design"]
    nodes = [
        {**node, "job": "asdf qwerty", "failure": "lorem ipsum dolor"} if nonsense else node
        for node in design["nodes"]
    ]
    return {"nodes": nodes, "edges": design["edges"]}


def test_the_reference_design_graded_against_itself_scores_full_shape(published, tmp_path):
    report = json.loads(grade_command(SLUG, write(tmp_path, {"design": reference_design()}), "--json"))
    assert report["scores"]["shape"] == 100.0


def test_the_reference_design_with_nonsense_jobs_and_failures_scores_at_most_half_its_shape(
    published, tmp_path
):
    submission = write(tmp_path, {"design": reference_design(nonsense=True)})
    report = json.loads(grade_command(SLUG, submission, "--json"))
    # Every box of the right kind but naming nothing: coverage 0, the path still holds (0.25 of shape).
    assert report["scores"]["shape"] == 25.0 <= 100.0 / 2
    assert all(component["credit"] == 0.0 for component in report["design"]["components"])
    assert "Nothing scored for this box." in grade_command(SLUG, submission)


def test_it_grades_the_depth_answers_the_page_saves(tmp_path):
    slug = "seven-boxes-serving-walkthrough"
    load_questions(tmp_path, slug)
    # Think time 10 s: 2,000 / 20.5 s x 10.5 s = 1,024 in flight / 44.8 = 22.9, so 23 replicas.
    depth = {
        "curveballs": {"think-time-halves": {"numbers": {"replicas": "23"}}},
        "follow_ups": {"batch-not-kv": {"order": ["tpot-sets-batch", "keep-room"], "number": "64"}},
    }
    report = json.loads(grade_command(slug, write(tmp_path, {"numbers": {}, "depth": depth}), "--json"))
    replicas = report["depth"]["curveballs"][0]["lines"][2]
    assert (replicas["name"], replicas["verdict"]) == ("replicas", "correct")
    decision = next(item for item in report["depth"]["follow_ups"] if item["id"] == "batch-not-kv")
    assert decision["credit"] == 1.0
    text = grade_command(slug, write(tmp_path, {"numbers": {}, "depth": depth}))
    assert "Curveball Think time halves" in text
    assert "2 of 2 places match tpot-sets-batch > keep-room" in text
