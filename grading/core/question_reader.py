"""The validating reader: `parse_question(data, source)` checks a question dict and builds a QuestionSpec.

Every problem is collected as `(field, message)` and raised as one SpecError; a field reads like
`model.kv_bytes_per_token`, `plan` or `asked[2].name`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, overload

from grading.core.drill_wording import PLACEHOLDER, formula_names, wording_problems
from grading.core.model import ModelError, ModelSpec, Problem, read_model, read_number
from grading.core.quantity_text import ParseFailure, read_value
from grading.core.question_text import template_problems
from grading.core.question_types import (
    CLIENT_KIND,
    DEFAULT_FIGURE_TOLERANCE,
    DEFAULT_TOLERANCE,
    PLAN_MINUTES,
    Asked,
    Consequence,
    Curveball,
    DecisionNumber,
    DecisionOption,
    DesignEdge,
    DesignNode,
    DesignSpec,
    Figure,
    FixLine,
    Flaw,
    FollowUp,
    Phase,
    QuestionSpec,
    ReviewSpec,
    RubricDimension,
    Scenario,
    SpecError,
)
from grading.core.replay_inputs import EVENT_FIELD_UNITS, slo_unit
from grading.core.report_text import format_quantity
from grading.core.units import UnitError, compatible, parse_unit
from grading.core.verdicts import within
from grading.core.vocabulary import (
    CHECKS,
    CONCEPTS,
    DIFFICULTIES,
    FIX_CATEGORIES,
    KINDS,
    PHASES,
    RUBRIC_DIMENSIONS,
    RUBRIC_LEVELS,
    SCENARIO_FAMILIES,
    TRACKS,
)

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_NODE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*\Z")
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# A question file's top-level keys, in the bank files' order: the one list the reader, the export (its order),
# authoring (its sections) and docs/question-format.md (tests/core/test_question_keys.py) share.
QUESTION_KEYS = (
    "slug",
    "title",
    "track",
    "difficulty",
    "kind",
    "summary",
    "prompt",
    "plan",
    "model",
    "asked",
    "design",
    "review",
    "rubric",
    "outline",
    "follow_ups",
    "mistakes",
    "scenarios",
    "concepts",
    "related",
    "figures",
    "curveballs",
)
QUESTION_OPTIONAL_KEYS = frozenset(
    ("kind", "follow_ups", "mistakes", "scenarios", "concepts", "related", "figures", "review", "curveballs")
)
_TOP_LEVEL_REQUIRED = tuple(key for key in QUESTION_KEYS if key not in QUESTION_OPTIONAL_KEYS)
_TOP_LEVEL_FIELDS = frozenset(QUESTION_KEYS)
MIN_CURVEBALLS, MAX_CURVEBALLS = 2, 4
MAX_CURVEBALL_CHANGES = 3
MIN_CURVEBALL_LINES, MAX_CURVEBALL_LINES = 2, 4
MAX_CONSEQUENCES = 3
MIN_OPTIONS, MAX_OPTIONS = 3, 6


class FieldReader:
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
        return str(value)

    @overload
    def number(
        self, data: Mapping[str, Any], key: str, field: str, *, default: float, positive: bool = False
    ) -> float: ...
    @overload
    def number(
        self, data: Mapping[str, Any], key: str, field: str, *, default: None = None, positive: bool = False
    ) -> float | None: ...
    def number(
        self,
        data: Mapping[str, Any],
        key: str,
        field: str,
        *,
        default: float | None = None,
        positive: bool = False,
    ) -> float | None:
        """The finite number at `key` (an error for the field, and `default`, when there is none)."""
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
    reader = FieldReader()
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
        asked=_read_drill_wordings(reader, _read_asked(reader, top, phases, quantity_units), model),
        design=_read_design(reader, top, palette),
        rubric=_read_rubric(reader, top),
        outline=outline,
        follow_ups=_read_follow_ups(reader, top, phases, quantity_units),
        mistakes=_read_mistakes(reader, top),
        scenarios=_read_scenarios(reader, top, quantity_units),
        concepts=_read_concepts(reader, top),
        related=_read_related(reader, top, slug),
        figures=_read_figures(reader, top, quantity_units),
    )
    _check_templates(reader, spec)
    scenario_names = {scenario.name for scenario in spec.scenarios}
    curveballs = _read_curveballs(reader, top, model, quantity_units, palette, scenario_names)
    if curveballs and "depth" not in phases:
        reader.add("curveballs", "curveballs need a depth phase in the plan")
    if curveballs:
        spec = replace(spec, curveballs=curveballs)
    review = _read_review(reader, top, spec)
    if review is not None:
        spec = replace(spec, review=review)
    if reader.problems:
        raise SpecError(reader.problems, source)
    return spec


def _check_templates(reader: FieldReader, spec: QuestionSpec) -> None:
    """The title, prompt, plan, scenarios' descriptions and design boxes may name given assumptions as
    `{name}` (grading.core.question_text), the texts shown with answers answers as `{=name}`; any other
    placeholder is refused, so no rendering ever states an answer where it may not."""
    fields = [("title", spec.title), ("prompt", spec.prompt)]
    fields += [(f"plan[{index}].expect", phase.expect) for index, phase in enumerate(spec.plan)]
    fields += [
        (f"scenarios[{i}].{key}", getattr(item, key))
        for i, item in enumerate(spec.scenarios)
        for key in ("title", "description")
    ]
    fields += [
        (f"design.nodes[{index}].{key}", getattr(node, key))
        for index, node in enumerate(spec.design.nodes)
        for key in ("job", "failure")
    ]
    inputs = {q.name: q.stated for q in spec.model.quantities if q.is_input}
    derived = frozenset(q.name for q in spec.model.quantities if not q.is_input)
    asked = frozenset(line.name for line in spec.asked)
    for field, message in template_problems(fields, inputs, derived, asked, spec.kind):
        reader.add(field, message)


def _read_slug(reader: FieldReader, top: Mapping[str, Any], source: str) -> str:
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


def _read_plan(reader: FieldReader, top: Mapping[str, Any]) -> tuple[Phase, ...]:
    plan: list[Phase] = []
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


def _read_model(reader: FieldReader, top: Mapping[str, Any]) -> tuple[ModelSpec, dict[str, str | None]]:
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
    reader: FieldReader, top: Mapping[str, Any], phases: Collection[str], units: Mapping[str, str | None]
) -> tuple[Asked, ...]:
    return _read_lines(reader, reader.items(top, "asked", "asked"), "asked", units, phases=phases)


def _read_lines(
    reader: FieldReader,
    items: list[Any],
    prefix: str,
    units: Mapping[str, str | None],
    *,
    phases: Collection[str] | None = None,
) -> tuple[Asked, ...]:
    """Asked lines; with `phases` None they are a curveball's: in the depth phase, with no drill wording."""
    asked: list[Asked] = []
    allowed = {"name", "weight", "check", "tolerance", "exact_prefix"}
    if phases is not None:
        allowed |= {"phase", "drill"}
    for index, item in enumerate(items):
        field = f"{prefix}[{index}]"
        entry = reader.mapping(item, field, allowed)
        name = reader.text(entry, "name", f"{field}.name")
        if name and name not in units:
            reader.add(f"{field}.name", f"{name!r} is not a quantity of the model")
        if name and any(other.name == name for other in asked):
            reader.add(f"{field}.name", f"{name!r} is asked twice")
        phase = "depth"
        if phases is not None:
            phase = reader.text(entry, "phase", f"{field}.phase")
            if phase and phase not in phases:
                reader.add(f"{field}.phase", f"{phase!r} is not a phase of the plan")
        weight = reader.number(entry, "weight", f"{field}.weight", default=1, positive=True)
        check = reader.choice(entry, "check", f"{field}.check", CHECKS, default="relative")
        tolerance = _read_tolerance(reader, entry, f"{field}.tolerance", check)
        drill = reader.text(entry, "drill", f"{field}.drill", required=False) or ""
        exact_prefix = entry.get("exact_prefix", False)
        if not isinstance(exact_prefix, bool):
            reader.add(f"{field}.exact_prefix", "must be true or false")
            exact_prefix = False
        asked.append(Asked(name, phase, weight, check, tolerance, drill, exact_prefix))
    return tuple(asked)


