"""Sign-up, password reset and invitation links are rate-limited; reset mail goes out from the worker, with a
timeout, so a mail server that accepts and never answers holds no web thread."""

import random
import smtplib
import socket
import threading
import time

import pytest
from django.core import mail
from django.urls import reverse

from interview.services.interviewing.errors import InterviewRateLimited
from interview.services.interviewing.invitations import invitation_create_link
from interview.services.rate_limits import (
    INVITATION_ACCEPT,
    INVITATION_LINK,
    PASSWORD_RESET,
    PASSWORD_RESET_MAIL,
    SIGN_UP,
    rate_limits_lift,
)
from interview.tasks import send_mail_now
from tests.interview.interviewing_fixtures import alice_round, kv_question  # noqa: F401
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def address():
    chosen = f"198.18.{random.randrange(256)}.{random.randrange(1, 255)}"  # fresh: Redis keeps counts
    yield chosen
    rate_limits_lift(subject=chosen)


def test_sign_ups_from_one_address_are_limited(client, address):
    form = {"username": "", "email": "x@example.com", "password1": "a", "password2": "b"}
    for _ in range(SIGN_UP.limit):
        assert client.post(reverse("sign-up"), form, REMOTE_ADDR=address).status_code == 200
    refused = client.post(reverse("sign-up"), form, REMOTE_ADDR=address)
    assert refused.status_code == 429 and SIGN_UP.message in refused.content.decode()
    assert client.post(reverse("sign-up"), form, REMOTE_ADDR="198.18.255.255").status_code == 200


def test_reset_requests_from_one_address_are_limited(client, address):
    for _ in range(PASSWORD_RESET.limit):
        response = client.post(
            reverse("password_reset"), {"email": "nobody@example.com"}, REMOTE_ADDR=address
        )
        assert response.status_code == 302
    refused = client.post(reverse("password_reset"), {"email": "nobody@example.com"}, REMOTE_ADDR=address)
    assert refused.status_code == 429 and PASSWORD_RESET.message in refused.content.decode()


@pytest.mark.celery_worker
def test_reset_mail_is_sent_by_the_worker_at_most_three_times_an_hour_an_address(
    client, alice, celery_worker
):
    rate_limits_lift(subject=alice.email)
    for _ in range(PASSWORD_RESET_MAIL.limit + 1):
        assert client.post(reverse("password_reset"), {"email": alice.email}).status_code == 302
    wait_for(lambda: len(mail.outbox) >= PASSWORD_RESET_MAIL.limit, timeout_s=30, what="the reset mail")
    time.sleep(0.5)  # a fourth would have been queued before the third
    assert len(mail.outbox) == PASSWORD_RESET_MAIL.limit
    assert all("/accounts/reset/" in message.body for message in mail.outbox)
    rate_limits_lift(subject=alice.email)


@pytest.fixture
def silent_mail_server():
    """Accepts connections and never says a word (an SMTP server that hangs)."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted = []

    def accept() -> None:
        while True:
            try:
                accepted.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1], accepted
    server.close()
    for connection in accepted:
        connection.close()


@pytest.mark.celery_worker
def test_a_mail_server_that_never_answers_holds_no_request_and_the_worker_gives_up(
    client, alice, settings, silent_mail_server, celery_worker
):
    port, accepted = silent_mail_server
    backend = "django.core.mail.backends.smtp.EmailBackend"
    settings.MAILERS = {
        "default": {"BACKEND": backend, "OPTIONS": {"host": "127.0.0.1", "port": port, "timeout": 1}}
    }
    rate_limits_lift(subject=alice.email)
    started = time.perf_counter()
    assert client.post(reverse("password_reset"), {"email": alice.email}).status_code == 302
    assert time.perf_counter() - started < 1.0
    wait_for(lambda: accepted, timeout_s=30, what="the worker to connect to the mail server")
    started = time.perf_counter()
    with pytest.raises((smtplib.SMTPServerDisconnected, TimeoutError), match="timed out"):
        send_mail_now("subject", "body", alice.email)
    assert time.perf_counter() - started < 3.0
    rate_limits_lift(subject=alice.email)


def test_invitation_links_a_user_makes_are_limited(alice, alice_round):  # noqa: F811
    rate_limits_lift(subject=str(alice.pk))
    for _ in range(INVITATION_LINK.limit):
        invitation_create_link(round_=alice_round, created_by=alice)
    with pytest.raises(InterviewRateLimited):
        invitation_create_link(round_=alice_round, created_by=alice)
    rate_limits_lift(subject=str(alice.pk))


def test_invitation_links_an_interviewer_tries_are_limited(client, bob):
    rate_limits_lift(subject=str(bob.pk))
    client.force_login(bob)
    for number in range(INVITATION_ACCEPT.limit):
        assert client.post(reverse("interview-join", args=[f"guess-{number}"])).status_code == 404
    refused = client.post(reverse("interview-join", args=["guess-again"]))
    assert refused.status_code == 429 and INVITATION_ACCEPT.message in refused.content.decode()
    rate_limits_lift(subject=str(bob.pk))
