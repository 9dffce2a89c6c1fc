"""In real Chromium: a candidate in a timed round finds no way to a reference value or a curveball (question
page, check page, concept pages, catalogue); after submit the report shows the headline figures and both
designs."""

import pytest
from playwright.sync_api import expect

from rounds.models import Round, RoundStatus
from tests.browser.conftest import log_in
from tests.browser.round_helpers import start_timed_round
from tests.interview.bank_fixtures import KV_QUESTION, load_questions
from tests.test_leak_walk import _found, asked_values, depth_shown, depth_texts

# agent-sessions states 30k-token sessions of the same 70B model: its check would show kv-cache-tiering's
# conversation size, the conversations in HBM and the recompute and reload times. (The KV per token that
# llm-batching-system and seven-boxes-serving-walkthrough share is a premise of kv-cache-tiering now.)
RELATED = ("agent-sessions",)


@pytest.fixture
def questions(tmp_path, transactional_db):
    return load_questions(tmp_path, KV_QUESTION, *RELATED)


def shown_values(page, values: dict[str, set[str]], hidden: set[str]) -> list[str]:
    text = page.content() + " " + page.locator("body").inner_text()
    found = sorted(f"{name}: {p}" for name, patterns in values.items() for p in patterns if _found(p, text))
    return found + depth_shown(hidden, page.locator("body").inner_text())


def test_a_candidate_in_a_timed_round_finds_no_reference_and_the_report_shows_it_after_submit(
    page, alice, questions
):
    spec = questions[KV_QUESTION].current_version.spec
    values = asked_values(spec)
    # Before the depth phase, nothing of any loaded question's curveballs or follow-up choices (issue 33).
    hidden = set().union(*(depth_texts(q.current_version.spec, opened=False) for q in questions.values()))
    assert hidden  # seven-boxes-serving-walkthrough has curveballs and decisions
    page.problems.expect_console_error("status of 409")  # the check pages refuse while the round is open
    log_in(page, "alice")
    round_id = start_timed_round(page, KV_QUESTION)
    assert shown_values(page, values, hidden) == []

    page.goto(f"/questions/{KV_QUESTION}/")
    expect(page.locator("#check-hidden")).to_contain_text(f"round {round_id}")
    expect(page.get_by_role("link", name="Check your numbers (no clock)")).to_have_count(0)
    assert shown_values(page, values, hidden) == []
    concept_links = [
        link.get_attribute("href")
        for link in page.locator("a[href^='/concepts/']").all()
        if link.is_visible()
    ]
    assert concept_links

    page.goto(f"/questions/{KV_QUESTION}/check/")
    expect(page.locator("#reference-hidden")).to_contain_text(f"round {round_id}")
    assert shown_values(page, values, hidden) == []
    page.get_by_role("link", name=f"Go to round {round_id}").click()
    page.wait_for_url(f"**/rounds/{round_id}/")

    for slug in RELATED:  # another question's check would grade the same quantities
        page.goto(f"/questions/{slug}/check/")
        expect(page.locator("#reference-hidden")).to_be_visible()
        assert shown_values(page, values, hidden) == [], slug
    for href in concept_links:
        page.goto(href)
        assert shown_values(page, values, hidden) == [], href
    page.goto("/")
    expect(page.locator("body")).to_contain_text("KV-cache tiering")
    assert shown_values(page, values, hidden) == []

    page.goto(f"/rounds/{round_id}/")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit for grading").click()
    page.wait_for_url(f"**/rounds/{round_id}/report/")
    assert Round.objects.get(pk=round_id).status == RoundStatus.SUBMITTED
    expect(page.locator("#question-headline")).to_contain_text("320 KB per token")
    expect(page.locator("#design-drawing-candidate")).to_be_visible()
    expect(page.locator("#design-drawing-reference")).to_be_visible()
    missing = page.locator("#design-drawing-reference [data-status='missing']")
    assert missing.count() == len([n for n in spec["design"]["nodes"] if n["kind"] != "client"])
