"""Celery tasks of the interview app: each takes an id and calls one service."""

from celery import shared_task

from interview.services.invitation_mail import invitation_mail_send


@shared_task(name="interview.send_invitation_mail", ignore_result=True)
def send_invitation_mail(invitation_id: int) -> bool:
    return invitation_mail_send(invitation_id=invitation_id)
