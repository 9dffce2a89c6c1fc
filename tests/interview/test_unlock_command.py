"""`manage.py unlock USERNAME --address A`: an operator lifts a login lockout and the rate limits that hold a
person back, on the same cache the site counts in."""

import io

import pytest
from django.conf import settings
from django.core.management import call_command

from interview.services.login_lockout import login_failure_record, login_is_locked
from interview.services.rate_limits import PASSWORD_RESET, rate_limit_exceeded


@pytest.mark.django_db
def test_unlock_lifts_a_lockout_and_a_password_reset_limit_and_says_how_many_failures_it_forgot(alice):
    address = "203.0.113.7"
    failures = settings.LOGIN_FAILURE_LIMIT
    for _ in range(failures):
        login_failure_record(username="alice", address=address)
    assert login_is_locked(username="alice", address=address)
    for _ in range(PASSWORD_RESET.limit + 1):
        exceeded = rate_limit_exceeded(limit=PASSWORD_RESET, subject=alice.email)
    assert exceeded

    out = io.StringIO()
    call_command("unlock", "alice", "--address", address, stdout=out)

    assert f"alice from {address}: {failures} failed sign-ins counted, now forgotten" in out.getvalue()
    assert "Unlocked alice." in out.getvalue()
    assert not login_is_locked(username="alice", address=address)
    assert not rate_limit_exceeded(limit=PASSWORD_RESET, subject=alice.email)


@pytest.mark.django_db
def test_unlock_of_an_unknown_username_says_so():
    out = io.StringIO()
    call_command("unlock", "nobody-here", stdout=out)
    assert "Unlocked nobody-here (no such user; its counts are cleared anyway)." in out.getvalue()