def _read_drill_wordings(
    reader: FieldReader, asked: tuple[Asked, ...], model: ModelSpec
) -> tuple[Asked, ...]:
    """Check each authored drill wording against the formula of its line."""
    formulas = {quantity.name: quantity.formula for quantity in model.quantities}
    for index, item in enumerate(asked):
        if not item.drill:
            continue
        field = f"asked[{index}].drill"
        formula = formulas.get(item.name)
        if formula is None:
            reader.add(field, "only a derived line (one with a formula) can have a drill wording")
            continue
        for problem in wording_problems(item.drill, formula_names(formula, formulas)):
            reader.add(field, problem)
    return asked


def _read_tolerance(reader: FieldReader, entry: Mapping[str, Any], field: str, check: str) -> float | None:
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


def _read_design(reader: FieldReader, top: Mapping[str, Any], palette: Collection[str] | None) -> DesignSpec:
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
        source, target = (reader.text(entry, key, f"{field}.{key}") for key in ("source", "target"))
        for key, end in (("source", source), ("target", target)):
            if end and end not in ids:
                reader.add(f"{field}.{key}", f"{end!r} is not a node id")
        edges.append(
            DesignEdge(source, target, reader.text(entry, "label", f"{field}.label", required=False))
        )
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


def _read_rubric(reader: FieldReader, top: Mapping[str, Any]) -> tuple[RubricDimension, ...]:
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


