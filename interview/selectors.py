"""Look-ups that decide who may see what, for the views. Each returns the object or raises Http404, so a round
that is not yours answers exactly like one that does not exist. They only read: a view that shows a round's
state closes an expired round first, explicitly (interview.services.rounds.round_close_if_expired)."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import Http404
from django.shortcuts import get_object_or_404

from interview.models import Question, QuestionVersion, Round
from interview.services.interviewing.access import rounds_interviewed_by


def round_of_candidate(*, user, round_id: int) -> Round:
    """The candidate's own round."""
    return get_object_or_404(
        Round.objects.select_related("question_version__question", "work"), pk=round_id, candidate=user
    )


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
    return round_


def published_question_version(slug: str) -> QuestionVersion | None:
    """The current published version of the question `slug`, or None when there is none."""
    question = Question.objects.filter(slug=slug).select_related("current_version").first()
    return None if question is None else question.current_version


def published_version_or_404(slug: str) -> QuestionVersion:
    """The question's current published version, or 404."""
    version = published_question_version(slug)
    if version is None:
        raise Http404("No such published question.")
    return version
