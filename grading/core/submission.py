"""A candidate's submission, checked before grading: every problem names the field it is about.

```
{"numbers": {NAME: "text as typed", ...},
 "design": {"nodes": [{"id", "kind", "label", "job", "failure"}], "edges": [{"source", "target", "label"}]},
 "events": [{"t": seconds_since_start, "phase", "field"}]}
```

`"depth"` holds the answers of the depth phase (docs/question-format.md, "Depth"):
`{"curveballs": {ID: {"numbers": {NAME: text}, "notes": {BOX_ID: text}}},
  "follow_ups": {ID: {"order": [OPTION_ID, ...], "number": text}},
  "offered": [CURVEBALL_ID, ...]}`; without it the depth phase is not scored. `offered` (optional) lists the
curveballs the candidate was offered: the others are reported as not offered and not counted; without it
every curveball counts. A round sets it from its clock and requests (`rounds.services.depth`).

All keys are optional; other top-level keys are refused (a misspelt "number" would otherwise grade as a
blank sheet). Inside the design, extra keys are allowed and ignored (the canvas stores positions and marks). A
number's text may be empty or null (not answered); anything else but text is a problem. `client` is the
implicit first box, so an edge may start or end there without a node of that id.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CLIENT_ID = "client"
TOP_LEVEL_KEYS = ("numbers", "design", "events", "depth")
MAX_DEPTH_ITEMS = 20
MAX_ORDER = 12
MAX_NUMBERS = 500
# One set of limits for a design and the numbers: the save (rounds/validation.py), the grade (API and CLI)
# and the API schema read these.
MAX_NODES = 80
MAX_EDGES = 200
MAX_BOX_TEXT = 300  # a box's kind, label, job and failure; an arrow's label
MAX_ID_TEXT = 100  # a box's id, an arrow's ends
MAX_NUMBER_TEXT = 200  # one entry of the numbers sheet, as typed
MAX_EVENTS = 50_000
MAX_NAME_CHARS = 120
MAX_TEXT_CHARS = 2000

Problem = tuple[str, str]


class SubmissionError(ValueError):
    """A malformed submission: `problems` lists `(field, message)`, e.g. `("numbers.x", "expected text")`."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(f"{field}: {message}" for field, message in problems))


@dataclass(frozen=True, slots=True)
class Box:
    """A box the candidate drew. `kind` is a palette kind or "" (a free label)."""

    id: str
    kind: str
    label: str
    job: str
    failure: str


@dataclass(frozen=True, slots=True)
class Arrow:
    """An arrow between two boxes (by id; `client` is the implicit start)."""

    source: str
    target: str
    label: str


@dataclass(frozen=True, slots=True)
class Event:
    """One edit during a round: seconds since the start, the clock's phase, and the field (`numbers.NAME`,
    `design`, `scratch`)."""

    t: float
    phase: str
    field: str


@dataclass(frozen=True, slots=True)
class CurveballAnswer:
    """The lines typed under one curveball, and the "what changes" note written on boxes (by box id)."""

    numbers: Mapping[str, str]
    notes: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class DecisionAnswer:
    """The options chosen for one follow-up, in the candidate's order, and the number typed for it."""

    order: tuple[str, ...]
    number: str


@dataclass(frozen=True, slots=True)
class DepthAnswers:
    """The depth phase's answers by curveball id and follow-up id."""

    curveballs: Mapping[str, CurveballAnswer]
    follow_ups: Mapping[str, DecisionAnswer]
    offered: tuple[str, ...] | None = None  # the curveballs offered; None: all of them


@dataclass(frozen=True, slots=True)
class Submission:
    """A checked submission. `boxes` is None when no design was submitted (it is then not graded); `events`
    is None when none were given (no pacing); `depth` is None when the depth phase was never answered."""

    numbers: Mapping[str, str]
    boxes: tuple[Box, ...] | None
    arrows: tuple[Arrow, ...]
    events: tuple[Event, ...] | None
    depth: DepthAnswers | None = None


