"""A check of the reference outside a round is remembered: a later round on the question is marked, and
progress and calibration count it apart."""

# ruff: noqa: F811  (fixtures imported from interviewing_fixtures are named as test arguments)

import pytest
from django.urls import reverse

from interview.services.interviewing.calibration import calibration_for
from interview.services.interviewing.invitations import invitation_create_for_username
from interview.services.interviewing.scorecards import scorecard_release, scorecard_save
from interview.services.progress import question_progress_for
from rounds.models import ReferenceCheck, Round
from rounds.services.rounds import round_start, round_submit
from tests.interview.bank_fixtures import KV_QUESTION
from tests.interview.interviewing_fixtures import kv_question  # noqa: F401

pytestmark = pytest.mark.django_db
CHECK = reverse("practice-check", args=[KV_QUESTION])
DIMENSIONS = ("numbers", "shape", "arithmetic", "depth", "failures", "communication")


def check_on_page(client, user) -> None:
    client.force_login(user)
    assert client.post(CHECK, {"kv_conv": "9.8 GB"}).status_code == 200


def test_grading_on_the_check_page_or_the_api_is_recorded_and_opening_it_is_not(client, alice, kv_question):
    client.force_login(alice)
    client.get(CHECK)
    assert not ReferenceCheck.objects.exists()
    check_on_page(client, alice)
    response = client.post(
        f"/api/questions/{KV_QUESTION}/grade", {"numbers": {}}, content_type="application/json"
    )
    assert response.status_code == 200
    assert ReferenceCheck.objects.filter(user=alice, question=kv_question).count() == 2


def test_a_round_after_a_check_says_so_on_its_report_my_rounds_and_the_console(
    client, alice, bob, kv_question
):
    check_on_page(client, alice)
    checked = ReferenceCheck.objects.get().checked_at
    round_ = round_start(candidate=alice, question=kv_question, mode="timed")
    assert round_.reference_seen_at == checked
    invitation_create_for_username(round_=round_, created_by=alice, username="bob")
    expected = f"Reference seen before this round (checked on {checked:%-d %b %Y})"
    assert expected in client.get("/rounds/").content.decode()
    round_submit(round_id=round_.pk)
    assert expected in client.get(f"/rounds/{round_.pk}/report/").content.decode()
    client.force_login(bob)
    assert expected in client.get(f"/interviews/{round_.pk}/").content.decode()


def test_a_round_without_an_earlier_check_is_not_marked(client, alice, kv_question):
    round_ = round_start(candidate=alice, question=kv_question, mode="timed")
    check_on_page(client, charlie_like(alice))  # someone else's check does not mark alice's round
    round_submit(round_id=round_.pk)
    client.force_login(alice)
    assert Round.objects.get(pk=round_.pk).reference_seen_at is None
    assert (
        "Reference seen before this round" not in client.get(f"/rounds/{round_.pk}/report/").content.decode()
    )


def charlie_like(alice):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("carol", "carol@example.com", "x-password-1234")


def test_progress_keeps_a_round_after_a_check_out_of_the_best_score(client, alice, kv_question):
    clean = round_submit(round_id=round_start(candidate=alice, question=kv_question, mode="timed").pk)
    check_on_page(client, alice)
    seen = round_submit(round_id=round_start(candidate=alice, question=kv_question, mode="timed").pk)
    Round.objects.filter(pk=clean.pk).update(score=40.0)
    Round.objects.filter(pk=seen.pk).update(score=95.0)
    progress = question_progress_for(user=alice)[kv_question.pk]
    assert (progress.best_score, progress.submitted_rounds) == (40.0, 1)
    assert (progress.best_seen_score, progress.seen_rounds) == (95.0, 1)
    page = client.get(f"/questions/{KV_QUESTION}/").content.decode()
    assert "best score 40" in page and "1 after seeing the reference" in page


def scored(candidate, question, interviewer) -> Round:
    round_ = round_start(candidate=candidate, question=question, mode="practice")
    invitation_create_for_username(round_=round_, created_by=candidate, username=interviewer.username)
    round_ = round_submit(round_id=round_.pk)
    levels = {dimension: {"level": 3, "note": "fine"} for dimension in DIMENSIONS}
    scorecard_save(round_=round_, interviewer=interviewer, levels=levels, recommendation="yes")
    scorecard_release(round_=round_, interviewer=interviewer)
    return round_


def test_calibration_counts_rounds_after_a_check_apart(client, alice, bob, kv_question):
    scored(alice, kv_question, bob)
    check_on_page(client, alice)
    seen = scored(alice, kv_question, bob)
    calibration = calibration_for(bob)
    assert calibration["count"] == 1
    assert [round_.pk for round_ in calibration["reference_seen_rounds"]] == [seen.pk]
    client.force_login(bob)
    page = client.get("/interviewers/bob/calibration/").content.decode()
    assert 'id="calibration-reference-seen"' in page and "1 round whose candidate had seen" in page


def test_the_check_page_warns_before_the_first_check_naming_the_questions_that_share_its_lines(
    client, alice, tmp_path
):
    from tests.interview.bank_fixtures import load_questions

    questions = load_questions(tmp_path / "two", KV_QUESTION, "llm-batching-system", "usage-billing-pipeline")
    client.force_login(alice)
    page = client.get(CHECK).content.decode()
    warning = page[page.index('id="reference-seen-warning"') : page.index("</section>")]
    assert "every later round" in warning and "“reference seen”" in warning
    assert questions["llm-batching-system"].title in warning  # asks the same KV per token
    assert questions["usage-billing-pipeline"].title not in warning
    assert "Grade my numbers and mark later rounds “reference seen”" in page
    assert not ReferenceCheck.objects.exists()  # opening the page marks nothing


def test_a_check_marks_later_rounds_on_the_questions_sharing_its_lines_and_no_others(client, alice, tmp_path):
    from tests.interview.bank_fixtures import load_questions

    questions = load_questions(tmp_path / "two", KV_QUESTION, "llm-batching-system", "usage-billing-pipeline")
    check_on_page(client, alice)
    sharing = round_start(candidate=alice, question=questions["llm-batching-system"], mode="timed")
    assert sharing.reference_seen_at is not None
    round_submit(round_id=sharing.pk)
    other = round_start(candidate=alice, question=questions["usage-billing-pipeline"], mode="timed")
    assert other.reference_seen_at is None
    page = client.get(CHECK).content.decode()  # after the check, the page says what is marked
    assert "You have checked this question before" in page
