"""Question files (docs/question-format.md): parse and validate a question dict into frozen dataclasses.

`parse_question(data, source)` collects every problem as `(field, message)` and raises one SpecError; a
field reads like `model.kv_bytes_per_token`, `plan` or `asked[2].name`. `load_pack(folder)` reads every
question file of a pack: a broken file yields its errors, the others still load. `spec_to_dict` is the inverse
of `parse_question`: `parse_question(spec_to_dict(spec), ...) == spec`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from grading.core.box_words import KindWords, Term, read_terms
from grading.core.model import ModelError, ModelSpec, Quantity, read_model, read_number
from grading.core.units import UnitError, compatible, parse_unit

__all__ = [
    "Asked",
    "DesignEdge",
    "DesignNode",
    "DesignSpec",
    "Figure",
    "FollowUp",
    "PaletteComponent",
    "Phase",
    "Quantity",
    "QuestionSpec",
    "RubricDimension",
    "Scenario",
    "SpecError",
    "load_pack",
    "load_palette",
    "load_palette_file",
    "load_question",
    "parse_question",
    "read_yaml",
    "spec_to_dict",
]

PHASES = ("intro", "numbers", "shape", "arithmetic", "depth", "failures", "close")
TRACKS = ("inference", "training", "data", "platform")
DIFFICULTIES = ("easy", "medium", "hard")
KINDS = ("design", "review")
CHECKS = ("relative", "count", "magnitude")
RUBRIC_DIMENSIONS = ("numbers", "shape", "arithmetic", "depth", "failures", "communication")
RUBRIC_LEVELS = (1, 2, 3, 4)
SCENARIO_FAMILIES = ("serving", "training", "pipeline", "events")
CONCEPTS = (
    "latency-slos",
    "capacity-and-backpressure",
    "gpu-job-scheduling",
    "structured-outputs",
    "kv-cache-memory",
    "littles-law",
    "continuous-batching",
    "roofline-and-decode",
    "queueing-theory",
    "checkpointing",
    "cluster-networking",
    "failure-domains",
    "idempotency-and-ledgers",
    "rate-limiting",
    "caching",
    "autoscaling-and-cold-starts",
    "multi-tenancy",
    "data-pipelines",
    "evaluation",
    "observability",
    "moe-and-expert-parallelism",
    "speculative-decoding",
    "power-and-cooling",
    "artifact-distribution",
)
PLAN_MINUTES = 45
CLIENT_KIND = "client"
DEFAULT_TOLERANCE = {"relative": 0.05, "magnitude": 3.0, "count": None}
DEFAULT_FIGURE_TOLERANCE = 0.02

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_NODE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*\Z")
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TOP_LEVEL_REQUIRED = (
    "slug",
    "title",
    "track",
    "difficulty",
    "summary",
    "prompt",
    "plan",
    "model",
    "asked",
    "design",
    "rubric",
) + ("outline",)
_TOP_LEVEL_FIELDS = frozenset(
    (
        *_TOP_LEVEL_REQUIRED,
        "kind",
        "follow_ups",
        "mistakes",
        "scenarios",
        "concepts",
        "related",
        "figures",
        "review",
    )
)
FIX_CATEGORIES = ("correctness", "admission", "placement", "infrastructure")

Problem = tuple[str, str]


class SpecError(ValueError):
    """Every problem found in one question file, as `(field, message)` pairs."""

    def __init__(self, problems: list[Problem], source: str = ""):
        self.problems = problems
        self.source = source
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """One `source: field: message` line per problem."""
        prefix = f"{self.source}: " if self.source else ""
        return [f"{prefix}{field}: {message}" for field, message in self.problems]


@dataclass(frozen=True)
class Phase:
    """One step of the 45-minute plan."""

    name: str
    minutes: int | float
    expect: str


@dataclass(frozen=True)
class FollowUp:
    """A follow-up question the interviewer may ask in a phase."""

    phase: str
    text: str


@dataclass(frozen=True)
class Asked:
    """A quantity the candidate is asked for. `tolerance` is the relative band (relative), the factor
    (magnitude) or None (count: neighbouring whole numbers are accepted)."""

    name: str
    phase: str
    weight: int | float = 1
    check: str = "relative"
    tolerance: float | None = 0.05


@dataclass(frozen=True)
class DesignNode:
    """A box of the reference design; `kind` is a palette kind."""

    id: str
    kind: str
    label: str = ""
    job: str = ""
    failure: str = ""


@dataclass(frozen=True)
class DesignEdge:
    """An arrow between two boxes (`client` is the implicit start)."""

    source: str
    target: str
    label: str = ""


@dataclass(frozen=True)
class DesignSpec:
    """The reference design: boxes, arrows, and the palette kinds a request passes through, in order."""

    nodes: tuple[DesignNode, ...] = ()
    edges: tuple[DesignEdge, ...] = ()
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class RubricDimension:
    """One rubric dimension with its four level descriptions (keys 1 to 4)."""

    dimension: str
    levels: Mapping[int, str]


@dataclass(frozen=True)
class Scenario:
    """A failure replay: simulator family, parameters (quantity names or base-unit numbers), events, SLO."""

    name: str
    title: str
    family: str
    duration_s: float
    description: str = ""
    params: Mapping[str, str | float] = field(default_factory=dict)
    events: tuple[Mapping[str, Any], ...] = ()
    slo: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Figure:
    """A seed figure the model must reproduce: `value` in `unit`, within `tolerance` (relative)."""

    seed: str
    quantity: str
    value: float
    unit: str
    tolerance: float = DEFAULT_FIGURE_TOLERANCE


@dataclass(frozen=True)
class Flaw:
    """A failure path planted in a review question's given design: where (a palette kind, or an arrow between
    node ids as "a->b"), what kind of failure, the scenario that shows it, and the kind of fix it needs."""

    id: str
    component: str
    kind: str
    description: str
    scenario: str
    fix_category: str


@dataclass(frozen=True)
class ReviewSpec:
    """What a review question adds: the planted flaws of its given design (the `design` block)."""

    flaws: tuple[Flaw, ...] = ()


@dataclass(frozen=True)
class QuestionSpec:
    """One question file, parsed and checked. Mappings inside are plain dicts: treat them as read-only."""

    slug: str
    title: str
    track: str
    difficulty: str
    kind: str
    summary: str
    prompt: str
    plan: tuple[Phase, ...]
    model: ModelSpec
    asked: tuple[Asked, ...]
    design: DesignSpec
    rubric: tuple[RubricDimension, ...]
    outline: str
    follow_ups: tuple[FollowUp, ...] = ()
    mistakes: tuple[str, ...] = ()
    scenarios: tuple[Scenario, ...] = ()
    concepts: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    figures: tuple[Figure, ...] = ()
    review: ReviewSpec | None = None

    def phase(self, name: str) -> Phase | None:
        """The plan step called `name`, or None."""
        return next((phase for phase in self.plan if phase.name == name), None)


@dataclass(frozen=True)
class PaletteComponent:
    """A box a candidate can draw, with the words people type for it."""

    kind: str
    name: str
    group: str
    synonyms: tuple[str, ...]
    job: str
    failure: str
    jobs: tuple[Term, ...] = ()  # the vocabulary of what it does and how it fails (grading.core.box_words)
    failures: tuple[Term, ...] = ()


class _Reader:
    """Reads fields out of nested dicts, recording a problem (and returning a fallback) for each bad one."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, field: str, message: str) -> None:
        self.problems.append((field, message))

    def mapping(self, value: object, field: str, allowed: Collection[str] | None = None) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            self.add(field, "must be a mapping")
            return {}
        if allowed is not None:
            for key in value:
                if key not in allowed:
                    self.add(f"{field}.{key}" if field else str(key), "unknown field")
        return value

    def items(self, data: Mapping[str, Any], key: str, field: str, *, required: bool = False) -> list[Any]:
        value = data.get(key)
        if value is None:
            if required:
                self.add(field, "is required")
            return []
        if not isinstance(value, list):
            self.add(field, "must be a list")
            return []
        return value

    def text(self, data: Mapping[str, Any], key: str, field: str, *, required: bool = True) -> str:
        value = data.get(key)
        if value is None:
            if required:
                self.add(field, "is required")
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            self.add(field, "must be non-empty text" if required else "must be text")
            return ""
        return value

    def choice(
        self,
        data: Mapping[str, Any],
        key: str,
        field: str,
        options: Collection[str],
        default: str | None = None,
    ) -> str:
        value = data.get(key, default)
        if value is None:
            self.add(field, "is required")
            return ""
        if value not in options:
            self.add(field, f"{value!r} is not one of {' | '.join(options)}")
            return default or ""
        return value

    def number(
        self,
        data: Mapping[str, Any],
        key: str,
        field: str,
        *,
        default: float | None = None,
        positive: bool = False,
    ) -> Any:
        if key not in data or data[key] is None:
            if default is None:
                self.add(field, "is required")
            return default
        number = read_number(data[key])
        if number is None:
            self.add(field, f"must be a finite number, not {data[key]!r}")
            return default
        if positive and number <= 0:
            self.add(field, "must be greater than 0")
        return number


