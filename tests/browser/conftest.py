"""Browser tests: playwright (from pip) driving Debian's Chromium, offline.

Every test fails if the page asks for anything outside the test server, logs a console error, or breaks the
Content-Security-Policy.
"""

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.test import Client
from django.urls import reverse
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
        self.closing = (
            False  # set while the test's page closes: its aborted last save is not the page's fault
        )

    def expect_console_error(self, fragment: str) -> None:
        """A test that provokes an error answer (a refused save) declares the console line it expects."""
        self.expected_errors.append(fragment)

    def assert_none(self) -> None:
        unexpected = [e for e in self.console_errors if not any(f in e for f in self.expected_errors)]
        assert not self.outside_requests, f"requests left the test server: {self.outside_requests}"
        assert not unexpected, f"console errors: {unexpected}"


def open_page(browser: Browser, base_url: str, **options) -> tuple[Page, PageProblems]:
    """A page in a new context (options: playwright's new_context arguments, e.g. has_touch)."""
    problems = PageProblems()
    context = browser.new_context(
        base_url=base_url, **({"viewport": {"width": 1280, "height": 900}} | options)
    )
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
    page.base_url = base_url
    page.in_flight = set()
    page.on("request", lambda request: page.in_flight.add(request))
    page.on("requestfinished", lambda request: page.in_flight.discard(request))
    page.on("requestfailed", lambda request: page.in_flight.discard(request))
    page.on(
        "console",
        lambda m: m.type == "error" and not problems.closing and problems.console_errors.append(m.text),
    )
    page.on("pageerror", lambda error: problems.closing or problems.console_errors.append(str(error)))
    return page, problems


class ServerRequests:
    """The live server's requests still being answered (each runs in a thread of this process), from Django's
    signals. A request counts while its thread lives and has not finished: a response the browser abandoned
    is never closed, so its request_finished never comes, and a plain counter would stay up for every later
    test (each teardown then waited its whole 5 s)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.threads: set[threading.Thread] = set()

    def started(self, **kwargs) -> None:
        with self.lock:
            self.threads.add(threading.current_thread())

    def finished(self, **kwargs) -> None:
        with self.lock:
            self.threads.discard(threading.current_thread())

    @property
    def running(self) -> int:
        with self.lock:
            self.threads = {thread for thread in self.threads if thread.is_alive()}
            return len(self.threads)


SERVER_REQUESTS = ServerRequests()
request_started.connect(SERVER_REQUESTS.started, dispatch_uid="browser-tests-started")
request_finished.connect(SERVER_REQUESTS.finished, dispatch_uid="browser-tests-finished")


def close_quietly(page: Page) -> None:
    """Close the page's context once the requests that leaving the page sends are answered: the round page
    saves its unsaved edits on pagehide, and a save still running would race the test database's flush
    (SQLite reports a locked table, PostgreSQL waits)."""
    if hasattr(page, "problems"):
        page.problems.closing = True

    def drain() -> None:
        deadline = time.monotonic() + 5
        while page.in_flight and time.monotonic() < deadline:
            page.wait_for_timeout(50)

    drain()
    with contextlib.suppress(Exception):  # a page that cannot navigate away still gets closed
        page.goto("about:blank")
    drain()
    # The keepalive save sent on pagehide is not the page's any more: wait for the server to have answered it.
    page.wait_for_timeout(150)
    deadline = time.monotonic() + 5
    while SERVER_REQUESTS.running and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    page.context.close()


@pytest.fixture
def page(browser: Browser, live_server) -> Iterator[Page]:
    page, problems = open_page(browser, live_server.url)
    page.problems = problems
    yield page
    close_quietly(page)
    problems.assert_none()


@pytest.fixture
def second_page(browser: Browser, live_server) -> Iterator[Page]:
    """Another browser context (a second person or device) on the same server."""
    page, problems = open_page(browser, live_server.url)
    page.problems = problems
    yield page
    close_quietly(page)
    problems.assert_none()


def log_in(page: Page, username: str, password: str = TEST_PASSWORD) -> None:
    """Logged in as `username` on the home page, as the log-in form leaves a person: the password checked by
    Django's test client, its session cookie handed to the browser. The form itself is driven by
    test_login.py (`log_in_by_form`); through it every test paid ~0.5 s more (43 log-ins)."""
    session = Client()
    assert session.login(username=username, password=password), f"{username} could not log in"
    cookie = session.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": page.base_url}])
    page.goto(reverse(settings.LOGIN_REDIRECT_URL))


def log_in_by_form(page: Page, username: str, password: str = TEST_PASSWORD) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def show_tab(page: Page, name: str) -> None:
    """Open a tab of the round page's side panel (Box, Numbers, Scratch, Fixes, Question)."""
    page.get_by_role("tab", name=name, exact=True).click()


def wait_on_page(page: Page, predicate, *, timeout_s: float = 10, what: str = "the condition"):
    """tests.waiting.wait_for that keeps the page running: every request passes the guard route, which is
    answered in this thread, so a time.sleep here would hold the page's saves."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        page.wait_for_timeout(100)
    raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
