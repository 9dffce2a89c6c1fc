"""The round page's depth tab: the panel (polled until the depth phase opens), moving on to the next
curveball, and saving the depth answers. Each answers the panel partial for htmx and redirects otherwise."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from config.http_types import AuthedRequest
from interview.htmx import htmx_refusal
from interview.selectors import round_of_candidate
from rounds.models import Round
from rounds.services.depth import DepthError, round_depth_next, round_depth_save, round_depth_view
from rounds.services.rounds import round_close_if_expired

MAX_ANSWER_CHARS = 500


def _own_round(request: AuthedRequest, round_id: int) -> Round:
    return round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))


def _panel(request: AuthedRequest, round_: Round, **extra: Any) -> HttpResponse:
    depth = {**round_depth_view(round_=round_), **extra}
    context = {"round": round_, "depth": depth, "oob": True}
    return render(request, "rounds/_depth_panel.html", context)


def depth_answers_from_form(form: QueryDict) -> dict[str, Any]:
    """The depth answers in the grader's shape from the panel's fields: `cb.ID.NAME` (a line),
    `note.ID.K.box` / `note.ID.K.text` (a what-changes note), `fu.ID.OPTION` (a place) and `fu.ID.number`."""
    curveballs: dict[str, dict[str, dict[str, str]]] = {}
    follow_ups: dict[str, dict[str, Any]] = {}
    places: dict[str, list[tuple[int, str]]] = {}
    notes: dict[tuple[str, str], dict[str, str]] = {}
    for key, raw in form.items():
        if not isinstance(raw, str):
            continue  # a key without a value (QueryDict gives [] for it)
        parts = key.split(".")
        value = raw[:MAX_ANSWER_CHARS]
        if parts[0] == "cb" and len(parts) == 3:
            entry = curveballs.setdefault(parts[1], {"numbers": {}, "notes": {}})
            entry["numbers"][parts[2]] = value
        elif parts[0] == "note" and len(parts) == 4 and parts[3] in ("box", "text"):
            notes.setdefault((parts[1], parts[2]), {})[parts[3]] = value
        elif parts[0] == "fu" and len(parts) == 3:
            follow_up = follow_ups.setdefault(parts[1], {"order": []})
            if parts[2] == "number":
                follow_up["number"] = value
            elif value.strip():
                if not value.strip().isdigit():
                    raise DepthError(f"{key}: a place is a whole number")
                places.setdefault(parts[1], []).append((int(value), parts[2]))
    for (curveball_id, _), note in sorted(notes.items()):
        if note.get("box") and note.get("text", "").strip():
            curveballs.setdefault(curveball_id, {"numbers": {}, "notes": {}})["notes"][note["box"]] = note[
                "text"
            ]
    for decision_id, chosen in places.items():
        numbers = [place for place, _ in chosen]
        if len(set(numbers)) != len(numbers):
            raise DepthError("Two options share a place; give each chosen option its own number.")
        follow_ups[decision_id]["order"] = [option for _, option in sorted(chosen)]
    return {"curveballs": curveballs, "follow_ups": follow_ups}


@login_required
@require_GET
def depth_panel(request: AuthedRequest, round_id: int) -> HttpResponse:
    return _panel(request, _own_round(request, round_id))


@login_required
@require_POST
def depth_next(request: AuthedRequest, round_id: int) -> HttpResponse:
    """Open the depth phase, or show the next curveball (keeping what the form held first)."""
    round_ = _own_round(request, round_id)
    try:
        if any(key.startswith(("cb.", "note.", "fu.")) for key in request.POST):
            round_depth_save(round_=round_, answers=depth_answers_from_form(request.POST))
        round_depth_next(round_=round_)
    except DepthError as error:
        return _refused(request, round_, str(error))
    return _panel(request, round_) if request.htmx else redirect("round-detail", round_id=round_.pk)


@login_required
@require_POST
def depth_save(request: AuthedRequest, round_id: int) -> HttpResponse:
    round_ = _own_round(request, round_id)
    try:
        round_depth_save(round_=round_, answers=depth_answers_from_form(request.POST))
    except DepthError as error:
        return _refused(request, round_, str(error))
    if not request.htmx:
        messages.success(request, "Depth answers saved.")
        return redirect("round-detail", round_id=round_.pk)
    return _panel(request, round_, saved=True)


def _refused(request: AuthedRequest, round_: Round, message: str) -> HttpResponse:
    if request.htmx:
        return htmx_refusal(message)
    messages.error(request, message)
    return redirect("round-detail", round_id=round_.pk)
