"""Interviewer pages through the test client: full pages, htmx partials, and the candidate's pairing panel."""

# ruff: noqa: F811  (fixtures imported from interviewing_fixtures are named as test arguments)

from datetime import timedelta

import pytest
from django.template.loader import render_to_string
from django.utils import timezone

from interview.models import InterviewNote, Invitation, Scorecard
from interview.services.interviewing.notes import note_add
from interview.services.interviewing.scheduling import round_schedule_for_candidate
from interview.services.interviewing.scorecards import scorecard_release, scorecard_save
from questions.models import Question, QuestionVersion
from rounds.models import Round, RoundStatus, WorkEvent
from rounds.services.rounds import round_submit
from rounds.services.work import work_save
from tests.interview.bank_fixtures import KV_QUESTION
from tests.interview.interviewing_fixtures import alice_round, invited_round, kv_question  # noqa: F401

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
DIMENSIONS = ("numbers", "shape", "arithmetic", "depth", "failures", "communication")


def score_form(level: int = 3, recommendation: str = "lean_yes") -> dict:
    data = {f"level-{d}": str(level) for d in DIMENSIONS}
    data.update({f"note-{d}": f"on {d}" for d in DIMENSIONS})
    data["recommendation"] = recommendation
    return data


# The console


def test_the_console_shows_the_live_work_and_the_hidden_reference(client, bob, invited_round):
    work_save(round_id=invited_round.pk, base_revision=0, numbers={"kv_conv": "9.6 GB"})
    client.force_login(bob)
    page = client.get(f"/interviews/{invited_round.pk}/").content.decode()
    assert "data-sevenbox-canvas data-readonly" in page and 'id="live-design"' in page
    assert 'hx-trigger="every 2s"' in page
    assert "9.6 GB" in page and "Intro" in page and "Expected now:" in page
    assert "Mixing KB and KiB" in page  # a common mistake
    assert "320 KiB per token" in page  # the answer outline
    assert "Session-affine router" in page  # the reference design
    assert "You store the cache in fp8" in page  # a follow-up
    assert "<script>" not in page and "style=" not in page


def test_the_console_expects_the_questions_own_words_for_the_live_phase(client, bob, invited_round):
    client.force_login(bob)
    live = client.get(f"/interviews/{invited_round.pk}/", **HTMX).content.decode()
    own = invited_round.shown_spec["plan"][0]["expect"]  # written from the round's values
    assert invited_round.current_phase()["phase"] == "intro"
    assert own[:40] in live and "{" not in own


def test_the_candidate_never_sees_the_reference(client, alice, invited_round):
    client.force_login(alice)
    page = client.get(f"/rounds/{invited_round.pk}/").content.decode()
    assert "Mixing KB and KiB" not in page and "Session-affine router" not in page
    assert 'id="invite-panel"' in page and "bob" in page


def test_the_live_partial_carries_the_latest_canvas_and_sheet(client, bob, invited_round):
    design = {"nodes": [{"id": "gateway", "kind": "gateway", "label": "Gateway"}], "edges": []}
    work_save(round_id=invited_round.pk, base_revision=0, design=design, numbers={"kv_conv": "9.8 GB"})
    client.force_login(bob)
    response = client.get(f"/interviews/{invited_round.pk}/", **HTMX)
    partial = response.content.decode()
    assert partial.lstrip().startswith('<section id="live"') and "<html" not in partial
    assert "9.8 GB" in partial and "&quot;id&quot;: &quot;gateway&quot;" in partial
    assert 'hx-trigger="every 2s"' in partial


def test_polling_stops_when_the_round_is_finished(client, bob, invited_round):
    round_submit(round_id=invited_round.pk)
    client.force_login(bob)
    partial = client.get(f"/interviews/{invited_round.pk}/", **HTMX).content.decode()
    assert "hx-trigger" not in partial and "Submitted" in partial


def test_a_note_from_the_console_is_stamped_and_listed(client, bob, invited_round):
    Round.objects.filter(pk=invited_round.pk).update(
        started_at=timezone.now() - timedelta(minutes=8), deadline=timezone.now() + timedelta(minutes=37)
    )
    client.force_login(bob)
    response = client.post(
        f"/interviews/{invited_round.pk}/notes/", {"text": "Draws the router first"}, **HTMX
    )
    assert response.status_code == 200
    note = InterviewNote.objects.get(round=invited_round)
    assert note.phase == "shape" and 479 <= note.t <= 482
    assert "8:0" in response.content.decode() and "Draws the router first" in response.content.decode()


