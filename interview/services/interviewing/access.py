"""Who may see what: interviewers are those with the permission; an interviewer sees a round only through an
accepted, unrevoked invitation (the views' look-up: interview.selectors.round_for_interviewer)."""

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from rounds.models import Round

INTERVIEW_PERMISSION = "questions.interview_candidates"


def is_interviewer(user: User | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.has_perm(INTERVIEW_PERMISSION))


def is_admin(user: User | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.is_superuser)


def rounds_interviewed_by(user: User) -> QuerySet[Round]:
    """Rounds the user holds an accepted, unrevoked invitation to."""
    return Round.objects.filter(
        invitations__interviewer=user,
        invitations__used_at__isnull=False,
        invitations__revoked_at__isnull=True,
    ).distinct()
