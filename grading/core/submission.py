"""A candidate's submission, checked before grading: every problem names the field it is about.

```
{"numbers": {NAME: "text as typed", ...},
 "design": {"nodes": [{"id", "kind", "label", "job", "failure"}], "edges": [{"source", "target", "label"}]},
 "events": [{"t": seconds_since_start, "phase", "field"}]}
```

All three keys are optional; other top-level keys are refused (a misspelt "number" would otherwise grade as a
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
TOP_LEVEL_KEYS = ("numbers", "design", "events")
MAX_NUMBERS = 500
MAX_NODES = 200
MAX_EDGES = 1000
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
class Submission:
    """A checked submission. `boxes` is None when no design was submitted (it is then not graded); `events`
    is None when none were given (no pacing)."""

    numbers: Mapping[str, str]
    boxes: tuple[Box, ...] | None
    arrows: tuple[Arrow, ...]
    events: tuple[Event, ...] | None


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
    if problems:
        raise SubmissionError(problems)
    return Submission(numbers, boxes, arrows, events)


def _read_numbers(raw: object, problems: list[Problem]) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.append(("numbers", "expected an object mapping quantity names to text"))
        return {}
    if len(raw) > MAX_NUMBERS:
        problems.append(("numbers", f"at most {MAX_NUMBERS} entries"))
        return {}
    numbers: dict[str, str] = {}
    for name, text in raw.items():
        if not isinstance(name, str) or not name or len(name) > MAX_NAME_CHARS:
            problems.append((f"numbers.{str(name)[:MAX_NAME_CHARS]}", "expected a quantity name"))
        elif text is None:
            numbers[name] = ""
        elif not isinstance(text, str):
            problems.append((f"numbers.{name}", "expected text"))
        else:
            numbers[name] = text
    return numbers


def _text(
    entry: Mapping[str, Any], key: str, field: str, problems: list[Problem], *, required: bool = False
) -> str:
    value = entry.get(key)
    if value is None:
        if required:
            problems.append((field, "is required"))
        return ""
    if not isinstance(value, str):
        problems.append((field, "expected text"))
        return ""
    if len(value) > MAX_TEXT_CHARS:
        problems.append((field, f"at most {MAX_TEXT_CHARS} characters"))
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
        box_id = _text(item, "id", f"{field}.id", problems, required=True)
        if box_id in ids:
            problems.append((f"{field}.id", f"{box_id!r} is used by two boxes"))
        ids.add(box_id)
        texts = [_text(item, key, f"{field}.{key}", problems) for key in ("kind", "label", "job", "failure")]
        read_boxes.append(Box(box_id, *texts))
    read_arrows: list[Arrow] = []
    for index, item in enumerate(arrows):
        field = f"design.edges[{index}]"
        if not isinstance(item, Mapping):
            problems.append((field, "expected an object with source and target"))
            continue
        ends = [_text(item, key, f"{field}.{key}", problems, required=True) for key in ("source", "target")]
        for key, end in zip(("source", "target"), ends, strict=True):
            if end and end not in ids and end != CLIENT_ID:
                problems.append((f"{field}.{key}", f"{end!r} is not the id of a box"))
        read_arrows.append(Arrow(ends[0], ends[1], _text(item, "label", f"{field}.label", problems)))
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
