import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from interview.roles import Role, roles_of
from tests.conftest import TEST_PASSWORD
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db


def test_signing_up_makes_a_candidate_and_logs_them_in(client):
    response = client.post(
        reverse("sign-up"),
        {
            "username": "dana",
            "email": "dana@example.com",
            "password1": TEST_PASSWORD,
            "password2": TEST_PASSWORD,
        },
    )
    assert response.status_code == 302
    user = get_user_model().objects.get(username="dana")
    assert roles_of(user) == {Role.CANDIDATE}
    assert client.get(reverse("home")).context["user"].username == "dana"


def test_sign_up_refuses_a_weak_password_and_keeps_the_form(client):
    response = client.post(
        reverse("sign-up"),
        {"username": "dana", "email": "dana@example.com", "password1": "123", "password2": "123"},
    )
    assert response.status_code == 200
    assert "too short" in response.content.decode()
    assert not get_user_model().objects.filter(username="dana").exists()


def test_a_user_logs_in_and_out(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": TEST_PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("home")).context["user"].is_authenticated
    client.post(reverse("logout"))
    assert not client.get(reverse("home")).context["user"].is_authenticated


def test_a_wrong_password_does_not_log_in(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "wrong-password-123"})
    assert response.status_code == 200
    assert not response.context["user"].is_authenticated


def test_password_change_needs_the_old_password(client, alice):
    client.force_login(alice)
    new = "another-long-passphrase-42"
    response = client.post(
        reverse("password_change"),
        {"old_password": TEST_PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(new)


@pytest.mark.celery_worker
def test_password_reset_sends_a_link_by_email(client, alice, celery_worker):
    client.post(reverse("password_reset"), {"email": "alice@example.com"})
    wait_for(lambda: mail.outbox, timeout_s=30, what="the worker to send the mail")
    assert len(mail.outbox) == 1
    assert "/accounts/reset/" in mail.outbox[0].body


def test_roles_are_groups_with_permissions(alice, bob, author, admin_user):
    assert roles_of(bob) == {Role.CANDIDATE, Role.INTERVIEWER}
    assert bob.has_perm("questions.interview_candidates")
    assert not alice.has_perm("questions.interview_candidates")
    assert author.has_perm("questions.author_questions")
    assert not author.has_perm("questions.publish_questions")
    assert admin_user.has_perm("questions.publish_questions")


def test_a_non_admin_cannot_reach_the_admin(client, alice, author):
    for user in (alice, author):
        client.force_login(user)
        response = client.get("/admin/")
        assert response.status_code == 302
        assert "/admin/login/" in response["Location"]


def test_an_admin_reaches_the_admin(client, admin_user):
    client.force_login(admin_user)
    assert client.get("/admin/").status_code == 200


def test_demo_accounts_are_created_for_each_role_in_debug(settings, capsys):
    from django.core.management import call_command

    settings.DEBUG = True
    call_command("create_demo_accounts")
    output = capsys.readouterr().out
    for role in Role:
        assert f"username {role.value}" in output
    interviewer = get_user_model().objects.get(username="interviewer")
    assert Role.INTERVIEWER in roles_of(interviewer)
    assert interviewer.check_password("interviewer-sevenbox-demo")
