"""Interviewing over the API: invitations, notes and the scorecard, and the schema stays valid."""

# ruff: noqa: F811  (fixtures imported from interviewing_fixtures are named as test arguments)

import pytest

from interview.models import Invitation
from rounds.services.rounds import round_submit
from tests.interview.interviewing_fixtures import alice_round, invited_round, kv_question  # noqa: F401

pytestmark = pytest.mark.django_db

DIMENSIONS = ("numbers", "shape", "arithmetic", "depth", "failures", "communication")


def post(client, url: str, body: dict | None = None):
    return client.post(url, body or {}, content_type="application/json")


def test_a_candidate_invites_by_username_and_by_link_over_the_api(client, alice, bob, alice_round):
    client.force_login(alice)
    by_name = post(client, f"/api/rounds/{alice_round.pk}/invitations/", {"username": "bob"})
    assert by_name.status_code == 201
    made = by_name.json()
    assert (made["interviewer"], made["state"], made["link"]) == ("bob", "accepted", "")
    by_link = post(client, f"/api/rounds/{alice_round.pk}/invitations/", {"link": True, "valid_hours": 2})
    assert by_link.status_code == 201 and "/interviews/join/" in by_link.json()["link"]
    token = by_link.json()["link"].rstrip("/").rsplit("/", 1)[1]
    listed = client.get(f"/api/rounds/{alice_round.pk}/invitations/").json()
    assert [(i["kind"], i["state"]) for i in listed] == [("username", "accepted"), ("link", "open")]
    assert token not in str(listed)
    assert post(client, f"/api/rounds/{alice_round.pk}/invitations/", {}).status_code == 400


def test_an_interviewer_accepts_a_link_once_over_the_api(client, alice, bob, alice_round):
    client.force_login(alice)
    link = post(client, f"/api/rounds/{alice_round.pk}/invitations/", {"link": True}).json()["link"]
    token = link.rstrip("/").rsplit("/", 1)[1]
    client.force_login(bob)
    accepted = post(client, "/api/invitations/accept/", {"token": token})
    assert accepted.status_code == 200 and accepted.json()["interviewer"] == "bob"
    assert post(client, "/api/invitations/accept/", {"token": token}).status_code == 404


def test_revoking_over_the_api_ends_access(client, alice, bob, invited_round):
    invitation = Invitation.objects.get(round=invited_round)
    client.force_login(alice)
    response = post(client, f"/api/rounds/{invited_round.pk}/invitations/{invitation.pk}/revoke/")
    assert response.json()["state"] == "revoked"
    client.force_login(bob)
    assert client.get(f"/api/interviews/{invited_round.pk}/notes/").status_code == 404


def test_notes_are_listed_and_created_with_their_stamp(client, bob, invited_round):
    client.force_login(bob)
    created = post(client, f"/api/interviews/{invited_round.pk}/notes/", {"text": "Clear restatement"})
    assert created.status_code == 201
    assert created.json()["phase"] == "intro" and created.json()["t"] < 5
    follow_up = post(client, f"/api/interviews/{invited_round.pk}/notes/", {"follow_up": 1})
    assert follow_up.json()["text"].startswith("Asked follow-up 2")
    notes = client.get(f"/api/interviews/{invited_round.pk}/notes/").json()
    assert [n["author"] for n in notes] == ["bob", "bob"]
    assert post(client, f"/api/interviews/{invited_round.pk}/notes/", {"text": ""}).status_code == 400


def test_the_scorecard_is_saved_released_and_then_seen_by_the_candidate(client, alice, bob, invited_round):
    client.force_login(bob)
    levels = {d: {"level": 2, "note": d} for d in DIMENSIONS}
    url = f"/api/interviews/{invited_round.pk}/scorecard/"
    saved = client.put(url, {"levels": levels, "recommendation": "lean_no"}, content_type="application/json")
    assert saved.status_code == 200 and saved.json()["released_at"] is None
    assert {row["dimension"] for row in saved.json()["compare"]} == set(DIMENSIONS)
    bad = client.put(url, {"levels": {"numbers": {"level": 7}}}, content_type="application/json")
    assert bad.status_code == 400
    assert post(client, f"{url}release/").status_code == 400  # not submitted yet
    client.force_login(alice)
    assert client.get(url).status_code == 404
    round_submit(round_id=invited_round.pk)
    client.force_login(bob)
    assert post(client, f"{url}release/").json()["released_at"]
    client.force_login(alice)
    seen = client.get(url).json()
    assert seen["recommendation"] == "lean_no" and seen["interviewer"] == "bob"


def test_the_openapi_schema_lists_the_interviewing_endpoints(client, alice):
    client.force_login(alice)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for path in (
        "/api/rounds/{round_id}/invitations/",
        "/api/invitations/accept/",
        "/api/interviews/{round_id}/notes/",
        "/api/interviews/{round_id}/scorecard/",
        "/api/interviews/{round_id}/scorecard/release/",
    ):
        assert path in schema["paths"], path


def test_an_accept_body_that_is_not_an_object_is_no_valid_link(client, bob):
    # A JSON list is a body DRF parses: it names no token, so no invitation (it used to fail with a 500).
    client.force_login(bob)
    response = client.post("/api/invitations/accept/", [], content_type="application/json")
    assert response.status_code == 404
