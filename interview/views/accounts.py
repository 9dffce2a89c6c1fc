from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from config.client_address import client_address
from config.http_types import AuthedRequest
from interview.forms import QueuedPasswordResetForm, SignUpForm
from interview.forms_login import LockoutAuthenticationForm
from interview.services.accounts import user_log_out_everywhere, user_sign_up
from interview.services.login_lockout import login_account_failures_clear, login_device_remember
from interview.services.rate_limits import PASSWORD_RESET, SIGN_UP, rate_limit_exceeded


@require_http_methods(["GET", "POST"])
def sign_up(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and rate_limit_exceeded(limit=SIGN_UP, subject=client_address(request)):
        form.errors.clear()
        form.add_error(None, SIGN_UP.message)
        return render(request, "registration/sign_up.html", {"form": form}, status=429)
    if request.method == "POST" and form.is_valid():
        user = user_sign_up(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Pick a question to practise.")
        response = redirect("home")
        login_device_remember(response=response, username=user.get_username())
        return response
    return render(request, "registration/sign_up.html", {"form": form})


class LoginView(auth_views.LoginView):
    """The log-in page; a success marks this browser as known to the account (it passes the account lock)."""

    authentication_form = LockoutAuthenticationForm

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)
        login_device_remember(response=response, username=form.get_user().get_username())
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Asking for a reset link: limited per address; the mail goes out from the worker."""

    form_class = QueuedPasswordResetForm

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        if rate_limit_exceeded(limit=PASSWORD_RESET, subject=client_address(self.request)):
            form.add_error(None, PASSWORD_RESET.message)
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """A reset link proves the owner: it logs in, lifts the account-wide lock and marks this browser known."""

    post_reset_login = True
    post_reset_login_backend = "django.contrib.auth.backends.ModelBackend"

    def form_valid(self, form) -> HttpResponse:
        response = super().form_valid(form)
        username = form.user.get_username()
        login_account_failures_clear(username=username)
        login_device_remember(response=response, username=username)
        return response


@login_required
@require_POST
def log_out_everywhere(request: AuthedRequest) -> HttpResponse:
    user_log_out_everywhere(user=request.user)
    return redirect("login")
