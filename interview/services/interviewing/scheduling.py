"""Rounds an interviewer sets up for a candidate, whose clock starts when the candidate begins."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from interview.models import Invitation
from interview.services.interviewing.access import is_interviewer
from interview.services.interviewing.errors import InterviewError
from questions.models import Question
from rounds.models import Round, RoundMode, RoundStatus
from rounds.services.rounds import round_start


def round_schedule_for_candidate(
    *,
    interviewer: User,
    question: Question,
    candidate_username: str,
    mode: str = RoundMode.TIMED,
    variant: bool = False,
) -> Round:
    """A round on `question` for a named candidate, with the interviewer invited; its clock waits for them."""
    if not is_interviewer(interviewer):
        raise InterviewError("Only interviewers can schedule rounds.")
    candidate = get_user_model().objects.filter(username__iexact=candidate_username.strip()).first()
    if candidate is None:
        raise InterviewError(f"No candidate is called {candidate_username.strip()!r}.")
    if candidate.pk == interviewer.pk:
        raise InterviewError("You cannot interview yourself.")
    with transaction.atomic():
        round_ = round_start(candidate=candidate, question=question, mode=mode, variant=variant)
        round_.status = RoundStatus.SCHEDULED
        round_.deadline = None
        round_.save(update_fields=["status", "deadline"])
        now = timezone.now()
        Invitation.objects.create(
            round=round_, interviewer=interviewer, used_at=now, created_by=interviewer, created_at=now
        )
    return round_


def round_begin_scheduled(*, round_id: int, candidate: User) -> Round:
    """The candidate starts a scheduled round: the clock (and a timed round's deadline) starts now. Someone
    else's round raises Round.DoesNotExist (the view answers 404)."""
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update()
            .select_related("question_version")
            .get(pk=round_id, candidate=candidate)
        )
        if round_.status != RoundStatus.SCHEDULED:
            return round_
        now = timezone.now()
        plan_minutes = sum(float(phase["minutes"]) for phase in round_.spec["plan"])
        round_.status = RoundStatus.ACTIVE
        round_.started_at = now
        round_.deadline = (
            Round.timed_deadline(now, max(plan_minutes, 45.0)) if round_.mode == RoundMode.TIMED else None
        )
        round_.save(update_fields=["status", "started_at", "deadline"])
    return round_
