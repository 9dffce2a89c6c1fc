"""An interviewer finds their rounds: "My interviews" by stage (upcoming, live, to score, scored), the same on
their home page, and a mail when a candidate invites them by name."""

# ruff: noqa: F811  (fixtures imported from interviewing_fixtures are named as test arguments)

import pytest
from celery.worker import state as worker_state
from django.core import mail

from interview.roles import Role
from interview.services.interviewing.invitations import invitation_create_for_username
from interview.services.interviewing.scheduling import round_schedule_for_candidate
from interview.services.interviewing.scorecards import scorecard_release, scorecard_save
from interview.services.my_interviews import interviews_by_stage
from rounds.models import Round
from rounds.services.rounds import round_start, round_submit
from tests.interview.interviewing_fixtures import alice_round, invited_round, kv_question  # noqa: F401
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db
DIMENSIONS = ("numbers", "shape", "arithmetic", "depth", "failures", "communication")


def finished_round(candidate, interviewer, question) -> Round:
    round_ = round_start(candidate=candidate, question=question, mode="practice")
    invitation_create_for_username(round_=round_, created_by=candidate, username=interviewer.username)
    round_submit(round_id=round_.pk)
    round_.refresh_from_db()
    return round_


def test_my_interviews_sorts_rounds_into_upcoming_live_to_score_and_scored(
    alice, bob, charlie, kv_question, invited_round
):
    scheduled = round_schedule_for_candidate(
        interviewer=bob, question=kv_question, candidate_username="charlie"
    )
    to_score = finished_round(charlie, bob, kv_question)
    scored = finished_round(alice, bob, kv_question)
    levels = {d: {"level": 3, "note": "ok"} for d in DIMENSIONS}
    scorecard_save(round_=scored, interviewer=bob, levels=levels, recommendation="lean_yes")
    scorecard_release(round_=scored, interviewer=bob)
    stages = {stage.key: [r.pk for r in stage.rounds] for stage in interviews_by_stage(user=bob)}
    assert stages == {
        "upcoming": [scheduled.pk],
        "live": [invited_round.pk],
        "to_score": [to_score.pk],
        "scored": [scored.pk],
    }


def test_the_page_and_the_home_page_show_the_stages_to_interviewers_only(client, alice, bob, invited_round):
    client.force_login(bob)
    page = client.get("/interviews/").content.decode()
    for title in ("Upcoming", "Live now", "To score", "Scored"):
        assert f">{title} <span" in page
    home = client.get("/").content.decode()
    assert 'id="my-interviews-home"' in home and f'href="/interviews/{invited_round.pk}/"' in home
    assert 'href="/interviews/">My interviews</a></li>' in home  # the navigation
    client.force_login(alice)
    home = client.get("/").content.decode()
    assert 'id="my-interviews-home"' not in home and 'href="/interviews/"' not in home


@pytest.mark.celery_worker
def test_an_invitation_by_name_mails_the_interviewer_once(alice, bob, make_user, alice_round, celery_worker):
    invitation_create_for_username(round_=alice_round, created_by=alice, username="bob")
    invitation_create_for_username(round_=alice_round, created_by=alice, username="bob")
    # Dora's mail queues behind any second mail to bob: once hers is sent and the worker is idle, that one
    # would have been sent too.
    make_user("dora", Role.INTERVIEWER)
    invitation_create_for_username(round_=alice_round, created_by=alice, username="dora")
    wait_for(
        lambda: any(m.to == ["dora@example.com"] for m in mail.outbox), timeout_s=30, what="the mail to dora"
    )
    wait_for(lambda: not worker_state.active_requests, timeout_s=30, what="the worker to finish its tasks")
    to_bob = [m for m in mail.outbox if m.to == ["bob@example.com"]]
    assert len(to_bob) == 1
    message = to_bob[0]
    assert "alice invited you" in message.subject
    assert alice_round.question.title in message.body and "My interviews" in message.body
