"""The work's own requests: the page's autosave (JSON) and the sheet's read-back of one entry (htmx)."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from config.http_types import AuthedRequest
from config.json_body import JsonTooDeep, json_loads_bounded
from grading.core.submission import MAX_NUMBER_TEXT
from interview.question_visibility import fixed_sheet_lines
from rounds.models import Work
from rounds.readings import describe_reading
from rounds.services.work import StaleRevision, work_save
from rounds.validation import WorkError, WorkInvalid


def _get_own_work(request: AuthedRequest, round_id: int) -> Work:
    return get_object_or_404(
        Work.objects.select_related("round__question_version"),
        round_id=round_id,
        round__candidate=request.user,
    )


def _json_object(request: AuthedRequest) -> dict:
    try:
        body = json_loads_bounded(request.body or b"{}", where=f"{request.method} {request.path}")
    except JsonTooDeep as error:
        raise WorkError(str(error)) from None
    except ValueError:
        raise WorkError("The save was not valid JSON.") from None
    if not isinstance(body, dict):
        raise WorkError("The save must be a JSON object.")
    return body


def _base_revision(body: dict) -> int:
    revision = body.get("revision")
    if not isinstance(revision, int) or isinstance(revision, bool):
        raise WorkInvalid([("revision", "the save must say which revision it was based on")])
    return revision


@login_required
@require_POST
def save(request: AuthedRequest, round_id: int) -> JsonResponse:
    """The page's autosave, `{"revision": N, ...fields}`: 409 for a stale tab, 423 for a locked round."""
    try:
        body = _json_object(request)
        result = work_save(
            round_id=round_id,
            candidate_id=request.user.pk,
            base_revision=_base_revision(body),
            design=body.get("design"),
            numbers=body.get("numbers"),
            scratch=body.get("scratch"),
            fixes=body.get("fixes"),
        )
    except Work.DoesNotExist:
        raise Http404("No such round.") from None
    except StaleRevision as error:
        return JsonResponse({"error": str(error), "current_revision": error.current_revision}, status=409)
    except WorkError as error:
        body = {"error": str(error), "errors": error.field_errors(), "locked": error.status == 423}
        return JsonResponse(body, status=error.status)
    return JsonResponse(
        {"revision": result.revision, "saved": result.saved_fields, "saved_at": timezone.now().isoformat()}
    )


@login_required
@require_POST
def read_number(request: AuthedRequest, round_id: int) -> HttpResponse:
    """How an entry was read ("read as 327,680 B"), never whether it is right."""
    round_ = _get_own_work(request, round_id).round
    spec = round_.question_version.spec
    name = request.POST.get("name", "")
    text = request.POST.get(f"numbers.{name}", request.POST.get("text", ""))[:MAX_NUMBER_TEXT]
    if name not in {line["name"] for line in spec.get("asked", [])} | {
        line["name"] for line in fixed_sheet_lines(spec)
    }:
        return HttpResponse("Unknown quantity.", status=400)
    return render(
        request,
        "rounds/reading.html",
        {"name": name, "reading": describe_reading(spec, name, text, round_.variant_values)},
    )
