"""No form input answers 500: a NUL character in any page form is a 400 naming the field (a psycopg DataError
before), shown next to an htmx form and on a page with a way back for a plain one; an invitation link of
99999999999999999999 hours and a publisher `user=abc` are 400s with their messages."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.test_permission_matrix import World

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path, alice, bob, charlie, author, monkeypatch) -> World:
    monkeypatch.setattr("interview.services.discussion.POSTS_PER_MINUTE", 1000)  # a world per test posts one
    return World(tmp_path, alice, bob, charlie, author)


# (who, URL name, its parameters from World.values, the form, sent by htmx)
FORMS = {
    "a comment": ("alice", "comment-post", ("slug",), {"body": "a\x00b", "anchor_key": ""}, True),
    "an edit": ("alice", "comment-edit", ("comment_id",), {"body": "edited\x00"}, False),
    "a report reason": ("charlie", "comment-report", ("comment_id",), {"reason": "spam\x00"}, True),
    "an interviewer note": ("bob", "interview-note-create", ("round_id",), {"text": "\x00"}, True),
    "an invitation username": ("alice", "invitation-create", ("round_id",), {"username": "b\x00ob"}, True),
    "a schedule": (
        "bob",
        "interview-schedule",
        (),
        {"question": "kv-cache", "candidate": "al\x00ice"},
        False,
    ),
    "a draft title": ("ada", "authoring-draft-new", (), {"slug": "nul-draft", "title": "T\x00"}, False),
    "a sample name": (
        "ada",
        "authoring-sample-new",
        ("draft_id",),
        {"name": "s\x00", "numbers": "{}"},
        False,
    ),
    "a drill answer": ("alice", "drill-answer", (), {"token": "t", "answer": "12\x00"}, True),
}


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.replace(" ", "-"))
def test_a_nul_character_in_a_page_form_is_a_400_naming_the_field(world, form):
    who, name, parameters, data, htmx = FORMS[form]
    client = Client()
    client.force_login(world.users[who])
    url = reverse(name, args=[world.values[parameter] for parameter in parameters])
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.post(url, data, headers=headers)
    assert response.status_code == 400
    field = next(key for key, value in data.items() if "\x00" in value)
    text = response.content.decode()
    assert f"“{field}” contains a NUL character" in text
    if htmx:  # plain text that static/js/app.js shows next to the form
        assert response["Content-Type"].startswith("text/plain")
    else:
        assert 'role="alert"' in text and "Back to the form" in text


def test_a_nul_character_in_a_query_is_a_400(client):
    response = client.get("/", {"q": "kv\x00"})
    assert response.status_code == 400 and "contains a NUL character" in response.content.decode()


def test_an_invitation_link_valid_for_more_hours_than_a_date_holds_is_a_400_with_the_range(world):
    client = Client()
    client.force_login(world.users["alice"])
    url = reverse("invitation-create", args=[world.round.pk])
    response = client.post(
        url, {"kind": "link", "hours": "99999999999999999999"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 400
    assert response.content.decode() == "A link is valid for between 5 minutes and 14 days."


def test_a_publisher_form_naming_no_user_id_is_a_400_with_a_message(client, admin_user, author):
    client.force_login(admin_user)
    response = client.post(reverse("authoring-publishers"), {"user": "abc", "grant": "1"})
    assert response.status_code == 400
    assert "Choose an author from the list." in response.content.decode()
