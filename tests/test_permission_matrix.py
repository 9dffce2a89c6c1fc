"""Permission matrix, generated from the URL configuration: every URL pattern and API route, as four people.

The owner (alice for her round, its replays and her comment; ada for her draft and its sample), bob the
invited interviewer, charlie an unrelated candidate, and an anonymous visitor. Each answer is compared with
the explicit table below, keyed by URL name: a view added tomorrow fails this test until someone decides who
may see it. Other people's rounds, designs, notes, drafts, scorecards and replay runs answer 404; anonymous
visitors are sent to log in (pages) or refused (API). Candidate-facing pages of an ungraded round never show a
reference value.
"""

import re
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from interview.services.authoring import draft_create, sample_save
from interview.services.discussion import comment_create, comment_report
from interview.services.interviewing.invitations import invitation_create_for_username, invitation_create_link
from interview.services.interviewing.notes import note_add
from interview.services.interviewing.scorecards import scorecard_save
from rounds.services import replays
from rounds.services.replays import replays_enqueue_for_round
from rounds.services.rounds import round_start, round_submit
from rounds.services.work import work_save
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db

SKIPPED_PREFIXES = ("admin/", "static/")
# /healthz pings a worker for staff (two-second timeout); anyone else learns only up or down (tests/config).
NOT_REQUESTED = {"healthz"}
ROLES = ("owner", "interviewer", "candidate", "anonymous")
API_METHODS = ("get", "post", "put", "patch", "delete")


