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
    assert "token" not in locked.json() and locked.json()["error"]
