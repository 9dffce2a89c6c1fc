import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading.core.vocabulary import PHASES
from interview.question_visibility import PHASE_GUIDANCE
from questions.models import Question, QuestionVersion
from questions.services.question_bank import CORE_PACK, question_bank_load
from tests.interview.bank_fixtures import KV_QUESTION, PLAN_QUESTION, load_questions, make_pack

pytestmark = pytest.mark.django_db


def test_every_question_in_the_bank_loads_from_a_fresh_database():
    report = question_bank_load(folder=CORE_PACK)
    assert report.errors == []
    assert len(report.created) >= 36
    assert Question.objects.published().count() == len(report.created)


def test_loading_twice_makes_nothing_new(tmp_path):
    pack = make_pack(tmp_path, KV_QUESTION, PLAN_QUESTION)
    question_bank_load(folder=pack)
    report = question_bank_load(folder=pack)
    assert sorted(report.unchanged) == sorted([KV_QUESTION, PLAN_QUESTION])
    assert QuestionVersion.objects.count() == 2


def test_a_changed_file_makes_a_new_immutable_version(tmp_path):
    pack = make_pack(tmp_path, KV_QUESTION)
    question_bank_load(folder=pack)
    first = Question.objects.get(slug=KV_QUESTION).current_version
    path = pack / f"{KV_QUESTION}.yaml"
    text = path.read_text()
    path.write_text(
        text.replace("difficulty: hard", "difficulty: easy", 1).replace(
            "difficulty: medium", "difficulty: easy", 1
        )
    )
    report = question_bank_load(folder=pack)
    question = Question.objects.get(slug=KV_QUESTION)
    assert report.updated == [KV_QUESTION]
    assert question.current_version.number == first.number + 1
    first.refresh_from_db()
    assert first.spec["difficulty"] != question.current_version.spec["difficulty"]


def test_a_broken_file_loads_nothing_and_names_the_quantity_while_the_others_load(tmp_path):
    pack = make_pack(tmp_path, KV_QUESTION, PLAN_QUESTION)
    path = pack / f"{KV_QUESTION}.yaml"
    text = path.read_text()
    path.write_text(text.replace("formula: 2 * n_layers", "formula: 2 * n_layers.__class__", 1))
    report = question_bank_load(folder=pack)
    assert any(line.startswith(f"{KV_QUESTION}.yaml: model.kv_bytes_per_token:") for line in report.errors), (
        report
    )
    assert report.created == [PLAN_QUESTION]
    assert not Question.objects.filter(slug=KV_QUESTION).exists()


def test_the_load_command_exits_non_zero_on_a_broken_file(tmp_path, capsys):
    pack = make_pack(tmp_path, PLAN_QUESTION)
    (pack / "broken.yaml").write_text("slug: broken\ntitle: [unclosed\n")
    with pytest.raises(CommandError):
        call_command("load_questions", "--pack", str(pack))
    assert "broken.yaml: yaml:" in capsys.readouterr().err
    assert Question.objects.filter(slug=PLAN_QUESTION).exists()


def test_the_model_command_lists_questions_as_json(tmp_path, capsys):
    load_questions(tmp_path, KV_QUESTION)
    call_command("model", "--list", "--json")
    rows = json.loads(capsys.readouterr().out)
    assert rows == [{"slug": KV_QUESTION, "title": rows[0]["title"], "track": "inference", "version": 1}]


def test_the_model_command_prints_every_quantity_with_overrides(tmp_path, capsys):
    load_questions(tmp_path, KV_QUESTION)
    call_command("model", KV_QUESTION, "--set", "n_layers=40", "--json")
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["kv_bytes_per_token"]["kind"] == "derived"
    assert rows["kv_bytes_per_token"]["base_value"] == pytest.approx(2 * 40 * 8 * 128 * 2)
    assert rows["n_layers"]["kind"] == "input" and rows["n_layers"]["range"]
    assert set(rows["n_layers"]) == {
        "name",
        "label",
        "kind",
        "unit",
        "value",
        "base_value",
        "formula",
        "range",
    }


def test_the_model_command_shows_no_limit_and_writes_it_as_json_can(tmp_path, capsys):
    # The review's queue has no limit (issue 30): "no limit" in the table, "unbounded" in JSON (no Infinity).
    load_questions(tmp_path, "gateway-fallback-review")
    call_command("model", "gateway-fallback-review", "--json")
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out, parse_constant=_refuse)}
    assert rows["queue_limit"]["value"] == "unbounded" and rows["queue_limit"]["range"] == [10, "unbounded"]
    assert rows["replicas"]["value"] == 4
    call_command("model", "gateway-fallback-review")
    line = next(text for text in capsys.readouterr().out.splitlines() if text.startswith("queue_limit "))
    assert "no limit" in line and "inf" not in line