def url_patterns(patterns=None, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    """Every (route, pattern) of the URL configuration, resolvers flattened, admin and static left out."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(SKIPPED_PREFIXES):
            continue
        if isinstance(entry, URLResolver):
            yield from url_patterns(entry.url_patterns, route)
        else:
            yield route, entry


def key_of(route: str, pattern: URLPattern) -> str:
    """The table's key: the URL name, or the route for a pattern without one (e.g. favicon.ico)."""
    return pattern.name or route


def methods_of(pattern: URLPattern) -> list[str]:
    view_class = getattr(pattern.callback, "view_class", None)
    if view_class is not None and hasattr(view_class, "http_method_names"):
        return [m for m in API_METHODS if hasattr(view_class, m)] or ["get"]
    return ["get", "post"]


def fill(route: str, values: dict[str, object]) -> str:
    path = "/" + route
    for name, value in values.items():
        for converter in ("int", "slug", "str", "path"):
            path = path.replace(f"<{converter}:{name}>", str(value))
        path = path.replace(f"<{name}>", str(value))
    assert "<" not in path, f"no value for a parameter of {route}: add it to World.values"
    return path


class World:
    """Real objects behind every URL parameter."""

    def __init__(self, tmp_path, alice, bob, charlie, author) -> None:
        self.users = {"alice": alice, "bob": bob, "charlie": charlie, "ada": author}
        question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
        self.question = question
        self.round = round_start(candidate=alice, question=question, mode="timed")
        work_save(round_id=self.round.pk, base_revision=0, numbers={"kv_conv": "9.8 GB"})
        invitation_create_for_username(round_=self.round, created_by=alice, username="bob")
        note_add(round_=self.round, author=bob, text="private note")
        scorecard_save(round_=self.round, interviewer=bob, levels={"numbers": {"level": 3}})
        round_submit(round_id=self.round.pk)
        self.round.refresh_from_db()
        self.link, self.token = invitation_create_link(round_=self.round, created_by=alice)
        self.run = replays_enqueue_for_round(round_=self.round)[0]
        self.comment = comment_create(question=question, author=alice, body="A thought.", anchor_key="")
        self.report = comment_report(comment=self.comment, reporter=charlie, reason="spam")
        self.draft = draft_create(owner=author, slug="ada-draft", title="Ada's draft")
        self.sample = sample_save(draft=self.draft, name="s", numbers={}, expected={})
        self.values = {
            "round_id": self.round.pk,
            "run_id": self.run.pk,
            "invitation_id": self.link.pk,
            "token": self.token,
            "comment_id": self.comment.pk,
            "report_id": self.report.pk,
            "draft_id": self.draft.pk,
            "sample_id": self.sample.pk,
            "slug": KV_QUESTION,
            "number": 1,
            "username": "bob",
            "uidb64": "MQ",
            "token_reset": "set-password",
        }

    def owner_of(self, route: str) -> str:
        return "ada" if route.startswith("authoring/") or "api/authoring/" in route else "alice"


# Per-URL details so a request reaches the permission check rather than stopping at a missing field.
VALUES = {"concept-detail": {"slug": "kv-cache-memory"}}
QUERIES = {"authoring-diff": "?a=1&b=1"}
JSON_BODIES = {"round-save": {"revision": 1}, "api-round-save": {"revision": 1}}


def answer(client: Client, method: str, path: str, *, is_api: bool, name: str) -> str:
    body = JSON_BODIES.get(name)
    if method != "get" and (is_api or body is not None):
        response = getattr(client, method)(path, body or {}, content_type="application/json")
    elif method == "post":
        response = client.post(path, {})
    else:
        response = getattr(client, method)(path)
    code = response.status_code
    if code in (301, 302, 303) and response["Location"].startswith("/accounts/login/"):
        return "login"
    return str(code)


# What each person gets, per URL name: (owner, invited interviewer, unrelated candidate, anonymous).
# "login" is a redirect to the log-in page. The owner is only sent GETs (the feature tests cover their
# actions); everyone else gets every method the view serves, with a body that reaches the permission check.
EXPECTED: dict[str, tuple[str, str, str, str]] = {
    "healthz": ("*", "*", "*", "*"),
    "favicon.ico": (
        "GET 301",
        "GET 301, POST 301",
        "GET 301, POST 301",
        "GET 301, POST 301",
    ),
    "ping": ("GET 200", "GET 200, POST 200", "GET 200, POST 200", "GET 200, POST 200"),
    "api-schema": ("GET 200", "GET 200", "GET 200", "GET 200"),
    "api-docs": ("GET 200", "GET 200", "GET 200", "GET 200"),
    "api-question-grade": ("", "POST 200", "POST 200", "POST 403"),
    "api-token": ("", "POST 400", "POST 400", "POST 400"),
    "api-replay-list": ("GET 200", "GET 404, POST 404", "GET 404, POST 404", "GET 403, POST 403"),
    "api-replay-run": ("GET 200", "GET 404", "GET 404", "GET 403"),
    "api-replay-cancel": ("", "POST 404", "POST 404", "POST 403"),
    "api-replay-retry": ("", "POST 404", "POST 404", "POST 403"),
    "api-round-list": ("GET 200", "GET 200, POST 400", "GET 200, POST 400", "GET 403, POST 403"),
    "api-round-detail": ("GET 200", "GET 404", "GET 404", "GET 403"),
    "api-round-save": ("", "POST 404", "POST 404", "POST 403"),
    "api-round-submit": ("", "POST 404", "POST 404", "POST 403"),
    "api-round-report": ("GET 200", "GET 404", "GET 404", "GET 403"),
    "api-round-depth": ("GET 200", "GET 404, POST 404", "GET 404, POST 404", "GET 403, POST 403"),
    "api-question-list": ("GET 200", "GET 200", "GET 200", "GET 200"),
    "api-question-detail": ("GET 200", "GET 200", "GET 200", "GET 200"),
    "api-version-list": ("GET 200", "GET 200", "GET 200", "GET 403"),
    "api-version-detail": ("GET 200", "GET 200", "GET 200", "GET 403"),
    "api-comment-list": ("GET 200", "GET 200, POST 400", "GET 200, POST 400", "GET 200, POST 403"),
    # A thread stays folded for bob and charlie (no submitted round): the API refuses their votes.
    "api-comment-vote": ("", "POST 403", "POST 403", "POST 403"),
    "api-bookmark-toggle": ("", "POST 200", "POST 200", "POST 403"),
    "api-bookmark-list": ("GET 200", "GET 200", "GET 200", "GET 403"),
    "api-pack-export": ("GET 200", "GET 403", "GET 403", "GET 403"),
    "api-pack-import": ("", "POST 403", "POST 403", "POST 403"),
    "api-model-check": ("", "POST 403", "POST 403", "POST 403"),
    "api-invitation-list": ("GET 200", "GET 404, POST 404", "GET 404, POST 404", "GET 403, POST 403"),
    "api-invitation-revoke": ("", "POST 404", "POST 404", "POST 403"),
    "api-invitation-accept": ("", "POST 404", "POST 404", "POST 403"),
    "api-interview-notes": ("GET 404", "GET 200, POST 400", "GET 404, POST 404", "GET 403, POST 403"),
    "api-interview-scorecard": ("GET 404", "GET 200, PUT 400", "GET 404, PUT 404", "GET 403, PUT 403"),
    "api-interview-scorecard-release": ("", "POST 400", "POST 404", "POST 403"),
    "round-replays": ("GET 200", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "round-replays-run": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "replay-run": ("GET 302", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "replay-cancel": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "replay-retry": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "practice-check": ("GET 200", "GET 200, POST 200", "GET 200, POST 200", "GET login, POST login"),
    "home": ("GET 200", "GET 200, POST 200", "GET 200, POST 200", "GET 200, POST 200"),
    "question-detail": ("GET 200", "GET 200, POST 200", "GET 200, POST 200", "GET 200, POST 200"),
    "round-start": ("GET 405", "GET 405, POST 302", "GET 405, POST 302", "GET login, POST login"),
    "round-history": ("GET 200", "GET 200, POST 405", "GET 200, POST 405", "GET login, POST login"),
    "round-detail": ("GET 302", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "round-save": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "round-read": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "round-clock": ("GET 200", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "round-depth": ("GET 200", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "round-depth-next": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "round-depth-save": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "round-submit": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "round-abandon": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "round-report": ("GET 200", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "sign-up": ("GET 302", "GET 302, POST 302", "GET 302, POST 302", "GET 200, POST 200"),
    "login": (
        "GET 200",
        "GET 200, POST 200, PUT 200",
        "GET 200, POST 200, PUT 200",
        "GET 200, POST 200, PUT 200",
    ),
    "logout": ("GET 405", "GET 405, POST 302", "GET 405, POST 302", "GET 405, POST 302"),
    "logout-everywhere": ("GET 405", "GET 405, POST login", "GET 405, POST login", "GET login, POST login"),
    "password_change": (
        "GET 200",
        "GET 200, POST 200, PUT 200",
        "GET 200, POST 200, PUT 200",
        "GET login, POST login, PUT login",
    ),
    "password_change_done": ("GET 200", "GET 200", "GET 200", "GET login"),
    "password_reset": (
        "GET 200",
        "GET 200, POST 200, PUT 200",
        "GET 200, POST 200, PUT 200",
        "GET 200, POST 200, PUT 200",
    ),
    "password_reset_done": ("GET 200", "GET 200", "GET 200", "GET 200"),
    "password_reset_confirm": (
        "GET 200",
        "GET 200, POST 200, PUT 200",
        "GET 200, POST 200, PUT 200",
        "GET 200, POST 200, PUT 200",
    ),
    "password_reset_complete": ("GET 200", "GET 200", "GET 200", "GET 200"),
    "discussion-thread": ("GET 302", "GET 302, POST 405", "GET 302, POST 405", "GET 302, POST 405"),
    "comment-post": ("GET 405", "GET 405, POST 400", "GET 405, POST 400", "GET login, POST login"),
    "thread-lock": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "comment-edit": ("GET 200", "GET 404, POST 404", "GET 404, POST 404", "GET login, POST login"),
    "comment-delete": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "comment-vote": ("GET 405", "GET 405, POST 302", "GET 405, POST 302", "GET login, POST login"),
    "comment-report": ("GET 405", "GET 405, POST 302", "GET 405, POST 302", "GET login, POST login"),
    "comment-hide": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "discussion-reports": ("GET 404", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "report-dismiss": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "bookmark-toggle": ("GET 405", "GET 405, POST 302", "GET 405, POST 302", "GET login, POST login"),
    "bookmarks": ("GET 200", "GET 200, POST 405", "GET 200, POST 405", "GET login, POST login"),
    "concepts": ("GET 200", "GET 200, POST 405", "GET 200, POST 405", "GET 200, POST 405"),
    "concept-detail": ("GET 200", "GET 200, POST 405", "GET 200, POST 405", "GET 200, POST 405"),
    "authoring-home": ("GET 200", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "authoring-draft-new": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-draft": ("GET 200", "GET 404, POST 404", "GET 404, POST 404", "GET login, POST login"),
    "authoring-model-check": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-follow-ups-check": (
        "GET 405",
        "GET 405, POST 404",
        "GET 405, POST 404",
        "GET login, POST login",
    ),
    "authoring-curveballs-check": (
        "GET 405",
        "GET 405, POST 404",
        "GET 405, POST 404",
        "GET login, POST login",
    ),
    "authoring-preview": ("GET 200", "GET 404, POST 404", "GET 404, POST 404", "GET login, POST login"),
    "authoring-sample-new": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-publish": ("GET 200", "GET 404, POST 404", "GET 404, POST 404", "GET login, POST login"),
    "authoring-draft-delete": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-draft-restart": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-draft-carry": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-sample-accept": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-sample-delete": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-question-edit": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-versions": ("GET 200", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "authoring-diff": ("GET 200", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "authoring-republish": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-packs": ("GET 200", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "authoring-pack-export": ("GET 200", "GET 404, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "authoring-pack-import": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "authoring-publishers": ("GET 404", "GET 404, POST 404", "GET 404, POST 404", "GET login, POST login"),
    "my-interviews": ("GET 404", "GET 200, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "interview-schedule": ("GET 405", "GET 405, POST 302", "GET 405, POST 404", "GET login, POST login"),
    "interview-join": ("GET 404", "GET 200, POST 302", "GET 404, POST 404", "GET login, POST login"),
    "interview-console": ("GET 404", "GET 200, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "interview-note-create": ("GET 405", "GET 405, POST 302", "GET 405, POST 404", "GET login, POST login"),
    "interview-scorecard": ("GET 404", "GET 200, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "interview-scorecard-save": (
        "GET 405",
        "GET 405, POST 302",
        "GET 405, POST 404",
        "GET login, POST login",
    ),
    "interview-scorecard-release": (
        "GET 405",
        "GET 405, POST 302",
        "GET 405, POST 404",
        "GET login, POST login",
    ),
    "interview-timeline": ("GET 404", "GET 200, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "interviewer-calibration": ("GET 404", "GET 200, POST 405", "GET 404, POST 405", "GET login, POST login"),
    "invitation-create": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "invitation-revoke": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "round-begin-scheduled": ("GET 302", "GET 404, POST 404", "GET 404, POST 404", "GET login, POST login"),
    "drill-session": ("GET 200", "GET 200, POST 405", "GET 200, POST 405", "GET login, POST login"),
    "drill-answer": ("GET 405", "GET 405, POST 409", "GET 405, POST 409", "GET login, POST login"),
    "drill-read-back": ("GET 405", "GET 405, POST 404", "GET 405, POST 404", "GET login, POST login"),
    "drill-progress": ("GET 200", "GET 200, POST 405", "GET 200, POST 405", "GET login, POST login"),
    "drill-question": ("GET 200", "GET 200, POST 405", "GET 200, POST 405", "GET login, POST login"),
    "api-drill-next": ("GET 200", "GET 200", "GET 200", "GET 403"),
    "api-drill-answer": ("", "POST 400", "POST 400", "POST 403"),
    "api-drill-progress": ("GET 200", "GET 200", "GET 200", "GET 403"),
}

# Pages anyone may read without logging in; every other page sends an anonymous visitor to log in.
PUBLIC_PAGES = {
    "ping",
    "favicon.ico",
    "api-schema",
    "api-docs",
    "api-token",
    "home",
    "question-detail",
    "sign-up",
    "login",
    "logout",
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
    "discussion-thread",
    "concepts",
    "concept-detail",
    # What the site shows anonymous visitors, the API shows them too (reading only).
    "api-question-list",
    "api-question-detail",
    "api-comment-list",
}
# URL parameters that name something private to one person: nobody unrelated gets past 404 (or 405).
PRIVATE_PARAMETERS = ("<int:round_id>", "<int:run_id>", "<int:draft_id>", "<int:sample_id>")
UNRELATED_CANDIDATE_ALLOWED = {"404", "405"}


@pytest.fixture
def world(tmp_path, alice, bob, charlie, author, monkeypatch) -> World:
    monkeypatch.setattr(replays, "_publish", lambda run_id: None)  # runs stay queued; nothing is sent
    return World(tmp_path, alice, bob, charlie, author)


def walk(world: World, role: str) -> dict[str, str]:
    user = {
        "owner": None,
        "interviewer": world.users["bob"],
        "candidate": world.users["charlie"],
        "anonymous": None,
    }[role]
    answers = {}
    for route, pattern in url_patterns():
        name = key_of(route, pattern)
        if name in NOT_REQUESTED or name not in EXPECTED:
            continue
        path = fill(route, {**world.values, **VALUES.get(name, {})}) + QUERIES.get(name, "")
        who = world.users[world.owner_of(route)] if role == "owner" else user
        got = []
        for method in methods_of(pattern):
            if role == "owner" and method != "get":
                continue
            client = Client()
            if who is not None:
                client.force_login(who)
            is_api = route.startswith("api/")
            got.append(f"{method.upper()} {answer(client, method, path, is_api=is_api, name=name)}")
        answers[name] = ", ".join(got)
    return answers


def test_every_url_pattern_is_in_the_table():
    names = [key_of(route, pattern) for route, pattern in url_patterns()]
    missing = sorted(set(names) - set(EXPECTED))
    assert not missing, f"new URL names {missing}: add it to the table in tests/test_permission_matrix.py"
    stale = sorted(set(EXPECTED) - set(names))
    assert not stale, f"{stale} no longer exist: remove them from the table"
    assert len(names) >= 90


@pytest.mark.parametrize("role", ROLES)
def test_each_person_gets_exactly_what_the_table_says(world, role):
    index = ROLES.index(role)
    answers = walk(world, role)
    wrong = {
        name: f"got {got!r}, table says {EXPECTED[name][index]!r}"
        for name, got in answers.items()
        if got != EXPECTED[name][index]
    }
    assert not wrong, "\n".join(f"{name}: {problem}" for name, problem in wrong.items())


def test_the_table_never_lets_an_unrelated_candidate_past_a_private_object():
    routes = {key_of(route, pattern): route for route, pattern in url_patterns()}
    for name, route in routes.items():
        if any(parameter in route for parameter in PRIVATE_PARAMETERS):
            statuses = {part.split()[1] for part in EXPECTED[name][2].split(", ")}
            assert statuses <= UNRELATED_CANDIDATE_ALLOWED, f"{name}: charlie gets {EXPECTED[name][2]}"
            if "<int:round_id>" in route and not route.startswith(("interviews/", "api/interviews/")):
                # the candidate's own round pages: an invited interviewer sees the round through the console
                interviewer = {part.split()[1] for part in EXPECTED[name][1].split(", ")}
                assert interviewer <= UNRELATED_CANDIDATE_ALLOWED, f"{name}: bob gets {interviewer}"


def test_the_table_sends_anonymous_visitors_to_log_in_or_refuses_them():
    for name, row in EXPECTED.items():
        if name in PUBLIC_PAGES or name in NOT_REQUESTED:
            continue
        statuses = {part.split()[1] for part in row[3].split(", ")}
        allowed = {"401", "403"} if name.startswith("api-") else {"login", "405"}
        assert statuses <= allowed, f"{name}: an anonymous visitor gets {row[3]}"


# The kv-cache question's worked answer (outline) and the model's formulas: never on a candidate's page before
# grading. The reference values themselves are read from a graded report's reference column, below.
WORKED_ANSWER = ("327,680", "327680", "n_layers * n_kv_heads", "2 × 80 × 8 × 128 × 2")
REFERENCE_CELL = re.compile(
    r'<td class="verdict-bad">Missing</td>\s*<td><span class="muted">—</span></td>\s*<td>([^<]+)</td>'
)
CANDIDATE_PAGES = (
    "/",
    "/questions/{slug}/",
    "/questions/{slug}/discussion/",
    "/rounds/",
    "/rounds/{round_id}/",
    "/rounds/{round_id}/clock/",
    "/rounds/{round_id}/depth/",
    "/api/rounds/",
    "/api/rounds/{round_id}/",
    "/api/rounds/{round_id}/report/",
    "/api/rounds/{round_id}/depth/",
    "/api/questions/",
    "/api/questions/{slug}/",
    "/api/questions/{slug}/versions/",
    "/api/questions/{slug}/versions/1/",
)


@pytest.fixture
def reference_values(tmp_path, alice, client) -> list[str]:
    """The reference column of a graded, empty round's report on the question: what grading reveals."""
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    graded = round_start(candidate=alice, question=question, mode="timed")
    round_submit(round_id=graded.pk)
    client.force_login(alice)
    values = REFERENCE_CELL.findall(client.get(f"/rounds/{graded.pk}/report/").content.decode())
    assert "9.83 GB" in values and len(values) >= 6, values
    return values


def leaks(client, alice, values) -> dict[str, list[str]]:
    from questions.models import Question

    round_ = round_start(candidate=alice, question=Question.objects.get(slug=KV_QUESTION), mode="timed")
    client.force_login(alice)
    found = {}
    for page in CANDIDATE_PAGES:
        url = page.format(slug=KV_QUESTION, round_id=round_.pk)
        response = client.get(url, follow=True)
        assert response.status_code in (200, 409), (url, response.status_code)  # 409: no report yet
        text = response.content.decode()
        if shown := [value for value in values if value in text]:
            found[url] = shown
    return found


def test_no_candidate_facing_page_of_an_ungraded_round_shows_the_worked_answer(
    client, alice, reference_values
):
    assert leaks(client, alice, WORKED_ANSWER) == {}


def test_no_candidate_facing_page_of_an_ungraded_round_shows_a_reference_value(
    client, alice, reference_values
):
    assert leaks(client, alice, reference_values) == {}