def parse_question(data: object, source: str, *, palette: Collection[str] | None = None) -> QuestionSpec:
    """Parse and check one question dict. `source` is its file name (the slug must equal its stem); `palette`
    is the set of component kinds design nodes may use (None skips that check). Raises SpecError."""
    reader = _Reader()
    top = reader.mapping(data, "", _TOP_LEVEL_FIELDS)
    for key in _TOP_LEVEL_REQUIRED:
        if key not in top:
            reader.add(key, "is required")
    slug = _read_slug(reader, top, source)
    title = reader.text(top, "title", "title") if "title" in top else ""
    track = reader.choice(top, "track", "track", TRACKS) if "track" in top else ""
    difficulty = reader.choice(top, "difficulty", "difficulty", DIFFICULTIES) if "difficulty" in top else ""
    kind = reader.choice(top, "kind", "kind", KINDS, default="design")
    summary = reader.text(top, "summary", "summary") if "summary" in top else ""
    prompt = reader.text(top, "prompt", "prompt") if "prompt" in top else ""
    outline = reader.text(top, "outline", "outline") if "outline" in top else ""
    plan = _read_plan(reader, top)
    phases = {phase.name for phase in plan}
    model, quantity_units = _read_model(reader, top)
    spec = QuestionSpec(
        slug=slug,
        title=title,
        track=track,
        difficulty=difficulty,
        kind=kind,
        summary=summary,
        prompt=prompt,
        plan=plan,
        model=model,
        asked=_read_asked(reader, top, phases, quantity_units),
        design=_read_design(reader, top, palette),
        rubric=_read_rubric(reader, top),
        outline=outline,
        follow_ups=_read_follow_ups(reader, top, phases),
        mistakes=_read_mistakes(reader, top),
        scenarios=_read_scenarios(reader, top, quantity_units),
        concepts=_read_concepts(reader, top),
        related=_read_related(reader, top, slug),
        figures=_read_figures(reader, top, quantity_units),
    )
    review = _read_review(reader, top, spec)
    if review is not None:
        spec = replace(spec, review=review)
    if reader.problems:
        raise SpecError(reader.problems, source)
    return spec


