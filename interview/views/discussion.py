"""The discussion under a question: the thread (folded until the person has submitted a round), posting,
replies, edits, deletes, votes, reports and moderation. Thread-changing forms answer htmx with the thread."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.http_types import AuthedRequest, HtmxRequest
from interview.htmx import htmx_refusal
from interview.models import Comment, Report
from interview.roles import Role, roles_of
from interview.services.discussion import (
    COMMENT_MAX_LENGTH,
    Anchor,
    DiscussionError,
    anchor_choices,
    anchor_parse,
    comment_can_edit,
    comment_create,
    comment_delete,
    comment_edit,
    comment_report,
    comment_set_hidden,
    comment_vote,
    comments_voted_by,
    discussion_is_unlocked_for,
    report_dismiss,
    thread_comments,
    thread_is_locked,
    thread_set_locked,
)
from questions.models import Question
from questions.selectors import published_question_or_404

COMMENTS_PER_PAGE = 20
THREAD = "questions/_community.html#thread"
THREAD_SORTS = [("new", "Newest"), ("top", "Top")]


def is_moderator(user) -> bool:
    return Role.ADMIN in roles_of(user)


def _get_own_comment(request: HtmxRequest, comment_id: int) -> Comment:
    """The requester's own comment; 404 for anyone else's, whether it exists or not."""
    return get_object_or_404(
        Comment.objects.select_related("question", "author"), pk=comment_id, author=request.user
    )


def _get_visible_comment(comment_id: int) -> Comment:
    return get_object_or_404(
        Comment.objects.select_related("question"),
        pk=comment_id,
        deleted=False,
        hidden=False,
        question__current_version__isnull=False,
    )


def _get_moderated_comment(request: HtmxRequest, comment_id: int) -> Comment:
    if not is_moderator(request.user):
        raise Http404
    return get_object_or_404(Comment.objects.select_related("question"), pk=comment_id)


def thread_context(request: HtmxRequest, question: Question, **extra) -> dict:
    """Everything the thread partial shows, in a fixed number of queries however long the thread."""
    user = request.user
    opened = request.GET.get("discussion") == "open" or discussion_is_unlocked_for(
        user=user, question=question
    )
    anchor = anchor_parse(question=question, key=request.GET.get("on", "")) or Anchor("", "")
    sort = "top" if request.GET.get("sort") == "top" else "new"
    context = {
        "question": question,
        "thread_opened": opened,
        "thread_locked": thread_is_locked(question=question),
        "thread_sort": sort,
        "thread_sorts": THREAD_SORTS,
        "thread_anchor": anchor,
        "anchors": anchor_choices(question=question),
        "is_moderator": is_moderator(user),
        "comment_max_length": COMMENT_MAX_LENGTH,
        "comment_total": Comment.objects.filter(question=question, deleted=False, hidden=False).count(),
        **extra,
    }
    if not opened:
        return context
    comments_all = thread_comments(question=question, anchor=anchor, sort=sort)
    page = Paginator(comments_all, COMMENTS_PER_PAGE).get_page(request.GET.get("page"))
    comments = list(page.object_list)
    voted = comments_voted_by(user=user, comments=comments)
    anchor_labels = {choice.key: choice.label for choice in context["anchors"]}
    for comment in [*comments, *(r for c in comments for r in c.replies.all())]:
        comment.voted = comment.pk in voted
        comment.anchor_label = anchor_labels.get(comment.anchor_key, f"on {comment.anchor_value}")
        comment.can_edit = user.is_authenticated and comment_can_edit(comment=comment, user=user)
    return {**context, "page": page, "comments": comments}


def _thread_answer(request: HtmxRequest, question: Question, anchor: str = "discussion") -> HttpResponse:
    """htmx gets the thread back; a plain form post goes back to the question page."""
    if request.htmx:
        return render(request, THREAD, thread_context(request, question))
    query = request.GET.urlencode()
    return redirect(
        f"{reverse('question-detail', args=[question.slug])}{'?' + query if query else ''}#{anchor}"
    )


def _refused(
    request: HtmxRequest, question: Question, error: DiscussionError, body: str = ""
) -> HttpResponse:
    if request.htmx:
        return htmx_refusal(str(error), error.status)
    context = {
        "question": question,
        "error": str(error),
        "body": body,
        "comment_max_length": COMMENT_MAX_LENGTH,
    }
    return render(request, "community/comment_refused.html", context, status=error.status)


@require_GET
def thread(request: HtmxRequest, slug: str) -> HttpResponse:
    question = published_question_or_404(slug)
    if not request.htmx:
        query = request.GET.urlencode()
        return redirect(f"{reverse('question-detail', args=[slug])}{'?' + query if query else ''}#discussion")
    return render(request, THREAD, thread_context(request, question))


@login_required
@require_POST
def comment_post(request: AuthedRequest, slug: str) -> HttpResponse:
    question = published_question_or_404(slug)
    parent_id = request.POST.get("parent", "")
    parent = get_object_or_404(Comment, pk=parent_id, question=question) if parent_id.isdigit() else None
    body = request.POST.get("body", "")
    try:
        comment = comment_create(
            question=question,
            author=request.user,
            body=body,
            parent=parent,
            anchor_key=request.POST.get("on", ""),
        )
    except DiscussionError as error:
        return _refused(request, question, error, body)
    return _thread_answer(request, question, anchor=f"comment-{comment.pk}")


@login_required
@require_http_methods(["GET", "POST"])
def comment_edit_view(request: AuthedRequest, comment_id: int) -> HttpResponse:
    comment = _get_own_comment(request, comment_id)
    error = ""
    if request.method == "POST":
        try:
            comment_edit(comment=comment, body=request.POST.get("body", ""))
            return redirect(
                f"{reverse('question-detail', args=[comment.question.slug])}#comment-{comment.pk}"
            )
        except DiscussionError as refused:
            error = str(refused)
    context = {
        "comment": comment,
        "error": error,
        "body": request.POST.get("body", comment.body_markdown),
        "can_edit": comment_can_edit(comment=comment, user=request.user),
        "comment_max_length": COMMENT_MAX_LENGTH,
    }
    return render(request, "community/comment_edit.html", context, status=400 if error else 200)


@login_required
@require_POST
def comment_delete_view(request: AuthedRequest, comment_id: int) -> HttpResponse:
    comment = _get_own_comment(request, comment_id)
    question = comment.question
    comment_delete(comment=comment)
    return _thread_answer(request, question)


@login_required
@require_POST
def comment_vote_view(request: AuthedRequest, comment_id: int) -> HttpResponse:
    comment = _get_visible_comment(comment_id)
    wanted = request.POST.get("up")
    back = f"{reverse('question-detail', args=[comment.question.slug])}#comment-{comment.pk}"
    try:
        voted, count = comment_vote(
            comment=comment, user=request.user, up=None if wanted is None else wanted == "1"
        )
    except DiscussionError as error:
        if request.htmx:
            return htmx_refusal(str(error), error.status)
        messages.error(request, str(error))
        return redirect(back)
    if not request.htmx:
        return redirect(back)
    comment.voted, comment.vote_count = voted, count
    return render(request, "community/_vote.html", {"comment": comment})


@login_required
@require_POST
def comment_report_view(request: AuthedRequest, comment_id: int) -> HttpResponse:
    comment = _get_visible_comment(comment_id)
    comment_report(comment=comment, reporter=request.user, reason=request.POST.get("reason", ""))
    if not request.htmx:
        messages.success(request, "Thank you: a moderator will look at it.")
        return redirect(f"{reverse('question-detail', args=[comment.question.slug])}#comment-{comment.pk}")
    return render(request, "community/_reported.html", {"comment": comment})


@login_required
@require_POST
def comment_hide_view(request: AuthedRequest, comment_id: int) -> HttpResponse:
    comment = _get_moderated_comment(request, comment_id)
    comment_set_hidden(comment=comment, moderator=request.user, hidden=request.POST.get("hidden") == "1")
    if request.POST.get("next") == "reports":
        return redirect("discussion-reports")
    return _thread_answer(request, comment.question, anchor=f"comment-{comment.pk}")


@login_required
@require_POST
def thread_lock_view(request: AuthedRequest, slug: str) -> HttpResponse:
    if not is_moderator(request.user):
        raise Http404
    question = published_question_or_404(slug)
    thread_set_locked(question=question, moderator=request.user, locked=request.POST.get("locked") == "1")
    return _thread_answer(request, question)


@login_required
@require_GET
def reports(request: AuthedRequest) -> HttpResponse:
    if not is_moderator(request.user):
        raise Http404
    open_reports = (
        Report.objects.filter(resolved=False)
        .select_related("comment__question", "comment__author", "reporter")
        .order_by("-created_at")[:200]
    )
    return render(request, "community/reports.html", {"reports": open_reports})


@login_required
@require_POST
def report_dismiss_view(request: AuthedRequest, report_id: int) -> HttpResponse:
    if not is_moderator(request.user):
        raise Http404
    report_dismiss(report=get_object_or_404(Report, pk=report_id, resolved=False))
    messages.info(request, "Report dismissed: the comment stays as it is.")
    return redirect("discussion-reports")