def _read_levels(reader: FieldReader, raw: object, field: str) -> dict[int, str]:
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
    reader: FieldReader,
    top: Mapping[str, Any],
    phases: Collection[str],
    quantity_units: Mapping[str, str | None],
) -> tuple[FollowUp, ...]:
    follow_ups: list[FollowUp] = []
    allowed = {"phase", "text", "id", "options", "orders", "number"}
    for index, item in enumerate(reader.items(top, "follow_ups", "follow_ups")):
        field = f"follow_ups[{index}]"
        entry = reader.mapping(item, field, allowed)
        phase = reader.text(entry, "phase", f"{field}.phase")
        if phase and phase not in phases:
            reader.add(f"{field}.phase", f"{phase!r} is not a phase of the plan")
        text = reader.text(entry, "text", f"{field}.text")
        if not any(key in entry for key in ("id", "options", "orders", "number")):
            follow_ups.append(FollowUp(phase, text))
            continue
        decision_id = _read_id(reader, entry, f"{field}.id")
        if decision_id and any(other.id == decision_id for other in follow_ups):
            reader.add(f"{field}.id", f"{decision_id!r} is used twice")
        options = _read_options(reader, entry, field)
        orders = _read_orders(reader, entry, field, [option.id for option in options])
        number = _read_decision_number(reader, entry.get("number"), f"{field}.number", quantity_units)
        follow_ups.append(FollowUp(phase, text, decision_id, options, orders, number))
    return tuple(follow_ups)


def _read_id(reader: FieldReader, entry: Mapping[str, Any], field: str) -> str:
    value = reader.text(entry, "id", field)
    if value and not _SLUG.match(value):
        reader.add(field, f"{value!r} must be lowercase letters, digits and single hyphens")
        return ""
    return value


def _read_options(reader: FieldReader, entry: Mapping[str, Any], field: str) -> tuple[DecisionOption, ...]:
    items = reader.items(entry, "options", f"{field}.options", required=True)
    if "options" in entry and not MIN_OPTIONS <= len(items) <= MAX_OPTIONS:
        reader.add(
            f"{field}.options", f"a decision has {MIN_OPTIONS} to {MAX_OPTIONS} options, not {len(items)}"
        )
    options: list[DecisionOption] = []
    for index, item in enumerate(items):
        where = f"{field}.options[{index}]"
        option = reader.mapping(item, where, {"id", "choice", "tradeoff"})
        option_id = _read_id(reader, option, f"{where}.id")
        if option_id and any(other.id == option_id for other in options):
            reader.add(f"{where}.id", f"{option_id!r} is used twice")
        choice = reader.text(option, "choice", f"{where}.choice")
        options.append(
            DecisionOption(option_id, choice, reader.text(option, "tradeoff", f"{where}.tradeoff"))
        )
    return tuple(options)


def _read_orders(
    reader: FieldReader, entry: Mapping[str, Any], field: str, option_ids: list[str]
) -> tuple[tuple[str, ...], ...]:
    items = reader.items(entry, "orders", f"{field}.orders")
    if not items:
        reader.add(f"{field}.orders", "an option list needs at least one defensible order")
    orders: list[tuple[str, ...]] = []
    for index, item in enumerate(items):
        where = f"{field}.orders[{index}]"
        if not isinstance(item, list) or not item:
            reader.add(where, "must be a non-empty list of option ids")
            continue
        unknown = [option for option in item if option not in option_ids]
        if unknown:
            reader.add(where, f"{', '.join(map(repr, unknown))} is not an option id")
        elif len(set(item)) != len(item):
            reader.add(where, "names an option twice")
        elif tuple(item) in orders:
            reader.add(where, "repeats an earlier order")
        else:
            orders.append(tuple(item))
    return tuple(orders)


