"""Authoring pages: drafts, the live model check, preview and try-it, sample answers, publishing, versions,
packs, and the admins' page that lets an author publish. Every view starts with a permission helper that
returns the object or raises 404."""

import json
import re
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.http_types import AuthedRequest
from config.json_body import json_loads_bounded
from grading.core.depth import curveball_preview
from grading.core.drills import drill_samples
from grading.core.question_export import spec_to_dict
from grading.core.verdicts import LABELS, VERDICTS
from grading.core.vocabulary import DIFFICULTIES, KINDS, TRACKS
from interview.models.authoring import Draft, SampleAnswer
from interview.question_visibility import PHASE_GUIDANCE, public_plan, public_view, workspace_phases
from interview.roles import Role, group_for, has_role
from interview.services.authoring import (
    DEPTH_SECTIONS,
    AuthoringError,
    can_author,
    can_publish,
    depth_check_form,
    design_for_canvas,
    draft_canonical,
    draft_carry_onto_latest,
    draft_check,
    draft_create,
    draft_newer_versions,
    draft_publish,
    draft_read_form,
    draft_restart_from_latest,
    draft_save,
    draft_sections,
    model_block,
    model_check_text,
    publish_grant_set,
    sample_accept,
    sample_results,
    sample_results_with_model,
    sample_save,
    sheet_grade,
    version_republish,
)
from interview.services.version_diff import version_diff
from questions.models import Question, QuestionVersion
from questions.palette import palette_for_canvas
from questions.selectors import published_question_or_404
from questions.services.packs import pack_export_zip, pack_files_from_upload, pack_import
from rounds.models import RoundMode, RoundStatus
from rounds.readings import describe_reading
from rounds.services.rounds import CLIENT_BOX

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
MAX_UPLOAD_BYTES = 5 * 1024 * 1024


def _require_author(request: AuthedRequest) -> None:
    if not can_author(request.user):
        raise Http404


def _require_admin(request: AuthedRequest) -> None:
    if not has_role(request.user, Role.ADMIN):
        raise Http404


def _visible_drafts(request: AuthedRequest) -> QuerySet[Draft]:
    _require_author(request)
    drafts = Draft.objects.select_related("owner", "based_on")
    return drafts if has_role(request.user, Role.ADMIN) else drafts.filter(owner=request.user)


def _get_draft(request: AuthedRequest, draft_id: int) -> Draft:
    """The draft if the requester owns it (or is an admin); 404 for everyone else."""
    return get_object_or_404(_visible_drafts(request), pk=draft_id)


def _get_sample(request: AuthedRequest, sample_id: int) -> SampleAnswer:
    return get_object_or_404(SampleAnswer, pk=sample_id, draft__in=_visible_drafts(request))


def _get_question(request: AuthedRequest, slug: str) -> Question:
    _require_author(request)
    return published_question_or_404(slug)


@login_required
@require_GET
def home(request: AuthedRequest) -> HttpResponse:
    drafts = _visible_drafts(request)
    context = {
        "drafts": drafts,
        "questions": Question.objects.published(),
        "can_publish": can_publish(request.user),
        "is_admin": has_role(request.user, Role.ADMIN),
    }
    return render(request, "authoring/home.html", context)


@login_required
@require_POST
def draft_new(request: AuthedRequest) -> HttpResponse:
    _require_author(request)
    slug = request.POST.get("slug", "").strip()[:80]
    title = request.POST.get("title", "").strip()[:200]
    if not _SLUG.match(slug):
        messages.error(request, "slug: lowercase letters, digits and single hyphens, e.g. kv-cache-tiering")
        return redirect("authoring-home")
    draft = draft_create(owner=request.user, slug=slug, title=title or slug)
    return redirect("authoring-draft", draft_id=draft.pk)


@login_required
@require_POST
def question_edit(request: AuthedRequest, slug: str) -> HttpResponse:
    question = _get_question(request, slug)
    draft = draft_create(owner=request.user, slug=question.slug, title=question.title)
    return redirect("authoring-draft", draft_id=draft.pk)


