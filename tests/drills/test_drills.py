"""Drills: the daily queue, answering (graded, rated, scheduled by FSRS), hold-back, progress, the API."""

from collections import OrderedDict
from datetime import timedelta

import fsrs
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from drills import services
from drills.models import DrillAnswer, DrillCard
from drills.services import DrillRefused, drill_answer, drill_next, drill_next_for_question, drill_progress
from grading.core.drills import drill_lines
from interview.services.interviewing.scheduling import round_schedule_for_candidate
from questions.services.grading import question_version_spec
from rounds.models import Round
from rounds.services.reference_guard import questions_with_open_round, round_open_on_question
from rounds.services.rounds import round_start, round_submit
from tests.conftest import TEST_PASSWORD
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db
OTHER = "autoscaling-cold-start"


@pytest.fixture
def bank(tmp_path):
    return load_questions(tmp_path / "pack", KV_QUESTION, OTHER)


def kv_per_token_answer(offer) -> str:
    """The KV-per-token step worked by hand from the givens it shows."""
    given = {g.name: g.value for g in offer.step.givens}
    kib = 2 * given["n_layers"] * given["n_kv_heads"] * given["head_dim"] * given["kv_bytes_per_elem"] / 1024
    return f"{kib:g} KiB/tok"


def first_kv_offer(user, bank, now):
    return drill_next_for_question(
        user=user, question=bank[KV_QUESTION], first=("kv_bytes_per_token",), now=now
    )


@pytest.mark.parametrize(
    ("answer_kind", "seconds", "rating"),
    [
        ("right", 10, fsrs.Rating.Easy),
        ("right", 60, fsrs.Rating.Good),
        ("right", 300, fsrs.Rating.Hard),
        ("wrong", 10, fsrs.Rating.Again),
    ],
)
def test_an_answer_moves_the_card_as_fsrs_says_for_its_rating(alice, bank, answer_kind, seconds, rating):
    now = timezone.now()
    offer = first_kv_offer(alice, bank, now)
    text = kv_per_token_answer(offer) if answer_kind == "right" else "1 KiB/tok"
    result = drill_answer(user=alice, token=offer.token, text=text, now=now + timedelta(seconds=seconds))
    assert result.answer.rating == int(rating)
    expected, _ = fsrs.Scheduler(enable_fuzzing=False).review_card(
        fsrs.Card(), rating, review_datetime=now + timedelta(seconds=seconds)
    )
    card = DrillCard.objects.get(pk=offer.card.pk)
    assert card.due == expected.due
    assert card.state == int(expected.state)
    assert card.stability == pytest.approx(expected.stability)
    assert card.reviews == 1


def test_a_card_answered_again_gets_new_numbers(alice, bank):
    now = timezone.now()
    offer = first_kv_offer(alice, bank, now)
    drill_answer(user=alice, token=offer.token, text=kv_per_token_answer(offer), now=now)
    again = first_kv_offer(alice, bank, now + timedelta(days=30))
    assert again.card.pk == offer.card.pk
    assert again.step.prompt != offer.step.prompt


def test_the_same_token_answered_twice_keeps_the_first_answer(alice, bank):
    now = timezone.now()
    offer = first_kv_offer(alice, bank, now)
    first = drill_answer(user=alice, token=offer.token, text="1 KiB/tok", now=now)
    second = drill_answer(user=alice, token=offer.token, text=kv_per_token_answer(offer), now=now)
    assert second.answer.pk == first.answer.pk
    assert DrillAnswer.objects.count() == 1
    assert DrillCard.objects.get(pk=offer.card.pk).reviews == 1