def _read_slug(reader: _Reader, top: Mapping[str, Any], source: str) -> str:
    if "slug" not in top:
        return ""
    slug = top["slug"]
    if not isinstance(slug, str) or not _SLUG.match(slug):
        reader.add("slug", f"{slug!r} must be lowercase letters, digits and single hyphens")
        return ""
    stem = Path(source).stem if source else slug
    if slug != stem:
        reader.add("slug", f"{slug!r} must equal the file name {stem!r}")
    return slug


def _read_plan(reader: _Reader, top: Mapping[str, Any]) -> tuple[Phase, ...]:
    plan = []
    for index, item in enumerate(reader.items(top, "plan", "plan")):
        field = f"plan[{index}]"
        entry = reader.mapping(item, field, {"phase", "minutes", "expect"})
        name = reader.choice(entry, "phase", f"{field}.phase", PHASES)
        minutes = reader.number(entry, "minutes", f"{field}.minutes", positive=True)
        expect = reader.text(entry, "expect", f"{field}.expect")
        if name and any(phase.name == name for phase in plan):
            reader.add(f"{field}.phase", f"{name!r} appears twice in the plan")
        plan.append(Phase(name, minutes if minutes is not None else 0, expect))
    if "plan" in top and not plan:
        reader.add("plan", "must list at least one phase")
    total = sum(phase.minutes for phase in plan)
    if total > PLAN_MINUTES:
        reader.add("plan", f"minutes add up to {total:g}; the limit is {PLAN_MINUTES}")
    return tuple(plan)


def _read_model(reader: _Reader, top: Mapping[str, Any]) -> tuple[ModelSpec, dict[str, str | None]]:
    """The model, and each quantity name with its unit (None when the unit is unusable); names of broken
    quantities are kept so other sections do not report them as unknown."""
    block = top.get("model")
    if block is None:
        return ModelSpec(()), {}
    units: dict[str, str | None] = {}
    if isinstance(block, Mapping) and isinstance(block.get("quantities"), list):
        for item in block["quantities"]:
            if isinstance(item, Mapping) and isinstance(item.get("name"), str):
                unit = item.get("unit")
                units[item["name"]] = unit if isinstance(unit, str) else None
    if isinstance(block, Mapping) and "headline" not in block:
        reader.add("model.headline", "is required: the result the sensitivity analysis explains")
    try:
        model = read_model(block)
    except ModelError as error:
        for field, message in error.problems:
            reader.add(f"model.{field}" if field != "model" else field, message)
        return ModelSpec(()), units
    return model, units


