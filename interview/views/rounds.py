from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from config.http_types import AuthedRequest
from interview.question_visibility import (
    PHASE_GUIDANCE,
    fixed_sheet_lines,
    public_plan,
    public_view,
    workspace_phases,
)
from interview.selectors import round_of_candidate
from interview.services.design_drawing import designs_compared, question_headline
from questions.models import Track
from questions.palette import palette_for_canvas
from questions.selectors import published_question_or_404
from rounds.models import Round, RoundStatus
from rounds.readings import describe_reading
from rounds.services.depth import round_depth_view
from rounds.services.grading import review_pending, round_review_complete
from rounds.services.replays import (
    curveball_replays_current,
    replay_failure_report,
    replay_side_labels,
    replays_current,
)
from rounds.services.rounds import (
    RoundError,
    round_abandon,
    round_close_if_expired,
    round_start,
    round_submit,
)


def round_clock(round_: Round) -> dict:
    now = timezone.now()
    phase = round_.current_phase(now) or {}
    return {
        "mode": round_.mode,
        "status": round_.status,
        "server_now": now.isoformat(),
        "started_at": round_.started_at.isoformat(),
        "deadline": round_.deadline.isoformat() if round_.deadline else None,
        "time_left_s": round_.time_left_s(now),
        "elapsed_s": round_.elapsed_s(now),
        "phase": phase.get("phase", ""),
        "phase_expect": PHASE_GUIDANCE.get(phase.get("phase", ""), ""),
        "phase_ends_s": phase.get("ends_s"),
        "plan": public_plan(round_.spec),
    }


@login_required
@require_POST
def start(request: AuthedRequest, slug: str) -> HttpResponse:
    question = published_question_or_404(slug)
    try:
        round_ = round_start(
            candidate=request.user,
            question=question,
            mode=request.POST.get("mode", "timed"),
            variant=request.POST.get("variant") == "1",
        )
    except RoundError as error:
        messages.error(request, str(error))
        return redirect("question-detail", slug=slug)
    return redirect("round-detail", round_id=round_.pk)


@login_required
@require_GET
def detail(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
    if round_.status == RoundStatus.SUBMITTED:
        return redirect("round-report", round_id=round_.pk)
    if round_.status == RoundStatus.ABANDONED:
        messages.info(request, "That round was abandoned.")
        return redirect("question-detail", slug=round_.question.slug)
    spec = public_view(round_.spec, round_.variant_values or None)
    work = round_.work
    context = {
        "round": round_,
        "question": round_.question,
        "spec": spec,
        "phases": workspace_phases(spec),
        "fixed_lines": fixed_sheet_lines(round_.spec),
        "work": work,
        "readings": {
            name: describe_reading(round_.spec, name, text, round_.variant_values)
            for name, text in work.numbers.items()
        },
        "canvas_palette": palette_for_canvas(round_.spec),
        "canvas_design": work.design,
        "clock": round_clock(round_),
        "depth": round_depth_view(round_=round_),
    }
    return render(request, "rounds/round.html", context)


@login_required
@require_GET
def clock(request: AuthedRequest, round_id: int) -> JsonResponse:
    return JsonResponse(
        round_clock(round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id)))
    )


@login_required
@require_POST
def submit(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_of_candidate(user=request.user, round_id=round_id)
    try:
        round_submit(round_id=round_.pk)
    except RoundError as error:
        messages.error(request, str(error))
        return redirect("question-detail", slug=round_.question.slug)
    return redirect("round-report", round_id=round_.pk)


@login_required
@require_POST
def abandon(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
    try:
        round_abandon(round_id=round_.pk)
        messages.info(request, "Round abandoned. Your saved work is kept in your history.")
    except RoundError as error:
        messages.error(request, str(error))
    return redirect("question-detail", slug=round_.question.slug)


@login_required
@require_GET
def report(request: AuthedRequest, round_id: int) -> HttpResponse:
    """The report; for htmx, its header alone (polled while the replays run, then it stops polling)."""
    round_ = round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
    if round_.status != RoundStatus.SUBMITTED:
        return redirect("round-detail", round_id=round_.pk)
    round_ = round_review_complete(round_=round_)
    runs = replays_current(round_=round_)
    runs_pending = any(run.is_active for run in runs)
    failure_report = replay_failure_report(round_)
    curveball_runs = curveball_replays_current(round_=round_)
    is_review = bool((round_.report or {}).get("review"))
    context = {
        "round": round_,
        "curveball_runs": curveball_runs,
        "depth_replays_here": True,
        # the failure replays' section loads the charts; without it the depth section's curveball replays do
        "curveball_replay_assets": bool(curveball_runs) and (is_review or not runs),
        "question": round_.question,
        "report": round_.report,
        "runs": runs,
        "failure_report": failure_report,
        "failure_score": failure_report["score"] if failure_report else None,
        "is_review": is_review,
        "runs_pending": runs_pending,
        "header_polls": runs_pending or review_pending(round_),
    }
    context["side_labels"] = replay_side_labels(round_)
    if request.htmx:
        return render(request, "rounds/report.html#report-header", context)
    context["headline"] = question_headline(round_.spec, round_.report)
    context["answer_plan"] = round_.answer_plan  # submitted: the reference's plan, at this round's values
    design_report = (round_.report or {}).get("design")
    if design_report and not (round_.report or {}).get("review"):
        compared = designs_compared(round_.spec.get("design") or {}, round_.work.design, design_report)
        context["designs"] = {
            "sides": [
                ({"name": "candidate", "drawing": compared["candidate"]}, "Your design"),
                ({"name": "reference", "drawing": compared["reference"]}, "Reference design"),
            ]
        }
    return render(request, "rounds/report.html", context)


HISTORY_COLUMNS = (
    "started_at",
    "mode",
    "status",
    "score",
    "score_numbers",
    "score_shape",
    "score_arithmetic",
    "question_version__title",
    "question_version__question__title",
    "reference_seen_at",
)


@login_required
@require_GET
def history(request: AuthedRequest) -> HttpResponse:
    # Stored columns only: a round's report and its version's spec are large JSON this page never shows.
    rounds = (
        Round.objects.filter(candidate=request.user)
        .select_related("question_version__question")
        .only(*HISTORY_COLUMNS)
    )
    track = request.GET.get("track", "")
    if track in Track.values:
        rounds = rounds.filter(question_version__question__track=track)
    context = {"rounds": rounds[:200], "track": track, "tracks": Track.choices}
    return render(request, "rounds/history.html", context)
