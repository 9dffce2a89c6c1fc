"""Authoring workflows: drafts edited in sections, the live model check, sample answers as regression tests,
publishing (and publishing an old version again). The model graph is laid out in model_graph.py, the
difference between two versions in version_diff.py.

Everything an author types goes through `grading.core.question_reader.parse_question` /
`grading.core.model.read_model` (formulas only through the allow-list parser in grading/core/formula.py);
nothing is ever evaluated as Python.
"""

import math
from dataclasses import dataclass, field
from typing import Any

import yaml
from django.contrib.auth.models import AnonymousUser, Permission, User
from django.db import transaction

from config.json_body import JsonTooDeep, json_loads_bounded
from grading.core.depth import consequence_problems
from grading.core.design_check import load_index
from grading.core.formula import FormulaError, parse_formula
from grading.core.grader import grade
from grading.core.model import ModelError, ModelSpec, Problem, describe_model, read_model
from grading.core.question_export import spec_to_dict
from grading.core.question_reader import QUESTION_KEYS, QUESTION_OPTIONAL_KEYS, parse_question
from grading.core.question_types import QuestionSpec, SpecError
from grading.core.report_text import format_quantity
from grading.core.submission import SubmissionError
from grading.core.vocabulary import PHASES
from interview.models.authoring import Draft, SampleAnswer
from interview.roles import Role, has_role, roles_of
from interview.services.model_graph import ModelGraph, model_graph
from questions.models import Question, QuestionVersion
from questions.palette import palette_components
from questions.services.packs import number_notation, yaml_dump, yaml_error_message, yaml_read_text
from questions.services.question_bank import question_version_publish

TEXT_FIELDS = ("title", "summary", "prompt", "outline")
CHOICE_FIELDS = ("track", "difficulty", "kind")
# Sections edited as YAML text, in the order of the file format; `design` has the canvas instead.
YAML_SECTIONS = tuple(
    key for key in QUESTION_KEYS if key not in {"slug", "design", *TEXT_FIELDS, *CHOICE_FIELDS}
)
REQUIRED_SECTIONS = tuple(key for key in YAML_SECTIONS if key not in QUESTION_OPTIONAL_KEYS)
MAX_SECTION_CHARS = 100_000
MAX_TEXT_CHARS = 20_000
MAX_QUANTITIES = 300
PUBLISH_PERMISSION = "questions.publish_questions"


class AuthoringError(Exception):
    """A refused authoring action; `problems` lists `(field, message)`."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(f"{where}: {message}" for where, message in problems))


# Permissions.


def can_author(user: User | AnonymousUser) -> bool:
    """Authors and admins (by role), or anyone given `questions.author_questions`."""
    if not user.is_authenticated:
        return False
    return bool(roles_of(user) & {Role.AUTHOR, Role.ADMIN}) or user.has_perm("questions.author_questions")


def can_publish(user: User | AnonymousUser) -> bool:
    """Admins publish; an author publishes when an admin granted them `questions.publish_questions`."""
    return user.is_authenticated and (has_role(user, Role.ADMIN) or user.has_perm(PUBLISH_PERMISSION))


def publish_grant_set(*, user: User, granted: bool) -> None:
    """Give an author (or take back) the right to publish, as a per-user permission."""
    permission = Permission.objects.get(content_type__app_label="questions", codename="publish_questions")
    if granted:
        user.user_permissions.add(permission)
    else:
        user.user_permissions.remove(permission)


# Drafts.


def starter_question(*, slug: str, title: str) -> dict[str, Any]:
    """A new question's first draft: the plan filled in, everything else for the author to write."""
    minutes = {"intro": 1, "numbers": 5, "shape": 7, "arithmetic": 10, "depth": 16, "failures": 5, "close": 1}
    return {
        "slug": slug,
        "title": title,
        "track": "inference",
        "difficulty": "medium",
        "kind": "design",
        "summary": "",
        "prompt": "",
        "plan": [{"phase": phase, "minutes": minutes[phase], "expect": ""} for phase in PHASES],
        "model": {"headline": "", "quantities": []},
        "asked": [],
        "design": {"nodes": [], "edges": [], "path": []},
        "rubric": [],
        "outline": "",
    }