def _editor_context(request: AuthedRequest, draft: Draft, texts: dict[str, str], problems: list) -> dict:
    spec, check_problems = draft_check(draft.data)
    model_text = texts.get("model", "")
    design = draft.data.get("design") if isinstance(draft.data.get("design"), dict) else {}
    return {
        "draft": draft,
        "data": draft.data,
        "texts": texts,
        "form_problems": problems,
        "problems": check_problems,
        "depth_problems": {
            section: [problem for problem in check_problems if problem[0].startswith(section)]
            for section in DEPTH_SECTIONS
        },
        "valid": spec is not None,
        "check": model_check_text(model_text),
        "samples": sample_results(draft=draft, spec=spec),
        "drills": drill_samples(spec) if spec is not None else [],
        "canvas_palette": palette_for_canvas({}),
        "canvas_design": design_for_canvas(draft.data),
        "canvas_design_json": json.dumps(design_for_canvas(draft.data)),
        "design_path": ", ".join(str(kind) for kind in design.get("path", []) or []),
        "tracks": TRACKS,
        "difficulties": DIFFICULTIES,
        "kinds": KINDS,
        "can_publish": can_publish(request.user),
        "newer_versions": draft_newer_versions(draft=draft),
    }


@login_required
@require_POST
def draft_restart(request: AuthedRequest, draft_id: int) -> HttpResponse:
    draft = _get_draft(request, draft_id)
    if draft_newer_versions(draft=draft):
        draft_restart_from_latest(draft=draft)
        assert draft.based_on is not None  # restarted from the latest version
        messages.success(request, f"The draft starts again from version {draft.based_on.number}.")
    return redirect("authoring-draft", draft_id=draft.pk)


@login_required
@require_POST
def draft_carry(request: AuthedRequest, draft_id: int) -> HttpResponse:
    draft = _get_draft(request, draft_id)
    if not draft_newer_versions(draft=draft):
        return redirect("authoring-draft", draft_id=draft.pk)
    both = draft_carry_onto_latest(draft=draft)
    assert draft.based_on is not None  # carried onto the latest version
    note = f"Your changes now sit on version {draft.based_on.number}."
    if both:
        note += f" You and the newer versions both changed {', '.join(both)}: yours were kept (see Publish)."
    messages.success(request, note)
    return redirect("authoring-draft", draft_id=draft.pk)


@login_required
@require_http_methods(["GET", "POST"])
def draft_edit(request: AuthedRequest, draft_id: int) -> HttpResponse:
    draft = _get_draft(request, draft_id)
    if request.method == "GET":
        context = _editor_context(request, draft, draft_sections(draft.data, draft.texts), [])
        return render(request, "authoring/editor.html", context)
    form = draft_read_form(draft=draft, form=request.POST.dict())
    if form.problems:
        context = _editor_context(request, draft, form.texts, form.problems)
        return render(request, "authoring/editor.html", context, status=400)
    draft_save(draft=draft, data=form.data, texts=form.texts)
    messages.success(request, "Draft saved.")
    return redirect("authoring-draft", draft_id=draft.pk)


@login_required
@require_POST
def model_check(request: AuthedRequest, draft_id: int) -> HttpResponse:
    draft = _get_draft(request, draft_id)
    text = request.POST.get("model", "")
    check = model_check_text(text)
    live_samples = sample_results_with_model(draft=draft, block=model_block(text)) if check.ok else []
    spec = draft_check({**draft.data, "model": model_block(text)})[0] if check.ok else None
    context = {"check": check, "live_samples": live_samples, "drills": drill_samples(spec) if spec else []}
    return render(request, "authoring/editor.html#model-check", context)


@login_required
@require_POST
def depth_check(request: AuthedRequest, draft_id: int, section: str) -> HttpResponse:
    """The live check of the follow-ups or the curveballs, as the author types (htmx)."""
    draft = _get_draft(request, draft_id)
    problems = depth_check_form(draft=draft, form=request.POST.dict(), section=section)
    context = {"section": section, "section_problems": problems, "checked": True}
    return render(request, "authoring/_depth_check.html", context)


@dataclass(frozen=True)
class PreviewRound:
    """What the round page reads of a round, for a draft that has none yet (no save, submit or invite)."""

    title: str
    mode: str = RoundMode.TIMED
    pk: int = 0
    variant_text: str = ""


@dataclass(frozen=True)
class PreviewWork:
    numbers: dict[str, str]
    revision: int = 0
    scratch: str = ""


