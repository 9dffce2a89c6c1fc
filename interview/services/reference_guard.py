"""Keeping the reference from a candidate with an unsubmitted round: which round hides it, and what to say."""

from django.urls import reverse

from interview.models import Question, Round, RoundStatus
from interview.services.rounds import round_close_if_expired

UNSUBMITTED = (RoundStatus.ACTIVE, RoundStatus.SCHEDULED)


def round_hiding_reference(*, user, question: Question | None = None) -> Round | None:
    """The person's unsubmitted round (timed, practice or variant, scheduled or running) that closes the
    answer keys, one on `question` first: while any round is open no question's check grades, since
    questions share quantities (another question's check would state this one's answers). A timed round past
    its deadline is graded first and no longer hides anything."""
    if not user.is_authenticated:
        return None
    rounds = Round.objects.filter(candidate=user, status__in=UNSUBMITTED).select_related(
        "question_version__question"
    )
    ordered = sorted(
        rounds,
        key=lambda r: (
            r.question_version.question_id != getattr(question, "pk", None),
            -r.started_at.timestamp(),
        ),
    )
    for round_ in ordered:
        if round_close_if_expired(round_=round_).status in UNSUBMITTED:
            return round_
    return None


def reference_refusal(round_: Round) -> dict[str, str | int]:
    """What the check page and the grading API say instead of grading: the round, its link, and why."""
    url = reverse("round-detail", args=[round_.pk])
    kind = "variant " if round_.variant_seed else ""
    message = (
        f"You have an unsubmitted {round_.get_mode_display().lower()} {kind}round on "
        f"{round_.question.title!r} (round {round_.pk}, started {round_.started_at:%Y-%m-%d %H:%M} UTC). "
        f"References stay hidden until you submit it: no check, no graded numbers."
    )
    return {"detail": message, "round": round_.pk, "round_url": url}
