"""Keeping the reference from a candidate with an unsubmitted round: which round hides it, and what to say.

A round is open while it is unsubmitted (scheduled or running) and its clock, if it has one, has not run
out (`rounds_open`). A question's practice check and grading API stay closed while a round is open on that
question or on one whose lines its check would reveal (`round_hiding_reference`); a drill step stays back
only while its own question has one (`round_open_on_question`, `questions_with_open_round`).
"""

from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone

from config.service_errors import ServiceError
from questions.models import Question
from rounds.models import Round, RoundStatus
from rounds.services.reference_checks import questions_sharing_lines
from rounds.services.rounds import round_close_if_expired

UNSUBMITTED = (RoundStatus.ACTIVE, RoundStatus.SCHEDULED)


def rounds_open(*, user, now: datetime | None = None) -> QuerySet[Round]:
    """The person's unsubmitted rounds (timed, practice or variant, scheduled or running) before their
    deadline; a timed round past it is closed, whether or not anyone has graded it yet."""
    return Round.objects.filter(candidate=user, status__in=UNSUBMITTED).filter(
        Q(deadline__isnull=True) | Q(deadline__gt=now or timezone.now())
    )


def round_open_on_question(*, user, question: Question, now: datetime | None = None) -> Round | None:
    """The person's newest open round on `question`, or None."""
    return (
        rounds_open(user=user, now=now)
        .filter(question_version__question=question)
        .order_by("-started_at")
        .first()
    )


def questions_with_open_round(*, user, now: datetime | None = None) -> QuerySet[Question]:
    """The questions the person has an open round on, as a lazy query (to nest in another, as a subquery)."""
    return Question.objects.filter(versions__rounds__in=rounds_open(user=user, now=now)).distinct()


def round_hiding_reference(*, user, question: Question | None = None) -> Round | None:
    """The person's open round whose lines a check of `question` would reveal: one on the question itself
    first, else one on a question sharing its lines (`questions_sharing_lines`); with no question, any open
    round. A timed round past its deadline is graded first and no longer hides anything."""
    if not user.is_authenticated:
        return None
    now = timezone.now()
    expired = Round.objects.filter(candidate=user, status=RoundStatus.ACTIVE, deadline__lte=now)
    for round_ in expired:
        round_close_if_expired(round_=round_)
    rounds = list(rounds_open(user=user, now=now).select_related("question_version__question"))
    if question is not None and rounds:
        revealed = {question.pk} | {other.pk for other, _ in questions_sharing_lines(question=question)}
        rounds = [r for r in rounds if r.question_version.question_id in revealed]
    return min(
        rounds,
        key=lambda r: (
            r.question_version.question_id != getattr(question, "pk", None),
            -r.started_at.timestamp(),
        ),
        default=None,
    )


def reference_refusal(round_: Round, *, question: Question | None = None) -> dict[str, str | int]:
    """What the check page and the grading API say instead of grading `question`: the round, its link, and
    why (its own question, or one whose lines this check would state)."""
    url = reverse("round-detail", args=[round_.pk])
    kind = "variant " if round_.variant_seed else ""
    why = "Its reference stays hidden until you submit it: no check, no graded numbers."
    if question is not None and round_.question_version.question_id != question.pk:
        why = (
            "This question shares lines with it, so checking here would state that round's answers: the "
            "check waits until you submit it."
        )
    message = (
        f"You have an unsubmitted {round_.get_mode_display().lower()} {kind}round on "
        f"{round_.question.title!r} (round {round_.pk}, started {round_.started_at:%Y-%m-%d %H:%M} UTC). "
        + why
    )
    return {"detail": message, "round": round_.pk, "round_url": url}


class ReferenceHidden(ServiceError):
    """A check or grade refused while an unsubmitted round keeps the reference hidden: the message, the round
    and its page (`reference_refusal`)."""

    status = 409

    def __init__(self, round_: Round, *, question: Question | None = None) -> None:
        self.refusal = reference_refusal(round_, question=question)
        super().__init__(self.refusal["detail"])

    def extra(self) -> dict[str, Any]:
        return {"round": self.refusal["round"], "round_url": self.refusal["round_url"]}
