"""The API's one error shape: every 4xx the schema documents is the `Error` component, and a refusal of each
kind, on real endpoints, answers it with a status its operation documents.

Two walks: every operation is sent an anonymous request, one naming no object, a malformed body, a body
nested too deep and one in a media type it does not read; then a table of the services' own refusals (a stale
save, a locked round, a report before submit, a hidden reference, a rate limit...). Each answer is validated
against the schema's `Error` with no key it does not name, and together they cover every 4xx status the
schema documents anywhere."""

import json

import pytest
from django.core.cache import cache
from rest_framework.exceptions import Throttled
from rest_framework.test import APIClient

from config.service_errors import api_exception_handler
from interview.services.api_tokens import api_token_issue
from interview.services.authoring import publish_grant_set
from interview.services.discussion import POSTS_PER_MINUTE, comment_create
from interview.services.interviewing.invitations import invitation_create_for_username
from rounds.models import ReplayRun, ReplaySide, ReplayStatus
from rounds.services.rounds import round_abandon, round_start, round_submit
from rounds.services.work import work_save
from tests.api.test_api_surface import validate_against
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db

ERROR_REF = {"$ref": "#/components/schemas/Error"}
MISSING = {"round_id": 999_999, "run_id": 999_999, "comment_id": 999_999, "invitation_id": 999_999,
           "number": 999_999, "slug": "no-such-question"}  # fmt: skip

# Refusals an operation makes before it reads the body: alice interviews no round, has no replay run, and
# her open round hides the reference from the grade endpoint.
REFUSED_BEFORE_THE_BODY = [
    ("/interviews/", "not_found"),
    ("{run_id}", "not_found"),
    ("/grade/", "reference_hidden"),
]


@pytest.fixture
def schema(client) -> dict:
    return client.get("/api/schema/", {"format": "json"}).json()


@pytest.fixture
def question(tmp_path):
    cache.clear()  # the discussion's rate limit counts in the cache
    return load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]


def operations(schema: dict):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def documented(schema: dict, path: str, method: str) -> set[str]:
    return set(schema["paths"][path][method]["responses"])


def check(schema: dict, path: str, method: str, response, seen: dict) -> dict:
    """The answer is a documented 4xx of the operation, in the one shape; returns the body."""
    assert 400 <= response.status_code < 500, (method, path, response.status_code, response.content[:300])
    assert str(response.status_code) in documented(schema, path, method), (
        f"{method.upper()} {path} answered an undocumented {response.status_code}: {response.content[:300]}"
    )
    assert response["Content-Type"].startswith("application/json"), (method, path, response["Content-Type"])
    body = response.json()
    validate_against(schema, "Error", body)
    seen.setdefault(str(response.status_code), set()).add(body["code"])
    return body


