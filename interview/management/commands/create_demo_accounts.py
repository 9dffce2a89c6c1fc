"""Create one demo account per role (DEBUG only) and print the names and passwords."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from interview.roles import Role
from interview.services.accounts import user_grant_role, user_sign_up

DEMO_ACCOUNTS: list[tuple[str, Role]] = [
    ("candidate", Role.CANDIDATE),
    ("interviewer", Role.INTERVIEWER),
    ("author", Role.AUTHOR),
    ("admin", Role.ADMIN),
]
DEMO_PASSWORD_SUFFIX = "-sevenbox-demo"


class Command(BaseCommand):
    help = "Create demo accounts for each role (only when DEBUG is on)."

    def handle(self, *args, **options) -> None:
        if not settings.DEBUG:
            raise CommandError("Demo accounts are only created when DEBUG is on.")
        User = get_user_model()
        self.stdout.write("Demo accounts (DEBUG only):")
        for username, role in DEMO_ACCOUNTS:
            password = username + DEMO_PASSWORD_SUFFIX
            user = User.objects.filter(username=username).first()
            if user is None:
                user = user_sign_up(username=username, email=f"{username}@sevenbox.local", password=password)
            else:
                user.set_password(password)
                user.save(update_fields=["password"])
            user_grant_role(user=user, role=role)
            self.stdout.write(f"  {role.value:<12} username {username:<12} password {password}")