def read_submission(data: object) -> Submission:
    """Check a submission dict and return it as a Submission; raises SubmissionError naming each bad field."""
    problems: list[Problem] = []
    if not isinstance(data, Mapping):
        raise SubmissionError([("submission", "expected an object with numbers, design and events")])
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            problems.append((str(key), f"unknown field; expected {', '.join(TOP_LEVEL_KEYS)}"))
    numbers = _read_numbers(data.get("numbers"), problems)
    boxes, arrows = _read_design(data.get("design"), "design" in data, problems)
    events = _read_events(data.get("events"), problems) if data.get("events") is not None else None
    depth = _read_depth(data.get("depth"), problems) if data.get("depth") is not None else None
    if problems:
        raise SubmissionError(problems)
    return Submission(numbers, boxes, arrows, events, depth)


def _read_depth(raw: object, problems: list[Problem]) -> DepthAnswers:
    if not isinstance(raw, Mapping):
        problems.append(("depth", "expected an object with curveballs and follow_ups"))
        return DepthAnswers({}, {})
    for key in raw:
        if key not in ("curveballs", "follow_ups", "offered"):
            problems.append(
                (
                    f"depth.{str(key)[:MAX_NAME_CHARS]}",
                    "unknown field; expected curveballs, follow_ups, offered",
                )
            )
    offered = raw.get("offered")
    if offered is not None and (
        not isinstance(offered, list)
        or len(offered) > MAX_ORDER
        or not all(isinstance(item, str) and 0 < len(item) <= MAX_NAME_CHARS for item in offered)
    ):
        problems.append(("depth.offered", f"expected a list of at most {MAX_ORDER} curveball ids"))
        offered = None
    curveballs: dict[str, CurveballAnswer] = {}
    for answer_id, entry in _depth_items(raw.get("curveballs"), "depth.curveballs", problems):
        field = f"depth.curveballs.{answer_id}"
        for key in entry:
            if key not in ("numbers", "notes"):
                problems.append(
                    (f"{field}.{str(key)[:MAX_NAME_CHARS]}", "unknown field; expected numbers, notes")
                )
        numbers = _read_numbers(entry.get("numbers"), problems, f"{field}.numbers")
        notes = _read_numbers(entry.get("notes"), problems, f"{field}.notes")
        curveballs[answer_id] = CurveballAnswer(numbers, notes)
    follow_ups: dict[str, DecisionAnswer] = {}
    for answer_id, entry in _depth_items(raw.get("follow_ups"), "depth.follow_ups", problems):
        field = f"depth.follow_ups.{answer_id}"
        for key in entry:
            if key not in ("order", "number"):
                problems.append(
                    (f"{field}.{str(key)[:MAX_NAME_CHARS]}", "unknown field; expected order, number")
                )
        order = entry.get("order") or []
        if not isinstance(order, list) or len(order) > MAX_ORDER:
            problems.append((f"{field}.order", f"expected a list of at most {MAX_ORDER} option ids"))
            order = []
        elif not all(isinstance(item, str) and 0 < len(item) <= MAX_NAME_CHARS for item in order):
            problems.append((f"{field}.order", "expected option ids (text)"))
            order = []
        elif len(set(order)) != len(order):
            problems.append((f"{field}.order", "names an option twice"))
        follow_ups[answer_id] = DecisionAnswer(
            tuple(order), _text(entry, "number", f"{field}.number", problems)
        )
    return DepthAnswers(curveballs, follow_ups, None if offered is None else tuple(offered))


def _depth_items(raw: object, field: str, problems: list[Problem]) -> list[tuple[str, Mapping[str, Any]]]:
    if raw is None:
        return []
    if not isinstance(raw, Mapping) or len(raw) > MAX_DEPTH_ITEMS:
        problems.append((field, f"expected an object of at most {MAX_DEPTH_ITEMS} answers by id"))
        return []
    items = []
    for answer_id, entry in raw.items():
        if not isinstance(answer_id, str) or not answer_id or len(answer_id) > MAX_NAME_CHARS:
            problems.append((f"{field}.{str(answer_id)[:MAX_NAME_CHARS]}", "expected an id"))
        elif not isinstance(entry, Mapping):
            problems.append((f"{field}.{answer_id}", "expected an object"))
        else:
            items.append((answer_id, entry))
    return items