def test_the_daily_queue_gives_due_cards_first_then_a_few_new_ones(alice, bank):
    now = timezone.now()
    offers = []
    for _ in range(services.NEW_PER_DAY):
        offer = drill_next(user=alice, now=now)
        offers.append(offer)
        drill_answer(
            user=alice,
            token=offer.token,
            text=kv_per_token_answer(offer) if offer.step.name == "kv_bytes_per_token" else "0",
            now=now,
        )
    assert len({o.card.pk for o in offers}) == services.NEW_PER_DAY
    assert len({o.card.question_id for o in offers}) == 2  # the session mixes the bank's two questions
    # Today's new steps are done; a step missed a minute ago comes back in this session, as its result said.
    missed = [o for o in offers if DrillCard.objects.get(pk=o.card.pk).due <= now + services.SESSION_WINDOW]
    assert missed
    again = drill_next(user=alice, now=now)
    assert again is not None and again.card.pk in {o.card.pk for o in missed}
    due_at = DrillCard.objects.get(pk=again.card.pk).due
    assert services.drill_due_words(due=due_at, now=now).startswith("It comes back in this session")
    later = now + timedelta(minutes=11)  # wrong answers relearn after a few minutes
    due = drill_next(user=alice, now=later)
    assert due is not None and due.card.pk in {o.card.pk for o in offers}


def test_the_schedule_says_when_a_card_comes_back_in_words_that_agree_with_the_queue():
    now = timezone.now()
    soon = services.drill_due_words(due=now + timedelta(seconds=40), now=now)
    assert soon == "It comes back in this session, in about a minute."  # not "0 minutes from now"
    assert services.drill_due_words(due=now + timedelta(minutes=9, seconds=10), now=now).endswith(
        "in about 10 minutes."
    )
    later = timezone.localtime(now + timedelta(days=2))
    assert services.drill_due_words(due=now + timedelta(days=2), now=now) == (
        f"Next time: {later:%-d %b} at {later:%H:%M}."
    )


def test_a_new_card_draws_only_the_lines_not_drilled_yet(alice, bank, monkeypatch):
    now = timezone.now()
    lines = {question: services.drillable_lines(question.current_version) for question in bank.values()}
    last_question = bank[OTHER]
    left = lines[last_question][-1]
    DrillCard.objects.bulk_create(
        DrillCard(
            user=alice,
            question=question,
            line=line,
            due=now + timedelta(days=9),
            created_at=now - timedelta(days=1),
        )
        for question in bank.values()
        for line in drill_lines(question_version_spec(question.current_version))
        if (question, line) != (last_question, left)
    )
    tried = OrderedDict()
    monkeypatch.setattr(services, "_drillable", tried)  # a process that has drawn nothing yet
    offer = drill_next(user=alice, now=now)
    assert (offer.card.question, offer.card.line) == (last_question, left)
    assert [line for _, _, line in tried] == [left]


def test_a_track_brings_new_steps_of_that_track_only(alice, bank):
    offer = drill_next(user=alice, track="platform")
    assert offer is None or offer.card.question.track == "platform"
    inference = drill_next(user=alice, track="inference")
    assert inference.card.question.track == "inference"
    with pytest.raises(DrillRefused, match="no track called"):
        drill_next(user=alice, track="cooking")


def test_an_unsubmitted_round_holds_its_questions_steps_back(alice, bank):
    now = timezone.now()
    round_ = round_start(candidate=alice, question=bank[KV_QUESTION], mode="practice")
    for _ in range(services.NEW_PER_DAY):
        offer = drill_next(user=alice)
        if offer is None:
            break
        assert offer.card.question.slug != KV_QUESTION
        drill_answer(user=alice, token=offer.token, text="0")
    with pytest.raises(DrillRefused, match=f"round {round_.pk}") as refused:
        drill_next_for_question(user=alice, question=bank[KV_QUESTION])
    assert refused.value.round == round_
    round_submit(round_id=round_.pk)
    assert (
        drill_next_for_question(user=alice, question=bank[KV_QUESTION], now=now).card.question.slug
        == KV_QUESTION
    )


def test_a_step_given_before_a_round_began_cannot_be_answered_during_it(alice, bank):
    offer = first_kv_offer(alice, bank, timezone.now())
    round_start(candidate=alice, question=bank[KV_QUESTION], mode="timed")
    with pytest.raises(DrillRefused, match="held back"):
        drill_answer(user=alice, token=offer.token, text=kv_per_token_answer(offer))
    assert not DrillAnswer.objects.exists()


def test_held_back_due_cards_stay_out_of_the_queue(alice, bank):
    now = timezone.now()
    offer = first_kv_offer(alice, bank, now)
    drill_answer(user=alice, token=offer.token, text="1 KiB/tok", now=now)
    round_start(candidate=alice, question=bank[KV_QUESTION], mode="practice")
    assert all(
        card.question.slug != KV_QUESTION
        for card in services.drill_due(user=alice, now=now + timedelta(days=2))
    )


