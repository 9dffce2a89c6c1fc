"""Log-in lockout: failures are counted for 15 minutes per (username, client address), per username from
anywhere (a browser that logged in before passes) and per address over all usernames."""

import random
import time
from unittest import mock

import pytest
from django.core.cache import cache
from django.urls import reverse

from interview.services.login_lockout import (
    DEVICE_COOKIE,
    LOCKOUT_WINDOW_SECONDS,
    login_failure_count,
    login_lockout_lift,
)
from tests.conftest import TEST_PASSWORD

pytestmark = pytest.mark.django_db

USERNAMES = ("alice", "bob", "root", "nobody", *(f"sprayed{n}" for n in range(8)))


@pytest.fixture
def addresses(settings):
    """Fresh documentation-range addresses for this test (Redis keeps counts between runs)."""
    settings.LOGIN_FAILURE_LIMIT = 5
    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 8
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 8
    base = random.randrange(1, 200)
    chosen = [f"198.51.{base}.{n}" for n in range(1, 13)]
    yield chosen
    for username in (*USERNAMES, "ALICE"):
        for address in chosen:
            login_lockout_lift(username=username, address=address)


def log_in(client, username: str, password: str, address: str, **extra):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address, **extra
    )


def fail(client, username: str, times: int, address: str, **extra) -> None:
    for _ in range(times):
        response = log_in(client, username, "wrong-password-123", address, **extra)
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.content.decode()


def test_it_locks_the_account_out_after_the_limit_even_with_the_right_password(client, alice, addresses):
    fail(client, "alice", 5, addresses[0])
    response = log_in(client, "alice", TEST_PASSWORD, addresses[0])
    assert response.status_code == 200
    assert "Too many failed log-ins for this account from your address" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_fewer_failures_than_the_limit_still_let_the_right_password_in_and_clear_the_count(
    client, alice, addresses
):
    fail(client, "alice", 4, addresses[0])
    assert log_in(client, "alice", TEST_PASSWORD, addresses[0]).status_code == 302
    assert login_failure_count(username="alice", address=addresses[0]) == 0


def test_the_lockout_is_per_address(client, alice, addresses):
    fail(client, "alice", 5, addresses[1])
    assert log_in(client, "alice", TEST_PASSWORD, addresses[0]).status_code == 302


def test_the_lockout_is_per_username_and_ignores_case(client, alice, bob, addresses):
    fail(client, "ALICE", 5, addresses[0])
    assert "Too many failed" in log_in(client, "alice", TEST_PASSWORD, addresses[0]).content.decode()
    assert log_in(client, "bob", TEST_PASSWORD, addresses[0]).status_code == 302


def test_unknown_usernames_are_counted_too(client, addresses):
    fail(client, "nobody", 5, addresses[0])
    assert "Too many failed" in log_in(client, "nobody", "anything-at-all", addresses[0]).content.decode()


def test_the_window_is_fifteen_minutes_from_the_first_failure(client, alice, addresses):
    assert LOCKOUT_WINDOW_SECONDS == 15 * 60
    with mock.patch.object(cache, "add", wraps=cache.add) as add:
        fail(client, "alice", 1, addresses[0])
    assert {call.kwargs["timeout"] for call in add.call_args_list} == {LOCKOUT_WINDOW_SECONDS}


def test_the_lockout_ends_when_the_window_does(client, alice, addresses):
    with mock.patch("interview.services.login_lockout.LOCKOUT_WINDOW_SECONDS", 1):
        fail(client, "alice", 5, addresses[0])
        assert "Too many failed" in log_in(client, "alice", TEST_PASSWORD, addresses[0]).content.decode()
        time.sleep(1.3)
        assert log_in(client, "alice", TEST_PASSWORD, addresses[0]).status_code == 302


def test_the_limit_comes_from_settings(client, alice, settings, addresses):
    settings.LOGIN_FAILURE_LIMIT = 2
    fail(client, "alice", 2, addresses[0])
    assert "Too many failed" in log_in(client, "alice", TEST_PASSWORD, addresses[0]).content.decode()


