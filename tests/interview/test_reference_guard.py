"""The check page and the grading API refuse while the person has an unsubmitted round on the question."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from interview.services.interviewing.scheduling import round_schedule_for_candidate
from rounds.models import Round, RoundStatus
from rounds.services.rounds import round_start, round_submit
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.usefixtures("db")
CHECK = reverse("practice-check", args=[KV_QUESTION])
GRADE = f"/api/questions/{KV_QUESTION}/grade/"
# kv-cache-tiering's asked kv_conv, as the check and the API state it when they grade.
REFERENCE_SHOWN = "9.83 GB"


@pytest.fixture
def question(tmp_path):
    return load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]


def test_the_check_page_names_and_links_the_timed_round_instead_of_grading(client, alice, question):
    round_ = round_start(candidate=alice, question=question, mode="timed")
    client.force_login(alice)
    for response in (client.get(CHECK), client.post(CHECK, {"kv_conv": ""})):
        page = response.content.decode()
        assert response.status_code == 409
        assert f"round {round_.pk}" in page and "timed round" in page
        assert f'href="/rounds/{round_.pk}/"' in page
        assert REFERENCE_SHOWN not in page and 'id="grading-report"' not in page
        assert 'name="kv_conv"' not in page


def test_the_grading_api_refuses_during_a_practice_variant_round_with_the_round_and_its_link(
    client, alice, question
):
    round_ = round_start(candidate=alice, question=question, mode="practice", variant=True, seed=7)
    client.force_login(alice)
    response = client.post(GRADE, {"numbers": {"kv_conv": ""}}, content_type="application/json")
    assert response.status_code == 409
    body = response.json()
    assert body["round"] == round_.pk and body["round_url"] == f"/rounds/{round_.pk}/"
    assert "practice variant round" in body["detail"] and "submit" in body["detail"]
    assert REFERENCE_SHOWN not in response.content.decode()


def test_a_scheduled_interview_round_hides_the_reference_before_its_clock_starts(
    client, alice, bob, question
):
    round_ = round_schedule_for_candidate(interviewer=bob, question=question, candidate_username="alice")
    client.force_login(alice)
    assert client.get(CHECK).status_code == 409
    assert client.post(GRADE, {}, content_type="application/json").json()["round"] == round_.pk


def test_the_check_grades_again_once_the_round_is_submitted(client, alice, question):
    round_submit(round_id=round_start(candidate=alice, question=question, mode="timed").pk)
    client.force_login(alice)
    assert REFERENCE_SHOWN in client.post(CHECK, {"kv_conv": ""}).content.decode()
    response = client.post(GRADE, {"numbers": {}}, content_type="application/json")
    assert response.status_code == 200


def test_a_timed_round_past_its_deadline_is_graded_and_no_longer_hides_the_check(client, alice, question):
    round_ = round_start(candidate=alice, question=question, mode="timed")
    Round.objects.filter(pk=round_.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    client.force_login(alice)
    assert client.get(CHECK).status_code == 200
    assert Round.objects.get(pk=round_.pk).status == RoundStatus.SUBMITTED


def test_another_persons_round_does_not_hide_the_check_from_me(client, alice, charlie, question):
    round_start(candidate=alice, question=question, mode="timed")
    client.force_login(charlie)
    assert client.get(CHECK).status_code == 200


def test_the_question_page_offers_no_check_link_during_a_round(client, alice, question):
    client.force_login(alice)
    assert CHECK in client.get(f"/questions/{KV_QUESTION}/").content.decode()
    round_ = round_start(candidate=alice, question=question, mode="practice")
    page = client.get(f"/questions/{KV_QUESTION}/").content.decode()
    assert CHECK not in page
    assert f"round {round_.pk} is submitted" in page


def test_a_round_on_a_question_sharing_a_line_closes_the_check_and_says_which_round(client, alice, tmp_path):
    questions = load_questions(tmp_path / "two", KV_QUESTION, "llm-batching-system")
    round_ = round_start(candidate=alice, question=questions["llm-batching-system"], mode="timed")
    client.force_login(alice)
    response = client.post(CHECK, {"kv_conv": ""})  # llm-batching asks the KV per token it states
    page = response.content.decode()
    assert response.status_code == 409 and f"round {round_.pk}" in page and "shares lines with it" in page
    assert REFERENCE_SHOWN not in page
    assert client.post(GRADE, {}, content_type="application/json").json()["round"] == round_.pk


def test_a_round_on_a_question_sharing_no_line_leaves_the_check_open(client, alice, tmp_path):
    questions = load_questions(tmp_path / "two", KV_QUESTION, "usage-billing-pipeline")
    round_start(candidate=alice, question=questions["usage-billing-pipeline"], mode="practice")
    client.force_login(alice)
    response = client.post(CHECK, {"kv_conv": "9.8 GB"})
    assert response.status_code == 200 and REFERENCE_SHOWN in response.content.decode()
    assert client.post(GRADE, {}, content_type="application/json").status_code == 200