def _read_decision_number(
    reader: FieldReader, raw: object, field: str, quantity_units: Mapping[str, str | None]
) -> DecisionNumber | None:
    if raw is None:
        return None
    entry = reader.mapping(raw, field, {"label", "unit", "band", "follows"})
    label = reader.text(entry, "label", f"{field}.label")
    unit = entry.get("unit")
    if not isinstance(unit, str):
        reader.add(f"{field}.unit", 'is required ("" for a plain number)')
        unit = ""
    else:
        try:
            parse_unit(unit)
        except UnitError as error:
            reader.add(f"{field}.unit", str(error))
    band = entry.get("band")
    numbers = [read_number(value) for value in band] if isinstance(band, list) else []
    low, high = numbers if len(numbers) == 2 else (None, None)
    if low is None or high is None or low > high:
        reader.add(f"{field}.band", "must be [low, high], two finite numbers with low <= high")
        return DecisionNumber(label, unit, (0.0, 0.0))
    follows = _read_follows(reader, entry, f"{field}.follows", unit, quantity_units)
    return DecisionNumber(label, unit, (float(low), float(high)), follows)


def _read_follows(
    reader: FieldReader,
    entry: Mapping[str, Any],
    field: str,
    unit: str,
    quantity_units: Mapping[str, str | None],
) -> str:
    """The model quantity a decision's band is proportional to: named in the model, of the number's
    physical dimension."""
    if "follows" not in entry:
        return ""
    name = entry["follows"]
    if not isinstance(name, str) or name not in quantity_units:
        reader.add(field, f"{name!r} is not a quantity of the model")
        return ""
    own = quantity_units[name]
    try:
        agrees = own is not None and parse_unit(unit).dims.physical == parse_unit(own).dims.physical
    except UnitError:
        agrees = False
    if not agrees:
        reader.add(field, f"{name} is in {own!r}, another dimension than the number's {unit!r}")
        return ""
    return name


def _read_curveballs(
    reader: FieldReader,
    top: Mapping[str, Any],
    model: ModelSpec,
    units: Mapping[str, str | None],
    palette: Collection[str] | None,
    scenarios: Collection[str],
) -> tuple[Curveball, ...]:
    items = reader.items(top, "curveballs", "curveballs")
    if "curveballs" in top and not MIN_CURVEBALLS <= len(items) <= MAX_CURVEBALLS:
        reader.add(
            "curveballs", f"a question has {MIN_CURVEBALLS} to {MAX_CURVEBALLS} curveballs, not {len(items)}"
        )
    curveballs: list[Curveball] = []
    allowed = {"id", "title", "set", "says", "asked", "design", "scenario"}
    for index, item in enumerate(items):
        field = f"curveballs[{index}]"
        entry = reader.mapping(item, field, allowed)
        curveball_id = _read_id(reader, entry, f"{field}.id")
        if curveball_id and any(other.id == curveball_id for other in curveballs):
            reader.add(f"{field}.id", f"{curveball_id!r} is used twice")
        title = reader.text(entry, "title", f"{field}.title")
        changes = _read_changes(reader, entry.get("set"), f"{field}.set", model)
        says = reader.text(entry, "says", f"{field}.says")
        if says and isinstance(entry.get("set"), Mapping):
            _check_says(reader, says, f"{field}.says", entry["set"])
        lines = reader.items(entry, "asked", f"{field}.asked", required=True)
        if "asked" in entry and not MIN_CURVEBALL_LINES <= len(lines) <= MAX_CURVEBALL_LINES:
            reader.add(
                f"{field}.asked", f"a curveball asks {MIN_CURVEBALL_LINES} to {MAX_CURVEBALL_LINES} lines"
            )
        asked = _read_lines(reader, lines, f"{field}.asked", units)
        consequences = _read_consequences(reader, entry, field, palette)
        scenario = reader.text(entry, "scenario", f"{field}.scenario", required=False) or ""
        if scenario and scenario not in scenarios:
            reader.add(f"{field}.scenario", f"{scenario!r} is not one of this question's scenarios")
        curveball = Curveball(curveball_id, title, changes, says, asked, consequences, scenario)
        _check_curveball_model(reader, curveball, field, model)
        curveballs.append(curveball)
    return tuple(curveballs)


