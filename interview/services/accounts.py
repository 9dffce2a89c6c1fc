"""Account workflows: sign-up and role changes."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.db import transaction

from interview.roles import Role, group_for

User = get_user_model()


@transaction.atomic
def user_sign_up(*, username: str, email: str, password: str) -> AbstractUser:
    """Create an account with the candidate role, the default for everyone who signs up."""
    user = User.objects.create_user(username=username, email=email, password=password)
    user.groups.add(group_for(Role.CANDIDATE))
    return user


@transaction.atomic
def user_grant_role(*, user: AbstractUser, role: Role) -> None:
    """Add a role; admins also get the Django admin (staff and superuser flags)."""
    user.groups.add(group_for(role))
    if role is Role.ADMIN:
        user.is_staff = True
        user.is_superuser = True
        user.save(update_fields=["is_staff", "is_superuser"])


@transaction.atomic
def user_revoke_role(*, user: AbstractUser, role: Role) -> None:
    user.groups.remove(group_for(role))
    if role is Role.ADMIN:
        user.is_staff = False
        user.is_superuser = False
        user.save(update_fields=["is_staff", "is_superuser"])