def _read_asked(
    reader: _Reader, top: Mapping[str, Any], phases: Collection[str], units: Mapping[str, str | None]
) -> tuple[Asked, ...]:
    asked: list[Asked] = []
    for index, item in enumerate(reader.items(top, "asked", "asked")):
        field = f"asked[{index}]"
        entry = reader.mapping(item, field, {"name", "phase", "weight", "check", "tolerance"})
        name = reader.text(entry, "name", f"{field}.name")
        if name and name not in units:
            reader.add(f"{field}.name", f"{name!r} is not a quantity of the model")
        if name and any(other.name == name for other in asked):
            reader.add(f"{field}.name", f"{name!r} is asked twice")
        phase = reader.text(entry, "phase", f"{field}.phase")
        if phase and phase not in phases:
            reader.add(f"{field}.phase", f"{phase!r} is not a phase of the plan")
        weight = reader.number(entry, "weight", f"{field}.weight", default=1, positive=True)
        check = reader.choice(entry, "check", f"{field}.check", CHECKS, default="relative")
        tolerance = _read_tolerance(reader, entry, f"{field}.tolerance", check)
        asked.append(Asked(name, phase, weight, check, tolerance))
    return tuple(asked)


def _read_tolerance(reader: _Reader, entry: Mapping[str, Any], field: str, check: str) -> float | None:
    default = DEFAULT_TOLERANCE.get(check)
    if entry.get("tolerance") is None:
        return default
    tolerance = reader.number(entry, "tolerance", field, positive=True)
    if tolerance is None:
        return default
    if check == "relative" and tolerance >= 1:
        reader.add(field, "a relative tolerance is a fraction below 1 (0.05 = ±5%)")
    if check == "magnitude" and tolerance <= 1:
        reader.add(field, "a magnitude tolerance is a factor above 1 (3 = within 3×)")
    return tolerance


def _read_design(reader: _Reader, top: Mapping[str, Any], palette: Collection[str] | None) -> DesignSpec:
    if top.get("design") is None:
        return DesignSpec()
    design = reader.mapping(top["design"], "design", {"nodes", "edges", "path"})
    kinds = None if palette is None else {*palette, CLIENT_KIND}
    nodes: list[DesignNode] = []
    for index, item in enumerate(reader.items(design, "nodes", "design.nodes")):
        field = f"design.nodes[{index}]"
        entry = reader.mapping(item, field, {"id", "kind", "label", "job", "failure"})
        node_id = reader.text(entry, "id", f"{field}.id")
        if node_id and not _NODE_ID.match(node_id):
            reader.add(f"{field}.id", f"{node_id!r} must be letters, digits, _ and -")
        if node_id and any(node.id == node_id for node in nodes):
            reader.add(f"{field}.id", f"{node_id!r} is used twice")
        kind = reader.text(entry, "kind", f"{field}.kind")
        if kind and kinds is not None and kind not in kinds:
            reader.add(f"{field}.kind", f"{kind!r} is not a palette kind")
        texts = [
            reader.text(entry, key, f"{field}.{key}", required=False) for key in ("label", "job", "failure")
        ]
        nodes.append(DesignNode(node_id, kind, *texts))
    ids = {node.id for node in nodes} | {CLIENT_KIND}
    edges = []
    for index, item in enumerate(reader.items(design, "edges", "design.edges")):
        field = f"design.edges[{index}]"
        entry = reader.mapping(item, field, {"source", "target", "label"})
        ends = [reader.text(entry, key, f"{field}.{key}") for key in ("source", "target")]
        for key, end in zip(("source", "target"), ends, strict=True):
            if end and end not in ids:
                reader.add(f"{field}.{key}", f"{end!r} is not a node id")
        edges.append(DesignEdge(*ends, reader.text(entry, "label", f"{field}.label", required=False)))
    node_kinds = {node.kind for node in nodes} | {CLIENT_KIND}
    path = []
    for index, kind in enumerate(reader.items(design, "path", "design.path")):
        if not isinstance(kind, str):
            reader.add(f"design.path[{index}]", "must be a palette kind")
            continue
        if kinds is not None and kind not in kinds:
            reader.add(f"design.path[{index}]", f"{kind!r} is not a palette kind")
        elif kind not in node_kinds:
            reader.add(f"design.path[{index}]", f"no node of kind {kind!r} in the design")
        path.append(kind)
    return DesignSpec(tuple(nodes), tuple(edges), tuple(path))


def _read_rubric(reader: _Reader, top: Mapping[str, Any]) -> tuple[RubricDimension, ...]:
    rubric: list[RubricDimension] = []
    for index, item in enumerate(reader.items(top, "rubric", "rubric")):
        field = f"rubric[{index}]"
        entry = reader.mapping(item, field, {"dimension", "levels"})
        dimension = reader.choice(entry, "dimension", f"{field}.dimension", RUBRIC_DIMENSIONS)
        if dimension and any(other.dimension == dimension for other in rubric):
            reader.add(f"{field}.dimension", f"{dimension!r} appears twice")
        rubric.append(
            RubricDimension(dimension, _read_levels(reader, entry.get("levels"), f"{field}.levels"))
        )
    return tuple(rubric)