def test_every_documented_4xx_is_the_error_component(schema):
    errors = [
        (path, method, code, answer)
        for path, method, operation in operations(schema)
        for code, answer in operation["responses"].items()
        if code.startswith("4")
    ]
    assert len(errors) > 80
    wrong = [
        f"{method.upper()} {path} {code}"
        for path, method, code, answer in errors
        if answer.get("content") != {"application/json": {"schema": ERROR_REF}}
        or not answer.get("description")
    ]
    assert wrong == []
    error = schema["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"detail", "code", "errors"}
    assert error["properties"]["errors"]["additionalProperties"]["items"] == {"type": "string"}


def test_every_operation_documents_the_refusals_any_request_can_meet(schema):
    missing = []
    for path, method, operation in operations(schema):
        codes = set(operation["responses"])
        security = operation.get("security") or []
        expected = {"404"} if "{" in path else set()
        if "requestBody" in operation:
            expected |= {"400", "415"}
        if security and {} not in security:
            expected.add("403")
        missing += [f"{method.upper()} {path} {code}" for code in sorted(expected - codes)]
    assert missing == []


def test_each_generic_refusal_on_every_operation_answers_the_one_shape(schema, question, alice, bob, author):
    """Anonymous, no such object, a malformed body, a body nested too deep, a body that is not JSON: every
    operation the request can reach answers a documented 4xx in the one shape."""
    round_ = round_start(candidate=alice, question=question, mode="practice")
    comment = comment_create(question=question, author=bob, body="A first thought.", anchor_key="")
    invitation = invitation_create_for_username(round_=round_, created_by=alice, username="bob")
    known = {**MISSING, "round_id": round_.pk, "slug": KV_QUESTION, "number": 1, "comment_id": comment.pk,
             "invitation_id": invitation.pk}  # fmt: skip
    seen: dict[str, set[str]] = {}
    anonymous, candidate, writer = APIClient(), APIClient(), APIClient()
    candidate.credentials(HTTP_AUTHORIZATION=f"Token {api_token_issue(user=alice)}")
    writer.credentials(HTTP_AUTHORIZATION=f"Token {api_token_issue(user=author)}")
    publish_grant_set(user=author, granted=True)
    tried = {"anonymous": 0, "missing": 0, "malformed": 0, "deep": 0, "media": 0}

    def call(client, method: str, path: str, values: dict, body: str | None = None, kind: str = "json"):
        url = path.format(**{key: values[key] for key in MISSING if "{" + key + "}" in path})
        if body is None:
            return getattr(client, method)(url)
        content_type = "application/json" if kind == "json" else "text/plain"
        return client.generic(method.upper(), url, body, content_type=content_type)

    for path, method, operation in operations(schema):
        security = operation.get("security") or []
        if security and {} not in security:
            body = check(schema, path, method, call(anonymous, method, path, known), seen)
            assert body["code"] == "not_authenticated", (method, path, body)
            tried["anonymous"] += 1
        if "{" in path:
            body = check(schema, path, method, call(candidate, method, path, MISSING), seen)
            # the save reads its (empty) body before it looks for the round
            assert body["code"] == "not_found" or path.endswith("/save/"), (method, path, body)
            tried["missing"] += 1
        if "requestBody" in operation:
            for kind, text, codes in [
                ("malformed", '{"revision": 0, nope', {"parse_error"}),
                ("deep", "[" * 100 + "]" * 100, {"json_too_deep"}),
                ("media", "revision=0", {"unsupported_media_type"}),
            ]:
                client = writer if path.startswith("/api/authoring/") else candidate
                response = call(client, method, path, known, text, "text" if kind == "media" else "json")
                body = check(schema, path, method, response, seen)
                if any(part in path and body["code"] == code for part, code in REFUSED_BEFORE_THE_BODY):
                    continue
                assert body["code"] in codes, (kind, method, path, body)
                tried[kind] += 1
    assert tried["anonymous"] >= 30 and tried["missing"] >= 20, tried
    assert min(tried["malformed"], tried["deep"], tried["media"]) >= 10, tried


def test_each_service_refusal_answers_the_one_shape_with_a_documented_status(
    schema, question, alice, bob, author
):
    seen: dict[str, set[str]] = {}
    api = APIClient()
    api.force_authenticate(alice)

    def post(path: str, url: str, body: object = None, method: str = "post"):
        response = api.generic(method.upper(), url, json.dumps(body or {}), content_type="application/json")
        return check(schema, path, method, response, seen)

    open_round = round_start(candidate=alice, question=question, mode="practice")
    rid = open_round.pk

    # Field validation, top-level and nested, with the fields named.
    body = post("/api/rounds/", "/api/rounds/", {"question": "", "mode": "sometimes"})
    assert body["code"] == "invalid" and set(body["errors"]) == {"question", "mode"}
    assert body["detail"].startswith("Invalid input: ")
    body = post(
        "/api/rounds/{round_id}/save/", f"/api/rounds/{rid}/save/",
        {"revision": 0, "fixes": [{"text": "x", "category": "nonsense"}]},
    )  # fmt: skip
    assert body["code"] == "invalid" and list(body["errors"]) == ["fixes[0].category"]
    # A malformed submission to grade, named by field (grading.core.submission).
    grade_url = f"/api/questions/{KV_QUESTION}/grade/"
    submitted = round_start(candidate=bob, question=question, mode="practice")  # bob's: alice's is open
    round_submit(round_id=submitted.pk)
    bob_api = APIClient()
    bob_api.force_authenticate(bob)
    response = bob_api.post(grade_url, {"numbers": {"kv_conv": 3}}, format="json")
    body = check(schema, "/api/questions/{slug}/grade/", "post", response, seen)
    assert body["errors"] == {"numbers.kv_conv": ["expected text"]}
    # The reference stays hidden while alice's round is open: the round and its page come along.
    body = post("/api/questions/{slug}/grade/", grade_url, {"numbers": {}})
    assert (body["code"], body["round"], body["round_url"]) == ("reference_hidden", rid, f"/rounds/{rid}/")
    # A save from a stale tab, with the revision to base the next one on.
    work_save(round_id=rid, base_revision=0, scratch="first tab")
    body = post("/api/rounds/{round_id}/save/", f"/api/rounds/{rid}/save/", {"revision": 0, "scratch": "old"})
    assert (body["code"], body["current_revision"]) == ("stale_revision", 1)
    # A report and replays before submit.
    body = post("/api/rounds/{round_id}/report/", f"/api/rounds/{rid}/report/", method="get")
    assert body["code"] == "round_not_submitted"
    assert (
        post("/api/rounds/{round_id}/replays/", f"/api/rounds/{rid}/replays/")["code"]
        == "round_not_submitted"
    )
    # Depth answers before the depth phase.
    body = post("/api/rounds/{round_id}/depth/", f"/api/rounds/{rid}/depth/", {"curveballs": {}})
    assert body["code"] == "depth_error"
    # A drill step held back by the open round, naming it.
    response = api.get("/api/drills/next/", {"question": KV_QUESTION})
    body = check(schema, "/api/drills/next/", "get", response, seen)
    assert (body["code"], body["round"]) == ("drill_refused", rid)
    # A round that no longer takes changes: abandoned, then saved to or submitted.
    round_abandon(round_id=rid)
    body = post("/api/rounds/{round_id}/save/", f"/api/rounds/{rid}/save/", {"revision": 1, "scratch": "x"})
    assert body["code"] == "work_locked"
    assert post("/api/rounds/{round_id}/submit/", f"/api/rounds/{rid}/submit/")["code"] == "round_locked"
    # A replay run that cannot be cancelled twice.
    run = ReplayRun.objects.create(
        round=submitted, scenario="peak", side=ReplaySide.CANDIDATE, status=ReplayStatus.DONE, seed=1
    )
    url = f"/api/rounds/{submitted.pk}/replays/{run.pk}/cancel/"
    response = bob_api.post(url)
    body = check(schema, "/api/rounds/{round_id}/replays/{run_id}/cancel/", "post", response, seen)
    assert body["code"] == "replay_error"
    # Not allowed: a candidate exporting the bank.
    body = post("/api/authoring/packs/export/", "/api/authoring/packs/export/", method="get")
    assert body["code"] == "permission_denied"
    # An invitation link that is not valid.
    body = post("/api/invitations/accept/", "/api/invitations/accept/", {"token": "nope"})
    assert body["code"] == "invitation_invalid"
    # A broken file in a pack: refused by file, the rest reported.
    author_api = APIClient()
    author_api.force_authenticate(author)
    files = [{"name": "broken.yaml", "content": "slug: broken\n"}]
    publish_grant_set(user=author, granted=True)  # an author publishes with an admin's grant
    response = author_api.post("/api/authoring/packs/import/", {"files": files}, format="json")
    body = check(schema, "/api/authoring/packs/import/", "post", response, seen)
    assert body["code"] == "pack_refused" and list(body["errors"]) == ["broken.yaml"]
    assert body["created"] == body["updated"] == body["unchanged"] == []
    # Posting too fast in a discussion.
    comments = f"/api/questions/{KV_QUESTION}/comments/"
    for n in range(POSTS_PER_MINUTE):
        assert api.post(comments, {"body": f"Post {n}"}, format="json").status_code == 201
    body = post("/api/questions/{slug}/comments/", comments, {"body": "Too many"})
    assert body["code"] == "rate_limited" and body["detail"].startswith("You are posting too fast")
    # A wrong password gets no token.
    anonymous = APIClient()
    response = anonymous.post("/api/token/", {"username": "alice", "password": "nope"}, format="json")
    assert check(schema, "/api/token/", "post", response, seen)["code"] == "token_refused"
    # Not authenticated, and a URL the API does not have (Django's 404 under /api/, the same shape).
    assert check(schema, "/api/rounds/", "get", anonymous.get("/api/rounds/"), seen)["code"] == (
        "not_authenticated"
    )
    nowhere = api.get("/api/no-such-thing/")
    assert nowhere.status_code == 404 and nowhere.json() == {
        "detail": "Not found.", "code": "not_found", "errors": {}
    }  # fmt: skip

    every_documented = {
        code for _, _, operation in operations(schema) for code in operation["responses"] if code[0] == "4"
    }
    assert {"400", "403", "404", "409", "422", "423", "429"} <= set(seen)
    assert every_documented - set(seen) <= {"415"}, (every_documented, seen)  # 415: the generic walk


def test_a_throttled_request_answers_the_one_shape_with_its_wait():
    response = api_exception_handler(Throttled(wait=12), {})
    assert response is not None and response.status_code == 429
    assert response.data == {
        "detail": "Request was throttled. Expected available in 12 seconds.",
        "code": "throttled",
        "errors": {},
    }
    assert response["Retry-After"] == "12"