@transaction.atomic
def draft_create(*, owner: User, slug: str, title: str) -> Draft:
    """A new draft: from the question's current version when `slug` is published, else from scratch."""
    existing = Draft.objects.filter(owner=owner, slug=slug).first()
    if existing is not None:
        return existing
    question = Question.objects.filter(slug=slug).select_related("current_version").first()
    if question is not None and question.current_version is not None:
        version = question.current_version
        draft = Draft.objects.create(owner=owner, slug=slug, data=version.spec, based_on=version)
        # The question's sample answers carry over from its latest other draft: they test the question.
        previous = Draft.objects.filter(slug=slug).exclude(pk=draft.pk).order_by("-updated_at", "-pk").first()
        if previous is not None:
            SampleAnswer.objects.bulk_create(
                SampleAnswer(
                    draft=draft, name=sample.name, submission=sample.submission, expected=sample.expected
                )
                for sample in previous.samples.all()
            )
        return draft
    return Draft.objects.create(owner=owner, slug=slug, data=starter_question(slug=slug, title=title))


def draft_sections(data: dict[str, Any], typed: dict[str, str] | None = None) -> dict[str, str]:
    """Each YAML section of a draft as text for its editor ("" when absent or empty): as the author typed it
    (comments and layout kept) while it still reads as the saved value, else written out afresh."""
    texts = {}
    for section in YAML_SECTIONS:
        value = data.get(section)
        texts[section] = "" if value in (None, [], {}) else yaml_dump(value)
        text = (typed or {}).get(section)
        if text and texts[section]:
            try:
                if yaml_read_text(text) == value:
                    texts[section] = text
            except yaml.YAMLError:
                pass
    return texts


def design_for_canvas(data: dict[str, Any]) -> dict[str, Any]:
    design = data.get("design")
    if not isinstance(design, dict):
        design = {}
    nodes = [
        {key: str(node.get(key, "") or "") for key in ("id", "kind", "label", "job", "failure")}
        for node in design.get("nodes", [])
        if isinstance(node, dict)
    ]
    edges = [
        {key: str(edge.get(key, "") or "") for key in ("source", "target", "label")}
        for edge in design.get("edges", [])
        if isinstance(edge, dict)
    ]
    return {"nodes": nodes, "edges": edges}


def design_from_canvas(canvas: object, path_text: str) -> dict[str, Any]:
    """The canvas JSON as a `design:` block. The path is the kinds the author listed, or, when they listed
    none, the kinds met following the first arrow out of each box from the client (or the first box)."""
    canvas = canvas if isinstance(canvas, dict) else {}
    nodes = []
    for node in canvas.get("nodes", []) or []:
        if not isinstance(node, dict):
            continue
        item = {"id": str(node.get("id", "")), "kind": str(node.get("kind", ""))}
        for key in ("label", "job", "failure"):
            if node.get(key):
                item[key] = str(node[key])
        nodes.append(item)
    edges = []
    for edge in canvas.get("edges", []) or []:
        if isinstance(edge, dict):
            item = {"source": str(edge.get("source", "")), "target": str(edge.get("target", ""))}
            if edge.get("label"):
                item["label"] = str(edge["label"])
            edges.append(item)
    path = [kind for kind in path_text.replace("→", ",").replace(">", ",").replace(",", " ").split() if kind]
    return {"nodes": nodes, "edges": edges, "path": path or _walk_path(nodes, edges)}


def _walk_path(nodes: list[dict], edges: list[dict]) -> list[str]:
    kinds = {node["id"]: node["kind"] for node in nodes}
    targets = {edge["target"] for edge in edges}
    starts = [edge["target"] for edge in edges if edge["source"] == "client"]
    starts += [node["id"] for node in nodes if node["id"] not in targets]
    path, seen, current = [], set(), starts[0] if starts else None
    while current is not None and current not in seen and current in kinds:
        seen.add(current)
        if kinds[current]:
            path.append(kinds[current])
        current = next((edge["target"] for edge in edges if edge["source"] == current), None)
    return path


@dataclass
class DraftForm:
    """What the editor posted, read into a question dict; `problems` are sections that could not be read."""

    data: dict[str, Any]
    texts: dict[str, str]
    problems: list[Problem] = field(default_factory=list)


