"""The log-in forms (site, admin, API token) with the lockout of interview/services/login_lockout.py."""

from typing import Any

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from config.client_address import client_address
from interview.services.login_lockout import (
    LOCK_MESSAGES,
    login_device_is_known,
    login_failure_record,
    login_failures_clear,
    login_lock,
)


class LockoutMixin(AuthenticationForm):
    """The lockout, mixed in before the authentication form it guards."""

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        address = client_address(self.request)
        if username:
            known = login_device_is_known(request=self.request, username=username)
            lock = login_lock(username=username, address=address, known_device=known)
            if lock is not None:
                raise ValidationError(LOCK_MESSAGES[lock], code=lock.value)
        try:
            cleaned = super().clean()
        except ValidationError as error:
            if username and getattr(error, "code", None) == "invalid_login":
                login_failure_record(username=username, address=address)
            raise
        if username:
            login_failures_clear(username=username, address=address)
        return cleaned


class LockoutAuthenticationForm(LockoutMixin, AuthenticationForm):
    pass


class AdminLockoutAuthenticationForm(LockoutMixin, AdminAuthenticationForm):
    pass
