"""A parsed question file as frozen dataclasses, and the error that lists every problem of a file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from grading.core.box_words import Term
from grading.core.model import ModelSpec, Problem

PLAN_MINUTES = 45
CLIENT_KIND = "client"
DEFAULT_TOLERANCE = {"relative": 0.05, "magnitude": 3.0, "count": None}
DEFAULT_FIGURE_TOLERANCE = 0.02


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
class DecisionOption:
    """One authored answer to a follow-up: a concrete design choice and what it costs."""

    id: str
    choice: str
    tradeoff: str


@dataclass(frozen=True)
class DecisionNumber:
    """The optional numeric line of a decision: a value in `unit` inside `band` (inclusive) supports it.
    `band` is derived at the model's defaults; with `follows` (a model quantity the figure is proportional
    to) a variant round scales it by that quantity's value at the round's values over its default."""

    label: str
    unit: str
    band: tuple[float, float]
    follows: str = ""


@dataclass(frozen=True)
class FollowUp:
    """A follow-up question the interviewer may ask in a phase. With `options` it is also a decision the
    candidate answers alone: choose and order options; `orders` are the defensible orders (option ids, the
    most important first), `number` an optional supporting figure with its band."""

    phase: str
    text: str
    id: str = ""
    options: tuple[DecisionOption, ...] = ()
    orders: tuple[tuple[str, ...], ...] = ()
    number: DecisionNumber | None = None

    @property
    def is_decision(self) -> bool:
        return bool(self.options)


@dataclass(frozen=True)
class Asked:
    """A quantity the candidate is asked for. `tolerance` is the relative band (relative), the factor
    (magnitude) or None (count: neighbouring whole numbers are accepted). `exact_prefix`: the line is about
    KB versus KiB, so a value off by only that is a unit error (else it is correct with a note)."""

    name: str
    phase: str
    weight: int | float = 1
    check: str = "relative"
    tolerance: float | None = 0.05
    drill: str = ""  # an optional wording for the drill step, with a {name} for each input it gives
    exact_prefix: bool = False


@dataclass(frozen=True)
class Consequence:
    """What a curveball changes in the design: a box of palette `kind` whose job, failure mode or "what
    changes" note names the vocabulary term `names` (a job or failure of that kind, or a common one)."""

    kind: str
    names: str
    says: str


@dataclass(frozen=True)
class Curveball:
    """A change to the question in the depth phase: new values for one to three inputs (`set`, in each
    quantity's unit), the sentence that states it (`says`, with `{name}` for each), the lines re-derived
    under it (their `phase` is "depth"), the design consequences, and optionally a scenario to replay."""

    id: str
    title: str
    set: Mapping[str, float]
    says: str
    asked: tuple[Asked, ...]
    design: tuple[Consequence, ...]
    scenario: str = ""


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
    slo: Mapping[str, str | float] = field(default_factory=dict)  # a target may name a quantity
    # Built to show a failure every design suffers: the reference (a review's reference fix) is meant to miss
    # it in every run, and the failure score reads it as such (grading/core/failure_modes.py).
    breaks_every_design: bool = False


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
class FixLine:
    """One line of a review's fixed-design sheet: a model quantity the fix may change (the sheet opens on the
    given design's value) and the reference fix's value, as text in the quantity's unit ("67 req", "6 s") or
    the name of a model quantity whose value (at the round's variant) it takes ("servers_needed")."""

    name: str
    value: str
    label: str = ""


@dataclass(frozen=True)
class ReviewSpec:
    """What a review question adds: the planted flaws of its given design (the `design` block) and the
    reference fix (the fixed design's sheet with the reference's values, `fix`)."""

    flaws: tuple[Flaw, ...] = ()
    fix: tuple[FixLine, ...] = ()


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
    curveballs: tuple[Curveball, ...] = ()

    def phase(self, name: str) -> Phase | None:
        """The plan step called `name`, or None."""
        return next((phase for phase in self.plan if phase.name == name), None)

    @property
    def decisions(self) -> tuple[FollowUp, ...]:
        """The follow-ups a candidate answers alone (those with options)."""
        return tuple(item for item in self.follow_ups if item.is_decision)


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
