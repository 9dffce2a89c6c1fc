"""A whole timed round in real Chromium: draw, type, reload, a stale second tab, submit, report."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from rounds.models import Round, RoundStatus, Work
from tests.browser.canvas_helpers import add_box, connect_boxes, read_design, set_failure, set_job
from tests.browser.conftest import log_in, show_tab
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

SEVEN_BOXES = [
    ("api gateway", "Authenticate the caller and hold the stream", "Connection table exhaustion"),
    ("token bucket", "Keep each tenant inside its token budget", "Counts requests, not tokens"),
    ("model router", "Pick the replica with the prefix cached", "Round-robin ignores the cache"),
    ("admission queue", "Bound the waiting work", "Unbounded queue grows past the SLO"),
    ("continuous batcher", "Choose the sequences for each step", "Long prefill stalls decode"),
    ("vllm", "Run the forward pass and hold the KV cache", "KV exhaustion forces preemption"),
    ("sse", "Stream tokens to the client", "Slow client stalls the engine"),
]


@pytest.fixture
def kv_question(tmp_path, transactional_db):
    return load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]


def start_timed_round(page) -> int:
    page.goto(f"/questions/{KV_QUESTION}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    return int(page.url.rstrip("/").split("/")[-1])


def wait_saved(page) -> None:
    expect(page.locator("#save-status")).to_contain_text("All changes saved", timeout=15_000)


def test_a_candidate_draws_types_reloads_and_submits_a_timed_round(page, second_page, alice, kv_question):
    log_in(page, "alice")
    round_id = start_timed_round(page)

    ids = []
    for query, job, failure in SEVEN_BOXES:
        box = add_box(page, query)
        set_job(page, box, job)
        set_failure(page, box, failure)
        ids.append(box)
    for source, target in zip(ids, ids[1:], strict=False):
        connect_boxes(page, source, target)
    assert len(read_design(page)["edges"]) == 6

    show_tab(page, "Numbers")
    page.get_by_label("KV cache of one conversation").fill("9.6 GB")
    expect(page.locator("#reading-kv_conv")).to_contain_text("Read as")
    show_tab(page, "Scratch")
    page.locator("#scratch").fill("2 x 80 x 8 x 128 x 2 bytes")
    page.locator("#scratch").blur()
    wait_saved(page)

    clock_before = page.locator("#clock").inner_text()
    page.wait_for_timeout(1500)
    page.reload()
    expect(page.get_by_label("KV cache of one conversation")).to_have_value("9.6 GB")
    expect(page.locator("#scratch")).to_have_value("2 x 80 x 8 x 128 x 2 bytes")
    drawn = [node for node in read_design(page)["nodes"] if node["id"] != "client"]  # the client was there
    assert len(drawn) == 7 and len(read_design(page)["edges"]) == 6
    for box, (_, job, failure) in zip(drawn, SEVEN_BOXES, strict=False):
        assert (box["job"], box["failure"]) == (job, failure)
    assert page.locator("#clock").inner_text() != clock_before  # the server's clock kept running

    # A second tab (another device) saves first; this tab's next save is refused, not silently lost.
    log_in(second_page, "alice")
    second_page.goto(f"/rounds/{round_id}/")
    show_tab(second_page, "Scratch")
    second_page.locator("#scratch").fill("edited on the other device")
    second_page.locator("#scratch").blur()
    wait_saved(second_page)
    page.problems.expect_console_error("status of 409")
    show_tab(page, "Scratch")
    page.locator("#scratch").fill("edited in the stale tab")
    page.locator("#scratch").blur()
    expect(page.locator("#stale-banner")).to_be_visible(timeout=15_000)
    expect(page.locator("#stale-message")).to_contain_text("out of date")
    assert Work.objects.get(round_id=round_id).scratch == "edited on the other device"

    second_page.once("dialog", lambda dialog: dialog.accept())
    second_page.get_by_role("button", name="Submit for grading").click()
    second_page.wait_for_url(f"**/rounds/{round_id}/report/")
    expect(second_page.locator("body")).to_contain_text("Overall")
    expect(second_page.locator("body")).to_contain_text("KV cache of one conversation")
    assert Round.objects.get(pk=round_id).status == RoundStatus.SUBMITTED


def test_the_round_locks_at_the_deadline_and_the_server_refuses_a_late_write(page, alice, kv_question):
    log_in(page, "alice")
    round_id = start_timed_round(page)
    show_tab(page, "Numbers")
    page.get_by_label("KV cache of one conversation").fill("9.8 GB")
    page.get_by_label("KV cache of one conversation").blur()
    wait_saved(page)
    # Move the round's clock: its deadline is now two seconds away.
    Round.objects.filter(pk=round_id).update(
        started_at=timezone.now() - timedelta(minutes=45) + timedelta(seconds=2),
        deadline=timezone.now() + timedelta(seconds=2),
    )
    page.problems.expect_console_error("status of 423")
    page.reload()
    expect(page.locator("#locked-banner")).to_be_visible(timeout=10_000)
    expect(page.locator("#clock")).to_have_text("Time is up")
    token = page.evaluate("JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken']")
    response = page.request.post(
        f"/rounds/{round_id}/save/",
        data={"revision": 1, "numbers": {"kv_conv": "1 GB"}},
        headers={"X-CSRFToken": token},
    )
    assert response.status == 423
    assert "round" in response.json()["error"].lower()
    round_ = Round.objects.get(pk=round_id)
    assert round_.work.numbers["kv_conv"] == "9.8 GB"
    page.wait_for_url(f"**/rounds/{round_id}/report/", timeout=15_000)
    assert Round.objects.get(pk=round_id).status == RoundStatus.SUBMITTED
