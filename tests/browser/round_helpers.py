"""Steps several browser tests take on the round page."""

from playwright.sync_api import Page, expect

from tests.browser.conftest import show_tab


def start_timed_round(page: Page, slug: str) -> int:
    """From the question page, start a timed round; returns its id."""
    page.goto(f"/questions/{slug}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    return int(page.url.rstrip("/").split("/")[-1])


def invite_by_username(page: Page, username: str) -> None:
    """On the round page, invite an interviewer by name and wait for the panel to list them."""
    show_tab(page, "Question")
    page.get_by_label("Interviewer's username").fill(username)
    page.get_by_role("button", name="Invite", exact=True).click()
    expect(page.locator("#invitations")).to_contain_text(username)
