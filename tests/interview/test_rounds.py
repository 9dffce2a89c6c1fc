import json
from datetime import timedelta

import pytest

from rounds.models import Round, RoundStatus
from rounds.services.rounds import round_start
from rounds.services.work import work_save
from tests.interview.bank_fixtures import KV_QUESTION, PLAN_QUESTION, load_questions

pytestmark = pytest.mark.django_db


@pytest.fixture
def questions(tmp_path):
    return load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION)


@pytest.fixture
def timed_round(alice, questions):
    return round_start(candidate=alice, question=questions[KV_QUESTION], mode="timed")


def save(client, round_, **body):
    return client.post(f"/rounds/{round_.pk}/save/", json.dumps(body), content_type="application/json")


def test_a_timed_round_stores_its_deadline_45_minutes_after_the_start(timed_round):
    assert timed_round.deadline - timed_round.started_at == timedelta(minutes=45)
    assert timed_round.work.revision == 0
    assert timed_round.current_phase()["phase"] == "intro"


def test_a_practice_round_has_no_deadline(alice, questions):
    round_ = round_start(candidate=alice, question=questions[KV_QUESTION], mode="practice")
    assert round_.deadline is None and round_.time_left_s() is None


def test_the_phase_follows_the_plan_minutes(timed_round):
    later = timed_round.started_at + timedelta(minutes=1, seconds=30)
    assert timed_round.current_phase(later)["phase"] == "numbers"
    assert timed_round.current_phase(timed_round.started_at + timedelta(minutes=20))["phase"] == "arithmetic"


def test_starting_from_the_question_page_opens_the_round(client, alice, questions):
    client.force_login(alice)
    response = client.post(f"/questions/{KV_QUESTION}/rounds/start/", {"mode": "timed"})
    round_ = Round.objects.get(candidate=alice)
    assert response["Location"] == f"/rounds/{round_.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert "Your numbers" in page and "data-sevenbox-canvas" in page
    assert "327,680" not in page and "n_layers *" not in page


def test_other_people_get_404_on_every_round_page(client, charlie, timed_round):
    client.force_login(charlie)
    for url in ["/", "/report/", "/clock/"]:
        assert client.get(f"/rounds/{timed_round.pk}{url}").status_code == 404
    assert save(client, timed_round, revision=0, scratch="x").status_code == 404
    for action in ["submit", "abandon", "read"]:
        assert client.post(f"/rounds/{timed_round.pk}/{action}/").status_code == 404
    assert client.get(f"/api/rounds/{timed_round.pk}/").status_code == 404


def test_anonymous_visitors_are_sent_to_log_in(client, timed_round):
    response = client.get(f"/rounds/{timed_round.pk}/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_abandoning_a_round_locks_it(client, alice, timed_round):
    client.force_login(alice)
    client.post(f"/rounds/{timed_round.pk}/abandon/")
    timed_round.refresh_from_db()
    assert timed_round.status == RoundStatus.ABANDONED
    assert save(client, timed_round, revision=0, scratch="late").status_code == 423


def test_a_variant_round_draws_seeded_values_inside_the_ranges(alice, questions):
    question = questions[PLAN_QUESTION]
    first = round_start(candidate=alice, question=question, mode="timed", variant=True, seed=7)
    again = round_start(candidate=alice, question=question, mode="timed", variant=True, seed=7)
    assert first.variant_values == again.variant_values and first.variant_text == again.variant_text
    quantities = {q["name"]: q for q in question.current_version.spec["model"]["quantities"]}
    assert first.variant_values and all(quantities[name].get("variable") for name in first.variant_values)
    users = first.variant_values["users"]
    low, high = quantities["users"]["range"]
    assert low <= users <= high
    assert f"{int(users):,}" in first.variant_text


def test_the_api_starts_saves_and_reads_a_round(client, alice, questions):
    client.force_login(alice)
    started = client.post(
        "/api/rounds/", {"question": KV_QUESTION, "mode": "practice"}, content_type="application/json"
    )
    assert started.status_code == 201
    round_id = started.json()["id"]
    saved = client.post(
        f"/api/rounds/{round_id}/save/", {"revision": 0, "scratch": "notes"}, content_type="application/json"
    )
    assert saved.json() == {"revision": 1, "saved": ["scratch"]}
    stale = client.post(
        f"/api/rounds/{round_id}/save/", {"revision": 0, "scratch": "older"}, content_type="application/json"
    )
    assert stale.status_code == 409
    assert client.get(f"/api/rounds/{round_id}/").json()["scratch"] == "notes"
    assert client.get(f"/api/rounds/{round_id}/report/").status_code == 409


def test_the_round_page_and_clock_never_show_the_reference_expectations(client, alice, timed_round):
    client.force_login(alice)
    page = client.get(f"/rounds/{timed_round.pk}/").content.decode()
    clock = client.get(f"/rounds/{timed_round.pk}/clock/").content.decode()
    for phase in timed_round.spec["plan"]:
        assert phase["expect"] not in page
        assert json.dumps(phase["expect"])[1:-1] not in clock


def test_a_submitted_round_is_graded_on_its_own_question_version(client, alice, timed_round):
    client.force_login(alice)
    save(client, timed_round, revision=0, numbers={"kv_conv": "9.8 GB"})
    assert client.post(f"/rounds/{timed_round.pk}/submit/").status_code == 302
    timed_round.refresh_from_db()
    assert timed_round.report["question"]["slug"] == KV_QUESTION
    assert timed_round.report["question"]["version"] == timed_round.question_version.number
    line = next(line for line in timed_round.report["lines"] if line["name"] == "kv_conv")
    assert line["given_text"] == "9.8 GB"
    assert timed_round.score == timed_round.report["scores"]["overall"]


def test_a_design_round_starts_with_the_client_box_on_the_canvas(timed_round):
    assert timed_round.work.design["nodes"] == [
        {"id": "client", "kind": "client", "label": "Client", "job": "", "failure": ""}
    ]
    assert timed_round.work.design["edges"] == []


def test_arrows_from_the_client_box_on_the_canvas_pass_the_path_check(timed_round):
    from rounds.services.rounds import round_submit

    spec = timed_round.spec
    nodes = [*timed_round.work.design["nodes"]]
    nodes += [{key: node[key] for key in ("id", "kind", "label")} for node in spec["design"]["nodes"]]
    edges = [{"source": e["source"], "target": e["target"]} for e in spec["design"]["edges"]]
    work_save(
        round_id=timed_round.pk,
        candidate_id=timed_round.candidate_id,
        base_revision=0,
        design={"nodes": nodes, "edges": edges},
    )
    report = round_submit(round_id=timed_round.pk).report
    assert report["design"]["path_ok"] is True
    assert not any(
        "client" in problem.lower() and "no " in problem for problem in report["design"]["problems"]
    )
