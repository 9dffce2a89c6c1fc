"""Look-ups that decide who may see what. Each returns the object or raises Http404, so a round that is not
yours answers exactly like one that does not exist."""

from django.shortcuts import get_object_or_404

from interview.models import Round
from interview.services.rounds import round_close_if_expired


def round_of_candidate(*, user, round_id: int) -> Round:
    """The candidate's own round, graded first if its deadline has passed."""
    round_ = get_object_or_404(
        Round.objects.select_related("question_version__question", "work"), pk=round_id, candidate=user
    )
    return round_close_if_expired(round_=round_)
