"""Log-in lockout: failures are counted per (username, client address) for 15 minutes."""

import time
from unittest import mock

import pytest
from django.core.cache import cache
from django.urls import reverse

from interview.services.login_lockout import (
    LOCKOUT_WINDOW_SECONDS,
    login_failure_count,
    login_failures_clear,
)
from tests.conftest import TEST_PASSWORD

pytestmark = pytest.mark.django_db

ADDRESSES = ("127.0.0.1", "203.0.113.9")


@pytest.fixture(autouse=True)
def clean_counts(settings):
    settings.LOGIN_FAILURE_LIMIT = 5
    for username in ("alice", "ALICE", "bob", "nobody"):
        for address in ADDRESSES:
            login_failures_clear(username=username, address=address)
    yield
    for username in ("alice", "bob", "nobody"):
        for address in ADDRESSES:
            login_failures_clear(username=username, address=address)


def log_in(client, username: str, password: str, address: str = "127.0.0.1"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def fail(client, username: str, times: int, address: str = "127.0.0.1") -> None:
    for _ in range(times):
        response = log_in(client, username, "wrong-password-123", address)
        assert response.status_code == 200


def test_it_locks_the_account_out_after_the_limit_even_with_the_right_password(client, alice):
    fail(client, "alice", 5)
    response = log_in(client, "alice", TEST_PASSWORD)
    assert response.status_code == 200
    assert "Too many failed log-ins" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_fewer_failures_than_the_limit_still_let_the_right_password_in_and_clear_the_count(client, alice):
    fail(client, "alice", 4)
    assert log_in(client, "alice", TEST_PASSWORD).status_code == 302
    assert login_failure_count(username="alice", address="127.0.0.1") == 0


def test_the_lockout_is_per_address(client, alice):
    fail(client, "alice", 5, address="203.0.113.9")
    assert log_in(client, "alice", TEST_PASSWORD, address="127.0.0.1").status_code == 302


def test_the_lockout_is_per_username_and_ignores_case(client, alice, bob):
    fail(client, "ALICE", 5)
    assert "Too many failed" in log_in(client, "alice", TEST_PASSWORD).content.decode()
    assert log_in(client, "bob", TEST_PASSWORD).status_code == 302


def test_unknown_usernames_are_counted_too(client):
    fail(client, "nobody", 5)
    assert "Too many failed" in log_in(client, "nobody", "anything-at-all").content.decode()


def test_the_window_is_fifteen_minutes_from_the_first_failure(client, alice):
    assert LOCKOUT_WINDOW_SECONDS == 15 * 60
    with mock.patch.object(cache, "add", wraps=cache.add) as add:
        fail(client, "alice", 1)
    assert add.call_args.kwargs["timeout"] == LOCKOUT_WINDOW_SECONDS


def test_the_lockout_ends_when_the_window_does(client, alice):
    with mock.patch("interview.services.login_lockout.LOCKOUT_WINDOW_SECONDS", 1):
        fail(client, "alice", 5)
        assert "Too many failed" in log_in(client, "alice", TEST_PASSWORD).content.decode()
        time.sleep(1.3)
        assert log_in(client, "alice", TEST_PASSWORD).status_code == 302


def test_the_limit_comes_from_settings(client, alice, settings):
    settings.LOGIN_FAILURE_LIMIT = 2
    fail(client, "alice", 2)
    assert "Too many failed" in log_in(client, "alice", TEST_PASSWORD).content.decode()


def test_a_cache_outage_does_not_lock_anyone_out(client, alice):
    with (
        mock.patch.object(cache, "get", side_effect=ConnectionError("down")),
        mock.patch.object(cache, "add", side_effect=ConnectionError("down")),
        mock.patch.object(cache, "delete", side_effect=ConnectionError("down")),
    ):
        fail(client, "alice", 6)
        assert log_in(client, "alice", TEST_PASSWORD).status_code == 302
