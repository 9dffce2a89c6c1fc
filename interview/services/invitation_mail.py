"""The mail an interviewer gets when a candidate invites them by name (sent by a Celery task after commit)."""

from django.core.mail import send_mail

from interview.models import Invitation

SEND_INVITATION_MAIL_TASK = "interview.send_invitation_mail"  # queued by name: services import no tasks


def invitation_mail_send(*, invitation_id: int) -> bool:
    """Mail the invited interviewer, if the invitation still stands and they gave an address."""
    invitation = (
        Invitation.objects.select_related("interviewer", "created_by", "round__question_version__question")
        .filter(pk=invitation_id, revoked_at__isnull=True, interviewer__isnull=False)
        .first()
    )
    if invitation is None or invitation.interviewer is None or not invitation.interviewer.email:
        return False
    question = invitation.round.question_version.question
    candidate = invitation.created_by.username
    send_mail(
        subject=f"{candidate} invited you to interview a round on Sevenbox",
        message=(
            f"{candidate} invited you to watch and score their round on “{question.title}”.\n\n"
            "It is waiting for you under My interviews when you log in to Sevenbox."
        ),
        from_email=None,
        recipient_list=[invitation.interviewer.email],
    )
    return True
