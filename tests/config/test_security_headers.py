"""Security headers on real pages, the Content-Security-Policy, and HSTS under production settings."""

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.urls import reverse

from rounds.services.rounds import round_start
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

REPO = Path(__file__).resolve().parents[2]
# Non-executable script types: data handed to JS with json_script is allowed, anything a browser runs is not.
DATA_SCRIPT_TYPES = {"application/json", "application/ld+json"}


class InlineScriptFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and "src" not in names and names.get("type") not in DATA_SCRIPT_TYPES:
            self.problems.append(f"inline <script> at line {self.getpos()[0]}")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...> at line {self.getpos()[0]}")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}=javascript:...> at line {self.getpos()[0]}")


def inline_script_problems(html: str) -> list[str]:
    finder = InlineScriptFinder()
    finder.feed(html)
    return finder.problems


def csp_directives(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


@pytest.fixture
def pages(db, tmp_path, alice, client) -> dict[str, str]:
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="timed")
    client.force_login(alice)
    return {
        "catalogue": reverse("home"),
        "question": reverse("question-detail", args=[KV_QUESTION]),
        "round": reverse("round-detail", args=[round_.pk]),
        "history": reverse("round-history"),
        "concepts": reverse("concepts"),
    }


@pytest.mark.parametrize("page", ["catalogue", "question", "round", "history", "concepts"])
def test_real_pages_send_the_security_headers_and_a_strict_policy(client, pages, page):
    response = client.get(pages[page])
    assert response.status_code == 200
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    policy = csp_directives(response["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"]
    assert policy["default-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["form-action"] == ["'self'"]


@pytest.mark.parametrize("page", ["catalogue", "question", "round", "history", "concepts"])
def test_rendered_pages_hold_no_inline_script_or_event_handler(client, pages, page):
    response = client.get(pages[page])
    assert inline_script_problems(response.content.decode()) == []


def test_the_log_in_page_for_anonymous_visitors_is_covered_too(client, db):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert inline_script_problems(response.content.decode()) == []


def test_the_finder_catches_what_it_should():
    html = '<script>alert(1)</script><a href="javascript:x()">x</a><button onclick="x()">b</button>'
    html += '<script src="/static/a.js"></script><script type="application/json">{}</script>'
    assert len(inline_script_problems(html)) == 3


def test_the_api_docs_page_alone_allows_inline_styles_but_never_inline_scripts(client, alice):
    client.force_login(alice)
    response = client.get(reverse("api-docs"))
    policy = csp_directives(response["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"]
    assert "'unsafe-inline'" in policy["style-src"]


PRODUCTION_PROBE = """
import json
import django
django.setup()
from django.conf import settings
from django.middleware.security import SecurityMiddleware
from django.http import HttpResponse
from django.test import RequestFactory

response = SecurityMiddleware(lambda request: HttpResponse("ok"))(
    RequestFactory().get("/", secure=True, HTTP_HOST="sevenbox.example")
)
redirect = SecurityMiddleware(lambda request: HttpResponse("ok"))(
    RequestFactory().get("/", HTTP_HOST="sevenbox.example")
)
print(json.dumps({
    "hsts": response.get("Strict-Transport-Security"),
    "redirect": [redirect.status_code, redirect.get("Location")],
    "session_secure": settings.SESSION_COOKIE_SECURE,
    "csrf_secure": settings.CSRF_COOKIE_SECURE,
}))
"""


def production_env() -> dict[str, str]:
    # The browser tests set DJANGO_ALLOW_ASYNC_UNSAFE in this process; a deployment never has it.
    dropped = {"DEBUG", "SECURE_SSL_REDIRECT", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    keep = {k: v for k, v in os.environ.items() if k not in dropped}
    keep.update(
        DEBUG="0",
        SECRET_KEY="check-deploy-only-0123456789abcdefghijklmnopqrstuv",
        ALLOWED_HOSTS="sevenbox.example",
        CSRF_TRUSTED_ORIGINS="https://sevenbox.example",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    return keep


def test_production_settings_send_hsts_redirect_to_https_and_secure_cookies():
    result = subprocess.run(
        [sys.executable, "-c", PRODUCTION_PROBE],
        cwd=REPO,
        env=production_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    probe = json.loads(result.stdout.strip().splitlines()[-1])
    assert probe["hsts"] == "max-age=31536000; includeSubDomains; preload"
    assert probe["redirect"] == [301, "https://sevenbox.example/"]
    assert probe["session_secure"] and probe["csrf_secure"]


def test_check_deploy_is_clean_at_warning_with_production_settings():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=production_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
