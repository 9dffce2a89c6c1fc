"""An operator's unlock: forget the login failures and rate-limit counts that hold a person back."""

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from interview.services.login_lockout import login_failure_count, login_lockout_lift
from interview.services.rate_limits import rate_limits_lift


class Command(BaseCommand):
    help = (
        "Lift a login lockout and the rate limits for USERNAME: the account's failure count, the count of "
        "each --address given (and that address's own), and the sign-up, reset and invitation limits of the "
        "user's id and mail address. The counts live in the cache (Redis in production)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--address", action="append", default=[], help="a client address the user signed in from (repeat)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"]
        addresses: list[str] = options["address"] or [""]
        for address in addresses:
            if address:
                failures = login_failure_count(username=username, address=address)
                self.stdout.write(
                    f"{username} from {address}: {failures} failed sign-ins counted, now forgotten"
                )
            login_lockout_lift(username=username, address=address)
            if address:
                rate_limits_lift(subject=address)
        user = get_user_model().objects.filter(username=username).first()
        if user is not None:
            rate_limits_lift(subject=str(user.pk))
            if user.email:
                rate_limits_lift(subject=user.email)
        known = "" if user is not None else " (no such user; its counts are cleared anyway)"
        self.stdout.write(f"Unlocked {username}{known}.")