def _read_changes(reader: FieldReader, raw: object, field: str, model: ModelSpec) -> dict[str, float]:
    if raw is None:
        reader.add(field, "is required: the inputs the curveball changes, each with its new value")
        return {}
    entry = reader.mapping(raw, field)
    if not 1 <= len(entry) <= MAX_CURVEBALL_CHANGES:
        reader.add(field, f"a curveball changes 1 to {MAX_CURVEBALL_CHANGES} inputs")
    quantities = {quantity.name: quantity for quantity in model.quantities}
    changes: dict[str, float] = {}
    for name, value in entry.items():
        where = f"{field}.{name}"
        number = read_number(value)
        quantity = quantities.get(name)
        if number is None:
            reader.add(where, f"must be a finite number, not {value!r}")
        elif quantity is None:
            if quantities:
                reader.add(where, f"{name!r} is not a quantity of the model")
        elif not quantity.is_input:
            reader.add(where, f"{name!r} is derived; a curveball changes inputs")
        elif quantity.range and not quantity.range[0] <= number <= quantity.range[1]:
            low, high = quantity.range
            reader.add(
                where, f"{number:g} is outside the plausible range {low:g} to {high:g} {quantity.unit}"
            )
        elif number == quantity.value:
            reader.add(where, f"{number:g} is the question's own value; a curveball changes it")
        else:
            changes[name] = float(number)
    return changes


def _check_says(reader: FieldReader, says: str, field: str, changes: Mapping[str, Any]) -> None:
    used = set(PLACEHOLDER.findall(says))
    parts = []
    missing = sorted(set(changes) - used)
    if missing:
        parts.append("the sentence does not state " + ", ".join("{" + name + "}" for name in missing))
    extra = sorted(used - set(changes))
    if extra:
        parts.append("it names " + ", ".join(extra) + ", which the curveball does not change")
    if parts:
        reader.add(field, "; ".join(parts))


def _read_consequences(
    reader: FieldReader, entry: Mapping[str, Any], field: str, palette: Collection[str] | None
) -> tuple[Consequence, ...]:
    items = reader.items(entry, "design", f"{field}.design", required=True)
    if "design" in entry and not 1 <= len(items) <= MAX_CONSEQUENCES:
        reader.add(f"{field}.design", f"a curveball names 1 to {MAX_CONSEQUENCES} design consequences")
    consequences = []
    for index, item in enumerate(items):
        where = f"{field}.design[{index}]"
        consequence = reader.mapping(item, where, {"kind", "names", "says"})
        kind = reader.text(consequence, "kind", f"{where}.kind")
        if kind and palette is not None and kind not in palette:
            reader.add(f"{where}.kind", f"{kind!r} is not a palette kind")
        names = reader.text(consequence, "names", f"{where}.names")
        consequences.append(Consequence(kind, names, reader.text(consequence, "says", f"{where}.says")))
    return tuple(consequences)


def _check_curveball_model(reader: FieldReader, curveball: Curveball, field: str, model: ModelSpec) -> None:
    """The model must stay finite under the change, and every asked line must move."""
    if (
        not curveball.set
        or not model.quantities
        or any(f.startswith(f"{field}.set") for f, _ in reader.problems)
    ):
        return
    try:
        reference = model.reference
        before = reference.evaluate()
        after = reference.evaluate(
            {name: reference.base_value(name, value) for name, value in curveball.set.items()}
        )
    except ModelError as error:
        name, message = error.problems[0]
        reader.add(f"{field}.set", f"the model breaks under this change: {name} {message}")
        return
    for index, line in enumerate(curveball.asked):
        if line.name not in after:
            continue
        if line.name in curveball.set or reference.quantities[line.name].is_input:
            reader.add(
                f"{field}.asked[{index}].name",
                f"{line.name!r} is an input; ask a line derived from the change",
            )
        elif not line_moves(float(before[line.name]), float(after[line.name]), line.check, line.tolerance):
            shown = format_quantity(
                float(reference.display_value(line.name, after[line.name])),
                reference.quantities[line.name].unit,
            )
            reader.add(
                f"{field}.asked[{index}].name",
                f"{line.name} is {shown} under the change, and its value before passes the line's check; "
                "ask a line the change moves past its band",
            )