def _read_levels(reader: _Reader, raw: object, field: str) -> dict[int, str]:
    if not isinstance(raw, Mapping):
        reader.add(field, "must map the levels 1, 2, 3 and 4 to descriptions")
        return {}
    levels: dict[int, str] = {}
    for key, text in raw.items():
        level = int(key) if isinstance(key, int | str) and str(key).strip().isdigit() else None
        if level not in RUBRIC_LEVELS or isinstance(key, bool):
            reader.add(field, f"level {key!r} is not one of 1, 2, 3, 4")
        elif not isinstance(text, str) or not text.strip():
            reader.add(f"{field}.{level}", "must be non-empty text")
        else:
            levels[level] = text
    missing = [level for level in RUBRIC_LEVELS if level not in levels and level not in raw]
    if missing:
        reader.add(field, "missing level " + ", ".join(str(level) for level in missing))
    return dict(sorted(levels.items()))


def _read_follow_ups(
    reader: _Reader, top: Mapping[str, Any], phases: Collection[str]
) -> tuple[FollowUp, ...]:
    follow_ups = []
    for index, item in enumerate(reader.items(top, "follow_ups", "follow_ups")):
        field = f"follow_ups[{index}]"
        entry = reader.mapping(item, field, {"phase", "text"})
        phase = reader.text(entry, "phase", f"{field}.phase")
        if phase and phase not in phases:
            reader.add(f"{field}.phase", f"{phase!r} is not a phase of the plan")
        follow_ups.append(FollowUp(phase, reader.text(entry, "text", f"{field}.text")))
    return tuple(follow_ups)


def _read_mistakes(reader: _Reader, top: Mapping[str, Any]) -> tuple[str, ...]:
    mistakes = []
    for index, item in enumerate(reader.items(top, "mistakes", "mistakes")):
        if not isinstance(item, str) or not item.strip():
            reader.add(f"mistakes[{index}]", "must be non-empty text")
        else:
            mistakes.append(item)
    return tuple(mistakes)


def _read_scenarios(
    reader: _Reader, top: Mapping[str, Any], units: Mapping[str, str | None]
) -> tuple[Scenario, ...]:
    scenarios: list[Scenario] = []
    allowed = {"name", "title", "family", "description", "params", "events", "slo", "duration_s"}
    for index, item in enumerate(reader.items(top, "scenarios", "scenarios")):
        field = f"scenarios[{index}]"
        entry = reader.mapping(item, field, allowed)
        name = reader.text(entry, "name", f"{field}.name")
        if name and not _SLUG.match(name):
            reader.add(f"{field}.name", f"{name!r} must be lowercase letters, digits and hyphens")
        if name and any(other.name == name for other in scenarios):
            reader.add(f"{field}.name", f"{name!r} is used twice")
        title = reader.text(entry, "title", f"{field}.title")
        family = reader.choice(entry, "family", f"{field}.family", SCENARIO_FAMILIES)
        description = reader.text(entry, "description", f"{field}.description", required=False)
        duration = reader.number(entry, "duration_s", f"{field}.duration_s", positive=True)
        params = _read_params(reader, entry.get("params"), f"{field}.params", units)
        events = _read_events(reader, entry.get("events"), f"{field}.events", duration)
        slo = _read_slo(reader, entry.get("slo"), f"{field}.slo")
        scenarios.append(Scenario(name, title, family, duration or 0.0, description, params, events, slo))
    return tuple(scenarios)


