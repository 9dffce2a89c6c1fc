from playwright.sync_api import expect

from tests.browser.conftest import log_in, log_in_by_form


def test_a_candidate_logs_in_and_sees_their_name(page, alice):
    log_in_by_form(page, "alice")
    expect(page.locator(".whoami")).to_contain_text("alice")
    expect(page.locator(".whoami")).to_contain_text("candidate")


def test_a_wrong_password_shows_an_error_and_stays_logged_out(page, alice):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".errorlist")).to_contain_text("correct username and password")
    expect(page.get_by_role("link", name="Log in")).to_be_visible()


def test_the_api_docs_render_offline_under_the_content_security_policy(page, alice):
    log_in(page, "alice")
    page.goto("/api/docs/")
    expect(page.locator(".swagger-ui").first).to_be_visible()
