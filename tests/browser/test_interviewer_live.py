"""A mock interview in real Chromium, two people in two browser contexts: alice (candidate) draws and
types, bob (interviewer) watches it appear live, writes a note, scores every rubric dimension and releases;
alice then sees the scorecard on her report."""

import time

import pytest
from playwright.sync_api import expect

from interview.models import InterviewNote, Scorecard
from rounds.models import Round, RoundStatus
from tests.browser.canvas_helpers import add_box
from tests.browser.conftest import log_in, show_tab
from tests.browser.round_helpers import invite_by_username, start_timed_round
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

LIVE_WITHIN_MS = 10_000  # autosave every 5 s, then the console's 2 s poll
DIMENSIONS = ("numbers", "shape", "arithmetic", "depth", "failures", "communication")


@pytest.fixture
def kv_question(tmp_path, transactional_db):
    return load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]


def live_box_count(page) -> int:
    return page.evaluate(
        "() => { const el = document.getElementById('live-canvas');"
        " const c = el && SevenboxCanvas.get(el); return c ? c.getDesign().nodes.length : -1; }"
    )


def test_an_interviewer_watches_scores_and_releases_and_the_candidate_sees_the_scorecard(
    page, second_page, alice, bob, kv_question
):
    # Alice starts a timed round and invites bob by username from the round page.
    log_in(page, "alice")
    round_id = start_timed_round(page, KV_QUESTION)
    invite_by_username(page, "bob")
    expect(page.locator("#invitations")).to_contain_text("can see this round")

    # Bob opens the console from his list of interviews.
    log_in(second_page, "bob")
    second_page.goto("/interviews/")
    second_page.locator(f"a[href='/interviews/{round_id}/']").click()
    second_page.wait_for_url(f"**/interviews/{round_id}/")
    expect(second_page.locator("#live-phase")).to_have_text("Intro")
    expect(second_page.locator(".console-reference")).to_contain_text("Mixing KB and KiB")
    second_page.wait_for_function("() => SevenboxCanvas.get(document.getElementById('live-canvas'))")
    assert live_box_count(second_page) == 1  # the client box every design starts with

    # Alice draws a box and types a number; bob sees both appear within a few seconds.
    add_box(page, "api gateway")
    show_tab(page, "Numbers")
    page.get_by_label("KV cache of one conversation").fill("9.6 GB")
    page.get_by_label("KV cache of one conversation").blur()
    typed_at = time.monotonic()
    expect(second_page.locator("#live-n-kv_conv")).to_have_text("9.6 GB", timeout=LIVE_WITHIN_MS)
    second_page.wait_for_function(
        "() => SevenboxCanvas.get(document.getElementById('live-canvas')).getDesign().nodes.length === 2",
        timeout=LIVE_WITHIN_MS,
    )
    assert time.monotonic() - typed_at < LIVE_WITHIN_MS / 1000
    assert second_page.locator("#live-canvas [data-sbc=boxes] button").count() == 2

    # Bob writes a private note, stamped with the round's clock and phase.
    second_page.get_by_label("Note", exact=True).fill("Starts from the gateway; KB vs KiB to check")
    second_page.get_by_role("button", name="Add note").click()
    expect(second_page.locator("#notes")).to_contain_text("KB vs KiB to check")
    expect(second_page.locator("#notes .note-stamp")).to_contain_text("0:")
    expect(second_page.locator("#note-text")).to_have_value("")
    note = InterviewNote.objects.get(round_id=round_id)
    assert note.phase == "intro" and note.author == bob

    # Bob scores every rubric dimension with a note and a recommendation.
    for dimension in DIMENSIONS:
        second_page.locator(f"#level-{dimension}-3").check()
        second_page.locator(f"#note-{dimension}").fill(f"Solid {dimension}")
    second_page.get_by_label("Recommendation").select_option("lean_yes")
    second_page.get_by_role("button", name="Save scores").click()
    expect(second_page.locator("#scoring-status")).to_have_text("Scores saved.")
    scorecard = Scorecard.objects.get(round_id=round_id)
    assert all(scorecard.level_of(d) == 3 for d in DIMENSIONS)

    # The candidate cannot see the scorecard yet; she submits, bob releases it.
    assert page.request.get(f"/interviews/{round_id}/scorecard/").status == 404
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit for grading").click()
    page.wait_for_url(f"**/rounds/{round_id}/report/")
    assert page.locator("#released-scorecard").count() == 0
    assert Round.objects.get(pk=round_id).status == RoundStatus.SUBMITTED

    second_page.reload()
    expect(second_page.locator("#live-status")).to_contain_text("Submitted")
    second_page.get_by_label("It cannot change afterwards").check()
    second_page.get_by_role("button", name="Release the scorecard to the candidate").click()
    second_page.wait_for_url(f"**/interviews/{round_id}/scorecard/")
    expect(second_page.locator("#scorecard")).to_contain_text("Lean yes")
    expect(second_page.locator("#compare-numbers")).to_be_visible()

    # The timeline scrubs through the finished round: at 0:00 the design the round opened with (the client
    # box) and no number; at the end the last saved design (the client box and alice's gateway), the number.
    second_page.goto(f"/interviews/{round_id}/timeline/")
    timeline_boxes = (
        "() => SevenboxCanvas.get(document.getElementById('timeline-canvas')).getDesign().nodes.length"
    )
    second_page.wait_for_function(f"() => ({timeline_boxes})() === 2")
    expect(second_page.locator("#tl-n-kv_conv")).to_have_text("9.6 GB")
    second_page.locator("#timeline-t").fill("0")
    expect(second_page.locator("#timeline-at")).to_have_text("0:00")
    expect(second_page.locator("#tl-n-kv_conv")).to_have_text("")
    second_page.wait_for_function(f"() => ({timeline_boxes})() === 1")
    shown = "() => SevenboxCanvas.get(document.getElementById('timeline-canvas')).getDesign().nodes[0].id"
    assert second_page.evaluate(shown) == "client"
    expect(second_page.locator("#timeline-canvas [data-sbc=boxes] button")).to_have_count(1)
    expect(second_page.locator("#timeline-notes .note.later")).to_have_count(1)
    end = second_page.locator("#timeline-t").get_attribute("max")
    second_page.locator("#timeline-t").fill(end)
    expect(second_page.locator("#tl-n-kv_conv")).to_have_text("9.6 GB")
    expect(second_page.locator("#timeline-notes .note.later")).to_have_count(0)
    assert second_page.evaluate(timeline_boxes) == 2

    # Alice can now open the scorecard, and her report carries it.
    page.goto(f"/interviews/{round_id}/scorecard/")
    expect(page.locator("#scorecard")).to_contain_text("Lean yes")
    page.goto(f"/rounds/{round_id}/report/")
    expect(page.locator("#released-scorecard")).to_contain_text("bob recommends")
    expect(page.locator("#released-scorecard")).to_contain_text("Lean yes")
    expect(page.locator("#released-scorecard")).to_contain_text("Solid communication")