def _refuse(constant: str) -> None:
    raise AssertionError(f"{constant} is not JSON")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["no-such-question"], "no such question"),
        ([KV_QUESTION, "--set", "nope=3"], "nope"),
        ([KV_QUESTION, "--set", "n_layers=lots"], "n_layers"),
        ([KV_QUESTION, "--set", "n_layers"], "NAME=VALUE"),
    ],
)
def test_the_model_command_refuses_bad_input_with_a_one_line_message(tmp_path, arguments, message):
    load_questions(tmp_path, KV_QUESTION)
    with pytest.raises(CommandError, match=message):
        call_command("model", *arguments)


def test_the_catalogue_lists_questions_by_track_and_searches(client, tmp_path):
    load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION)
    page = client.get("/").content.decode()
    assert "Inference and serving" in page and "KV" in page
    response = client.get("/", {"q": "forty-five"})
    assert response.context["count"] == 1
    partial = client.get("/", {"q": "kv"}, headers={"HX-Request": "true"})
    assert partial.content.decode().lstrip().startswith('<div id="results">')


def test_a_candidate_sees_the_prompt_and_plan_but_no_reference_value(client, alice, tmp_path):
    load_questions(tmp_path, KV_QUESTION)
    client.force_login(alice)
    page = client.get(f"/questions/{KV_QUESTION}/").content.decode()
    assert "The 45-minute plan" in page
    assert "n_layers * n_kv_heads" not in page
    assert "327,680" not in page and "327680" not in page
    assert "Reference (authors and admins only)" not in page


def test_an_author_sees_the_reference_model_with_values(client, author, tmp_path):
    load_questions(tmp_path, KV_QUESTION)
    client.force_login(author)
    page = client.get(f"/questions/{KV_QUESTION}/").content.decode()
    assert "Reference (authors and admins only)" in page
    assert "320 KiB/tok" in page


def test_the_question_page_uses_a_bounded_number_of_queries(client, tmp_path):
    load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/questions/{KV_QUESTION}/").status_code == 200
    assert len(queries) <= 12


def test_the_api_lists_and_reads_questions_and_versions_without_reference_for_candidates(
    client, alice, tmp_path
):
    load_questions(tmp_path, KV_QUESTION)
    client.force_login(alice)
    listing = client.get("/api/questions/").json()
    assert [row["slug"] for row in listing] == [KV_QUESTION]
    detail = client.get(f"/api/questions/{KV_QUESTION}/").json()
    assert "model" not in detail["spec"] and "outline" not in detail["spec"]
    assert detail["spec"]["asked"][0].keys() == {"name", "label", "phase", "unit"}
    versions = client.get(f"/api/questions/{KV_QUESTION}/versions/").json()
    assert [v["number"] for v in versions] == [1]
    version = client.get(f"/api/questions/{KV_QUESTION}/versions/1/").json()
    assert "model" not in version["spec"]
    assert client.get(f"/api/questions/{KV_QUESTION}/versions/9/").status_code == 404


def test_the_api_gives_authors_the_whole_question(client, author, tmp_path):
    load_questions(tmp_path, KV_QUESTION)
    client.force_login(author)
    detail = client.get(f"/api/questions/{KV_QUESTION}/").json()
    assert detail["spec"]["model"]["quantities"]


def test_the_api_reads_the_catalogue_to_anonymous_visitors_as_the_site_does_and_writes_need_a_login(
    client, tmp_path
):
    load_questions(tmp_path, KV_QUESTION)
    assert client.get("/").status_code == 200
    assert [q["slug"] for q in client.get("/api/questions/").json()] == [KV_QUESTION]
    assert client.get("/api/rounds/").status_code == 403
    assert client.post("/api/rounds/", {"question": KV_QUESTION}).status_code == 403


def test_a_candidate_sees_general_phase_guidance_not_the_reference_expectations(client, alice, tmp_path):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    client.force_login(alice)
    page = client.get(f"/questions/{KV_QUESTION}/").content.decode()
    for phase in question.current_version.spec["plan"]:
        assert phase["expect"] not in page
    assert "Carry the numbers through the sizing chain" in page
    api = client.get(f"/api/questions/{KV_QUESTION}/").json()
    assert all(
        p["expect"] != q["expect"]
        for p, q in zip(api["spec"]["plan"], question.current_version.spec["plan"], strict=True)
    )


def test_every_phase_of_the_format_has_guidance_for_candidates():
    assert list(PHASE_GUIDANCE) == list(PHASES)