def _read_review(reader: _Reader, top: Mapping[str, Any], spec: QuestionSpec) -> ReviewSpec | None:
    """A review question must list its planted flaws; a design question must not have a review block."""
    if "review" not in top:
        if spec.kind == "review":
            reader.add("review", "a review question needs a review block listing its planted flaws")
        return None
    if spec.kind != "review":
        reader.add("review", "only a question of kind review has a review block")
    block = reader.mapping(top["review"], "review", {"flaws"})
    node_ids = {node.id for node in spec.design.nodes} | {CLIENT_KIND}
    node_kinds = {node.kind for node in spec.design.nodes}
    scenario_names = {scenario.name for scenario in spec.scenarios}
    flaws: list[Flaw] = []
    allowed = {"id", "component", "kind", "description", "scenario", "fix_category"}
    for index, item in enumerate(reader.items(block, "flaws", "review.flaws", required=True)):
        field = f"review.flaws[{index}]"
        entry = reader.mapping(item, field, allowed)
        flaw_id = reader.text(entry, "id", f"{field}.id")
        component = reader.text(entry, "component", f"{field}.component")
        source, arrow, target = component.partition("->")
        if arrow and not (source.strip() in node_ids and target.strip() in node_ids):
            reader.add(f"{field}.component", f"{component!r}: an arrow names two node ids of the design")
        elif not arrow and component and component not in node_kinds and component not in node_ids:
            reader.add(f"{field}.component", f"{component!r} is not a component of the given design")
        scenario = reader.text(entry, "scenario", f"{field}.scenario")
        if scenario and scenario not in scenario_names:
            reader.add(f"{field}.scenario", f"{scenario!r} is not one of this question's scenarios")
        flaws.append(
            Flaw(
                id=flaw_id,
                component=component,
                kind=reader.text(entry, "kind", f"{field}.kind"),
                description=reader.text(entry, "description", f"{field}.description"),
                scenario=scenario,
                fix_category=reader.choice(entry, "fix_category", f"{field}.fix_category", FIX_CATEGORIES),
            )
        )
    ids = [flaw.id for flaw in flaws]
    for duplicate in sorted({i for i in ids if ids.count(i) > 1}):
        reader.add("review.flaws", f"flaw id {duplicate!r} is used twice")
    return ReviewSpec(flaws=tuple(flaws))


def _read_params(
    reader: _Reader, raw: object, field: str, units: Mapping[str, str | None]
) -> dict[str, str | float]:
    if raw is None:
        return {}
    params: dict[str, str | float] = {}
    for key, value in reader.mapping(raw, field).items():
        where = f"{field}.{key}"
        if not isinstance(key, str) or not _PARAM_NAME.match(key):
            reader.add(where, "a parameter name must be an identifier")
        elif isinstance(value, str) and read_number(value) is None:
            if value not in units:
                reader.add(where, f"{value!r} is not a quantity of the model")
            params[key] = value
        elif (number := read_number(value)) is None:
            reader.add(where, "must be a quantity name or a finite number (base units)")
        else:
            params[key] = number
    return params


