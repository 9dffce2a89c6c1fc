import pytest

from tests.conftest import TEST_PASSWORD

pytestmark = pytest.mark.django_db


def test_a_script_trades_its_password_for_a_token_and_uses_it(client, alice):
    response = client.post(
        "/api/token/", {"username": "alice", "password": TEST_PASSWORD}, content_type="application/json"
    )
    token = response.json()["token"]
    assert response.status_code == 200 and len(token) == 40
    again = client.post(
        "/api/token/", {"username": "alice", "password": TEST_PASSWORD}, content_type="application/json"
    )
    assert again.json()["token"] == token
    listing = client.get("/api/rounds/", headers={"Authorization": f"Token {token}"})
    assert listing.status_code == 200


def test_a_wrong_password_gets_no_token_and_repeated_failures_lock_the_account(client, alice, settings):
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        refused = client.post(
            "/api/token/", {"username": "alice", "password": "nope"}, content_type="application/json"
        )
        assert refused.status_code == 400 and "token" not in refused.json()
    locked = client.post(
        "/api/token/", {"username": "alice", "password": TEST_PASSWORD}, content_type="application/json"
    )
    assert locked.status_code == 400
    assert (
        "token" not in locked.json() and locked.json()["code"] == "token_refused" and locked.json()["detail"]
    )


def token_for(client, password: str = TEST_PASSWORD) -> str:
    response = client.post(
        "/api/token/", {"username": "alice", "password": password}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()["token"]


def rounds_status(client, token: str) -> int:
    response = client.get("/api/rounds/", headers={"Authorization": f"Token {token}"})
    if response.status_code == 403:  # DRF answers a refused credential with 403 when sessions come first
        assert response.json() == {"detail": "Invalid token.", "code": "authentication_failed", "errors": {}}
    return response.status_code


def test_a_token_stops_working_when_the_password_changes_on_the_page(client, alice):
    token = token_for(client)
    client.force_login(alice)
    new_password = "a-brand-new-passphrase-42"
    changed = client.post(
        "/accounts/password/change/",
        {"old_password": TEST_PASSWORD, "new_password1": new_password, "new_password2": new_password},
    )
    assert changed.status_code == 302
    client.logout()
    assert rounds_status(client, token) == 403
    fresh = token_for(client, new_password)
    assert fresh != token and rounds_status(client, fresh) == 200


def test_a_token_stops_working_when_an_admin_or_a_script_sets_the_password(client, alice):
    token = token_for(client)
    alice.set_password("set-by-an-admin-12345")
    alice.save()
    assert rounds_status(client, token) == 403


def test_logging_out_everywhere_ends_every_session_and_the_token(client, alice):
    from django.test import Client

    token = token_for(client)
    other_browser = Client()
    other_browser.force_login(alice)
    client.force_login(alice)
    assert client.post("/accounts/logout/everywhere/").status_code == 302
    assert other_browser.get("/rounds/").status_code == 302  # sent to the log-in page
    assert client.get("/rounds/").status_code == 302
    assert rounds_status(client, token) == 403


def test_the_token_endpoint_is_documented_in_the_schema(client):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/token/"]["post"]
    assert "stops working when the password changes" in operation["description"]
    assert operation.get("security", [{}]) == [{}]  # no credentials needed