def draft_read_form(*, draft: Draft, form: dict[str, str]) -> DraftForm:
    """Build the question dict from the editor's fields; a section whose YAML cannot be read is a problem
    (and the draft keeps its saved value for it)."""
    data = dict(draft.data)
    texts = {section: form.get(section, "") for section in YAML_SECTIONS}
    problems: list[Problem] = []
    for name in TEXT_FIELDS + CHOICE_FIELDS:
        if name in form:
            value = form[name][:MAX_TEXT_CHARS].replace("\r\n", "\n")
            data[name] = value.strip() if name in CHOICE_FIELDS else value
    for section in YAML_SECTIONS:
        if section not in form:
            continue
        text = texts[section]
        if len(text) > MAX_SECTION_CHARS:
            problems.append((section, f"is {len(text):,} characters; the limit is {MAX_SECTION_CHARS:,}"))
            continue
        try:
            parsed = yaml_read_text(text) if text.strip() else None
        except yaml.YAMLError as error:
            problems.append((section, "cannot read the YAML: " + yaml_error_message(error)))
            continue
        if parsed is None:
            data.pop(section, None)
        else:
            data[section] = parsed
    if form.get("design", "").strip():
        try:
            canvas = json_loads_bounded(form["design"][:MAX_SECTION_CHARS], where=f"draft {draft.pk} design")
        except JsonTooDeep as error:
            problems.append(("design", str(error)))
        except ValueError:
            problems.append(("design", "the canvas sent a design that is not JSON"))
        else:
            data["design"] = design_from_canvas(canvas, form.get("design_path", "")[:2000])
    data["slug"] = draft.slug
    return DraftForm(data, texts, problems)


def draft_save(*, draft: Draft, data: dict[str, Any], texts: dict[str, str] | None = None) -> Draft:
    """Save the question dict and, from the editor, each YAML section's text as typed."""
    draft.data = data
    if texts is not None:
        draft.texts = {section: text.replace("\r\n", "\n") for section, text in texts.items() if text.strip()}
    draft.save(update_fields=["data", "texts", "updated_at"])
    return draft


def draft_check(data: dict[str, Any]) -> tuple[QuestionSpec | None, list[Problem]]:
    """The parsed question, or None and every problem as `(field, message)`."""
    try:
        spec = parse_question(data, f"{data.get('slug', '')}.yaml", palette=palette_components())
    except SpecError as error:
        return None, error.problems
    problems = consequence_problems(spec, load_index())
    return (None, problems) if problems else (spec, [])


# The live depth check.

DEPTH_SECTIONS = ("follow_ups", "curveballs")
DEPTH_CHECK_READS = ("plan", "model", "asked", "scenarios", *DEPTH_SECTIONS)


def depth_check_form(*, draft: Draft, form: dict[str, str], section: str) -> list[Problem]:
    """The problems of one depth section (`follow_ups` or `curveballs`) as the author is typing it, checked
    with the other sections posted alongside (the model, plan, asked lines and scenarios it refers to) or
    saved: what saving would refuse (an override that breaks the model, a line the change does not move, an
    option list with no defensible order, a consequence the palette cannot read)."""
    read = draft_read_form(draft=draft, form={key: form[key] for key in DEPTH_CHECK_READS if key in form})
    unreadable = [problem for problem in read.problems if problem[0] == section]
    if unreadable:
        return unreadable
    others = [problem for problem in read.problems if problem[0] != section]
    if others:
        return [(others[0][0], f"{others[0][1]} (fix it to check the {section.replace('_', '-')} here)")]
    _, problems = draft_check(read.data)
    return [problem for problem in problems if problem[0].startswith(section)]


# The live model check.


@dataclass
class ModelCheck:
    """The model block as the author typed it: problems per quantity, values at the defaults, the graph."""

    problems: list[Problem] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    graph: ModelGraph = field(default_factory=ModelGraph)

    @property
    def ok(self) -> bool:
        return not self.problems


def model_check_text(text: str) -> ModelCheck:
    """Check a `model:` block given as YAML text."""
    if len(text) > MAX_SECTION_CHARS:
        return ModelCheck([("model", f"is {len(text):,} characters; the limit is {MAX_SECTION_CHARS:,}")])
    try:
        block = yaml_read_text(text) if text.strip() else None
    except yaml.YAMLError as error:
        return ModelCheck([("model", "cannot read the YAML: " + yaml_error_message(error))])
    return model_check(block)


def model_block(text: str) -> object:
    """The `model:` block the author typed, or None when it is too long or not YAML (model_check_text says
    why)."""
    if len(text) > MAX_SECTION_CHARS:
        return None
    try:
        return yaml_read_text(text) if text.strip() else None
    except yaml.YAMLError:
        return None


