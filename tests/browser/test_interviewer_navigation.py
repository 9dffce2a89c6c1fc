"""An interviewer invited by username finds the round from the navigation and their home page, at once."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.round_helpers import invite_by_username, start_timed_round
from tests.interview.bank_fixtures import KV_QUESTION, load_questions


@pytest.fixture
def kv_question(tmp_path, transactional_db):
    return load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]


def test_an_invited_interviewer_finds_the_round_from_the_nav_and_the_home_page(
    page, second_page, alice, bob, kv_question
):
    log_in(second_page, "bob")
    second_page.goto("/")
    nav = second_page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="My interviews")).to_be_visible()
    expect(second_page.locator("#my-interviews-home")).to_contain_text("No interviews yet")

    log_in(page, "alice")
    expect(
        page.get_by_role("navigation", name="Main").get_by_role("link", name="My interviews")
    ).to_have_count(0)
    round_id = start_timed_round(page, KV_QUESTION)
    invite_by_username(page, "bob")

    second_page.reload()
    live = second_page.locator("#my-interviews-home #stage-live")
    expect(live).to_contain_text("alice")
    nav.get_by_role("link", name="My interviews").click()
    second_page.wait_for_url("**/interviews/")
    second_page.locator("#stage-live").get_by_role("link", name=kv_question.title).click()
    second_page.wait_for_url(f"**/interviews/{round_id}/")
    expect(second_page.locator("#live-phase")).to_have_text("Intro")