def test_asked_follow_up_n_records_the_question(client, bob, invited_round):
    Round.objects.filter(pk=invited_round.pk).update(started_at=timezone.now() - timedelta(minutes=2))
    client.force_login(bob)
    response = client.post(f"/interviews/{invited_round.pk}/notes/", {"follow_up": "1"})
    assert response.status_code == 302
    note = InterviewNote.objects.get(round=invited_round)
    assert note.follow_up_index == 0 and note.text.startswith("Asked follow-up 1")
    live = client.get(f"/interviews/{invited_round.pk}/", **HTMX).content.decode()
    assert "Numbers" in live and '<span class="tag asked">asked</span>' in live


def test_an_empty_note_is_refused_in_place(client, bob, invited_round):
    client.force_login(bob)
    response = client.post(f"/interviews/{invited_round.pk}/notes/", {"text": ""}, **HTMX)
    assert response.status_code == 400 and "Write the note first" in response.content.decode()


# Scoring and release


def test_scoring_from_the_console_saves_every_dimension(client, bob, invited_round):
    client.force_login(bob)
    response = client.post(f"/interviews/{invited_round.pk}/scorecard/save/", score_form(3), **HTMX)
    assert response.status_code == 200 and "Scores saved." in response.content.decode()
    scorecard = Scorecard.objects.get(round=invited_round)
    assert all(scorecard.level_of(d) == 3 for d in DIMENSIONS)
    assert scorecard.note_of("depth") == "on depth" and scorecard.recommendation == "lean_yes"


def test_the_candidate_sees_the_scorecard_only_after_release(client, alice, bob, invited_round):
    client.force_login(bob)
    client.post(f"/interviews/{invited_round.pk}/scorecard/save/", score_form(4, "strong_yes"))
    refused = client.post(f"/interviews/{invited_round.pk}/scorecard/release/")
    assert refused.status_code == 302 and Scorecard.objects.get(round=invited_round).released_at is None
    round_submit(round_id=invited_round.pk)

    client.force_login(alice)
    assert client.get(f"/interviews/{invited_round.pk}/scorecard/").status_code == 404
    assert client.get(f"/api/interviews/{invited_round.pk}/scorecard/").status_code == 404
    invited_round.refresh_from_db()
    assert 'id="released-scorecard"' not in render_to_string(
        "interviewer/_released_scorecard.html", {"round": invited_round}
    )

    client.force_login(bob)
    unconfirmed = client.post(f"/interviews/{invited_round.pk}/scorecard/release/")
    assert unconfirmed["Location"] == f"/interviews/{invited_round.pk}/#scoring"
    assert Scorecard.objects.get(round=invited_round).released_at is None  # one click never releases
    released = client.post(f"/interviews/{invited_round.pk}/scorecard/release/", {"confirm": "yes"})
    assert released["Location"] == f"/interviews/{invited_round.pk}/scorecard/"
    assert "Strong yes" in client.get(released["Location"]).content.decode()

    client.force_login(alice)
    page = client.get(f"/interviews/{invited_round.pk}/scorecard/").content.decode()
    assert "Strong yes" in page and "on communication" in page
    include = render_to_string("interviewer/_released_scorecard.html", {"round": invited_round})
    assert 'id="released-scorecard"' in include and "Strong yes" in include


def test_the_report_page_shows_the_released_scorecard(client, alice, bob, invited_round):
    scorecard_save(
        round_=invited_round,
        interviewer=bob,
        levels={d: {"level": 1, "note": "weak"} for d in DIMENSIONS},
        recommendation="no",
    )
    round_submit(round_id=invited_round.pk)
    invited_round.refresh_from_db()
    scorecard_release(round_=invited_round, interviewer=bob)
    client.force_login(alice)
    page = client.get(f"/rounds/{invited_round.pk}/report/").content.decode()
    assert 'id="released-scorecard"' in page and "bob recommends" in page


def test_the_scorecard_marks_disagreements_with_the_engine(client, bob, invited_round):
    round_submit(round_id=invited_round.pk)
    invited_round.refresh_from_db()
    # Nothing was written, so the engine scores numbers 0 (level 1); a 4 disagrees by 3 levels.
    scorecard_save(round_=invited_round, interviewer=bob, levels={"numbers": {"level": 4, "note": ""}})
    client.force_login(bob)
    page = client.get(f"/interviews/{invited_round.pk}/scorecard/").content.decode()
    assert 'id="compare-numbers" class="disagree"' in page and "Disagree by +3" in page


