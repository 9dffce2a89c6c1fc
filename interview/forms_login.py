"""The log-in form with a lockout after repeated failures (interview/services/login_lockout.py)."""

from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from interview.services.login_lockout import (
    LOCKOUT_MESSAGE,
    client_address,
    login_failure_record,
    login_failures_clear,
    login_is_locked,
)


class LockoutAuthenticationForm(AuthenticationForm):
    error_messages = {**AuthenticationForm.error_messages, "locked_out": LOCKOUT_MESSAGE}

    def clean(self) -> dict:
        username = self.cleaned_data.get("username") or ""
        address = client_address(self.request)
        if username and login_is_locked(username=username, address=address):
            raise ValidationError(self.error_messages["locked_out"], code="locked_out")
        try:
            cleaned = super().clean()
        except ValidationError as error:
            if username and getattr(error, "code", None) == "invalid_login":
                login_failure_record(username=username, address=address)
            raise
        if username:
            login_failures_clear(username=username, address=address)
        return cleaned