def _preview_workspace(spec: dict, numbers: dict[str, str]) -> dict:
    """The round page's context for a draft: a timed round at its first second, as a candidate opens it."""
    public = public_view(spec)
    plan = public_plan(spec)
    minutes = max(sum(float(step["minutes"]) for step in plan), 45.0)
    first = plan[0]["phase"] if plan else ""
    clock = {
        "mode": RoundMode.TIMED,
        "status": RoundStatus.ACTIVE,
        "time_left_s": minutes * 60,
        "elapsed_s": 0.0,
        "phase": first,
        "phase_expect": PHASE_GUIDANCE.get(first, ""),
        "plan": plan,
    }
    return {
        "round": PreviewRound(title=public.get("title", "")),
        "question": {"kind": spec.get("kind", "design")},
        "spec": public,
        "phases": workspace_phases(public),
        "work": PreviewWork(numbers=numbers),
        "readings": {name: describe_reading(spec, name, text) for name, text in numbers.items()},
        "canvas_palette": palette_for_canvas(spec),
        "canvas_design": {"nodes": [dict(CLIENT_BOX)], "edges": []},
        "clock": clock,
        "preview": True,
    }


@login_required
@require_http_methods(["GET", "POST"])
def preview(request: AuthedRequest, draft_id: int) -> HttpResponse:
    draft = _get_draft(request, draft_id)
    spec, problems = draft_check(draft.data)
    context: dict[str, Any] = {
        "draft": draft,
        "problems": problems,
        "spec": None,
        "report": None,
        "numbers": {},
    }
    if request.method == "POST" and spec is not None:
        numbers = {
            key.removeprefix("numbers."): value[:200]
            for key, value in request.POST.items()
            if key.startswith("numbers.") and isinstance(value, str)
        }
        context["numbers"] = numbers
        context["numbers_json"] = json.dumps(numbers)
        context["report"] = sheet_grade(spec=spec, numbers=numbers)
        context["verdicts"] = [(verdict, LABELS[verdict]) for verdict in VERDICTS]
        if request.htmx:
            return render(request, "authoring/preview.html#try-result", context)
    if spec is not None:
        context.update(_preview_workspace(spec_to_dict(spec), context["numbers"]))
        context["curveballs"] = [curveball_preview(spec, curveball) for curveball in spec.curveballs]
        context["decisions"] = spec.decisions
    return render(request, "authoring/preview.html", context)


@login_required
@require_POST
def sample_new(request: AuthedRequest, draft_id: int) -> HttpResponse:
    draft = _get_draft(request, draft_id)
    try:
        numbers = json_loads_bounded(request.POST.get("numbers", "{}"), where=f"draft {draft.pk} sample")
    except ValueError:  # JsonTooDeep too
        numbers = None
    if not isinstance(numbers, dict):
        messages.error(request, "The sample's numbers could not be read.")
        return redirect("authoring-preview", draft_id=draft.pk)
    expected = {
        key.removeprefix("expect."): value
        for key, value in request.POST.items()
        if key.startswith("expect.") and value in VERDICTS
    }
    sample = sample_save(draft=draft, name=request.POST.get("name", ""), numbers=numbers, expected=expected)
    messages.success(request, f"Sample answer “{sample.name}” saved.")
    return redirect("authoring-draft", draft_id=draft.pk)


@login_required
@require_POST
def sample_accept_view(request: AuthedRequest, sample_id: int) -> HttpResponse:
    sample = _get_sample(request, sample_id)
    results = [r for r in sample_results(draft=sample.draft) if r.sample.pk == sample.pk]
    if results and not results[0].error:
        sample_accept(sample=sample, verdicts=results[0].verdicts)
        messages.success(request, f"“{sample.name}” now expects the new verdicts.")
    return redirect("authoring-draft", draft_id=sample.draft_id)


@login_required
@require_POST
def sample_delete(request: AuthedRequest, sample_id: int) -> HttpResponse:
    sample = _get_sample(request, sample_id)
    sample.delete()
    return redirect("authoring-draft", draft_id=sample.draft_id)


@login_required
@require_POST
def draft_delete(request: AuthedRequest, draft_id: int) -> HttpResponse:
    draft = _get_draft(request, draft_id)
    draft.delete()
    messages.success(request, "Draft deleted.")
    return redirect("authoring-home")


