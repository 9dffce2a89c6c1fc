"""Account workflows: sign-up, role changes, logging out everywhere."""

from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone

from interview.roles import Role, group_for
from interview.services.api_tokens import api_tokens_revoke


@transaction.atomic
def user_sign_up(*, username: str, email: str, password: str) -> User:
    """Create an account with the candidate role, the default for everyone who signs up."""
    user = User.objects.create_user(username=username, email=email, password=password)
    user.groups.add(group_for(Role.CANDIDATE))
    return user


@transaction.atomic
def user_grant_role(*, user: User, role: Role) -> None:
    """Add a role; admins also get the Django admin (staff and superuser flags)."""
    user.groups.add(group_for(role))
    if role is Role.ADMIN:
        user.is_staff = True
        user.is_superuser = True
        user.save(update_fields=["is_staff", "is_superuser"])


def user_log_out_everywhere(*, user: User) -> int:
    """Ends every session of the user (each browser, this one too) and deletes the API token; returns the
    number of sessions ended."""
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.get_decoded().get(SESSION_KEY) == str(user.pk):
            session.delete()
            ended += 1
    api_tokens_revoke(user=user)
    return ended
