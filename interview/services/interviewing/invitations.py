"""Invitations: a named interviewer (accepted at once) or a single-use link whose raw token is shown once."""

import hashlib
import secrets
from datetime import timedelta
from functools import partial

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from config.celery import send_by_name
from interview.models import Invitation
from interview.services.interviewing.access import is_interviewer
from interview.services.interviewing.errors import InterviewError, InterviewRateLimited, InvitationInvalid
from interview.services.invitation_mail import SEND_INVITATION_MAIL_TASK
from interview.services.rate_limits import INVITATION_ACCEPT, INVITATION_LINK, rate_limit_exceeded
from rounds.models import Round

LINK_VALID_FOR = timedelta(hours=24)
LINK_VALID_FOR_MAX = timedelta(days=14)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_create_for_username(*, round_: Round, created_by: User, username: str) -> Invitation:
    """Invite a named interviewer, accepted at once. Inviting the same person twice changes nothing."""
    interviewer = get_user_model().objects.filter(username__iexact=username.strip()).first()
    if interviewer is None or not is_interviewer(interviewer):
        raise InterviewError(f"No interviewer is called {username.strip()!r}.")
    if interviewer.pk == round_.candidate_id:
        raise InterviewError("You cannot interview yourself.")
    with transaction.atomic():
        existing = (
            Invitation.objects.select_for_update()
            .filter(round=round_, interviewer=interviewer, used_at__isnull=False, revoked_at__isnull=True)
            .first()
        )
        if existing is not None:
            return existing
        now = timezone.now()
        invitation = Invitation.objects.create(
            round=round_, interviewer=interviewer, used_at=now, created_by=created_by, created_at=now
        )
    transaction.on_commit(
        partial(send_by_name, SEND_INVITATION_MAIL_TASK, [invitation.pk], ignore_result=True)
    )
    return invitation


def invitation_create_link(
    *, round_: Round, created_by: User, valid_for: timedelta = LINK_VALID_FOR
) -> tuple[Invitation, str]:
    """A single-use link: returns the invitation and its raw token, which is shown once and never stored."""
    if not timedelta(minutes=5) <= valid_for <= LINK_VALID_FOR_MAX:
        raise InterviewError("A link is valid for between 5 minutes and 14 days.")
    if rate_limit_exceeded(limit=INVITATION_LINK, subject=str(created_by.pk)):
        raise InterviewRateLimited(INVITATION_LINK.message)
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    invitation = Invitation.objects.create(
        round=round_,
        token_hash=_token_hash(token),
        expires_at=now + valid_for,
        created_by=created_by,
        created_at=now,
    )
    return invitation, token


LINK_REFUSALS = {
    "accepted": "This invitation link was already used: each link works once. Ask the candidate for another.",
    "expired": "This invitation link has expired. Ask the candidate for a new one.",
    "revoked": "The candidate revoked this invitation link.",
}


def invitation_link_refusal(token: str) -> str:
    """Why a known link can no longer be accepted ('' if it still can, or if no link has this token)."""
    invitation = Invitation.objects.filter(token_hash=_token_hash(token)).first() if token else None
    return LINK_REFUSALS.get(invitation.state(), "") if invitation is not None else ""


def invitation_is_open(token: str) -> bool:
    """Whether a link can still be accepted: known, unused, unrevoked and unexpired."""
    invitation = Invitation.objects.filter(token_hash=_token_hash(token)).first() if token else None
    return invitation is not None and invitation.state() == "open"


def invitation_accept(*, token: str, user: User) -> Invitation:
    """Use a link once: the user becomes the round's interviewer. Anything wrong raises InvitationInvalid;
    more than INVITATION_ACCEPT's tries in its window raise InterviewRateLimited."""
    if not token or not is_interviewer(user):
        raise InvitationInvalid("This invitation link is not valid.")
    if rate_limit_exceeded(limit=INVITATION_ACCEPT, subject=str(user.pk)):
        raise InterviewRateLimited(INVITATION_ACCEPT.message)
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update()
            .select_related("round")
            .filter(token_hash=_token_hash(token))
            .first()
        )
        now = timezone.now()
        if (
            invitation is None
            or invitation.used_at is not None
            or invitation.revoked_at is not None
            or invitation.is_expired(now)
            or invitation.round.candidate_id == user.pk
        ):
            raise InvitationInvalid("This invitation link is not valid.")
        invitation.interviewer = user
        invitation.used_at = now
        invitation.save(update_fields=["interviewer", "used_at"])
    return invitation


def invitation_revoke(*, invitation: Invitation) -> Invitation:
    """The interviewer loses access at once; a link can no longer be used. Revoking twice changes nothing."""
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def invitations_of_round(round_: Round) -> list[Invitation]:
    return list(Invitation.objects.filter(round=round_).select_related("interviewer"))
