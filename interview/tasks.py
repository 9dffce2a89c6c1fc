"""Celery tasks of the interview app: each calls one service."""

from celery import shared_task
from django.core.mail import send_mail

from interview.forms import SEND_MAIL_TASK
from interview.services.invitation_mail import SEND_INVITATION_MAIL_TASK, invitation_mail_send
from rounds.services.grading import rounds_complete_reviews


@shared_task(name="interview.complete_reviews", ignore_result=True)
def complete_reviews() -> int:
    """Periodic: fold finished replays into the reports of review rounds nobody has looked at since."""
    return rounds_complete_reviews()


@shared_task(name=SEND_INVITATION_MAIL_TASK, ignore_result=True)
def send_invitation_mail(invitation_id: int) -> bool:
    """Mail an interviewer invited by name; sent after the invitation commits."""
    return invitation_mail_send(invitation_id=invitation_id)


@shared_task(name=SEND_MAIL_TASK, ignore_result=True)
def send_mail_now(subject: str, body: str, to: str) -> None:
    """A mail rendered in a request (a password reset), sent here; the SMTP backend has a timeout."""
    send_mail(subject=subject, message=body, from_email=None, recipient_list=[to])
