"""An interviewer's private notes, stamped with the round's clock and phase, and the follow-ups to ask."""

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from interview.models import InterviewNote
from interview.services.interviewing.errors import InterviewError
from rounds.models import Round, RoundStatus

NOTE_MAX_LENGTH = 4000


def note_add(
    *,
    round_: Round,
    author: User,
    text: str = "",
    follow_up_index: int | None = None,
    now: datetime | None = None,
) -> InterviewNote:
    """A private note stamped with the round's clock and phase; a follow-up index marks it as asked."""
    text = (text or "").strip()
    follow_ups = round_.spec.get("follow_ups", [])
    if follow_up_index is not None:
        if not 0 <= follow_up_index < len(follow_ups):
            raise InterviewError("No such follow-up question.")
        text = text or f"Asked follow-up {follow_up_index + 1}: {follow_ups[follow_up_index]['text']}"
    if not text:
        raise InterviewError("Write the note first.")
    if len(text) > NOTE_MAX_LENGTH:
        raise InterviewError(f"A note is at most {NOTE_MAX_LENGTH} characters.")
    if round_.status == RoundStatus.SCHEDULED:
        raise InterviewError("The candidate has not started this round yet.")
    now = now or timezone.now()
    phase = (round_.current_phase(now) or {}).get("phase", "")
    return InterviewNote.objects.create(
        round=round_,
        author=author,
        t=round(round_.elapsed_s(now), 1),
        phase=phase,
        text=text,
        follow_up_index=follow_up_index,
        created_at=now,
    )


def notes_of_round(round_: Round) -> list[InterviewNote]:
    return list(InterviewNote.objects.filter(round=round_).select_related("author"))


def follow_ups_for_phase(round_: Round, phase: str) -> list[dict[str, Any]]:
    """The question's follow-ups for one phase, each with its index in the whole list (0-based)."""
    return [
        {"index": index, "number": index + 1, "phase": item["phase"], "text": item["text"]}
        for index, item in enumerate(round_.spec.get("follow_ups", []))
        if item.get("phase") == phase
    ]
