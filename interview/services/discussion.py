"""Discussion workflows: post, edit, delete, vote, report, moderate; rate limits and the spoiler guard."""

import math
import time
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F, Prefetch, QuerySet
from django.utils import timezone

from config.service_errors import ServiceError
from interview.markdown import markdown_render
from interview.models import Comment, Report, ThreadLock, Vote
from interview.models.discussion import AnchorKind
from interview.question_visibility import asked_line_view
from interview.services.cache_counter import cache_count
from questions.models import Question
from rounds.models import Round, RoundStatus

COMMENT_MAX_LENGTH = 4000
REPORT_REASON_MAX_LENGTH = 500
EDIT_WINDOW = timedelta(minutes=15)
POSTS_PER_MINUTE = 5
POSTS_PER_DAY = 50


class DiscussionError(ServiceError):
    """A refused discussion action, with a message fit to show the person who tried it."""

    status = 400


class ThreadLocked(DiscussionError):
    status = 403


class DiscussionFolded(DiscussionError):
    """A vote on a thread still folded for the person (they have not submitted a round on the question)."""

    status = 403


class RateLimited(DiscussionError):
    status = 429

    def __init__(self, wait_s: int) -> None:
        self.wait_s = wait_s
        super().__init__(f"You are posting too fast: wait {wait_s} seconds.")


@dataclass(frozen=True)
class Anchor:
    kind: str
    value: str
    title: str = field(default="", compare=False)  # what people read: "Warm pool size", not warm_pool

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.value}" if self.kind else ""

    @property
    def label(self) -> str:
        return f"on {self.title or self.value}" if self.kind else "The whole question"


def anchor_choices(*, question: Question) -> list[Anchor]:
    """The plan steps and asked quantities of the current version: what a comment may be anchored to."""
    spec = question.current_version.spec if question.current_version is not None else {}
    phases = [
        Anchor(AnchorKind.PHASE, phase["phase"], phase["phase"].capitalize())
        for phase in spec.get("plan", [])
    ]
    quantities = [
        Anchor(AnchorKind.QUANTITY, line["name"], asked_line_view(spec, line)["label"])
        for line in spec.get("asked", [])
    ]
    return phases + quantities


def anchor_parse(*, question: Question, key: str) -> Anchor | None:
    """'phase:numbers' or 'quantity:kv_bytes_per_token' to an Anchor of this question; '' is no anchor."""
    if not key:
        return Anchor("", "")
    return next((anchor for anchor in anchor_choices(question=question) if anchor.key == key), None)


def thread_comments(*, question: Question, anchor: Anchor, sort: str) -> QuerySet[Comment]:
    """Top-level comments, newest or most voted first, with authors and replies fetched in one more query."""
    top = Comment.objects.filter(question=question, parent=None).select_related("author")
    if anchor.kind:
        top = top.filter(anchor_kind=anchor.kind, anchor_value=anchor.value)
    ordering = ("-vote_count", "-created_at", "-id") if sort == "top" else ("-created_at", "-id")
    replies = Comment.objects.select_related("author").order_by("created_at", "id")
    return top.order_by(*ordering).prefetch_related(Prefetch("replies", queryset=replies))


def comments_voted_by(*, user, comments: list[Comment]) -> set[int]:
    """Ids among these comments and their replies that the person voted for, in one query."""
    ids = [c.pk for c in comments] + [r.pk for c in comments for r in c.replies.all()]
    if not user.is_authenticated or not ids:
        return set()
    return set(Vote.objects.filter(user=user, comment_id__in=ids).values_list("comment_id", flat=True))


def thread_is_locked(*, question: Question) -> bool:
    return ThreadLock.objects.filter(question=question).exists()


def discussion_is_unlocked_for(*, user, question: Question) -> bool:
    """The spoiler guard: the thread opens by itself once the person has submitted a round on the question."""
    if not user.is_authenticated:
        return False
    return Round.objects.filter(
        candidate=user, question_version__question=question, status=RoundStatus.SUBMITTED
    ).exists()