def model_check(block: object) -> ModelCheck:
    """Check a `model:` block: every problem naming its quantity, each quantity's value at the defaults (for
    the part of the model that works), and the dependency graph (inputs on the left, results to the right)."""
    if not isinstance(block, dict):
        return ModelCheck([("model", "must be a mapping with 'headline' and 'quantities'")])
    items = block.get("quantities")
    if isinstance(items, list) and len(items) > MAX_QUANTITIES:
        return ModelCheck([("model", f"has {len(items)} quantities; the limit is {MAX_QUANTITIES}")])
    check = ModelCheck()
    if "headline" not in block or not block.get("headline"):
        check.problems.append(("headline", "is required: the result the sensitivity analysis explains"))
    spec: ModelSpec | None
    try:
        spec = read_model(block)
    except ModelError as error:
        check.problems += error.problems
        spec = _working_part(block, {where for where, _ in error.problems})
    if spec is not None:
        check.rows = _rows(spec)
    check.graph = model_graph(
        items[:MAX_QUANTITIES] if isinstance(items, list) else [],
        {where for where, _ in check.problems},
        {row["name"]: row["shown"] for row in check.rows},
    )
    return check


def _working_part(block: dict, broken: set[str | None]) -> ModelSpec | None:
    """The largest part of the model that compiles: drop broken quantities and whatever reads them."""
    items = [item for item in block.get("quantities") or [] if isinstance(item, dict)]
    for _ in range(5):
        names = {item.get("name") for item in items}
        kept = []
        for item in items:
            if item.get("name") in broken:
                continue
            formula = item.get("formula")
            if formula is not None:
                try:
                    reads = parse_formula(formula).names if isinstance(formula, str) else {"?"}
                except FormulaError:
                    continue
                if reads - names or reads & broken:
                    broken.add(item.get("name"))
                    continue
            kept.append(item)
        if not kept:
            return None
        try:
            return read_model({"quantities": kept})
        except ModelError as error:
            broken |= {where for where, _ in error.problems}
            items = kept
    return None


def _rows(spec: ModelSpec) -> list[dict[str, Any]]:
    try:
        rows = describe_model(spec)
    except ModelError:
        return []
    for row in rows:
        finite_or_no_limit = math.isfinite(row["value"]) or row["value"] == math.inf  # inf: "no limit"
        row["shown"] = format_quantity(row["value"], row["unit"]) if finite_or_no_limit else "—"
        if row.get("range"):
            row["range_shown"] = " to ".join(number_notation(bound) for bound in row["range"])
    return rows


# Sample answers.


@dataclass
class SampleResult:
    sample: SampleAnswer
    verdicts: dict[str, str]
    changes: list[tuple[str, str, str]]  # (line, expected, now)
    error: str = ""

    @property
    def holds(self) -> bool:
        return not self.changes and not self.error


def sample_save(
    *, draft: Draft, name: str, numbers: dict[str, str], expected: dict[str, str]
) -> SampleAnswer:
    numbers = {str(key)[:120]: str(value)[:2000] for key, value in list(numbers.items())[:500]}
    expected = {str(key)[:120]: str(value)[:40] for key, value in list(expected.items())[:500]}
    return SampleAnswer.objects.create(
        draft=draft, name=name.strip()[:120] or "sample", submission={"numbers": numbers}, expected=expected
    )


def sample_results(*, draft: Draft, spec: QuestionSpec | None = None) -> list[SampleResult]:
    """Grade every sample answer of the draft again and list the expected verdicts that changed."""
    if spec is None:
        spec, _ = draft_check(draft.data)
    results = []
    for sample in draft.samples.all():
        if spec is None:
            results.append(SampleResult(sample, {}, [], "the draft does not validate yet"))
            continue
        try:
            report = grade(spec, sample.submission)
        except (SubmissionError, ModelError) as error:
            results.append(SampleResult(sample, {}, [], str(error)))
            continue
        verdicts = {line["name"]: line["verdict"] for line in report["lines"]}
        changes = [
            (name, expected, verdicts.get(name, "not asked any more"))
            for name, expected in sample.expected.items()
            if verdicts.get(name) != expected
        ]
        results.append(SampleResult(sample, verdicts, changes))
    return results


