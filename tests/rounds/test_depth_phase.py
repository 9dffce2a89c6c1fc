"""The depth phase of a round (issue 33): nothing of a curveball before the clock reaches the phase (or the
candidate moves there), one at a time after, answers kept in the grader's shape, graded at submit; the API."""

import re
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
    # batch-not-kv: both places and the number, 1.0; the four other decisions: 0. The second curveball was
    # never asked for in this practice round: listed as not offered, not counted.
    assert report["scores"]["depth"] == pytest.approx(100 * (0.3 + 1.0) / 6, abs=0.05)
    assert [item["id"] for item in report["depth"]["not_offered"]] == ["prompts-four-times-longer"]
    assert "you asked for 1 of 2" in report["depth"]["offer_words"]


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


def test_a_round_submitted_before_its_depth_phase_leaves_depth_unscored_and_says_why(client, alice, question):
    round_ = started(round_start(candidate=alice, question=question, mode="timed"), timedelta(minutes=20))
    round_submit(round_id=round_.pk)
    report = Round.objects.get(pk=round_.pk).report
    assert "depth" not in report["scores"] and "depth" not in report
    assert report["depth_unscored"].startswith(
        "This round ended at 20:00, before its clock reached the depth phase at 23:00, and you did not move "
        "there early: none of its curveballs or follow-ups was offered, so depth is not scored"
    )
    client.force_login(alice)
    page = client.get(reverse("round-report", args=[round_.pk])).content.decode()
    assert 'id="depth-unscored"' in page and "Depth is the interviewer's to score" not in page


def test_a_timed_round_counts_the_curveballs_its_clock_offered_and_lists_the_rest(client, alice, question):
    # 5 s into the 16-minute depth phase the clock has offered the first of two curveballs (one each 8
    # minutes). The page shows it (the poll), the candidate answers one decision exactly (places and
    # number: 1.0) and submits. Counted: the first curveball (offered, unanswered: 0), the five decisions
    # (1.0 and four 0s): 100 x 1.0 / 6 = 16.7. The second curveball was never offered: listed, not counted.
    round_ = started(
        round_start(candidate=alice, question=question, mode="timed"), BEFORE_DEPTH + timedelta(seconds=5)
    )
    client.force_login(alice)
    client.get(reverse("round-depth", args=[round_.pk]))
    answers = {"follow_ups": {"batch-not-kv": {"order": ["tpot-sets-batch", "keep-room"], "number": "64"}}}
    response = client.post(f"/api/rounds/{round_.pk}/depth/", answers, content_type="application/json")
    assert response.status_code == 200
    round_submit(round_id=round_.pk)
    report = Round.objects.get(pk=round_.pk).report
    assert [item["id"] for item in report["depth"]["curveballs"]] == ["think-time-halves"]
    assert report["depth"]["not_offered"] == [
        {"id": "prompts-four-times-longer", "title": "Prompts are four times longer"}
    ]
    assert report["depth"]["items"] == 6 and report["scores"]["depth"] == pytest.approx(100 / 6, abs=0.05)
    page = client.get(reverse("round-report", args=[round_.pk])).content.decode()
    assert (
        "1 curveball offered and 5 follow-ups; not counted: “Prompts are four times longer”, never offered"
        in (" ".join(page.split()))
    )
    assert re.search(r"1 of 2 had been offered when the round ended at 23:0\d\.", page)
    assert 'id="depth-curveball-prompts-four-times-longer"' in page


def test_a_timed_round_that_ran_to_its_deadline_was_offered_every_curveball_and_each_unanswered_is_a_zero(
    alice, question
):
    # The page never polled (depth_shown stays 0), yet the clock went through the whole depth phase: both
    # curveballs were offered and count, unanswered, as 0; so do the five decisions: depth 0 over 7 items.
    round_ = started(round_start(candidate=alice, question=question, mode="timed"), timedelta(minutes=46))
    round_submit(round_id=round_.pk)
    report = Round.objects.get(pk=round_.pk).report
    assert report["depth"]["not_offered"] == [] and report["depth"]["items"] == 7
    assert report["scores"]["depth"] == 0.0
    assert "2 of 2 had been offered when the round ended at 45:00" in report["depth"]["offer_words"]


def test_the_page_and_the_api_cannot_say_which_curveballs_were_offered(client, alice, question):
    round_ = round_start(candidate=alice, question=question, mode="practice")
    round_depth_next(round_=round_)
    client.force_login(alice)
    answers = {"offered": ["think-time-halves", "prompts-four-times-longer"]}
    response = client.post(f"/api/rounds/{round_.pk}/depth/", answers, content_type="application/json")
    assert response.status_code == 400 and "depth.offered" in response.json()["detail"]


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


def test_a_practice_round_that_never_asked_has_no_depth_score_and_one_that_moved_early_counts_what_it_asked(
    alice, question
):
    practice = round_start(candidate=alice, question=question, mode="practice")
    round_submit(round_id=practice.pk)
    report = Round.objects.get(pk=practice.pk).report
    assert "depth" not in report and report["depth_unscored"].startswith(
        "The depth phase of this practice round was never opened (its curveballs come when you ask): none of"
    )
    # A timed round five minutes in whose candidate moved to the depth phase early and asked for both
    # curveballs: both were offered (by request, before the clock), so both count, unanswered, as 0.
    early = started(round_start(candidate=alice, question=question, mode="timed"), timedelta(minutes=5))
    round_depth_next(round_=early)
    round_depth_next(round_=early)
    round_submit(round_id=early.pk)
    report = Round.objects.get(pk=early.pk).report
    assert report["depth"]["not_offered"] == [] and report["depth"]["items"] == 7
    assert "2 of 2 had been offered when the round ended at 5:0" in report["depth"]["offer_words"]
