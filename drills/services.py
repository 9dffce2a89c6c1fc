"""Drill workflows: which step comes next, answering it (graded by the core, scheduled by FSRS), and progress.

A step is drawn from a card's question (its current version) with a seed made of the card and how many times
it was answered, so the same card gives new numbers each time and the same numbers when asked again before it
is answered. The step travels to the client as a signed token (card, version, seed, time issued): the server
redraws it from the token to grade, and the time taken is measured on the server.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import fsrs
from django.core import signing
from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, Q
from django.db.models.functions import TruncDate, TruncWeek
from django.utils import timezone

from config.service_errors import ServiceError
from drills.models import DrillAnswer, DrillCard
from grading.core.drills import DrillError, DrillStep, drill_grade, drill_lines, drill_step
from grading.core.vocabulary import TRACKS
from questions.models import Question, QuestionVersion
from questions.services.grading import question_version_spec
from rounds.models import Round
from rounds.services.reference_guard import questions_with_open_round, round_open_on_question

SESSION_STEPS = 5  # about five minutes
NEW_PER_DAY = 5  # new steps introduced a day (across tracks, or in the track chosen)
FAST_S = 30.0  # a right answer this quick is "easy"
SLOW_S = 120.0  # slower than this, a right answer is only "hard"
MASTERED_STABILITY_DAYS = 21.0  # FSRS stability at which a card counts as mastered
TOKEN_SALT = "drills.step"
TOKEN_MAX_AGE_S = 6 * 3600
DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}
SCHEDULER = fsrs.Scheduler(enable_fuzzing=False)
# FSRS's learning steps bring a missed card back within minutes: one due this soon stays in the session.
SESSION_WINDOW = timedelta(minutes=10)


class DrillRefused(ServiceError):
    """A step that cannot be given or answered, with the sentence a person reads; `round` is the unsubmitted
    round holding the question back, if that is why."""

    status = 409

    def __init__(self, message: str, *, round_: Round | None = None):
        super().__init__(message)
        self.message = message
        self.round = round_

    def extra(self) -> dict[str, Any]:
        return {"round": self.round.pk if self.round else None}


class DrillNotFound(DrillRefused):
    """A step of someone else's card (answered 404, like every other person's object)."""

    status = 404

    def extra(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class DrillOffer:
    """A step ready to show: the card, the version it was drawn from, the step and the token to answer it."""

    card: DrillCard
    version: QuestionVersion
    step: DrillStep
    token: str


@dataclass(frozen=True)
class DrillResult:
    """An answered step: the grader's line, the stored answer and the card's next due time."""

    answer: DrillAnswer
    line: dict[str, Any]
    step: DrillStep
    card: DrillCard


# Which questions are held back: those with an open round (rounds.services.reference_guard).


def _refuse_if_held_back(*, user, question: Question, now: datetime) -> None:
    round_ = round_open_on_question(user=user, question=question, now=now)
    if round_ is not None:
        raise DrillRefused(
            f"You have an unsubmitted round on \u201c{question.title}\u201d (round {round_.pk}): its steps "
            "are held back until you submit it.",
            round_=round_,
        )


# Drawing steps.


_DRILLABLE_KEPT = 4096
_drillable: OrderedDict[tuple[str, int, str], bool] = OrderedDict()


def line_drillable(version: QuestionVersion, line: str) -> bool:
    """Whether `line` of `version` can be drilled (a draw exists that is not the reference's own answer).
    Tried when first asked, once per process: versions are immutable, and a draw costs milliseconds."""
    key = (version.content_hash, version.pk, line)
    drillable = _drillable.get(key)
    if drillable is None:
        try:
            drill_step(question_version_spec(version), line, seed=0)
        except DrillError:
            drillable = False
        else:
            drillable = True
        _drillable[key] = drillable
        if len(_drillable) > _DRILLABLE_KEPT:
            _drillable.popitem(last=False)
    return drillable


def drillable_lines(version: QuestionVersion) -> tuple[str, ...]:
    """The lines of a version that can be drilled, in the order the question asks them."""
    return tuple(
        line for line in drill_lines(question_version_spec(version)) if line_drillable(version, line)
    )


def card_seed(card: DrillCard) -> int:
    """The seed of the card's next draw: new after each answer, the same until then."""
    digest = hashlib.sha256(f"drill:{card.pk}:{card.reviews}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


def _offer(card: DrillCard, *, now: datetime) -> DrillOffer:
    version = card.question.current_version
    if version is None:
        raise DrillRefused("This question is not published.")
    seed = card_seed(card)
    step = drill_step(question_version_spec(version), card.line, seed=seed)
    token = signing.dumps({"c": card.pk, "v": version.pk, "s": seed, "t": now.timestamp()}, salt=TOKEN_SALT)
    return DrillOffer(card=card, version=version, step=step, token=token)


def drill_due(
    *, user, now: datetime, limit: int = SESSION_STEPS, within: timedelta = timedelta(0)
) -> list[DrillCard]:
    """The cards due by `now + within`, most overdue first, without the held-back questions' (one query)."""
    return list(
        DrillCard.objects.filter(user=user, due__lte=now + within, question__current_version__isnull=False)
        .exclude(question__in=questions_with_open_round(user=user, now=now))
        .select_related("question__current_version")
        .order_by("due", "pk")[:limit]
    )


def drill_next_due(*, user, now: datetime) -> datetime | None:
    """When the person's next card falls due (after `now`), or None without cards."""
    card = (
        DrillCard.objects.filter(user=user, due__gt=now, question__current_version__isnull=False)
        .exclude(question__in=questions_with_open_round(user=user, now=now))
        .order_by("due")
        .first()
    )
    return card.due if card else None


def drill_due_words(*, due: datetime, now: datetime) -> str:
    """When a card comes back, in words that agree with the queue: within the session window it is offered
    again in this session (after the new steps), else the day and time."""
    wait = due - now
    if wait <= SESSION_WINDOW:
        minutes = max(1, math.ceil(wait.total_seconds() / 60))
        about = "about a minute" if minutes == 1 else f"about {minutes} minutes"
        return f"It comes back in this session, in {about}."
    local = timezone.localtime(due)
    return f"Next time: {local:%-d %b} at {local:%H:%M}."


def _introduced_today(*, user, now: datetime) -> int:
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return DrillCard.objects.filter(user=user, created_at__gte=start).count()


def _new_card(*, user, now: datetime, track: str | None) -> DrillCard | None:
    """The next step the person has never drilled, from the question drilled least today (so a session
    mixes questions), easier questions first, lines in the order asked."""
    questions = (
        Question.objects.published()
        .exclude(pk__in=questions_with_open_round(user=user, now=now))
        .select_related("current_version")
    )
    if track:
        questions = questions.filter(track=track)
    have = set(DrillCard.objects.filter(user=user).values_list("question_id", "line"))
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    today = Counter(
        DrillCard.objects.filter(user=user, created_at__gte=start).values_list("question_id", flat=True)
    )
    ordered = sorted(questions, key=lambda q: (today[q.pk], DIFFICULTY_ORDER.get(q.difficulty, 9), q.title))
    for question in ordered:
        version = question.current_version
        for line in drill_lines(question_version_spec(version)):
            if (question.pk, line) not in have and line_drillable(version, line):
                return _card_get_or_create(user=user, question=question, line=line, now=now)
    return None


def _card_get_or_create(*, user, question: Question, line: str, now: datetime) -> DrillCard:
    try:
        with transaction.atomic():
            card, _ = DrillCard.objects.get_or_create(
                user=user, question=question, line=line, defaults={"due": now, "created_at": now}
            )
    except IntegrityError:  # the same card made at once by a second tab
        card = DrillCard.objects.get(user=user, question=question, line=line)
    return card


def drill_next(*, user, now: datetime | None = None, track: str | None = None) -> DrillOffer | None:
    """The next step of the daily queue: a due card, else a new one while today's new ones last, or None."""
    now = now or timezone.now()
    if track and track not in TRACKS:
        raise DrillRefused(
            f"There is no track called \u201c{track}\u201d: choose one of {', '.join(TRACKS)}."
        )
    due = drill_due(user=user, now=now, limit=1)
    if due:
        return _offer(due[0], now=now)
    card = None
    if _introduced_today(user=user, now=now) < NEW_PER_DAY:
        card = _new_card(user=user, now=now, track=track)
    if card is None:  # a card missed a minute ago comes back in this session, after the new steps
        soon = drill_due(user=user, now=now, limit=1, within=SESSION_WINDOW)
        card = soon[0] if soon else None
    return None if card is None else _offer(card, now=now)


def drill_next_for_question(
    *, user, question: Question, first: tuple[str, ...] = (), now: datetime | None = None
) -> DrillOffer:
    """A step of one question ("practise this question's steps"): the lines named in `first` (say, the ones a
    report marked wrong) before the others, then whichever of its cards is due soonest."""
    now = now or timezone.now()
    _refuse_if_held_back(user=user, question=question, now=now)
    if question.current_version is None:
        raise DrillRefused("This question is not published.")
    lines = drillable_lines(question.current_version)
    if not lines:
        raise DrillRefused("This question has no step that can be drilled.")
    cards = {card.line: card for card in DrillCard.objects.filter(user=user, question=question)}
    ordered = [line for line in first if line in lines] + [line for line in lines if line not in first]
    just_answered = set(
        DrillAnswer.objects.filter(
            card__in=cards.values(), answered_at__gt=now - timedelta(minutes=1)
        ).values_list("card_id", flat=True)
    )
    for line in ordered:
        card = cards.get(line)
        if card is None:
            return _offer(_card_get_or_create(user=user, question=question, line=line, now=now), now=now)
        if card.pk not in just_answered and (line in first or card.due <= now):
            return _offer(card, now=now)
    resting = [card for card in cards.values() if card.pk not in just_answered] or list(cards.values())
    return _offer(min(resting, key=lambda card: (card.due, card.pk)), now=now)


# Answering.


def drill_rating(*, credit: float, seconds: float) -> fsrs.Rating:
    """The FSRS rating an answer earns: wrong is "again", a partial verdict "hard", a right one by time."""
    if credit < 0.5:
        return fsrs.Rating.Again
    if credit < 1.0:
        return fsrs.Rating.Hard
    if seconds <= FAST_S:
        return fsrs.Rating.Easy
    if seconds <= SLOW_S:
        return fsrs.Rating.Good
    return fsrs.Rating.Hard


def fsrs_card(card: DrillCard) -> fsrs.Card:
    return fsrs.Card(
        card_id=card.pk,
        state=fsrs.State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
    )


def _token_data(token: str) -> dict[str, Any]:
    try:
        return signing.loads(token, salt=TOKEN_SALT, max_age=TOKEN_MAX_AGE_S)
    except signing.SignatureExpired:
        raise DrillRefused("This step is too old to answer: take the next one.") from None
    except signing.BadSignature:
        raise DrillRefused("This step could not be read: take the next one.") from None


def drill_step_for_token(*, user, token: str) -> DrillStep:
    """The step `token` was drawn as, redrawn for its own user (to read an answer as the grade will)."""
    data = _token_data(token)
    card = DrillCard.objects.filter(pk=data["c"], user=user).first()
    version = QuestionVersion.objects.filter(pk=data["v"]).first()
    if card is None or version is None:
        raise DrillNotFound("No such step.")
    return drill_step(question_version_spec(version), card.line, seed=data["s"])


def drill_answer(*, user, token: str, text: str, now: datetime | None = None) -> DrillResult:
    """Grade the answer to the step in `token`, store it, and move the card as FSRS says for its rating.

    The same token answered twice gives the first answer back (a double click or a retried request)."""
    now = now or timezone.now()
    data = _token_data(token)
    with transaction.atomic():
        card = (
            DrillCard.objects.select_for_update()
            .select_related("question")
            .filter(pk=data["c"], user=user)
            .first()
        )
        if card is None:
            raise DrillNotFound("No such step.")
        version = QuestionVersion.objects.get(pk=data["v"])
        step = drill_step(question_version_spec(version), card.line, seed=data["s"])
        earlier = DrillAnswer.objects.filter(card=card, seed=data["s"]).first()
        if earlier is not None:
            return DrillResult(answer=earlier, line=drill_grade(step, earlier.text), step=step, card=card)
        _refuse_if_held_back(user=user, question=card.question, now=now)
        line = drill_grade(step, text)
        seconds = max(0.0, now.timestamp() - float(data["t"]))
        rating = drill_rating(credit=float(line["credit"]), seconds=seconds)
        moved, _log = SCHEDULER.review_card(fsrs_card(card), rating, review_datetime=now)
        card.state = int(moved.state)
        card.step = moved.step
        card.stability = moved.stability
        card.difficulty = moved.difficulty
        card.due = moved.due
        card.last_review = moved.last_review
        card.reviews += 1
        card.save()
        answer = DrillAnswer.objects.create(
            card=card,
            user=user,
            question_version=version,
            seed=data["s"],
            prompt=step.prompt,
            text=text,
            verdict=line["verdict"],
            credit=float(line["credit"]),
            seconds=seconds,
            rating=int(rating),
            answered_at=now,
        )
    return DrillResult(answer=answer, line=line, step=step, card=card)


# Progress.


def drill_progress(*, user, now: datetime | None = None) -> dict[str, Any]:
    """Steps mastered per track, the streak of days with a drill, and accuracy and time per week."""
    now = now or timezone.now()
    tracks = {track: {"track": track, "cards": 0, "mastered": 0} for track in TRACKS}
    for row in (
        DrillCard.objects.filter(user=user)
        .values("question__track")
        .annotate(
            cards=Count("pk"),
            mastered=Count(
                "pk",
                filter=Q(state=int(fsrs.State.Review), stability__gte=MASTERED_STABILITY_DAYS),
            ),
        )
    ):
        tracks[row["question__track"]].update(cards=row["cards"], mastered=row["mastered"])
    weeks = [
        {
            "week": row["week"].date().isoformat() if hasattr(row["week"], "date") else str(row["week"]),
            "answers": row["answers"],
            "accuracy": round(row["right"] / row["answers"], 3),
            "mean_seconds": round(row["seconds"], 1),
        }
        for row in DrillAnswer.objects.filter(user=user, answered_at__gte=now - timedelta(weeks=12))
        .annotate(week=TruncWeek("answered_at"))
        .values("week")
        .annotate(answers=Count("pk"), right=Count("pk", filter=Q(credit__gte=1.0)), seconds=Avg("seconds"))
        .order_by("week")
    ]
    days = set(
        DrillAnswer.objects.filter(user=user, answered_at__gte=now - timedelta(days=400))
        .annotate(day=TruncDate("answered_at"))
        .values_list("day", flat=True)
        .distinct()
    )
    return {
        "tracks": list(tracks.values()),
        "streak_days": drill_streak(days=days, today=now.date()),
        "weeks": weeks,
        "due_now": DrillCard.objects.filter(user=user, due__lte=now).count(),
        "answers": DrillAnswer.objects.filter(user=user).count(),
    }


def drill_streak(*, days: set, today) -> int:
    """Consecutive days with at least one answer, ending today (or yesterday, when today has none yet)."""
    day = today if today in days else today - timedelta(days=1)
    streak = 0
    while day in days:
        streak += 1
        day -= timedelta(days=1)
    return streak
