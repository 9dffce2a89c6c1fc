from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.template import loader

from config.celery import send_by_name
from interview.services.rate_limits import PASSWORD_RESET_MAIL, rate_limit_exceeded

SEND_MAIL_TASK = "interview.send_mail"  # queued by name: forms import no tasks


class SignUpForm(UserCreationForm):
    email = forms.EmailField(required=True, help_text="For password resets only.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


class QueuedPasswordResetForm(PasswordResetForm):
    """Django's reset form, but the mail is rendered here and sent by the worker: a mail server that accepts
    and never answers cannot hold a web thread. At most PASSWORD_RESET_MAIL mails an address an hour."""

    def send_mail(self, subject_template_name, email_template_name, context, from_email, to_email,
                  html_email_template_name=None) -> None:  # fmt: skip
        if rate_limit_exceeded(limit=PASSWORD_RESET_MAIL, subject=to_email):
            return
        subject = "".join(loader.render_to_string(subject_template_name, context).splitlines())
        body = loader.render_to_string(email_template_name, context)
        send_by_name(SEND_MAIL_TASK, [subject, body, to_email], ignore_result=True)
