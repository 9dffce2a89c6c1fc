"""Who may see what: interviewers are those with the permission; an interviewer sees a round only through an
accepted, unrevoked invitation."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import Http404

from interview.models import Round
from interview.services.rounds import round_close_if_expired

INTERVIEW_PERMISSION = "interview.interview_candidates"


def is_interviewer(user: AbstractBaseUser | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.has_perm(INTERVIEW_PERMISSION))


def is_admin(user: AbstractBaseUser | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.is_superuser)


def rounds_interviewed_by(user: AbstractBaseUser) -> QuerySet[Round]:
    """Rounds the user holds an accepted, unrevoked invitation to."""
    return Round.objects.filter(
        invitations__interviewer=user,
        invitations__used_at__isnull=False,
        invitations__revoked_at__isnull=True,
    ).distinct()


def round_for_interviewer(user: AbstractBaseUser | AnonymousUser, round_id: int) -> Round:
    """The round if the user holds an accepted, unrevoked invitation to it; Http404 for everyone else."""
    if not user.is_authenticated:
        raise Http404("No such interview.")
    round_ = (
        rounds_interviewed_by(user)
        .select_related("question_version__question", "work", "candidate")
        .filter(pk=round_id)
        .first()
    )
    if round_ is None:
        raise Http404("No such interview.")
    return round_close_if_expired(round_=round_)
