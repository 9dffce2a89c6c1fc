from typing import Any

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection
from django.db.models import Q, QuerySet
from django.http import HttpResponse
from django.shortcuts import render

from config.http_types import HtmxRequest
from grading.core.vocabulary import CONCEPT_TITLES
from interview.question_visibility import can_see_reference, public_view
from interview.services.bookmarks import bookmarked_question_ids
from interview.services.interviewing.access import is_interviewer
from interview.services.my_interviews import interviews_by_stage
from interview.services.progress import NOT_STARTED, ProgressStatus, question_progress_for, track_progress_for
from interview.views.discussion import thread_context
from questions.models import SEARCH_VECTOR, Difficulty, Question, Track
from questions.selectors import published_question_or_404
from rounds.services.reference_guard import round_hiding_reference


def catalogue_search(questions: QuerySet[Question], query: str) -> QuerySet[Question]:
    """On PostgreSQL its full-text search over the title, summary, concepts, track and slug (stemmed, every
    word, best match first, served by the GIN index on the same vector); elsewhere every word somewhere in
    the title, summary, slug, concepts or track, in any order. Neither reads a spec: no reference value."""
    if connection.vendor == "postgresql":
        search = SearchQuery(query, config="english", search_type="websearch")
        return (
            questions.annotate(search=SEARCH_VECTOR, rank=SearchRank(SEARCH_VECTOR, search))
            .filter(search=search)
            .order_by("-rank", "position", "slug")
        )
    for word in query.split()[:10]:
        questions = questions.filter(
            Q(title__icontains=word)
            | Q(summary__icontains=word)
            | Q(slug__icontains=word)
            | Q(search_text__icontains=word)
        )
    return questions


def catalogue(request: HtmxRequest) -> HttpResponse:
    # The cards show the question's own columns; the current version's spec stays unread.
    found: QuerySet[Question] = Question.objects.published().select_related(None)
    query = request.GET.get("q", "").strip()[:100]
    track = request.GET.get("track", "")
    difficulty = request.GET.get("difficulty", "")
    if query:
        found = catalogue_search(found, query)
    if track in Track.values:
        found = found.filter(track=track)
    if difficulty in Difficulty.values:
        found = found.filter(difficulty=difficulty)
    status = request.GET.get("status", "")
    only_bookmarked = request.GET.get("bookmarked") == "1" and request.user.is_authenticated
    progress = question_progress_for(user=request.user)
    bookmarked = bookmarked_question_ids(user=request.user)
    # Question rows that also carry the cards' .progress and .bookmarked
    questions: list[Any] = list(found)
    for question in questions:
        question.progress = progress.get(question.pk, NOT_STARTED)
        question.bookmarked = question.pk in bookmarked
    if status in ProgressStatus.__members__.values():
        questions = [q for q in questions if q.progress.status == status]
    if only_bookmarked:
        questions = [q for q in questions if q.bookmarked]
    groups = [(label, [q for q in questions if q.track == value]) for value, label in Track.choices]
    context = {
        "groups": [(label, items) for label, items in groups if items],
        "count": len(questions),
        "query": query,
        "track": track,
        "difficulty": difficulty,
        "status": status,
        "only_bookmarked": only_bookmarked,
        "tracks": Track.choices,
        "difficulties": Difficulty.choices,
        "statuses": [(s.value, s.label) for s in ProgressStatus],
        "track_progress": track_progress_for(user=request.user, progress=progress)
        if request.user.is_authenticated
        else [],
    }
    if request.htmx:
        return render(request, "questions/catalogue.html#results", context)
    if request.user.is_authenticated and is_interviewer(request.user):
        stages = interviews_by_stage(user=request.user)
        context.update(interview_stages=stages, interview_total=sum(len(stage.rounds) for stage in stages))
    return render(request, "questions/catalogue.html", context)


def question_detail(request: HtmxRequest, slug: str) -> HttpResponse:
    question = published_question_or_404(slug)
    assert question.current_version is not None  # published
    spec = question.current_version.spec
    related = list(Question.objects.published().filter(slug__in=spec.get("related", [])))
    up_next = (
        Question.objects.published()
        .filter(track=question.track, position__gt=question.position)
        .order_by("position")
        .first()
    )
    hidden_by = round_hiding_reference(user=request.user, question=question)
    context = {
        "question": question,
        "version": question.current_version,
        "spec": public_view(spec),
        "concepts": [(slug, CONCEPT_TITLES.get(slug, slug)) for slug in spec.get("concepts", [])],
        "related": related,
        "up_next": up_next,
        # The hiding round is one on this question when there is one, so it is also this page's open round.
        "active_round": hidden_by
        if hidden_by and hidden_by.question_version.question_id == question.pk
        else None,
        "check_hidden_by": hidden_by,
        "has_variables": any(q.get("variable") for q in spec["model"]["quantities"]),
        "show_reference": can_see_reference(request.user),
        "reference": spec if can_see_reference(request.user) else None,
        "bookmarked": question.pk in bookmarked_question_ids(user=request.user),
        "progress": question_progress_for(user=request.user, question_ids=[question.pk]).get(
            question.pk, NOT_STARTED
        ),
        **thread_context(request, question),
    }
    return render(request, "questions/detail.html", context)