def line_moves(before: float, after: float, check: str, tolerance: float | None) -> bool:
    """Whether a change moves a line: its value before the change must fail the line's own check against the
    value after it (else the old answer passes and the curveball asks nothing new)."""
    return not within(check, tolerance, before, after)


def _read_mistakes(reader: FieldReader, top: Mapping[str, Any]) -> tuple[str, ...]:
    mistakes = []
    for index, item in enumerate(reader.items(top, "mistakes", "mistakes")):
        if not isinstance(item, str) or not item.strip():
            reader.add(f"mistakes[{index}]", "must be non-empty text")
        else:
            mistakes.append(item)
    return tuple(mistakes)


def _read_scenarios(
    reader: FieldReader, top: Mapping[str, Any], units: Mapping[str, str | None]
) -> tuple[Scenario, ...]:
    scenarios: list[Scenario] = []
    allowed = {"name", "title", "family", "description", "params", "events", "slo", "duration_s"}
    allowed |= {"breaks_every_design"}
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
        events = _read_events(reader, entry.get("events"), f"{field}.events", duration, units)
        slo = _read_slo(reader, entry.get("slo"), f"{field}.slo", units)
        breaks = entry.get("breaks_every_design", False)
        if not isinstance(breaks, bool):
            reader.add(f"{field}.breaks_every_design", "must be true or false")
            breaks = False
        scenarios.append(
            Scenario(name, title, family, duration or 0.0, description, params, events, slo, breaks)
        )
    return tuple(scenarios)


def _read_review(reader: FieldReader, top: Mapping[str, Any], spec: QuestionSpec) -> ReviewSpec | None:
    """A review question must list its planted flaws; a design question must not have a review block."""
    if "review" not in top:
        if spec.kind == "review":
            reader.add("review", "a review question needs a review block listing its planted flaws")
        return None
    if spec.kind != "review":
        reader.add("review", "only a question of kind review has a review block")
    block = reader.mapping(top["review"], "review", {"flaws", "fix"})
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
    return ReviewSpec(flaws=tuple(flaws), fix=_read_fix(reader, block, spec))


def _read_fix(reader: FieldReader, block: Mapping[str, Any], spec: QuestionSpec) -> tuple[FixLine, ...]:
    """The reference fix: the lines of the fixed design's sheet, each a model quantity the replays read
    (itself or through the quantities it feeds) and not a derived line the candidate is asked for (its
    sheet opens on the given design's value, which would state that line's answer), with the reference's
    value as text in the quantity's unit or the name of a model quantity of the same dimension."""
    quantities = {quantity.name: quantity for quantity in spec.model.quantities}
    asked = {line.name for line in spec.asked}
    replayed: set[str] = set()
    if quantities and not any(field.startswith("model") for field, _ in reader.problems):
        try:
            reference = spec.model.reference
            for scenario in spec.scenarios:
                for value in scenario.params.values():
                    if isinstance(value, str) and value in quantities:
                        replayed |= {value, *reference.upstream(value)}
        except ModelError:
            replayed = set(quantities)
    lines: list[FixLine] = []
    for index, item in enumerate(reader.items(block, "fix", "review.fix")):
        field = f"review.fix[{index}]"
        entry = reader.mapping(item, field, {"name", "value", "label"})
        name = reader.text(entry, "name", f"{field}.name")
        raw = entry.get("value")
        value = str(raw).strip() if isinstance(raw, str | int | float) and not isinstance(raw, bool) else ""
        label = reader.text(entry, "label", f"{field}.label", required=False)
        if not value:
            reader.add(f"{field}.value", "is required: the reference fix's value, with its unit")
        quantity = quantities.get(name)
        if name and quantity is None:
            reader.add(f"{field}.name", f"{name!r} is not a quantity of the model")
        elif quantity is not None:
            if any(line.name == name for line in lines):
                reader.add(f"{field}.name", f"{name!r} is on the fixed sheet twice")
            if replayed and name not in replayed:
                reader.add(f"{field}.name", f"no scenario reads {name!r}: fixing it would change no replay")
            if not quantity.is_input and name in asked:
                reader.add(
                    f"{field}.name",
                    f"{name!r} is an asked derived line: the fixed sheet would open on its answer",
                )
            if value:
                _check_fix_value(reader, f"{field}.value", value, quantity, quantities)
        lines.append(FixLine(name=name, value=value, label=label))
    return tuple(lines)


