"""Interviewer pages: live console, notes, rubric scoring and release, scorecard, timeline, calibration;
and the candidate's side of pairing (invite by username or link, revoke, start a scheduled round).

Every interviewer page starts with `round_for_interviewer`: 404 unless the requester holds an accepted,
unrevoked invitation to the round. Candidate actions start with `round_of_candidate`: 404 unless it is
theirs."""

import json
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.http_types import AuthedRequest
from grading.core.review_check import fixed_sheet_rows, split_sheets
from interview.htmx import htmx_refusal
from interview.markdown import markdown_render
from interview.models import Invitation, Scorecard
from interview.models.interviewing import Recommendation
from interview.question_visibility import asked_line_view
from interview.selectors import round_for_interviewer, round_of_candidate
from interview.services.interviewing.access import is_admin, is_interviewer
from interview.services.interviewing.calibration import calibration_for
from interview.services.interviewing.engine_comparison import replay_summary, scorecard_compare
from interview.services.interviewing.errors import InterviewError, InterviewRateLimited, InvitationInvalid
from interview.services.interviewing.invitations import (
    invitation_accept,
    invitation_create_for_username,
    invitation_create_link,
    invitation_is_open,
    invitation_link_refusal,
    invitation_revoke,
    invitations_of_round,
)
from interview.services.interviewing.notes import follow_ups_for_phase, note_add, notes_of_round
from interview.services.interviewing.reference import reference_values
from interview.services.interviewing.scheduling import round_begin_scheduled, round_schedule_for_candidate
from interview.services.interviewing.scorecards import (
    rubric_of,
    scorecard_for_candidate,
    scorecard_release,
    scorecard_save,
)
from interview.services.my_interviews import interviews_by_stage
from interview.views.rounds import round_clock
from questions.models import Question
from questions.palette import palette_for_canvas
from rounds.models import Round, RoundMode, RoundStatus, WorkEvent
from rounds.services.rounds import round_close_if_expired, round_opening_work
from rounds.timeline import WorkState, state_at

CONSOLE = "interviewer/console.html"
POLL_STATUSES = (RoundStatus.ACTIVE, RoundStatus.SCHEDULED)


def _require_interviewer(request: AuthedRequest) -> None:
    if not is_interviewer(request.user):
        raise Http404("No such page.")


# The console


def _live_context(round_: Round) -> dict:
    """What changes as the candidate works: clock, phase, canvas, sheet, and this phase's follow-ups."""
    work = round_.work
    clock = round_clock(round_)
    plan = round_.answer_plan  # the interviewer may read the reference's figures, at the round's values
    if round_.status == RoundStatus.SCHEDULED and plan:  # the clock has not started: the first phase is next
        clock.update(phase=plan[0]["phase"], elapsed_s=0.0)
    # The interviewer reads the question's own expectation for the phase; the candidate's clock has only
    # the generic guidance, since the question's own names the reference numbers.
    own = next((step.get("expect", "") for step in plan if step["phase"] == clock["phase"]), "")
    clock["phase_expect"] = own or clock["phase_expect"]
    reference = {row["name"]: row["display"] for row in reference_values(round_)}
    sheet = [
        {
            **asked_line_view(round_.spec, line),
            "text": work.numbers.get(line["name"], ""),
            "reference": reference.get(line["name"], ""),
        }
        for line in round_.spec.get("asked", [])
    ]
    # A review round's sheet 2, the fixed design: what the candidate set, beside the given design and the fix.
    fixed_sheet = fixed_sheet_rows(round_.spec, split_sheets(work.numbers)[1], round_.variant_values or None)
    design = work.design or {"nodes": [], "edges": []}
    return {
        "clock": clock,
        "polling": round_.status in POLL_STATUSES,
        "design": design,
        "design_json": json.dumps(design),  # an attribute: htmx drops <script> elements from swapped content
        "sheet": sheet,
        "fixed_sheet": fixed_sheet,
        "scratch": work.scratch,
        "revision": work.revision,
        "follow_ups": follow_ups_for_phase(round_, clock["phase"]),
        "asked_follow_ups": set(
            round_.interview_notes.exclude(follow_up_index=None).values_list("follow_up_index", flat=True)
        ),
    }