def _read_events(
    reader: _Reader, raw: object, field: str, duration: float | None
) -> tuple[dict[str, Any], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        reader.add(field, "must be a list")
        return ()
    events = []
    for index, item in enumerate(raw):
        where = f"{field}[{index}]"
        if not isinstance(item, Mapping):
            reader.add(where, "must be a mapping with 'at' and 'type'")
            continue
        entry = item
        at = reader.number(entry, "at", f"{where}.at")
        if at is not None and (at < 0 or (duration is not None and at > duration)):
            reader.add(f"{where}.at", f"{at:g} s is outside the replay (0 to {duration or 0:g} s)")
        reader.text(entry, "type", f"{where}.type")
        event = dict(entry)
        for key, value in entry.items():
            if key not in ("at", "type") and not isinstance(value, str) and read_number(value) is None:
                reader.add(f"{where}.{key}", "must be a finite number or text")
            elif isinstance(value, str) and key == "at":
                event[key] = read_number(value)
        events.append(event)
    return tuple(events)


def _read_slo(reader: _Reader, raw: object, field: str) -> dict[str, float]:
    if raw is None:
        return {}
    slo = {}
    for key, value in reader.mapping(raw, field).items():
        number = read_number(value)
        if not isinstance(key, str) or number is None:
            reader.add(f"{field}.{key}", "an SLO maps a key to a finite number")
        else:
            slo[key] = number
    return slo


def _read_concepts(reader: _Reader, top: Mapping[str, Any]) -> tuple[str, ...]:
    concepts = []
    for index, concept in enumerate(reader.items(top, "concepts", "concepts")):
        if concept not in CONCEPTS:
            reader.add(
                f"concepts[{index}]", f"{concept!r} is not a known concept (see docs/question-format.md)"
            )
        else:
            concepts.append(concept)
    return tuple(concepts)


def _read_related(reader: _Reader, top: Mapping[str, Any], slug: str) -> tuple[str, ...]:
    related = []
    for index, other in enumerate(reader.items(top, "related", "related")):
        if not isinstance(other, str) or not _SLUG.match(other):
            reader.add(f"related[{index}]", f"{other!r} is not a question slug")
        elif other == slug:
            reader.add(f"related[{index}]", "a question cannot be related to itself")
        else:
            related.append(other)
    return tuple(related)


def _read_figures(
    reader: _Reader, top: Mapping[str, Any], units: Mapping[str, str | None]
) -> tuple[Figure, ...]:
    figures = []
    for index, item in enumerate(reader.items(top, "figures", "figures")):
        field = f"figures[{index}]"
        entry = reader.mapping(item, field, {"seed", "quantity", "value", "unit", "tolerance"})
        seed = reader.text(entry, "seed", f"{field}.seed")
        quantity = reader.text(entry, "quantity", f"{field}.quantity")
        value = reader.number(entry, "value", f"{field}.value")
        unit = entry.get("unit")
        if not isinstance(unit, str):
            reader.add(f"{field}.unit", 'is required ("" for a plain number)')
            unit = ""
        elif quantity:
            _check_figure_unit(reader, f"{field}.unit", unit, quantity, units)
        tolerance = reader.number(entry, "tolerance", f"{field}.tolerance", default=DEFAULT_FIGURE_TOLERANCE)
        if tolerance is not None and not 0 < tolerance < 1:
            reader.add(f"{field}.tolerance", "must be a fraction between 0 and 1 (0.02 = ±2%)")
        figures.append(Figure(seed, quantity, value if value is not None else math.nan, unit, tolerance))
    return tuple(figures)


def _check_figure_unit(
    reader: _Reader, field: str, unit: str, quantity: str, units: Mapping[str, str | None]
) -> None:
    if quantity not in units:
        reader.add(field.rsplit(".", 1)[0] + ".quantity", f"{quantity!r} is not a quantity of the model")
        return
    try:
        parsed = parse_unit(unit)
    except UnitError as error:
        reader.add(field, str(error))
        return
    declared = units[quantity]
    if declared is None:
        return
    try:
        if not compatible(parsed, declared):
            reader.add(field, f"{unit!r} does not fit {quantity} (declared {declared!r})")
    except UnitError:
        return  # the quantity's own unit is reported under model.<name>


# Files.


_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when available: 10x faster


class _Loader(_SafeLoader):  # type: ignore[misc, valid-type]
    """Safe YAML with three fixes for hand-written files, as in YAML 1.2: `1e6` is a number (YAML 1.1 reads it
    as text), only true/false are booleans (`id: off` stays the text "off"), and a key given twice in one
    mapping is an error instead of silently keeping the last."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:
                continue  # unhashable: the base constructor reports it
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def read_yaml(path: str | Path) -> Any:
    """Load one YAML file with our loader (raises yaml.YAMLError, OSError)."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader


def load_palette(path: str | Path) -> dict[str, PaletteComponent]:
    """The component palette, keyed by kind (so `kind in palette` works). Raises SpecError on a bad file."""
    return load_palette_file(path)[0]


def load_palette_file(path: str | Path) -> tuple[dict[str, PaletteComponent], KindWords, int]:
    """The palette by kind, the vocabulary's common jobs and failure modes, and the palette's version."""
    name = Path(path).name
    try:
        data = read_yaml(path)
    except (OSError, yaml.YAMLError) as error:
        raise SpecError([("palette", _yaml_message(error))], name) from None
    reader = _Reader()
    top = reader.mapping(data, "", {"version", "common", "components"})
    version = top.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        reader.add("version", "must be a whole number")
        version = 0
    common_entry = reader.mapping(top.get("common") or {}, "common", {"jobs", "failures"})
    common = KindWords(
        read_terms(common_entry.get("jobs"), "common.jobs", reader.problems),
        read_terms(common_entry.get("failures"), "common.failures", reader.problems),
    )
    palette: dict[str, PaletteComponent] = {}
    allowed = {"kind", "name", "group", "synonyms", "job", "failure", "jobs", "failures"}
    for index, item in enumerate(reader.items(top, "components", "components", required=True)):
        field = f"components[{index}]"
        entry = reader.mapping(item, field, allowed)
        kind = reader.text(entry, "kind", f"{field}.kind")
        if kind in palette:
            reader.add(f"{field}.kind", f"{kind!r} appears twice")
        synonyms = entry.get("synonyms", [])
        if not isinstance(synonyms, list) or not all(isinstance(word, str) for word in synonyms):
            reader.add(f"{field}.synonyms", "must be a list of words")
            synonyms = []
        texts = [reader.text(entry, key, f"{field}.{key}") for key in ("name", "group", "job", "failure")]
        jobs = read_terms(entry.get("jobs"), f"{field}.jobs", reader.problems)
        failures = read_terms(entry.get("failures"), f"{field}.failures", reader.problems)
        if kind:
            palette[kind] = PaletteComponent(
                kind, texts[0], texts[1], tuple(synonyms), texts[2], texts[3], jobs, failures
            )
    if reader.problems:
        raise SpecError(reader.problems, name)
    return palette, common, version


def load_question(path: str | Path, *, palette: Collection[str] | None = None) -> QuestionSpec:
    """Read and parse one question file (raises SpecError, naming the file)."""
    name = Path(path).name
    try:
        data = read_yaml(path)
    except (OSError, yaml.YAMLError) as error:
        raise SpecError([("yaml", _yaml_message(error))], name) from None
    return parse_question(data, name, palette=palette)


def load_pack(
    folder: str | Path, *, palette: Collection[str] | str | Path | None = None
) -> tuple[list[QuestionSpec], list[str]]:
    """Every question in `folder` (each `*.yaml` but palette.yaml, in file-name order) and one
    `file: field: message` line per problem; a broken file is left out and the others still load.

    `palette`: the kinds, or a palette file; by default `palette.yaml` in the folder or its parent (if neither
    exists, design kinds are not checked)."""
    folder = Path(folder)
    errors: list[str] = []
    kinds = _pack_palette(folder, palette, errors)
    specs = []
    for path in sorted(folder.glob("*.yaml")):
        if path.name == "palette.yaml":
            continue
        try:
            specs.append(load_question(path, palette=kinds))
        except SpecError as error:
            errors += error.lines()
    return specs, errors


def _pack_palette(
    folder: Path, palette: Collection[str] | str | Path | None, errors: list[str]
) -> Collection[str] | None:
    if palette is not None and not isinstance(palette, str | Path):
        return palette
    candidates = (
        [Path(palette)] if palette is not None else [folder / "palette.yaml", folder.parent / "palette.yaml"]
    )
    for candidate in candidates:
        if candidate.exists():
            try:
                return load_palette(candidate)
            except SpecError as error:
                errors += error.lines()
                return None
    if palette is not None:
        errors.append(f"{Path(palette).name}: palette: file not found")
    return None


def _yaml_message(error: Exception) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark else problem


# Export.


def spec_to_dict(spec: QuestionSpec) -> dict[str, Any]:
    """The question as a dict in the file format (YAML-ready); parsing it gives back an equal spec."""
    return {
        "slug": spec.slug,
        "title": spec.title,
        "track": spec.track,
        "difficulty": spec.difficulty,
        "kind": spec.kind,
        "summary": spec.summary,
        "prompt": spec.prompt,
        "plan": [
            {"phase": phase.name, "minutes": phase.minutes, "expect": phase.expect} for phase in spec.plan
        ],
        "model": _model_to_dict(spec.model),
        "asked": [_asked_to_dict(asked) for asked in spec.asked],
        "design": {
            "nodes": [_drop_empty(vars(node), keep={"id", "kind"}) for node in spec.design.nodes],
            "edges": [_drop_empty(vars(edge), keep={"source", "target"}) for edge in spec.design.edges],
            "path": list(spec.design.path),
        },
        "rubric": [{"dimension": item.dimension, "levels": dict(item.levels)} for item in spec.rubric],
        "outline": spec.outline,
        "follow_ups": [{"phase": item.phase, "text": item.text} for item in spec.follow_ups],
        "mistakes": list(spec.mistakes),
        "scenarios": [_scenario_to_dict(scenario) for scenario in spec.scenarios],
        "concepts": list(spec.concepts),
        "related": list(spec.related),
        "figures": [dict(vars(figure)) for figure in spec.figures],
        **({"review": {"flaws": [dict(vars(flaw)) for flaw in spec.review.flaws]}} if spec.review else {}),
    }


def _model_to_dict(model: ModelSpec) -> dict[str, Any]:
    quantities = []
    for quantity in model.quantities:
        if quantity.is_input:
            item = {
                "name": quantity.name,
                "label": quantity.label,
                "value": quantity.value,
                "unit": quantity.unit,
                "range": list(quantity.range) if quantity.range else None,
                "source": quantity.source,
            }
            if quantity.variable:
                item["variable"] = True
        else:
            item = {
                "name": quantity.name,
                "label": quantity.label,
                "formula": quantity.formula,
                "unit": quantity.unit,
            }
        if quantity.note:
            item["note"] = quantity.note
        quantities.append(item)
    return {"headline": model.headline, "quantities": quantities}


def _asked_to_dict(asked: Asked) -> dict[str, Any]:
    item = {"name": asked.name, "phase": asked.phase, "weight": asked.weight, "check": asked.check}
    if asked.tolerance is not None:
        item["tolerance"] = asked.tolerance
    return item


def _scenario_to_dict(scenario: Scenario) -> dict[str, Any]:
    return {
        "name": scenario.name,
        "title": scenario.title,
        "family": scenario.family,
        "description": scenario.description,
        "params": dict(scenario.params or {}),
        "events": [dict(event) for event in scenario.events],
        "slo": dict(scenario.slo or {}),
        "duration_s": scenario.duration_s,
    }


def _drop_empty(fields: Mapping[str, Any], keep: Collection[str]) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if key in keep or value}