def _check_fix_value(
    reader: FieldReader, field: str, value: str, quantity: Any, quantities: Mapping[str, Any]
) -> None:
    """A fix value is a quantity of the same dimension, or text read in the line's unit."""
    if _PARAM_NAME.match(value) and not value[:1].isdigit():
        other = quantities.get(value)
        if other is None:
            reader.add(field, f"{value!r} is not a quantity of the model (nor a number with a unit)")
        elif not _same_dimension(quantity.unit, other.unit):
            reader.add(
                field,
                f"{value!r} is in {other.unit or 'a plain number'}, not in "
                f"{quantity.unit or 'a plain number'}",
            )
        return
    try:
        reading = read_value(value, parse_unit(quantity.unit))
    except UnitError:
        return  # the model's own check names a bad unit
    if isinstance(reading, ParseFailure):
        reader.add(
            field, f"{value!r} cannot be read as {quantity.unit or 'a plain number'}: {reading.message}"
        )
    elif not math.isfinite(reading) or reading < 0:
        reader.add(field, f"{value!r} is not a finite, non-negative value")


def _same_dimension(first: str, second: str) -> bool:
    try:
        return compatible(parse_unit(first), parse_unit(second))
    except UnitError:
        return True


def _read_params(
    reader: FieldReader, raw: object, field: str, units: Mapping[str, str | None]
) -> dict[str, str | float]:
    if raw is None:
        return {}
    params: dict[str, str | float] = {}
    for key, value in reader.mapping(raw, field).items():
        where = f"{field}.{key}"
        if not isinstance(key, str) or not _PARAM_NAME.match(key):
            reader.add(where, "a parameter name must be an identifier")
        elif isinstance(value, str) and read_number(value) is None:
            if value not in units and value != "unbounded":  # the no-limit value (a queue with no bound)
                reader.add(where, f"{value!r} is not a quantity of the model")
            params[key] = value
        elif (number := read_number(value)) is None:
            reader.add(where, "must be a quantity name, a finite number (base units) or unbounded")
        else:
            params[key] = number
    return params


def _check_named(
    reader: FieldReader, where: str, quantity: str, unit: str | None, units: Mapping[str, str | None]
) -> None:
    """A field that names quantity `quantity` must take its dimension (`unit`; any when None)."""
    if unit is not None and not _same_dimension(units[quantity] or "", unit):
        reader.add(where, f"{quantity!r} is in {units[quantity] or 'no unit'}, not in {unit or 'no unit'}")


def _read_events(
    reader: FieldReader, raw: object, field: str, duration: float | None, units: Mapping[str, str | None]
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
            elif (
                isinstance(value, str) and value in units
            ):  # names a quantity (grading/core/replay_inputs.py)
                _check_named(reader, f"{where}.{key}", value, EVENT_FIELD_UNITS.get(key), units)
        events.append(event)
    return tuple(events)


def _read_slo(
    reader: FieldReader, raw: object, field: str, units: Mapping[str, str | None]
) -> dict[str, str | float]:
    if raw is None:
        return {}
    slo: dict[str, str | float] = {}
    for key, value in reader.mapping(raw, field).items():
        number = read_number(value)
        if isinstance(key, str) and isinstance(value, str) and number is None and value in units:
            _check_named(reader, f"{field}.{key}", value, slo_unit(key), units)
            slo[key] = value
        elif not isinstance(key, str) or number is None:
            reader.add(f"{field}.{key}", "an SLO maps a key to a finite number or a quantity of the model")
        else:
            slo[key] = number
    return slo


def _read_concepts(reader: FieldReader, top: Mapping[str, Any]) -> tuple[str, ...]:
    concepts = []
    for index, concept in enumerate(reader.items(top, "concepts", "concepts")):
        if concept not in CONCEPTS:
            reader.add(
                f"concepts[{index}]", f"{concept!r} is not a known concept (see docs/question-format.md)"
            )
        else:
            concepts.append(concept)
    return tuple(concepts)


def _read_related(reader: FieldReader, top: Mapping[str, Any], slug: str) -> tuple[str, ...]:
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
    reader: FieldReader, top: Mapping[str, Any], units: Mapping[str, str | None]
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
    reader: FieldReader, field: str, unit: str, quantity: str, units: Mapping[str, str | None]
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
