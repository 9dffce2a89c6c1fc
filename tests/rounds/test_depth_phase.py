"""The depth phase of a round (issue 33): nothing of a curveball before the clock reaches the phase (or the
candidate moves there), one at a time after, answers kept in the grader's shape, graded at submit; the API."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from rounds.models import Round
from rounds.services.depth import round_depth_next
from rounds.services.rounds import round_start, round_submit
from tests.interview.bank_fixtures import load_questions

pytestmark = pytest.mark.django_db
SLUG = "seven-boxes-serving-walkthrough"
BEFORE_DEPTH = timedelta(minutes=1 + 5 + 7 + 10)  # intro, numbers, shape, arithmetic
FIRST, SECOND = "Think time halves", "Prompts are four times longer"


@pytest.fixture
def question(tmp_path):
    return load_questions(tmp_path, SLUG)[SLUG]


def started(round_: Round, ago: timedelta) -> Round:
    Round.objects.filter(pk=round_.pk).update(
        started_at=timezone.now() - ago, deadline=timezone.now() - ago + timedelta(minutes=45)
    )
    return Round.objects.get(pk=round_.pk)


def pages(client, round_: Round) -> str:
    urls = [
        reverse("round-detail", args=[round_.pk]),
        reverse("round-depth", args=[round_.pk]),
        f"/api/rounds/{round_.pk}/",
        f"/api/rounds/{round_.pk}/depth/",
        f"/questions/{SLUG}/",
        f"/api/questions/{SLUG}/",
    ]
    return " ".join(client.get(url).content.decode() for url in urls)


def test_nothing_of_a_curveball_before_the_depth_phase_then_one_at_a_time(client, alice, question):
    round_ = round_start(candidate=alice, question=question, mode="timed")
    client.force_login(alice)
    before = pages(client, round_)
    assert FIRST not in before and "Users now come back" not in before
    assert "Set the batch from the TPOT target" not in before  # a decision's choice
    assert "arrive when the clock reaches the depth phase" in before
    assert client.get(f"/api/rounds/{round_.pk}/depth/").json()["curveballs"] == []

    round_ = started(round_, BEFORE_DEPTH + timedelta(seconds=5))  # 16 minutes of depth, 8 a curveball
    shown = pages(client, round_)
    assert "Users now come back after 10 s. Walk the fleet again." in shown and SECOND not in shown
    assert "Set the batch from the TPOT target" in shown
    assert "Leaves KV room unused" not in shown  # trade-offs wait for the report
    api = client.get(f"/api/rounds/{round_.pk}/depth/").json()
    assert [c["id"] for c in api["curveballs"]] == ["think-time-halves"] and api["more"] is True
    assert [line["name"] for line in api["curveballs"][0]["lines"]] == [
        "arrival_rate",
        "in_flight",
        "replicas",
    ]

    round_ = started(round_, BEFORE_DEPTH + timedelta(minutes=8, seconds=5))
    assert SECOND in pages(client, round_)


def test_a_candidate_may_move_to_the_depth_phase_early_and_practice_asks_for_each(client, alice, question):
    client.force_login(alice)
    for mode in ("timed", "practice"):
        round_ = round_start(candidate=alice, question=question, mode=mode)
        response = client.post(reverse("round-depth-next", args=[round_.pk]), HTTP_HX_REQUEST="true")
        html = response.content.decode()
        assert FIRST in html and SECOND not in html
        assert 'id="canvas-curveball"' in html and 'hx-swap-oob="true"' in html
        html = client.post(
            reverse("round-depth-next", args=[round_.pk]), HTTP_HX_REQUEST="true"
        ).content.decode()
        assert SECOND in html and "Next curveball" not in html
        round_submit(round_id=round_.pk)


def test_answers_are_saved_in_the_graders_shape_and_graded_at_submit(client, alice, question):
    round_ = round_start(candidate=alice, question=question, mode="practice")
    client.force_login(alice)
    round_depth_next(round_=round_)
    form = {
        "cb.think-time-halves.replicas": "23",
        "note.think-time-halves.1.box": "aq",
        "note.think-time-halves.1.text": "bound at 30 s",
        "fu.batch-not-kv.tpot-sets-batch": "1",
        "fu.batch-not-kv.keep-room": "2",
        "fu.batch-not-kv.fill-kv": "",
        "fu.batch-not-kv.number": "64",
    }
    response = client.post(reverse("round-depth-save", args=[round_.pk]), form, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "Depth answers saved." in response.content.decode()
    round_.work.refresh_from_db()
    assert round_.work.depth == {
        "curveballs": {
            "think-time-halves": {"numbers": {"replicas": "23"}, "notes": {"aq": "bound at 30 s"}}
        },
        "follow_ups": {"batch-not-kv": {"order": ["tpot-sets-batch", "keep-room"], "number": "64"}},
    }
    round_submit(round_id=round_.pk)
    report = Round.objects.get(pk=round_.pk).report
    # think-time: replicas right (weight 2 of 4: 0.5 of the lines), no autoscaler: 0.6 x 0.5 = 0.3;
    # batch-not-kv: both places and the number, 1.0; the other curveball and the four other decisions: 0.
    assert report["scores"]["depth"] == pytest.approx(100 * (0.3 + 1.0) / 7, abs=0.05)


def test_a_bad_depth_answer_is_refused_next_to_the_form_and_nothing_is_kept(client, alice, question):
    round_ = round_start(candidate=alice, question=question, mode="practice")
    client.force_login(alice)
    round_depth_next(round_=round_)
    url = reverse("round-depth-save", args=[round_.pk])
    twice = {"fu.batch-not-kv.tpot-sets-batch": "1", "fu.batch-not-kv.keep-room": "1"}
    response = client.post(url, twice, HTTP_HX_REQUEST="true")
    assert response.status_code == 400 and "share a place" in response.content.decode()
    unshown = {"cb.prompts-four-times-longer.prefill_share": "19"}
    response = client.post(url, unshown, HTTP_HX_REQUEST="true")
    assert response.status_code == 400 and "no such curveball has been shown" in response.content.decode()
    round_.work.refresh_from_db()
    assert round_.work.depth == {}


def test_a_round_submitted_before_its_depth_phase_leaves_depth_unscored(alice, question):
    round_ = round_start(candidate=alice, question=question, mode="timed")
    round_submit(round_id=round_.pk)
    assert "depth" not in Round.objects.get(pk=round_.pk).report["scores"]


def test_another_candidates_depth_answers_404(client, alice, charlie, question):
    round_ = round_start(candidate=alice, question=question, mode="practice")
    client.force_login(charlie)
    assert client.get(reverse("round-depth", args=[round_.pk])).status_code == 404
    assert client.post(reverse("round-depth-next", args=[round_.pk])).status_code == 404
    assert client.post(reverse("round-depth-save", args=[round_.pk]), {}).status_code == 404
    assert client.get(f"/api/rounds/{round_.pk}/depth/").status_code == 404


def test_the_api_saves_the_same_json_the_page_saves(client, alice, question):
    round_ = round_start(candidate=alice, question=question, mode="practice")
    client.force_login(alice)
    url = f"/api/rounds/{round_.pk}/depth/"
    answers = {"curveballs": {"think-time-halves": {"numbers": {"replicas": "23"}}}, "follow_ups": {}}
    assert client.post(url, answers, content_type="application/json").status_code == 400  # not started
    round_depth_next(round_=round_)
    response = client.post(url, answers, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["curveballs"][0]["lines"][2]["given"] == "23"
