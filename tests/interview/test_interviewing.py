"""Interviewing workflows: invitations, scheduled rounds, notes, scorecards, the engine, calibration."""

# ruff: noqa: F811  (fixtures imported from interviewing_fixtures are named as test arguments)

from datetime import timedelta

import pytest
from django.http import Http404
from django.utils import timezone

from interview.models import InterviewNote, Invitation, Scorecard
from interview.roles import Role
from interview.selectors import round_for_interviewer
from interview.services.interviewing.calibration import calibration_for
from interview.services.interviewing.engine_comparison import engine_level, scorecard_compare
from interview.services.interviewing.errors import InterviewError, InvitationInvalid
from interview.services.interviewing.invitations import (
    invitation_accept,
    invitation_create_for_username,
    invitation_create_link,
    invitation_revoke,
)
from interview.services.interviewing.notes import note_add
from interview.services.interviewing.scheduling import round_begin_scheduled, round_schedule_for_candidate
from interview.services.interviewing.scorecards import scorecard_release, scorecard_save
from rounds.models import Round, RoundStatus
from rounds.services.rounds import round_start, round_submit
from rounds.services.work import work_save
from tests.interview.interviewing_fixtures import alice_round, invited_round, kv_question  # noqa: F401

pytestmark = pytest.mark.django_db

DIMENSIONS = ("numbers", "shape", "arithmetic", "depth", "failures", "communication")


def all_levels(level: int = 3, **overrides: int) -> dict:
    return {d: {"level": overrides.get(d, level), "note": f"{d} note"} for d in DIMENSIONS}


def set_report_scores(round_: Round, **scores: float) -> None:
    report = dict(round_.report or {})
    report["scores"] = {**report.get("scores", {}), **scores}
    Round.objects.filter(pk=round_.pk).update(report=report)
    round_.refresh_from_db()


# Invitations


def test_an_interviewer_invited_by_username_sees_the_round_at_once(invited_round, bob):
    assert round_for_interviewer(bob, invited_round.pk) == invited_round
    invitation = Invitation.objects.get(round=invited_round)
    assert invitation.state() == "accepted" and not invitation.is_link


def test_inviting_the_same_interviewer_twice_keeps_one_invitation(invited_round, alice):
    invitation_create_for_username(round_=invited_round, created_by=alice, username="BOB")
    assert Invitation.objects.filter(round=invited_round).count() == 1


def test_only_interviewers_can_be_invited_by_username(alice_round, alice, charlie):
    with pytest.raises(InterviewError, match="No interviewer is called 'charlie'"):
        invitation_create_for_username(round_=alice_round, created_by=alice, username="charlie")
    with pytest.raises(InterviewError, match="No interviewer"):
        invitation_create_for_username(round_=alice_round, created_by=alice, username="nobody")


def test_a_candidate_cannot_interview_their_own_round(alice_round, alice):
    from interview.services.accounts import user_grant_role

    user_grant_role(user=alice, role=Role.INTERVIEWER)
    with pytest.raises(InterviewError, match="yourself"):
        invitation_create_for_username(round_=alice_round, created_by=alice, username="alice")


def test_a_link_stores_only_the_hash_of_its_token(alice_round, alice):
    invitation, token = invitation_create_link(round_=alice_round, created_by=alice)
    assert token not in invitation.token_hash and len(invitation.token_hash) == 64
    assert invitation.interviewer is None and invitation.state() == "open"
    assert invitation.expires_at - invitation.created_at == timedelta(hours=24)


def test_a_link_works_once(alice_round, alice, bob, make_user):
    dave = make_user("dave", Role.INTERVIEWER)
    _, token = invitation_create_link(round_=alice_round, created_by=alice)
    invitation = invitation_accept(token=token, user=bob)
    assert invitation.interviewer == bob and invitation.state() == "accepted"
    assert round_for_interviewer(bob, alice_round.pk) == alice_round
    with pytest.raises(InvitationInvalid):
        invitation_accept(token=token, user=dave)
    with pytest.raises(Http404):
        round_for_interviewer(dave, alice_round.pk)


def test_an_expired_link_cannot_be_accepted(alice_round, alice, bob):
    invitation, token = invitation_create_link(round_=alice_round, created_by=alice)
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(InvitationInvalid):
        invitation_accept(token=token, user=bob)
    assert Invitation.objects.get(pk=invitation.pk).state() == "expired"
    with pytest.raises(Http404):
        round_for_interviewer(bob, alice_round.pk)