def test_progress_counts_tracks_streak_and_weeks(alice, bank):
    start = timezone.now() - timedelta(days=2)
    for day in range(3):  # one answer a day for three days, ending today
        now = start + timedelta(days=day)
        offer = first_kv_offer(alice, bank, now)
        text = kv_per_token_answer(offer) if day != 1 else "1 KiB/tok"
        drill_answer(user=alice, token=offer.token, text=text, now=now + timedelta(seconds=20))
    progress = drill_progress(user=alice)
    assert progress["streak_days"] == 3
    assert progress["answers"] == 3
    inference = next(row for row in progress["tracks"] if row["track"] == "inference")
    assert inference["cards"] == 1
    assert sum(week["answers"] for week in progress["weeks"]) == 3
    # Two right of three, in one week (2/3 rounded to 0.667) or two, depending on the weekday the test runs.
    right = sum(week["accuracy"] * week["answers"] for week in progress["weeks"])
    assert right == pytest.approx(2, abs=0.0005 * 3)


def test_a_streak_with_a_gap_counts_from_the_gap():
    today = timezone.now().date()
    days = {today, today - timedelta(days=1), today - timedelta(days=3)}
    assert services.drill_streak(days=days, today=today) == 2
    assert services.drill_streak(days={today - timedelta(days=1)}, today=today) == 1
    assert services.drill_streak(days={today - timedelta(days=2)}, today=today) == 0