def test_a_cache_outage_does_not_lock_anyone_out(client, alice, addresses):
    with (
        mock.patch.object(cache, "get_many", side_effect=ConnectionError("down")),
        mock.patch.object(cache, "add", side_effect=ConnectionError("down")),
        mock.patch.object(cache, "delete", side_effect=ConnectionError("down")),
    ):
        fail(client, "alice", 6, addresses[0])
        assert log_in(client, "alice", TEST_PASSWORD, addresses[0]).status_code == 302


def test_many_addresses_get_no_more_guesses_than_the_account_limit_but_a_known_browser_still_logs_in(
    client, alice, addresses
):
    from django.test import Client

    known_browser = Client()
    assert log_in(known_browser, "alice", TEST_PASSWORD, addresses[11]).status_code == 302
    assert DEVICE_COOKIE in known_browser.cookies
    known_browser.post(reverse("logout"))
    for address in addresses[:8]:  # one failure from each of 8 addresses: no pair reaches its limit of 5
        fail(client, "alice", 1, address)
    refused = log_in(client, "alice", TEST_PASSWORD, addresses[9])
    assert "only opens from a browser that has logged in to it before" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    assert log_in(known_browser, "alice", TEST_PASSWORD, addresses[10]).status_code == 302


def test_a_password_reset_link_lets_the_owner_in_through_an_account_lock(client, alice, addresses):
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    for address in addresses[:8]:
        fail(client, "alice", 1, address)
    refused = log_in(client, "alice", TEST_PASSWORD, addresses[9])
    assert "only opens from a browser" in refused.content.decode()
    uid = urlsafe_base64_encode(force_bytes(alice.pk))
    link = reverse("password_reset_confirm", args=[uid, default_token_generator.make_token(alice)])
    form_page = client.get(link, REMOTE_ADDR=addresses[9], follow=True)
    new_password = "a-brand-new-passphrase-42"
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": new_password, "new_password2": new_password},
        REMOTE_ADDR=addresses[9],
    )
    assert done.status_code == 302 and client.session["_auth_user_id"] == str(alice.pk)
    client.post(reverse("logout"))
    assert log_in(client, "alice", new_password, addresses[9]).status_code == 302


def test_spraying_many_usernames_from_one_address_is_stopped(client, bob, addresses):
    for number in range(8):  # one guess each at 8 usernames
        fail(client, f"sprayed{number}", 1, addresses[0])
    refused = log_in(client, "bob", TEST_PASSWORD, addresses[0])
    assert "Too many failed log-ins from your address" in refused.content.decode()
    assert log_in(client, "bob", TEST_PASSWORD, addresses[1]).status_code == 302


def test_the_admin_log_in_counts_failures_and_locks_out_like_the_site(client, admin_user, addresses):
    for _ in range(5):
        response = client.post(
            "/admin/login/", {"username": "root", "password": "wrong-password-123"}, REMOTE_ADDR=addresses[0]
        )
        assert response.status_code == 200
    right = {"username": "root", "password": TEST_PASSWORD}
    locked = client.post("/admin/login/", right, REMOTE_ADDR=addresses[0])
    assert "Too many failed log-ins for this account" in locked.content.decode()
    assert "_auth_user_id" not in client.session


def test_behind_a_trusted_proxy_two_clients_are_locked_out_separately(client, alice, addresses, settings):
    from ipaddress import ip_network

    proxy = addresses[0]
    settings.TRUSTED_PROXIES = [ip_network(proxy)]
    fail(client, "alice", 5, proxy, HTTP_X_FORWARDED_FOR=addresses[1])
    locked = log_in(client, "alice", TEST_PASSWORD, proxy, HTTP_X_FORWARDED_FOR=addresses[1])
    assert "Too many failed" in locked.content.decode()
    assert log_in(client, "alice", TEST_PASSWORD, proxy, HTTP_X_FORWARDED_FOR=addresses[2]).status_code == 302


def test_a_forwarded_for_header_from_an_untrusted_address_is_ignored(client, alice, addresses, settings):
    settings.TRUSTED_PROXIES = []
    for number in range(5):  # a different forged address on each guess does not escape the lockout
        fail(client, "alice", 1, addresses[0], HTTP_X_FORWARDED_FOR=f"192.0.2.{number}")
    locked = log_in(client, "alice", TEST_PASSWORD, addresses[0], HTTP_X_FORWARDED_FOR="192.0.2.99")
    assert "Too many failed" in locked.content.decode()
