"""Look-ups that decide who may see what, for the views. Each returns the object or raises Http404, so a round
that is not yours answers exactly like one that does not exist. They only read: a view that shows a round's
state closes an expired round first, explicitly (rounds.services.rounds.round_close_if_expired)."""

from django.contrib.auth.models import AnonymousUser, User
from django.http import Http404
from django.shortcuts import get_object_or_404

from interview.services.interviewing.access import rounds_interviewed_by
from questions.models import QuestionVersion
from questions.selectors import published_question_version
from rounds.models import ReplayRun, Round


def round_of_candidate(*, user, round_id: int) -> Round:
    """The candidate's own round."""
    return get_object_or_404(
        Round.objects.select_related("question_version__question", "work"), pk=round_id, candidate=user
    )


def run_of_candidate(*, user, round_id: int, run_id: int) -> ReplayRun:
    """A replay run of the candidate's own round."""
    return get_object_or_404(
        ReplayRun.objects.select_related("round"), pk=run_id, round_id=round_id, round__candidate=user
    )


def round_for_interviewer(user: User | AnonymousUser, round_id: int) -> Round:
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


def published_version_or_404(slug: str) -> QuestionVersion:
    """The question's current published version, or 404."""
    version = published_question_version(slug)
    if version is None:
        raise Http404("No such published question.")
    return version
