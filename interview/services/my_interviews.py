"""An interviewer's rounds by stage, for "My interviews" and the interviewer's home page."""

from dataclasses import dataclass

from django.contrib.auth.models import User

from interview.services.interviewing.access import rounds_interviewed_by
from rounds.models import Round, RoundStatus

MY_INTERVIEWS_LIMIT = 200


@dataclass(frozen=True)
class InterviewStage:
    key: str
    title: str
    empty: str
    rounds: list[Round]


def interview_stage(round_: Round) -> str:
    """upcoming (scheduled, clock not started), live, to_score (finished, no released scorecard), scored."""
    if round_.status == RoundStatus.SCHEDULED:
        return "upcoming"
    if round_.status == RoundStatus.ACTIVE:
        return "live"
    scorecard = getattr(round_, "scorecard", None)
    return "scored" if scorecard is not None and scorecard.is_released else "to_score"


STAGES = (
    ("upcoming", "Upcoming", "Nothing scheduled."),
    ("live", "Live now", "No round is live."),
    ("to_score", "To score", "Nothing waits for your scores."),
    ("scored", "Scored", "No released scorecard yet."),
)


def interviews_by_stage(*, user: User) -> list[InterviewStage]:
    rounds = list(
        rounds_interviewed_by(user)
        .select_related("question_version__question", "candidate", "scorecard")
        .order_by("-started_at")[:MY_INTERVIEWS_LIMIT]
    )
    return [
        InterviewStage(key, title, empty, [r for r in rounds if interview_stage(r) == key])
        for key, title, empty in STAGES
    ]
