"""Replay pages: a round's runs with progress (htmx polling), cancel and retry, results and charts."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from config.http_types import AuthedRequest
from interview.htmx import htmx_refusal
from interview.selectors import round_of_candidate, run_of_candidate
from rounds.models import ReplayRun, RoundStatus
from rounds.services.replays import (
    ReplayError,
    replay_cancel,
    replay_failure_report,
    replay_retry,
    replay_side_labels,
    replays_current,
    replays_enqueue_for_round,
)
from rounds.services.rounds import round_close_if_expired


def _page_url(round_id: int, run: ReplayRun | None = None) -> str:
    anchor = f"#replay-run-{run.pk}" if run is not None else ""
    return reverse("round-replays", args=[round_id]) + anchor


def _run_response(request: AuthedRequest, run: ReplayRun) -> HttpResponse:
    if request.htmx:
        return render(request, "grading/_replay_run.html", {"run": run, "round": run.round})
    return redirect(_page_url(run.round_id, run))


@login_required
@require_GET
def replays_page(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
    context = {
        "round": round_,
        "question": round_.question,
        "runs": replays_current(round_=round_),
        "failure_report": replay_failure_report(round_),
        "is_review": round_.question_version.spec.get("kind") == "review",
        "side_labels": replay_side_labels(round_),
    }
    return render(request, "grading/replays.html", context)


@login_required
@require_POST
def replays_run(request: AuthedRequest, round_id: int) -> HttpResponse:
    """On demand from the report: queue the round's replays (nothing new if they exist)."""
    round_ = round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
    if round_.status != RoundStatus.SUBMITTED:
        messages.error(request, "Replays run on a submitted round; submit it first.")
    else:
        replays_enqueue_for_round(round_=round_)
    return redirect(_page_url(round_.pk))


@login_required
@require_GET
def replay_run(request: AuthedRequest, round_id: int, run_id: int) -> HttpResponse:
    """One run's block: the htmx poller asks for it every second until the run is finished."""
    return _run_response(request, run_of_candidate(user=request.user, round_id=round_id, run_id=run_id))


@login_required
@require_POST
def replay_cancel_view(request: AuthedRequest, round_id: int, run_id: int) -> HttpResponse:
    run = run_of_candidate(user=request.user, round_id=round_id, run_id=run_id)
    try:
        run = replay_cancel(run=run)
    except ReplayError as error:
        if request.htmx:
            return htmx_refusal(str(error))
        messages.error(request, str(error))
    return _run_response(request, run)


@login_required
@require_POST
def replay_retry_view(request: AuthedRequest, round_id: int, run_id: int) -> HttpResponse:
    run = run_of_candidate(user=request.user, round_id=round_id, run_id=run_id)
    try:
        run = replay_retry(run=run)
    except ReplayError as error:
        if request.htmx:
            return htmx_refusal(str(error))
        messages.error(request, str(error))
    return _run_response(request, run)