# Timeline


def test_the_timeline_shows_the_work_as_it_was_and_the_notes_on_the_same_line(client, bob, invited_round):
    work_save(round_id=invited_round.pk, base_revision=0, numbers={"kv_conv": "9 GB"})
    work_save(round_id=invited_round.pk, base_revision=1, numbers={"kv_conv": "9.6 GB"})
    note_add(round_=invited_round, author=bob, text="Corrected the KV size")

    WorkEvent.objects.filter(round=invited_round, value="9 GB").update(t=60)
    WorkEvent.objects.filter(round=invited_round, value="9.6 GB").update(t=120)
    client.force_login(bob)
    early = client.get(f"/interviews/{invited_round.pk}/timeline/")
    assert early.status_code == 302  # the round is still running
    round_submit(round_id=invited_round.pk)
    Round.objects.filter(pk=invited_round.pk).update(
        submitted_at=invited_round.started_at + timedelta(minutes=5)
    )
    at_90 = client.get(f"/interviews/{invited_round.pk}/timeline/?t=90").content.decode()
    assert 'id="tl-n-kv_conv" data-number="kv_conv">9 GB<' in at_90
    assert 'type="range"' in at_90 and 'id="timeline-events"' in at_90
    assert "Corrected the KV size" in at_90
    at_end = client.get(f"/interviews/{invited_round.pk}/timeline/").content.decode()
    assert 'data-number="kv_conv">9.6 GB<' in at_end


def test_the_timeline_at_zero_shows_the_client_box_every_round_opens_with(client, bob, invited_round):
    work_save(round_id=invited_round.pk, base_revision=0, design={"nodes": [], "edges": []})
    WorkEvent.objects.filter(round=invited_round, field="design").update(t=30)
    round_submit(round_id=invited_round.pk)
    client.force_login(bob)
    at_zero = client.get(f"/interviews/{invited_round.pk}/timeline/?t=0").context
    assert at_zero["state"].design["nodes"] == [
        {"id": "client", "kind": "client", "label": "Client", "job": "", "failure": ""}
    ]
    assert at_zero["opening"]["design"] == at_zero["state"].design
    at_end = client.get(f"/interviews/{invited_round.pk}/timeline/").context
    assert at_end["state"].design["nodes"] == []  # the candidate deleted it at 0:30


# Pairing from the candidate's pages


def test_the_candidate_invites_by_username_from_the_panel(client, alice, bob, alice_round):
    client.force_login(alice)
    response = client.post(f"/rounds/{alice_round.pk}/invitations/", {"username": "bob"}, **HTMX)
    assert response.status_code == 200 and "<strong>bob</strong>" in response.content.decode()
    assert Invitation.objects.get(round=alice_round).interviewer == bob
    refused = client.post(f"/rounds/{alice_round.pk}/invitations/", {"username": "nobody"}, **HTMX)
    assert refused.status_code == 400 and "No interviewer is called" in refused.content.decode()


def test_a_link_is_shown_once_and_lets_an_interviewer_in(client, alice, bob, alice_round):
    client.force_login(alice)
    response = client.post(f"/rounds/{alice_round.pk}/invitations/", {"kind": "link", "hours": "1"})
    page = response.content.decode()
    link = page.split('id="invite-link" readonly value="')[1].split('"')[0]
    assert "/interviews/join/" in link
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert token not in client.get(f"/rounds/{alice_round.pk}/").content.decode()

    client.force_login(bob)
    assert client.get(f"/interviews/join/{token}/").status_code == 200
    accepted = client.post(f"/interviews/join/{token}/")
    assert accepted["Location"] == f"/interviews/{alice_round.pk}/"
    assert client.get(accepted["Location"]).status_code == 200
    reused = client.post(f"/interviews/join/{token}/")  # single use: a second use says so
    assert reused.status_code == 410 and "This invitation link was already used" in reused.content.decode()
    assert client.get(f"/interviews/join/{token}/").status_code == 410
    assert client.get("/interviews/join/no-such-token/").status_code == 404


