"""Browser tests: playwright (from pip) driving Debian's Chromium, offline.

Every test fails if the page asks for anything outside the test server, logs a console error, or breaks the
Content-Security-Policy.
"""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.conftest import TEST_PASSWORD

# Playwright's sync API runs an event loop in this thread; Django's ORM calls in tests are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.path):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make browsers)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class PageProblems:
    def __init__(self) -> None:
        self.outside_requests: list[str] = []
        self.console_errors: list[str] = []
        self.expected_errors: list[str] = []

    def expect_console_error(self, fragment: str) -> None:
        """A test that provokes an error answer (a refused save) declares the console line it expects."""
        self.expected_errors.append(fragment)

    def assert_none(self) -> None:
        unexpected = [e for e in self.console_errors if not any(f in e for f in self.expected_errors)]
        assert not self.outside_requests, f"requests left the test server: {self.outside_requests}"
        assert not unexpected, f"console errors: {unexpected}"


def open_page(browser: Browser, base_url: str) -> tuple[Page, PageProblems]:
    problems = PageProblems()
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)

    def guard(route) -> None:
        url = route.request.url
        if url.startswith(base_url) or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            problems.outside_requests.append(url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and problems.console_errors.append(m.text))
    page.on("pageerror", lambda error: problems.console_errors.append(str(error)))
    return page, problems


@pytest.fixture
def page(browser: Browser, live_server) -> Iterator[Page]:
    page, problems = open_page(browser, live_server.url)
    page.problems = problems
    yield page
    page.context.close()
    problems.assert_none()


@pytest.fixture
def second_page(browser: Browser, live_server) -> Iterator[Page]:
    """Another browser context (a second person or device) on the same server."""
    page, problems = open_page(browser, live_server.url)
    page.problems = problems
    yield page
    page.context.close()
    problems.assert_none()


def log_in(page: Page, username: str, password: str = TEST_PASSWORD) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def show_tab(page: Page, name: str) -> None:
    """Open a tab of the round page's side panel (Box, Numbers, Scratch, Fixes, Question)."""
    page.get_by_role("tab", name=name, exact=True).click()
