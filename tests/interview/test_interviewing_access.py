"""Every interviewer page and endpoint answers 404 to anyone without an accepted, unrevoked invitation.

The walk covers every URL pattern of interview/urls_interviewer.py, the pairing actions in
interview/urls_rounds.py (a round's URLs served by the interviewer views) and interview/api/interviewer.py,
with every method the view serves, as: charlie (no role), charlie the uninvited interviewer, bob after his
invitation was revoked, and bob holding only an expired link."""

# ruff: noqa: F811  (fixtures imported from interviewing_fixtures are named as test arguments)

from datetime import timedelta

import pytest
from django.urls import URLPattern
from django.utils import timezone

from interview.api.interviewer import urlpatterns as api_urlpatterns
from interview.models import Invitation
from interview.roles import Role
from interview.services.accounts import user_grant_role
from interview.services.interviewing.invitations import (
    invitation_accept,
    invitation_create_link,
    invitation_revoke,
)
from interview.services.interviewing.notes import note_add
from interview.services.interviewing.scorecards import scorecard_save
from interview.urls_interviewer import interviewer_urlpatterns
from interview.urls_rounds import round_urlpatterns
from interview.views import interviewer
from rounds.models import Round
from rounds.services.rounds import round_submit
from tests.interview.interviewing_fixtures import alice_round, invited_round, kv_question  # noqa: F401

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
PAGE_PATTERNS = interviewer_urlpatterns + [
    p for p in round_urlpatterns if p.callback.__module__ == interviewer.__name__
]


def view_methods(pattern: URLPattern) -> list[str]:
    """The methods a view serves: an APIView's handlers, or every method for a function view (the walk
    then expects 404 or 405)."""
    view_class = getattr(pattern.callback, "view_class", None)
    if view_class is not None:
        return [method for method in METHODS if hasattr(view_class, method)]
    return ["get", "post"]


def url_for(pattern: URLPattern, prefix: str, kwargs: dict) -> str:
    route = str(pattern.pattern)
    for name, value in kwargs.items():
        for converter in ("int", "str"):
            route = route.replace(f"<{converter}:{name}>", str(value))
    assert "<" not in route, route
    return prefix + route


def walk(client, *, round_: Round, invitation: Invitation, token: str, username: str, round_only: bool):
    """Request every interviewer URL with every method; returns {"METHOD url": status} for the non-404s."""
    kwargs = {"round_id": round_.pk, "invitation_id": invitation.pk, "token": token, "username": username}
    answers = {}
    patterns = [(p, "/") for p in PAGE_PATTERNS] + [(p, "/api/") for p in api_urlpatterns]
    for pattern, prefix in patterns:
        route = str(pattern.pattern)
        if round_only and "round_id" not in route:
            continue
        url = url_for(pattern, prefix, kwargs)
        served = []
        for method in view_methods(pattern):
            body = {"token": token, "text": "x", "username": "bob", "levels": {}, "follow_up": 1}
            if prefix == "/api/":
                response = getattr(client, method)(url, body, content_type="application/json")
            else:
                response = getattr(client, method)(url, body) if method == "post" else client.get(url)
            if response.status_code != 405:
                served.append(method)
            if response.status_code not in (404, 405):
                answers[f"{method.upper()} {url}"] = response.status_code
        assert served, f"no method of {url} answered"
    return answers


@pytest.fixture
def used_token(alice_round, alice, make_user) -> str:
    """A link someone else already used: worthless to anyone who tries it now."""
    erin = make_user("erin", Role.INTERVIEWER)
    _, token = invitation_create_link(round_=alice_round, created_by=alice)
    invitation_accept(token=token, user=erin)
    return token


@pytest.fixture
def busy_round(invited_round, bob):
    """A round with something behind every door: a note, a scorecard, a finished clock."""
    note_add(round_=invited_round, author=bob, text="private")
    scorecard_save(round_=invited_round, interviewer=bob, levels={"numbers": {"level": 3}})
    round_submit(round_id=invited_round.pk)
    invited_round.refresh_from_db()
    return invited_round


def test_the_walk_covers_every_pattern():
    assert len(PAGE_PATTERNS) >= 12 and len(api_urlpatterns) >= 6


def test_charlie_gets_404_on_every_interviewer_page_and_endpoint(client, charlie, busy_round, used_token):
    client.force_login(charlie)
    invitation = Invitation.objects.get(round=busy_round, interviewer__username="bob")
    answers = walk(
        client, round_=busy_round, invitation=invitation, token=used_token, username="bob", round_only=False
    )
    assert answers == {}


def test_an_uninvited_interviewer_opens_no_interviewer_page_or_endpoint(
    client, charlie, busy_round, used_token
):
    user_grant_role(user=charlie, role=Role.INTERVIEWER)
    client.force_login(charlie)
    invitation = Invitation.objects.get(round=busy_round, interviewer__username="bob")
    answers = walk(
        client, round_=busy_round, invitation=invitation, token=used_token, username="bob", round_only=False
    )
    # /interviews/ is charlie's own (empty) list and schedule is his own action; the used link says it was
    # used (410) and opens nothing; everything else answers 404.
    join = f"/interviews/join/{used_token}/"
    assert answers == {
        "GET /interviews/": 200,
        "POST /interviews/schedule/": 302,
        f"GET {join}": 410,
        f"POST {join}": 410,
    }


def test_a_revoked_interviewer_gets_404_on_every_page_of_the_round(client, bob, busy_round, used_token):
    invitation = Invitation.objects.get(round=busy_round, interviewer=bob)
    invitation_revoke(invitation=invitation)
    client.force_login(bob)
    answers = walk(
        client, round_=busy_round, invitation=invitation, token=used_token, username="bob", round_only=True
    )
    assert answers == {}


def test_an_expired_link_opens_nothing(client, bob, alice, busy_round):
    Invitation.objects.filter(round=busy_round, interviewer=bob).update(revoked_at=timezone.now())
    invitation, token = invitation_create_link(round_=busy_round, created_by=alice)
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    client.force_login(bob)
    for answer in (client.get(f"/interviews/join/{token}/"), client.post(f"/interviews/join/{token}/")):
        assert answer.status_code == 410 and "This invitation link has expired" in answer.content.decode()
    api = client.post("/api/invitations/accept/", {"token": token}, content_type="application/json")
    assert api.status_code == 404
    answers = walk(
        client, round_=busy_round, invitation=invitation, token=token, username="bob", round_only=True
    )
    assert answers == {}


def test_anonymous_visitors_are_sent_to_log_in_or_refused(client, invited_round):
    assert client.get(f"/interviews/{invited_round.pk}/")["Location"].startswith("/accounts/login/")
    assert client.get(f"/api/interviews/{invited_round.pk}/notes/").status_code in (401, 403)
