"""Drill pages: the session (one step at a time), a question's own steps, the read-back, and progress."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from config.http_types import AuthedRequest
from drills import services
from drills.services import DrillNotFound, DrillRefused
from grading.core.question_export import spec_to_dict
from grading.core.vocabulary import TRACKS
from questions.models import QuestionVersion
from questions.selectors import published_question_or_404
from rounds.readings import describe_reading

SESSION_KEY = "drill_session"


def _session_count(request: AuthedRequest) -> dict:
    return request.session.get(SESSION_KEY) or {"done": 0, "right": 0}


def _start_again_when_done(request: AuthedRequest) -> None:
    """A new session of five on "another five", or on opening the page after a finished one."""
    finished = _session_count(request)["done"] >= services.SESSION_STEPS
    if request.GET.get("again") or (finished and not request.htmx):
        request.session[SESSION_KEY] = {"done": 0, "right": 0}


def _next_url(request: AuthedRequest) -> str:
    """Where "next step" goes: this page without the one-off "again" flag."""
    query = request.GET.copy()
    query.pop("again", None)
    return request.path + (f"?{query.urlencode()}" if query else "")


def _step_context(request: AuthedRequest, *, offer, refusal: DrillRefused | None = None, **extra) -> dict:
    return {
        "offer": offer,
        "refusal": refusal,
        "tally": _session_count(request),
        "session_steps": services.SESSION_STEPS,
        **extra,
    }


@login_required
@require_GET
def session(request: AuthedRequest) -> HttpResponse:
    track = request.GET.get("track") or None
    _start_again_when_done(request)
    try:
        offer = services.drill_next(user=request.user, track=track)
        refusal = None
    except DrillRefused as error:
        offer, refusal = None, error
    next_due = None if offer else services.drill_next_due(user=request.user, now=timezone.now())
    context = _step_context(
        request,
        offer=offer,
        refusal=refusal,
        track=track,
        tracks=TRACKS,
        next_url=_next_url(request),
        next_due=next_due,
    )
    if request.htmx:
        return render(request, "drills/session.html#step", context)
    return render(request, "drills/session.html", context)


@login_required
@require_GET
def question_steps(request: AuthedRequest, slug: str) -> HttpResponse:
    question = published_question_or_404(slug)
    _start_again_when_done(request)
    first = tuple(name for name in request.GET.get("first", "").split(",") if name)
    try:
        offer = services.drill_next_for_question(user=request.user, question=question, first=first)
        refusal = None
    except DrillRefused as error:
        offer, refusal = None, error
    context = _step_context(
        request, offer=offer, refusal=refusal, question=question, next_url=_next_url(request)
    )
    status = 200 if offer is not None else 409
    if request.htmx:
        return render(request, "drills/session.html#step", context, status=status)
    return render(request, "drills/session.html", context, status=status)


@login_required
@require_POST
def answer(request: AuthedRequest) -> HttpResponse:
    try:
        result = services.drill_answer(
            user=request.user, token=request.POST.get("token", ""), text=request.POST.get("answer", "")[:200]
        )
    except DrillNotFound:
        raise Http404("No such step.") from None
    except DrillRefused as error:
        return render(request, "drills/_refusal.html", {"refusal": error}, status=409)
    tally = _session_count(request)
    tally = {"done": tally["done"] + 1, "right": tally["right"] + (result.line["verdict"] == "correct")}
    request.session[SESSION_KEY] = tally
    context = {
        "result": result,
        "due_words": services.drill_due_words(due=result.card.due, now=timezone.now()),
        "tally": tally,
        "session_steps": services.SESSION_STEPS,
        "next_url": request.POST.get("next", "")
        if request.POST.get("next", "").startswith("/drills/")
        else "/drills/",
    }
    return render(request, "drills/_result.html", context)


@login_required
@require_POST
def read_back(request: AuthedRequest) -> HttpResponse:
    version_id = request.POST.get("version", "")
    if not version_id.isdigit():
        raise Http404("No such question version.")
    version = get_object_or_404(
        QuestionVersion.objects.exclude(question__current_version=None), pk=int(version_id)
    )
    answer = request.POST.get("answer", "")[:200]
    try:  # read on the drawn step's own givens, as its grade reads (a count per node drawn at 4 is 4)
        step = services.drill_step_for_token(user=request.user, token=request.POST.get("token", ""))
    except (DrillRefused, DrillNotFound):
        reading = describe_reading(version.spec, request.POST.get("line", ""), answer)
    else:
        reading = describe_reading(spec_to_dict(step.question), step.name, answer, step.overrides)
    return render(request, "drills/_reading.html", {"reading": reading})


@login_required
@require_GET
def progress(request: AuthedRequest) -> HttpResponse:
    return render(request, "drills/progress.html", {"progress": services.drill_progress(user=request.user)})