def sample_results_with_model(*, draft: Draft, block: object) -> list[SampleResult]:
    """The sample answers graded with this model instead of the saved one (live, nothing saved)."""
    if not draft.samples.exists():
        return []
    spec, _ = draft_check({**draft.data, "model": block})
    return sample_results(draft=draft, spec=spec) if spec is not None else []


def sample_accept(*, sample: SampleAnswer, verdicts: dict[str, str]) -> SampleAnswer:
    """The author agrees with the new verdicts: they become the expected ones."""
    sample.expected = dict(verdicts)
    sample.save(update_fields=["expected"])
    return sample


def sheet_grade(*, spec: QuestionSpec, numbers: dict[str, str]) -> dict[str, Any]:
    """Grade a sheet typed in the preview (no design)."""
    return grade(spec, {"numbers": numbers})


# Publishing.


def draft_publish(*, draft: Draft, user: User) -> QuestionVersion:
    """Publish the draft as a new immutable version (no new version when nothing changed)."""
    if not can_publish(user):
        raise AuthoringError([("publish", "only admins, or authors an admin allowed, publish")])
    spec, problems = draft_check(draft.data)
    if spec is None:
        raise AuthoringError(problems)
    # The version is the draft's author's work; an admin who publishes it for them is named after them.
    author = draft.owner
    source = f"draft by {author.get_username()}"
    if author.pk != user.pk:
        source += f", published by {user.get_username()}"
    version, _ = question_version_publish(
        spec_dict=spec_to_dict(spec), source=source[:200], created_by=author
    )
    Draft.objects.filter(pk=draft.pk).update(based_on=version)
    draft.based_on = version
    return version


def version_republish(*, version: QuestionVersion, user: User) -> QuestionVersion:
    """Roll back: publish an older version's content again, as a new version."""
    if not can_publish(user):
        raise AuthoringError([("publish", "only admins, or authors an admin allowed, publish")])
    published, _ = question_version_publish(
        spec_dict=version.spec,
        source=f"editor:{user.get_username()} (again v{version.number})"[:200],
        created_by=user,
    )
    return published


# A draft that fell behind: versions published after it began.


def draft_canonical(data: dict[str, Any]) -> dict[str, Any]:
    """The draft or version as the file format writes it, defaults filled in, so two that mean the same
    compare equal; a draft that does not validate yet is compared as it is."""
    spec, _ = draft_check(data)
    return spec_to_dict(spec) if spec is not None else data


def draft_newer_versions(*, draft: Draft) -> list[QuestionVersion]:
    """Versions of the draft's question published after the one the draft started from, newest first."""
    if draft.based_on is None:
        return []
    return list(
        QuestionVersion.objects.filter(question__slug=draft.slug, number__gt=draft.based_on.number)
        .select_related("created_by")
        .order_by("-number")
    )


def _latest_version(draft: Draft) -> QuestionVersion:
    question = Question.objects.select_related("current_version").get(slug=draft.slug)
    assert question.current_version is not None  # asked only when newer versions were published
    return question.current_version


def draft_restart_from_latest(*, draft: Draft) -> Draft:
    """Drop the draft's changes and start again from the question's current version."""
    latest = _latest_version(draft)
    draft.data, draft.based_on = latest.spec, latest
    draft.save(update_fields=["data", "based_on", "updated_at"])
    return draft


def draft_carry_onto_latest(*, draft: Draft) -> list[str]:
    """Carry the draft's changes onto the current version, section by section (a three-way merge on the
    file's top-level sections): a section only the draft changed keeps the draft's; one only the newer
    versions changed takes theirs; one both changed keeps the draft's and is returned, for the author to
    compare on the publish page."""
    latest = _latest_version(draft)
    assert draft.based_on is not None  # carried only when newer versions were published
    base = draft_canonical(draft.based_on.spec)
    mine, theirs = draft_canonical(draft.data), draft_canonical(latest.spec)
    merged, both_changed = {}, []
    for key in dict.fromkeys([*theirs, *mine]):
        mine_changed = mine.get(key) != base.get(key)
        theirs_changed = theirs.get(key) != base.get(key)
        if mine_changed and theirs_changed and mine.get(key) != theirs.get(key):
            both_changed.append(key)
        value = mine.get(key) if mine_changed else theirs.get(key)
        if value is not None:
            merged[key] = value
    draft.data, draft.based_on = merged, latest
    draft.save(update_fields=["data", "based_on", "updated_at"])
    return both_changed