def test_a_revoked_link_cannot_be_accepted(alice_round, alice, bob):
    invitation, token = invitation_create_link(round_=alice_round, created_by=alice)
    invitation_revoke(invitation=invitation)
    with pytest.raises(InvitationInvalid):
        invitation_accept(token=token, user=bob)


def test_an_unknown_token_or_a_non_interviewer_is_refused(alice_round, alice, charlie, bob):
    _, token = invitation_create_link(round_=alice_round, created_by=alice)
    with pytest.raises(InvitationInvalid):
        invitation_accept(token="not-a-token", user=bob)
    with pytest.raises(InvitationInvalid):
        invitation_accept(token=token, user=charlie)


def test_revoking_an_invitation_ends_access_at_once(invited_round, bob):
    invitation = Invitation.objects.get(round=invited_round, interviewer=bob)
    invitation_revoke(invitation=invitation)
    with pytest.raises(Http404):
        round_for_interviewer(bob, invited_round.pk)
    assert invitation.state() == "revoked"


def test_a_revoked_interviewer_can_be_invited_again(invited_round, alice, bob):
    invitation_revoke(invitation=Invitation.objects.get(round=invited_round))
    invitation_create_for_username(round_=invited_round, created_by=alice, username="bob")
    assert round_for_interviewer(bob, invited_round.pk) == invited_round


def test_an_uninvited_interviewer_gets_404(alice_round, bob):
    with pytest.raises(Http404):
        round_for_interviewer(bob, alice_round.pk)


# Scheduled rounds


def test_an_interviewer_schedules_a_round_that_starts_when_the_candidate_starts_it(kv_question, alice, bob):
    round_ = round_schedule_for_candidate(interviewer=bob, question=kv_question, candidate_username="alice")
    assert round_.status == RoundStatus.SCHEDULED and round_.deadline is None
    assert round_.candidate == alice
    assert round_for_interviewer(bob, round_.pk) == round_
    with pytest.raises(Exception, match="scheduled"):
        work_save(round_id=round_.pk, base_revision=0, candidate_id=alice.pk, scratch="too early")

    Round.objects.filter(pk=round_.pk).update(started_at=timezone.now() - timedelta(hours=3))
    started = round_begin_scheduled(round_id=round_.pk, candidate=alice)
    assert started.status == RoundStatus.ACTIVE
    assert timezone.now() - started.started_at < timedelta(seconds=5)
    assert started.deadline - started.started_at == timedelta(minutes=45)
    assert work_save(round_id=round_.pk, base_revision=0, candidate_id=alice.pk, scratch="go").revision == 1


def test_only_the_candidate_can_start_a_scheduled_round(kv_question, bob, alice, charlie):
    round_ = round_schedule_for_candidate(interviewer=bob, question=kv_question, candidate_username="alice")
    with pytest.raises(Round.DoesNotExist):
        round_begin_scheduled(round_id=round_.pk, candidate=charlie)


def test_only_interviewers_schedule_rounds(kv_question, charlie, alice):
    with pytest.raises(InterviewError, match="Only interviewers"):
        round_schedule_for_candidate(interviewer=charlie, question=kv_question, candidate_username="alice")


def test_a_round_cannot_be_scheduled_for_a_stranger(kv_question, bob):
    with pytest.raises(InterviewError, match="No candidate"):
        round_schedule_for_candidate(interviewer=bob, question=kv_question, candidate_username="nobody")


# Notes


def test_a_note_is_stamped_with_the_round_time_and_phase(invited_round, bob):
    later = invited_round.started_at + timedelta(minutes=20, seconds=5)
    note = note_add(round_=invited_round, author=bob, text="Good KV arithmetic", now=later)
    assert note.t == pytest.approx(1205.0) and note.phase == "arithmetic"
    early = note_add(round_=invited_round, author=bob, text="Restated well", now=invited_round.started_at)
    assert early.t == 0.0 and early.phase == "intro"


def test_marking_a_follow_up_as_asked_writes_a_note_with_its_text(invited_round, bob):
    note = note_add(round_=invited_round, author=bob, follow_up_index=0)
    assert note.follow_up_index == 0
    assert note.text.startswith("Asked follow-up 1: You store the cache in fp8")


def test_a_note_needs_text_and_a_real_follow_up(invited_round, bob):
    with pytest.raises(InterviewError, match="Write the note"):
        note_add(round_=invited_round, author=bob, text="   ")
    with pytest.raises(InterviewError, match="No such follow-up"):
        note_add(round_=invited_round, author=bob, follow_up_index=99)