def _scoring_context(round_: Round) -> dict:
    scorecard = Scorecard.objects.filter(round=round_).select_related("interviewer").first()
    return {
        "scorecard": scorecard,
        "compare": scorecard_compare(round_, scorecard),
        "recommendations": Recommendation.choices,
    }


@login_required
@require_GET
def console(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
    context = {"round": round_, "question": round_.question, "live": _live_context(round_)}
    if request.htmx:
        return render(request, f"{CONSOLE}#live", context)
    spec = round_.spec
    context.update(
        {
            "candidate": round_.candidate,
            "canvas_palette": palette_for_canvas(spec),
            "reference_rows": reference_values(round_),
            "reference_design": round_.answer_texts.get("design", {}),
            "outline_html": markdown_render(spec.get("outline", "")),
            "mistakes": spec.get("mistakes", []),
            "all_follow_ups": [
                {"number": index + 1, **item} for index, item in enumerate(spec.get("follow_ups", []))
            ],
            "notes": notes_of_round(round_),
            **_scoring_context(round_),
        }
    )
    return render(request, CONSOLE, context)


@login_required
@require_POST
def note_create(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
    raw_index = request.POST.get("follow_up", "")
    error = ""
    try:
        follow_up = int(raw_index) - 1 if raw_index else None
        note_add(
            round_=round_, author=request.user, text=request.POST.get("text", ""), follow_up_index=follow_up
        )
    except ValueError:
        error = "No such follow-up question."
    except InterviewError as exc:
        error = str(exc)
    if request.htmx:
        if error:
            return htmx_refusal(error)
        return render(request, f"{CONSOLE}#notes", {"round": round_, "notes": notes_of_round(round_)})
    if error:
        messages.error(request, error)
    return redirect(reverse("interview-console", args=[round_.pk]) + "#notes")


def _levels_from_post(request: AuthedRequest, round_: Round) -> dict:
    return {
        item["dimension"]: {
            "level": request.POST.get(f"level-{item['dimension']}", ""),
            "note": request.POST.get(f"note-{item['dimension']}", ""),
        }
        for item in rubric_of(round_)
    }


@login_required
@require_POST
def scorecard_save_view(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
    error = ""
    try:
        scorecard_save(
            round_=round_,
            interviewer=request.user,
            levels=_levels_from_post(request, round_),
            recommendation=request.POST.get("recommendation", ""),
        )
    except InterviewError as exc:
        error = str(exc)
    if request.htmx:
        if error:
            return htmx_refusal(error)
        context = {"round": round_, "rubric_status": "Scores saved.", **_scoring_context(round_)}
        return render(request, f"{CONSOLE}#scoring", context)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, "Scores saved.")
    return redirect(reverse("interview-console", args=[round_.pk]) + "#scoring")


@login_required
@require_POST
def scorecard_release_view(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
    if request.POST.get("confirm") != "yes":  # releasing cannot be undone: never on one stray click
        messages.error(request, "Tick “It cannot change afterwards” to release the scorecard.")
        return redirect(reverse("interview-console", args=[round_.pk]) + "#scoring")
    try:
        scorecard_release(round_=round_, interviewer=request.user)
    except InterviewError as exc:
        messages.error(request, str(exc))
        return redirect(reverse("interview-console", args=[round_.pk]) + "#scoring")
    messages.success(request, "Scorecard released: the candidate can see it now.")
    return redirect("interview-scorecard", round_id=round_.pk)


@login_required
@require_GET
def scorecard_page(request: AuthedRequest, round_id: int) -> HttpResponse:
    """The interviewer always; the candidate only once the scorecard is released; 404 for anyone else."""
    own = Round.objects.filter(pk=round_id, candidate=request.user).select_related(
        "question_version__question"
    )
    round_ = own.first()
    if round_ is not None:
        scorecard = scorecard_for_candidate(round_)
        if scorecard is None:
            raise Http404("No released scorecard.")
    else:
        round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
        scorecard = Scorecard.objects.filter(round=round_).select_related("interviewer").first()
    context = {
        "round": round_,
        "question": round_.question,
        "scorecard": scorecard,
        "compare": scorecard_compare(round_, scorecard),
        "replays": replay_summary(round_),
        "is_candidate": round_.candidate_id == request.user.pk,
    }
    return render(request, "interviewer/scorecard.html", context)


@login_required
@require_GET
def timeline(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
    if round_.status not in (RoundStatus.SUBMITTED, RoundStatus.ABANDONED):
        messages.info(request, "The timeline opens when the round is finished.")
        return redirect("interview-console", round_id=round_.pk)
    events: list[dict[str, Any]] = [
        {"t": round(t, 1), "field": field, "value": value}
        for t, field, value in WorkEvent.objects.filter(round=round_).values_list("t", "field", "value")
    ]
    notes = notes_of_round(round_)
    end_s = round(max([round_.elapsed_s(), *(e["t"] for e in events), *(n.t for n in notes)]), 1)
    try:
        at = min(max(float(request.GET.get("t", end_s)), 0.0), end_s)
    except ValueError:
        at = end_s
    design, numbers = round_opening_work(
        version=round_.question_version, variant_values=round_.variant_values or {}
    )
    opening = WorkState(design=design, numbers=numbers)
    context = {
        "round": round_,
        "question": round_.question,
        "events": events,
        "opening": opening.as_dict(),
        "notes": notes,
        "notes_data": [{"t": n.t, "phase": n.phase, "text": n.text} for n in notes],
        "state": state_at(events, at, start=opening),
        "at": at,
        "end_s": end_s,
        "sheet": [asked_line_view(round_.spec, line) for line in round_.spec.get("asked", [])],
        "canvas_palette": palette_for_canvas(round_.spec),
    }
    return render(request, "interviewer/timeline.html", context)


# Interviewers' own pages


@login_required
@require_GET
def my_interviews(request: AuthedRequest) -> HttpResponse:
    _require_interviewer(request)
    questions = Question.objects.published().order_by("title")
    context = {
        "stages": interviews_by_stage(user=request.user),
        "questions": questions,
        "modes": RoundMode.choices,
    }
    return render(request, "interviewer/my_interviews.html", context)


@login_required
@require_POST
def schedule(request: AuthedRequest) -> HttpResponse:
    _require_interviewer(request)
    question = Question.objects.published().filter(slug=request.POST.get("question", "")).first()
    try:
        if question is None:
            raise InterviewError("Choose a question.")
        round_ = round_schedule_for_candidate(
            interviewer=request.user,
            question=question,
            candidate_username=request.POST.get("candidate", ""),
            mode=request.POST.get("mode", RoundMode.TIMED),
            variant=request.POST.get("variant") == "1",
        )
    except InterviewError as exc:
        messages.error(request, str(exc))
        return redirect("my-interviews")
    messages.success(
        request, f"Round scheduled for {round_.candidate.username}: it starts when they press Start."
    )
    return redirect("interview-console", round_id=round_.pk)


@login_required
@require_http_methods(["GET", "POST"])
def join(request: AuthedRequest, token: str) -> HttpResponse:
    """A single-use link: GET shows what it is for, POST accepts it. Invalid links answer 404."""
    _require_interviewer(request)
    if request.method == "GET" and invitation_is_open(token):
        return render(request, "interviewer/join.html", {"token": token})
    try:
        if request.method == "GET":
            raise InvitationInvalid(token)
        invitation = invitation_accept(token=token, user=request.user)
    except InterviewRateLimited as error:
        return render(request, "interviewer/join_refused.html", {"refusal": str(error)}, status=429)
    except InvitationInvalid:
        if refusal := invitation_link_refusal(token):  # a link that existed says why it no longer works
            return render(request, "interviewer/join_refused.html", {"refusal": refusal}, status=410)
        raise Http404("This invitation link is not valid.") from None
    messages.success(request, "Invitation accepted.")
    return redirect("interview-console", round_id=invitation.round_id)


@login_required
@require_GET
def calibration(request: AuthedRequest, username: str) -> HttpResponse:
    """Visible to that interviewer and to admins; 404 for anyone else."""
    interviewer = get_object_or_404(get_user_model(), username=username)
    if not (request.user.pk == interviewer.pk and is_interviewer(request.user)) and not is_admin(
        request.user
    ):
        raise Http404("No such page.")
    return render(request, "interviewer/calibration.html", {"calibration": calibration_for(interviewer)})


# The candidate's side


def _panel_response(request: AuthedRequest, round_: Round, **extra) -> HttpResponse:
    context = {"round": round_, "invitations": invitations_of_round(round_), **extra}
    return render(request, "interviewer/_invite_panel.html", context)


def _back_to_round(round_: Round) -> HttpResponse:
    name = "round-report" if round_.status == RoundStatus.SUBMITTED else "round-detail"
    return redirect(reverse(name, args=[round_.pk]) + "#invite-panel")


@login_required
@require_POST
def invitation_create(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = round_of_candidate(user=request.user, round_id=round_id)
    link = ""
    error = ""
    status = 400
    try:
        if request.POST.get("kind") == "link":
            hours = int(request.POST.get("hours") or 24)
            _, token = invitation_create_link(
                round_=round_, created_by=request.user, valid_for=timedelta(hours=hours)
            )
            link = request.build_absolute_uri(reverse("interview-join", args=[token]))
        else:
            invitation_create_for_username(
                round_=round_, created_by=request.user, username=request.POST.get("username", "")
            )
    except ValueError:
        error = "Choose how long the link stays valid."
    except OverflowError:  # more hours than a date can hold
        error = "A link is valid for between 5 minutes and 14 days."
    except InterviewError as exc:
        error, status = str(exc), exc.status
    if request.htmx:
        if error:
            return htmx_refusal(error, status)
        return _panel_response(request, round_, new_link=link)
    if link:  # the raw token is shown once, on this page, and never stored
        return render(request, "interviewer/invite_link.html", {"round": round_, "new_link": link})
    if error:
        messages.error(request, error)
    return _back_to_round(round_)


@login_required
@require_POST
def invitation_revoke_view(request: AuthedRequest, round_id: int, invitation_id: int) -> HttpResponse:
    round_ = round_of_candidate(user=request.user, round_id=round_id)
    invitation_revoke(invitation=get_object_or_404(Invitation, pk=invitation_id, round=round_))
    if request.htmx:
        return _panel_response(request, round_)
    messages.info(request, "Invitation revoked.")
    return _back_to_round(round_)


@login_required
@require_http_methods(["GET", "POST"])
def round_begin(request: AuthedRequest, round_id: int) -> HttpResponse:
    """A round an interviewer scheduled: GET shows it (the link the candidate gets), POST starts it."""
    round_ = round_of_candidate(user=request.user, round_id=round_id)
    if request.method == "GET" and round_.status == RoundStatus.SCHEDULED:
        interviewers = [i.interviewer for i in invitations_of_round(round_) if i.grants_access()]
        context = {"round": round_, "question": round_.question, "interviewers": interviewers}
        return render(request, "interviewer/begin.html", context)
    if request.method == "POST":
        round_begin_scheduled(round_id=round_.pk, candidate=request.user)
    return redirect("round-detail", round_id=round_.pk)