def _rate_limit_check(*, user) -> None:
    """Fixed windows counted atomically in the cache (Redis in CI and production): posts a minute, a day."""
    now = time.time()
    for length, limit in ((60, POSTS_PER_MINUTE), (86400, POSTS_PER_DAY)):
        bucket = int(now // length)
        key = f"discussion:posts:{user.pk}:{length}:{bucket}"
        count = cache_count(key, window_s=length + 5, what="discussion rate limit")
        if count > limit:
            raise RateLimited(max(1, math.ceil((bucket + 1) * length - now)))


def _clean_body(body: str) -> str:
    body = (body or "").strip()
    if not body:
        raise DiscussionError("Write something first.")
    if len(body) > COMMENT_MAX_LENGTH:
        raise DiscussionError(f"A comment can be at most {COMMENT_MAX_LENGTH} characters ({len(body)} now).")
    return body


def comment_create(
    *, question: Question, author, body: str, parent: Comment | None = None, anchor_key: str = ""
) -> Comment:
    body = _clean_body(body)
    if thread_is_locked(question=question):
        raise ThreadLocked("This discussion is locked: no new comments.")
    if parent is not None:
        if parent.question_id != question.pk or parent.deleted or parent.hidden:
            raise DiscussionError("You cannot reply to that comment.")
        parent = parent if parent.parent_id is None else parent.parent  # one level of nesting
    anchor = anchor_parse(question=question, key=anchor_key) if parent is None else Anchor("", "")
    if anchor is None:
        raise DiscussionError("Pick a step of the plan or a quantity of this question.")
    _rate_limit_check(user=author)
    return Comment.objects.create(
        question=question,
        author=author,
        parent=parent,
        body_markdown=body,
        body_html=markdown_render(body),
        anchor_kind=anchor.kind,
        anchor_value=anchor.value,
    )


def comment_can_edit(*, comment: Comment, user) -> bool:
    return (
        comment.author_id == user.pk
        and not comment.deleted
        and not comment.hidden
        and timezone.now() - comment.created_at <= EDIT_WINDOW
    )


def comment_edit(*, comment: Comment, body: str) -> Comment:
    """Edit within the window; the caller has checked the editor is the author."""
    if not comment_can_edit(comment=comment, user=comment.author):
        raise DiscussionError(
            f"Comments can be edited for {EDIT_WINDOW.seconds // 60} minutes after posting."
        )
    if thread_is_locked(question=comment.question):
        raise ThreadLocked("This discussion is locked.")
    comment.body_markdown = _clean_body(body)
    comment.body_html = markdown_render(comment.body_markdown)
    comment.edited_at = timezone.now()
    comment.save(update_fields=["body_markdown", "body_html", "edited_at"])
    return comment


@transaction.atomic
def comment_delete(*, comment: Comment) -> Comment | None:
    """Gone when it has no replies; otherwise kept as a 'deleted' mark so the replies still make sense."""
    if comment.replies.exists():
        comment.deleted = True
        comment.body_markdown = ""
        comment.body_html = ""
        comment.save(update_fields=["deleted", "body_markdown", "body_html"])
        return comment
    parent_id = comment.parent_id
    comment.delete()
    if parent_id:  # a deleted parent whose last reply goes leaves nothing worth keeping
        Comment.objects.filter(pk=parent_id, deleted=True, replies__isnull=True).delete()
    return None


def comment_vote(*, comment: Comment, user, up: bool | None = None) -> tuple[bool, int]:
    """Vote, unvote (up=False) or toggle (up=None); one vote per person however many clicks race.

    Returns (whether the person now votes for it, the comment's vote count).
    """
    if comment.author_id == user.pk:
        raise DiscussionError("You cannot vote for your own comment.")
    with transaction.atomic():
        # The row lock serialises clicks on one comment; the unique constraint is the backstop.
        locked = Comment.objects.select_for_update().get(pk=comment.pk)
        has_vote = Vote.objects.filter(comment=locked, user=user).exists()
        want = (not has_vote) if up is None else up
        if want and not has_vote:
            try:
                with transaction.atomic():
                    Vote.objects.create(comment=locked, user=user)
                Comment.objects.filter(pk=locked.pk).update(vote_count=F("vote_count") + 1)
            except IntegrityError:
                pass
        elif not want and has_vote:
            removed, _ = Vote.objects.filter(comment=locked, user=user).delete()
            if removed:
                Comment.objects.filter(pk=locked.pk, vote_count__gt=0).update(vote_count=F("vote_count") - 1)
        count = Comment.objects.values_list("vote_count", flat=True).get(pk=locked.pk)
    return want, count


def comment_report(*, comment: Comment, reporter, reason: str = "") -> Report:
    report, _ = Report.objects.get_or_create(
        comment=comment, reporter=reporter, defaults={"reason": reason.strip()[:REPORT_REASON_MAX_LENGTH]}
    )
    return report


def comment_set_hidden(*, comment: Comment, moderator, hidden: bool) -> Comment:
    comment.hidden = hidden
    comment.hidden_by = moderator if hidden else None
    comment.save(update_fields=["hidden", "hidden_by"])
    if hidden:
        comment.reports.update(resolved=True)
    return comment


def report_dismiss(*, report: Report) -> Report:
    """A moderator looked and left the comment as it is: the report leaves the open list."""
    Report.objects.filter(pk=report.pk).update(resolved=True)
    report.resolved = True
    return report


def thread_set_locked(*, question: Question, moderator, locked: bool) -> bool:
    if locked:
        ThreadLock.objects.get_or_create(question=question, defaults={"locked_by": moderator})
    else:
        ThreadLock.objects.filter(question=question).delete()
    return locked