# Scorecards


def test_engine_scores_map_to_levels_by_documented_bands():
    assert [engine_level(s) for s in (0, 24.9, 25, 49.9, 50, 74.9, 75, 100)] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert engine_level(None) is None


def test_the_comparison_flags_a_difference_of_more_than_one_level(invited_round, bob):
    round_submit(round_id=invited_round.pk)
    invited_round.refresh_from_db()
    set_report_scores(invited_round, numbers=90.0, arithmetic=10.0, shape=55.0)
    scorecard_save(
        round_=invited_round,
        interviewer=bob,
        levels=all_levels(3, numbers=1, arithmetic=2, shape=3),
        recommendation="lean_yes",
    )
    rows = {row["dimension"]: row for row in scorecard_compare(invited_round)}
    assert (rows["numbers"]["level"], rows["numbers"]["engine_level"]) == (1, 4)
    assert rows["numbers"]["disagrees"] and rows["numbers"]["difference"] == -3
    assert rows["arithmetic"]["difference"] == 1 and not rows["arithmetic"]["disagrees"]
    assert rows["shape"]["difference"] == 0 and not rows["shape"]["disagrees"]
    assert rows["depth"]["engine_level"] is None and not rows["depth"]["disagrees"]
    assert rows["failures"]["engine_source"] == "replays" and rows["failures"]["engine_level"] is None


def test_a_failures_score_of_20_is_banded_as_level_1_and_flagged_against_a_4(invited_round, bob, monkeypatch):
    round_submit(round_id=invited_round.pk)
    invited_round.refresh_from_db()
    # The replays' score is fixed here: this checks the banding (below 25 is level 1), not the replays.
    monkeypatch.setattr(
        "interview.services.interviewing.engine_comparison.replay_failure_score", lambda round_: 20.0
    )
    scorecard_save(round_=invited_round, interviewer=bob, levels=all_levels(4))
    rows = {row["dimension"]: row for row in scorecard_compare(invited_round)}
    assert rows["failures"]["engine_level"] == 1 and rows["failures"]["disagrees"]


def test_scorecard_levels_are_validated(invited_round, bob):
    with pytest.raises(InterviewError, match="level from 1 to 4"):
        scorecard_save(round_=invited_round, interviewer=bob, levels={"numbers": {"level": 5}})
    with pytest.raises(InterviewError, match="no such dimension"):
        scorecard_save(round_=invited_round, interviewer=bob, levels={"charm": {"level": 2}})
    with pytest.raises(InterviewError, match="recommendation"):
        scorecard_save(round_=invited_round, interviewer=bob, levels={}, recommendation="maybe")


def test_release_needs_a_submitted_round_every_level_and_a_recommendation(invited_round, bob):
    scorecard_save(round_=invited_round, interviewer=bob, levels=all_levels(3), recommendation="yes")
    with pytest.raises(InterviewError, match="submitted"):
        scorecard_release(round_=invited_round, interviewer=bob)
    round_submit(round_id=invited_round.pk)
    invited_round.refresh_from_db()
    partial = all_levels(3)
    partial["depth"] = {"level": None, "note": "later"}
    scorecard_save(round_=invited_round, interviewer=bob, levels=partial, recommendation="")
    with pytest.raises(InterviewError, match="every dimension first: depth"):
        scorecard_release(round_=invited_round, interviewer=bob)
    scorecard_save(round_=invited_round, interviewer=bob, levels=all_levels(3), recommendation="")
    with pytest.raises(InterviewError, match="recommendation"):
        scorecard_release(round_=invited_round, interviewer=bob)
    scorecard_save(round_=invited_round, interviewer=bob, levels=all_levels(3), recommendation="yes")
    released = scorecard_release(round_=invited_round, interviewer=bob)
    assert released.is_released
    with pytest.raises(InterviewError, match="released"):
        scorecard_save(round_=invited_round, interviewer=bob, levels=all_levels(1), recommendation="no")


def test_a_second_interviewer_cannot_overwrite_the_scorecard(invited_round, alice, bob, make_user):
    dave = make_user("dave", Role.INTERVIEWER)
    invitation_create_for_username(round_=invited_round, created_by=alice, username="dave")
    scorecard_save(round_=invited_round, interviewer=bob, levels=all_levels(3))
    with pytest.raises(InterviewError, match="bob is already scoring"):
        scorecard_save(round_=invited_round, interviewer=dave, levels=all_levels(1))
    with pytest.raises(InterviewError):
        scorecard_release(round_=invited_round, interviewer=dave)


