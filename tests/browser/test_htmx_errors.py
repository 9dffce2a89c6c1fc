"""The one way every htmx form shows a refusal (static/js/app.js): the 4xx message appears next to the form
that sent it, what was typed stays, and the next success clears it."""

import pytest
from playwright.sync_api import expect

from interview.models import Invitation
from tests.browser.conftest import log_in, show_tab
from tests.browser.round_helpers import invite_by_username, start_timed_round
from tests.interview.bank_fixtures import KV_QUESTION, load_questions


@pytest.fixture
def kv_question(tmp_path, transactional_db):
    return load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]


def test_a_refused_htmx_form_shows_the_message_beside_it_keeps_the_input_and_clears_on_success(
    page, alice, bob, kv_question
):
    page.problems.expect_console_error("400")
    log_in(page, "alice")
    start_timed_round(page, KV_QUESTION)
    show_tab(page, "Question")

    form = page.locator("form.invite-form").filter(has=page.get_by_label("Interviewer's username"))
    page.get_by_label("Interviewer's username").fill("nosuchuser")
    page.get_by_role("button", name="Invite", exact=True).click()
    alert = form.get_by_role("alert")
    expect(alert).to_contain_text("No interviewer is called 'nosuchuser'")
    expect(page.get_by_label("Interviewer's username")).to_have_value("nosuchuser")
    assert not Invitation.objects.exists()

    invite_by_username(page, "bob")
    expect(page.locator(".htmx-error")).to_have_count(0)
