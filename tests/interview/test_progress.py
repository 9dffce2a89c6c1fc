"""Progress per question (not started, in progress, submitted, best score) and per track."""

import pytest
from django.urls import reverse

from interview.services.progress import ProgressStatus, question_progress_for, track_progress_for
from rounds.models import RoundStatus
from tests.interview.community_helpers import BATCHING_SLUG, PLAN_SLUG, questions_load, round_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def questions(tmp_path):
    return questions_load(tmp_path)


def test_progress_follows_the_rounds_and_keeps_the_best_submitted_score(alice, bob, questions):
    plan, batching = questions[PLAN_SLUG], questions[BATCHING_SLUG]
    assert question_progress_for(user=alice) == {}
    round_record(alice, plan, status=RoundStatus.ACTIVE)
    round_record(alice, batching, score=55.0)
    round_record(alice, batching, score=81.5)
    round_record(alice, batching, status=RoundStatus.ABANDONED)
    round_record(bob, plan, score=99.0)
    progress = question_progress_for(user=alice)
    assert progress[plan.pk].status == ProgressStatus.IN_PROGRESS
    assert progress[plan.pk].best_score is None
    assert progress[batching.pk].status == ProgressStatus.SUBMITTED
    assert progress[batching.pk].best_score == 81.5
    assert progress[batching.pk].submitted_rounds == 2


def test_progress_takes_a_fixed_number_of_queries(alice, questions, django_assert_num_queries):
    for question in questions.values():
        round_record(alice, question, score=50)
    with django_assert_num_queries(1):
        question_progress_for(user=alice)
    with django_assert_num_queries(2):
        track_progress_for(user=alice)


def test_track_progress_counts_submitted_questions(alice, questions):
    round_record(alice, questions[PLAN_SLUG], score=70)
    round_record(alice, questions[BATCHING_SLUG], status=RoundStatus.ACTIVE)
    (inference,) = track_progress_for(user=alice)
    assert (inference.track, inference.total, inference.submitted, inference.in_progress) == (
        "inference",
        2,
        1,
        1,
    )
    assert inference.percent == 50


def test_the_question_page_shows_my_progress(client, alice, questions):
    round_record(alice, questions[BATCHING_SLUG], score=64.4)
    client.force_login(alice)
    page = client.get(reverse("question-detail", args=[BATCHING_SLUG])).content.decode()
    assert 'id="question-progress"' in page
    assert "Submitted · best score 64" in page
    page = client.get(reverse("question-detail", args=[PLAN_SLUG])).content.decode()
    assert "Not started" in page


def test_the_catalogue_shows_a_progress_bar_per_track(client, alice, questions):
    round_record(alice, questions[PLAN_SLUG], score=70)
    client.force_login(alice)
    page = client.get(reverse("home")).content.decode()
    assert '<progress id="progress-inference" max="2" value="1">' in page
    assert "Inference and serving: 1 of 2 submitted" in page


def test_the_catalogue_filters_by_status(client, alice, questions):
    round_record(alice, questions[PLAN_SLUG], score=70)
    client.force_login(alice)
    for status, shown, hidden in (
        ("submitted", PLAN_SLUG, BATCHING_SLUG),
        ("not_started", BATCHING_SLUG, PLAN_SLUG),
    ):
        html = client.get(reverse("home"), {"status": status}).content.decode()
        assert f"/questions/{shown}/" in html
        assert f"/questions/{hidden}/" not in html
    html = client.get(reverse("home"), {"status": "in_progress"}).content.decode()
    assert "No question matches" in html


def test_someone_logged_out_sees_the_catalogue_without_progress(client, questions):
    page = client.get(reverse("home")).content.decode()
    assert "<progress" not in page
    assert 'id="bookmark-' not in page