@login_required
@require_http_methods(["GET", "POST"])
def publish(request: AuthedRequest, draft_id: int) -> HttpResponse:
    draft = _get_draft(request, draft_id)
    if request.method == "POST":
        try:
            version = draft_publish(draft=draft, user=request.user)
        except AuthoringError as error:
            messages.error(request, str(error))
            return redirect("authoring-publish", draft_id=draft.pk)
        messages.success(request, f"Published {version.question.slug} version {version.number}.")
        return redirect("authoring-versions", slug=version.question.slug)
    spec, problems = draft_check(draft.data)
    current = Question.objects.filter(slug=draft.slug).select_related("current_version").first()
    current_spec = current.current_version.spec if current and current.current_version else {}
    context = {
        "draft": draft,
        "problems": problems,
        "valid": spec is not None,
        "samples": sample_results(draft=draft, spec=spec),
        "diff": version_diff(draft_canonical(current_spec), draft_canonical(draft.data))
        if spec is not None
        else [],
        "current": current.current_version if current else None,
        "can_publish": can_publish(request.user),
    }
    return render(request, "authoring/publish.html", context)


@login_required
@require_GET
def versions(request: AuthedRequest, slug: str) -> HttpResponse:
    question = _get_question(request, slug)
    context = {
        "question": question,
        "versions": question.versions.select_related("created_by").order_by("-number"),
        "can_publish": can_publish(request.user),
    }
    return render(request, "authoring/versions.html", context)


@login_required
@require_GET
def diff(request: AuthedRequest, slug: str) -> HttpResponse:
    question = _get_question(request, slug)
    numbers = [request.GET.get(key, "") for key in ("a", "b")]
    if not all(number.isdigit() for number in numbers):
        raise Http404
    old, new = (get_object_or_404(QuestionVersion, question=question, number=int(n)) for n in numbers)
    context = {
        "question": question,
        "old": old,
        "new": new,
        "diff": version_diff(draft_canonical(old.spec), draft_canonical(new.spec)),
    }
    return render(request, "authoring/diff.html", context)


@login_required
@require_POST
def republish(request: AuthedRequest, slug: str, number: int) -> HttpResponse:
    question = _get_question(request, slug)
    version = get_object_or_404(QuestionVersion, question=question, number=number)
    try:
        published = version_republish(version=version, user=request.user)
    except AuthoringError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Version {version.number} published again as version {published.number}.")
    return redirect("authoring-versions", slug=question.slug)


@login_required
@require_GET
def packs(request: AuthedRequest) -> HttpResponse:
    _require_author(request)
    context = {
        "questions": Question.objects.published().order_by("slug"),
        "can_publish": can_publish(request.user),
    }
    return render(request, "authoring/packs.html", context)


@login_required
@require_GET
def pack_export(request: AuthedRequest) -> HttpResponse:
    _require_author(request)
    slugs = [slug for slug in request.GET.getlist("slug") if _SLUG.match(slug)]
    response = HttpResponse(pack_export_zip(slugs=slugs or None), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="sevenbox-pack.zip"'
    return response


@login_required
@require_POST
def pack_import_view(request: AuthedRequest) -> HttpResponse:
    _require_author(request)
    if not can_publish(request.user):
        raise Http404
    upload = request.FILES.get("pack")
    report, refused = None, ""
    if upload is None:
        refused = "Choose a .zip or .yaml file."
    elif (upload.size or 0) > MAX_UPLOAD_BYTES:
        refused = f"{upload.name}: larger than {MAX_UPLOAD_BYTES // 1024 // 1024} MB"
    else:
        try:
            files = pack_files_from_upload(upload.name or "", upload.read())
        except ValueError as error:
            refused = str(error)
        else:
            report = pack_import(
                files=files, source=f"upload:{request.user.get_username()}", created_by=request.user
            )
    context = {
        "questions": Question.objects.published().order_by("slug"),
        "can_publish": True,
        "report": report,
        "refused": refused,
    }
    status = 400 if refused or (report and report.errors) else 200
    return render(request, "authoring/packs.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def publishers(request: AuthedRequest) -> HttpResponse:
    """Admins only: let an author publish, or take it back."""
    _require_admin(request)
    authors = get_user_model().objects.filter(groups=group_for(Role.AUTHOR)).order_by("username")
    if request.method == "POST":
        user_id = request.POST.get("user", "")
        if not user_id.isdigit():
            rows = [(author, can_publish(author)) for author in authors]
            context = {"rows": rows, "error": "Choose an author from the list."}
            return render(request, "authoring/publishers.html", context, status=400)
        author = get_object_or_404(authors, pk=int(user_id))
        granted = request.POST.get("grant") == "1"
        publish_grant_set(user=author, granted=granted)
        verb = "may now publish" if granted else "may no longer publish"
        messages.success(request, f"{author.get_username()} {verb}.")
        return redirect("authoring-publishers")
    rows = [(author, can_publish(author)) for author in authors]
    return render(request, "authoring/publishers.html", {"rows": rows})
