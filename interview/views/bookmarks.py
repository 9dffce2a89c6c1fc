"""Bookmarks: the htmx toggle on catalogue cards and question pages, and the bookmarks page."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from config.http_types import AuthedRequest
from interview.services.bookmarks import bookmark_toggle
from interview.services.progress import NOT_STARTED, question_progress_for
from questions.models import Question
from questions.selectors import published_question_or_404


@login_required
@require_POST
def toggle(request: AuthedRequest, slug: str) -> HttpResponse:
    question = published_question_or_404(slug)
    wanted = request.POST.get("on")
    bookmarked = bookmark_toggle(
        user=request.user, question=question, on=None if wanted is None else wanted == "1"
    )
    if request.htmx:
        return render(request, "community/_bookmark.html", {"question": question, "bookmarked": bookmarked})
    next_url = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        return redirect(next_url)
    return redirect("question-detail", slug=slug)


@login_required
@require_GET
def bookmark_list(request: AuthedRequest) -> HttpResponse:
    questions = list(
        Question.objects.published().filter(bookmarks__user=request.user).order_by("-bookmarks__created_at")
    )
    progress = question_progress_for(user=request.user, question_ids=[q.pk for q in questions])
    for question in questions:
        question.progress = progress.get(question.pk, NOT_STARTED)
        question.bookmarked = True
    return render(request, "community/bookmarks.html", {"questions": questions})