def _read_numbers(raw: object, problems: list[Problem], field: str = "numbers") -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.append((field, "expected an object mapping names to text"))
        return {}
    if len(raw) > MAX_NUMBERS:
        problems.append((field, f"at most {MAX_NUMBERS} entries"))
        return {}
    numbers: dict[str, str] = {}
    for name, text in raw.items():
        if not isinstance(name, str) or not name or len(name) > MAX_NAME_CHARS:
            problems.append((f"{field}.{str(name)[:MAX_NAME_CHARS]}", "expected a name"))
        elif text is None:
            numbers[name] = ""
        elif not isinstance(text, str):
            problems.append((f"{field}.{name}", "expected text"))
        elif len(text) > MAX_NUMBER_TEXT:
            problems.append((f"{field}.{name}", f"at most {MAX_NUMBER_TEXT} characters"))
        else:
            numbers[name] = text
    return numbers


def _text(
    entry: Mapping[str, Any],
    key: str,
    field: str,
    problems: list[Problem],
    *,
    required: bool = False,
    limit: int = MAX_TEXT_CHARS,
) -> str:
    value = entry.get(key)
    if value is None:
        if required:
            problems.append((field, "is required"))
        return ""
    if not isinstance(value, str):
        problems.append((field, "expected text"))
        return ""
    if len(value) > limit:
        problems.append((field, f"at most {limit} characters"))
        return ""
    if required and not value.strip():
        problems.append((field, "must not be empty"))
    return value


def _read_design(
    raw: object, present: bool, problems: list[Problem]
) -> tuple[tuple[Box, ...] | None, tuple[Arrow, ...]]:
    if not present or raw is None:
        return None, ()
    if not isinstance(raw, Mapping):
        problems.append(("design", "expected an object with nodes and edges"))
        return None, ()
    boxes = _read_list(raw.get("nodes"), "design.nodes", MAX_NODES, problems)
    arrows = _read_list(raw.get("edges"), "design.edges", MAX_EDGES, problems)
    read_boxes: list[Box] = []
    ids: set[str] = set()
    for index, item in enumerate(boxes):
        field = f"design.nodes[{index}]"
        if not isinstance(item, Mapping):
            problems.append((field, "expected an object with id, kind, label, job and failure"))
            continue
        box_id = _text(item, "id", f"{field}.id", problems, required=True, limit=MAX_ID_TEXT)
        if box_id in ids:
            problems.append((f"{field}.id", f"{box_id!r} is used by two boxes"))
        ids.add(box_id)
        texts = [
            _text(item, key, f"{field}.{key}", problems, limit=MAX_BOX_TEXT)
            for key in ("kind", "label", "job", "failure")
        ]
        read_boxes.append(Box(box_id, *texts))
    read_arrows: list[Arrow] = []
    for index, item in enumerate(arrows):
        field = f"design.edges[{index}]"
        if not isinstance(item, Mapping):
            problems.append((field, "expected an object with source and target"))
            continue
        ends = [
            _text(item, key, f"{field}.{key}", problems, required=True, limit=MAX_ID_TEXT)
            for key in ("source", "target")
        ]
        for key, end in zip(("source", "target"), ends, strict=True):
            if end and end not in ids and end != CLIENT_ID:
                problems.append((f"{field}.{key}", f"{end!r} is not the id of a box"))
        label = _text(item, "label", f"{field}.label", problems, limit=MAX_BOX_TEXT)
        read_arrows.append(Arrow(ends[0], ends[1], label))
    return tuple(read_boxes), tuple(read_arrows)


def _read_list(raw: object, field: str, limit: int, problems: list[Problem]) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append((field, "expected a list"))
        return []
    if len(raw) > limit:
        problems.append((field, f"at most {limit} entries"))
        return []
    return raw


def _read_events(raw: object, problems: list[Problem]) -> tuple[Event, ...]:
    events: list[Event] = []
    for index, item in enumerate(_read_list(raw, "events", MAX_EVENTS, problems)):
        field = f"events[{index}]"
        if not isinstance(item, Mapping):
            problems.append((field, "expected an object with t, phase and field"))
            continue
        t = item.get("t")
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
            problems.append((f"{field}.t", "expected seconds since the start (a number, 0 or more)"))
            t = 0.0
        phase = _text(item, "phase", f"{field}.phase", problems)
        changed = _text(item, "field", f"{field}.field", problems)
        events.append(Event(float(t), phase, changed))
    return tuple(events)