def alices_round(kind: str, *, alice, interviewer, question) -> Round:
    """A round of alice's on `question`: timed, practice, scheduled by `interviewer`, a timed one past its
    deadline (not graded yet), or a submitted one."""
    if kind == "scheduled":
        return round_schedule_for_candidate(
            interviewer=interviewer, question=question, candidate_username="alice"
        )
    mode = "practice" if kind in ("practice", "submitted") else "timed"
    round_ = round_start(candidate=alice, question=question, mode=mode)
    if kind == "timed-past-its-deadline":
        Round.objects.filter(pk=round_.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    if kind == "submitted":
        round_ = round_submit(round_id=round_.pk)
    return round_


@pytest.mark.parametrize(
    ("kind", "holds"),
    [
        ("timed", True),
        ("practice", True),
        ("scheduled", True),
        ("timed-past-its-deadline", False),
        ("submitted", False),
    ],
)
def test_the_queue_and_the_one_question_check_hold_back_the_same_rounds(alice, bob, bank, kind, holds):
    now = timezone.now()
    question = bank[KV_QUESTION]
    round_ = alices_round(kind, alice=alice, interviewer=bob, question=question)
    held = list(questions_with_open_round(user=alice, now=now))
    assert held == ([question] if holds else [])
    assert round_open_on_question(user=alice, question=question, now=now) == (round_ if holds else None)
    assert round_open_on_question(user=alice, question=bank[OTHER], now=now) is None
    if holds:
        with pytest.raises(DrillRefused, match=f"round {round_.pk}"):
            drill_next_for_question(user=alice, question=question, now=now)
    else:
        assert drill_next_for_question(user=alice, question=question, now=now).card.question == question


@pytest.mark.parametrize("cards", [500, 5000])
def test_the_due_queue_is_one_query_whatever_the_count(alice, bank, cards):
    now = timezone.now()
    question = bank[KV_QUESTION]
    DrillCard.objects.bulk_create(
        DrillCard(user=alice, question=question, line=f"line_{i}", due=now - timedelta(minutes=i))
        for i in range(cards)
    )
    with CaptureQueriesContext(connection) as queries:
        due = services.drill_due(user=alice, now=now, limit=5)
    assert len(queries) == 1
    assert [card.line for card in due] == [f"line_{i}" for i in range(cards - 1, cards - 6, -1)]


def test_the_session_page_answers_a_step_and_offers_the_next(client, alice, bank):
    client.login(username="alice", password=TEST_PASSWORD)
    page = client.get(reverse("drill-question", args=[KV_QUESTION]) + "?first=kv_bytes_per_token")
    assert page.status_code == 200
    offer = page.context["offer"]
    answered = client.post(
        reverse("drill-answer"),
        {"token": offer.token, "answer": kv_per_token_answer(offer), "next": "/drills/"},
    )
    assert answered.status_code == 200
    assert b"Correct" in answered.content and b"Next step" in answered.content


def test_the_session_page_names_the_round_that_holds_a_question_back(client, alice, bank):
    round_ = round_start(candidate=alice, question=bank[KV_QUESTION], mode="practice")
    client.login(username="alice", password=TEST_PASSWORD)
    page = client.get(reverse("drill-question", args=[KV_QUESTION]))
    assert page.status_code == 409
    assert reverse("round-detail", args=[round_.pk]).encode() in page.content


def test_someone_elses_step_answers_404(client, alice, charlie, bank):
    offer = first_kv_offer(alice, bank, timezone.now())
    client.login(username="charlie", password=TEST_PASSWORD)
    assert client.post(reverse("drill-answer"), {"token": offer.token, "answer": "1"}).status_code == 404
    api = client.post(
        reverse("api-drill-answer"), {"token": offer.token, "answer": "1"}, content_type="application/json"
    )
    assert api.status_code == 404


def test_the_api_gives_the_next_step_grades_it_and_reports_progress(client, alice, bank):
    client.login(username="alice", password=TEST_PASSWORD)
    step = client.get(
        reverse("api-drill-next"), {"question": KV_QUESTION, "first": "kv_bytes_per_token"}
    ).json()
    assert step["line"] == "kv_bytes_per_token" and "token" in step
    given = {g["name"]: float(g["shown"].split()[0].replace(",", "")) for g in step["givens"]}
    kib = 2 * given["n_layers"] * given["n_kv_heads"] * given["head_dim"] * given["kv_bytes_per_elem"] / 1024
    answered = client.post(
        reverse("api-drill-answer"),
        {"token": step["token"], "answer": f"{kib:g} KiB/tok"},
        content_type="application/json",
    ).json()
    assert answered["verdict"] == "correct"
    assert answered["rating"] in (3, 4)
    progress = client.get(reverse("api-drill-progress")).json()
    assert progress["answers"] == 1 and progress["streak_days"] == 1


def test_the_api_refuses_a_held_back_question_naming_the_round(client, alice, bank):
    round_ = round_start(candidate=alice, question=bank[KV_QUESTION], mode="timed")
    client.login(username="alice", password=TEST_PASSWORD)
    refused = client.get(reverse("api-drill-next"), {"question": KV_QUESTION})
    assert refused.status_code == 409
    assert refused.json()["round"] == round_.pk


def test_drills_need_a_login(client):
    assert client.get(reverse("drill-session")).status_code == 302
    assert client.get(reverse("api-drill-next")).status_code in (401, 403)


def test_an_answer_refused_for_its_fields_answers_400_in_the_shape_the_schema_documents(client, alice):
    client.login(username="alice", password=TEST_PASSWORD)
    response = client.post(
        reverse("api-drill-answer"), {"token": "a\u0000b", "answer": "1"}, content_type="application/json"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid" and list(body["errors"]) == ["token"]  # a NUL: only the token was wrong
    assert body["detail"].startswith("Invalid input: token: ")
    schema = client.get("/api/schema/?format=json").json()
    answer_400 = schema["paths"]["/api/drills/answer/"]["post"]["responses"]["400"]
    assert answer_400["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert set(schema["components"]["schemas"]["Error"]["required"]) == {"detail", "code", "errors"}


def test_the_read_back_reads_the_drawn_step_and_still_reads_without_a_step(client, alice, bank):
    # The KV-per-token step worked by hand reads back in the step's unit; a token that is not one (a stale
    # page) still gets a reading from the question's own line, never an error.
    offer = first_kv_offer(alice, bank, timezone.now())
    client.login(username="alice", password=TEST_PASSWORD)
    form = {"version": offer.version.pk, "line": "kv_bytes_per_token", "answer": kv_per_token_answer(offer)}
    with_step = client.post(reverse("drill-read-back"), {**form, "token": offer.token})
    without = client.post(reverse("drill-read-back"), {**form, "token": "not-a-token"})
    for response in (with_step, without):
        assert (
            response.status_code == 200 and b"Read as" in response.content and b"KiB/tok" in response.content
        )