# Calibration


def scored_round(candidate, question, interviewer, *, engine: dict, levels: dict, recommendation: str):
    round_ = round_start(candidate=candidate, question=question, mode="practice")
    invitation_create_for_username(round_=round_, created_by=candidate, username=interviewer.username)
    round_submit(round_id=round_.pk)
    round_.refresh_from_db()
    set_report_scores(round_, **engine)
    scorecard_save(round_=round_, interviewer=interviewer, levels=levels, recommendation=recommendation)
    scorecard_release(round_=round_, interviewer=interviewer)
    return round_


def test_calibration_shows_agreement_and_mean_difference_per_dimension(kv_question, alice, bob):
    # Round 1: engine numbers 90 (level 4), arithmetic 30 (2), shape 60 (3), overall 60 (3).
    scored_round(
        alice,
        kv_question,
        bob,
        engine={"numbers": 90.0, "arithmetic": 30.0, "shape": 60.0, "overall": 60.0},
        levels=all_levels(3, numbers=4, arithmetic=4, shape=3),
        recommendation="yes",
    )
    # Round 2: engine numbers 10 (1), arithmetic 80 (4), shape 40 (2), overall 20 (1).
    scored_round(
        alice,
        kv_question,
        bob,
        engine={"numbers": 10.0, "arithmetic": 80.0, "shape": 40.0, "overall": 20.0},
        levels=all_levels(2, numbers=2, arithmetic=4, shape=4),
        recommendation="strong_yes",
    )
    calibration = calibration_for(bob)
    assert calibration["count"] == 2
    rows = {row["dimension"]: row for row in calibration["dimensions"]}
    assert rows["numbers"]["compared"] == 2
    assert rows["numbers"]["agreement"] == 0.5 and rows["numbers"]["mean_difference"] == 0.5
    assert rows["arithmetic"]["agreement"] == 0.5 and rows["arithmetic"]["within_one"] == 0.5
    assert rows["arithmetic"]["mean_difference"] == 1.0
    assert rows["shape"]["mean_difference"] == 1.0 and rows["shape"]["within_one"] == 0.5
    assert rows["failures"]["compared"] == 0 and rows["failures"]["mean_difference"] is None
    # Own levels: round 1 mean 3.2 (yes side, matches "yes"); round 2 mean 2.67 (yes side, matches).
    assert calibration["recommendation_matches_own"] == 1.0
    # Engine overall: round 1 level 3 (yes, matches); round 2 level 1 (no side, "strong_yes" does not).
    assert calibration["recommendation_matches_engine"] == 0.5


def test_calibration_counts_only_released_scorecards(invited_round, bob):
    scorecard_save(round_=invited_round, interviewer=bob, levels=all_levels(3), recommendation="yes")
    calibration = calibration_for(bob)
    assert calibration["count"] == 0 and calibration["recommendation_matches_own"] is None


def test_models_keep_what_the_console_shows(invited_round, bob):
    note_add(round_=invited_round, author=bob, text="one")
    assert InterviewNote.objects.get(round=invited_round).author == bob
    scorecard_save(round_=invited_round, interviewer=bob, levels=all_levels(2), recommendation="no")
    scorecard = Scorecard.objects.get(round=invited_round)
    assert scorecard.level_of("depth") == 2 and scorecard.note_of("depth") == "depth note"


def test_the_depth_phase_has_an_engine_side_when_the_round_answered_it(kv_question, alice, bob):
    # Engine depth 80 (level 4) against the interviewer's 3: compared once, the interviewer one level harder.
    round_ = scored_round(
        alice,
        kv_question,
        bob,
        engine={"numbers": 90.0, "arithmetic": 30.0, "shape": 60.0, "depth": 80.0, "overall": 60.0},
        levels=all_levels(3),
        recommendation="yes",
    )
    depth = next(row for row in scorecard_compare(round_) if row["dimension"] == "depth")
    assert (depth["level"], depth["engine_level"], depth["engine_source"]) == (3, 4, "grading engine")
    rows = {row["dimension"]: row for row in calibration_for(bob)["dimensions"]}
    assert rows["depth"]["compared"] == 1 and rows["depth"]["mean_difference"] == -1.0