def test_the_candidate_revokes_an_invitation_from_the_panel(client, alice, bob, invited_round):
    invitation = Invitation.objects.get(round=invited_round)
    client.force_login(alice)
    response = client.post(f"/rounds/{invited_round.pk}/invitations/{invitation.pk}/revoke/", **HTMX)
    assert "revoked" in response.content.decode()
    client.force_login(bob)
    assert client.get(f"/interviews/{invited_round.pk}/").status_code == 404


# Interviewers' own pages


def test_an_interviewer_schedules_a_round_and_the_candidate_starts_it(client, alice, bob, kv_question):
    client.force_login(bob)
    response = client.post(
        "/interviews/schedule/", {"question": KV_QUESTION, "candidate": "alice", "mode": "timed"}
    )
    round_ = Round.objects.get(candidate=alice)
    assert round_.status == RoundStatus.SCHEDULED
    assert response["Location"] == f"/interviews/{round_.pk}/"
    Round.objects.filter(pk=round_.pk).update(started_at=timezone.now() - timedelta(minutes=30))
    console = client.get(response["Location"]).content.decode()
    assert "Not started" in console and f"/rounds/{round_.pk}/begin/" in console
    assert '<div class="phase" id="live-phase">Intro</div>' in console  # the clock waits for the candidate
    assert (
        KV_QUESTION in client.get("/interviews/").content.decode()
        or "KV" in client.get("/interviews/").content.decode()
    )

    client.force_login(alice)
    page = client.get(f"/rounds/{round_.pk}/").content.decode()
    assert "Start the round" in page
    begin = client.get(f"/rounds/{round_.pk}/begin/").content.decode()
    assert "bob" in begin and "scheduled this timed round for you" in begin
    started = client.post(f"/rounds/{round_.pk}/begin/")
    assert started["Location"] == f"/rounds/{round_.pk}/"
    round_.refresh_from_db()
    assert round_.status == RoundStatus.ACTIVE and round_.deadline is not None
    assert client.get(f"/rounds/{round_.pk}/begin/")["Location"] == f"/rounds/{round_.pk}/"


def test_calibration_is_visible_to_that_interviewer_and_admins_only(
    client, bob, charlie, admin_user, invited_round
):
    client.force_login(bob)
    page = client.get("/interviewers/bob/calibration/").content.decode()
    assert "Calibration: bob" in page and 'id="calibration-numbers"' in page
    client.force_login(admin_user)
    assert client.get("/interviewers/bob/calibration/").status_code == 200
    client.force_login(charlie)
    assert client.get("/interviewers/bob/calibration/").status_code == 404
    assert client.get("/interviewers/charlie/calibration/").status_code == 404  # not an interviewer


def test_my_interviews_lists_the_rounds_an_interviewer_was_invited_to(client, bob, invited_round):
    client.force_login(bob)
    page = client.get("/interviews/").content.decode()
    assert f"/interviews/{invited_round.pk}/" in page and "alice" in page


def test_a_scheduled_round_says_so_in_my_rounds_and_starts_from_there(client, alice, bob, kv_question):
    scheduled = round_schedule_for_candidate(
        interviewer=bob, question=kv_question, candidate_username="alice"
    )
    client.force_login(alice)
    page = client.get("/rounds/").content.decode()
    assert "Scheduled for you" in page and f'id="start-scheduled-{scheduled.pk}"' in page
    started = client.post(f"/rounds/{scheduled.pk}/begin/")
    assert started["Location"] == f"/rounds/{scheduled.pk}/"
    scheduled.refresh_from_db()
    assert scheduled.status == RoundStatus.ACTIVE
    assert "Scheduled for you" not in client.get("/rounds/").content.decode()


def test_a_round_shows_the_title_of_its_own_version(client, alice, alice_round):
    version = alice_round.question_version
    QuestionVersion.objects.filter(pk=version.pk).update(
        spec={**version.spec, "title": "As first asked"}, title="As first asked"
    )
    Question.objects.filter(pk=alice_round.question.pk).update(title="Renamed since")
    client.force_login(alice)
    page = client.get(f"/rounds/{alice_round.pk}/").content.decode()
    assert "<h1>As first asked</h1>" in page and "Renamed since" not in page
    round_submit(round_id=alice_round.pk)
    report = client.get(f"/rounds/{alice_round.pk}/report/").content.decode()
    assert "<h1>As first asked</h1>" in report and "Renamed since" not in report
