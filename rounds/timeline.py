"""A round's work as it was at any moment, rebuilt from its event log. Pure Python: no Django.

Each event carries the full new value of one field: `design` (the canvas JSON), `scratch` (text) or
`numbers.NAME` (the text typed for one quantity), so the state at time t is the last value of each field
written at or before t.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

DESIGN = "design"
SCRATCH = "scratch"
NUMBERS_PREFIX = "numbers."


def empty_design() -> dict[str, list]:
    return {"nodes": [], "edges": []}


@dataclass(frozen=True, slots=True)
class Event:
    """One change of the event log: seconds since the start, the field, and its new value."""

    t: float
    field: str
    value: Any


@dataclass(slots=True)
class WorkState:
    """The canvas, the numbers sheet (name -> text) and the scratch notes at one moment."""

    design: dict[str, Any] = field(default_factory=empty_design)
    numbers: dict[str, str] = field(default_factory=dict)
    scratch: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"design": self.design, "numbers": dict(self.numbers), "scratch": self.scratch}


def as_events(rows: Iterable[Event | Mapping[str, Any] | Sequence[Any]]) -> list[Event]:
    """Events from `Event`s, mappings with t/field/value, or `(t, field, value)` tuples, in time order.

    The sort is stable, so events at the same t keep the order of the log (its revision order)."""
    events = []
    for row in rows:
        if isinstance(row, Event):
            events.append(row)
        elif isinstance(row, Mapping):
            events.append(Event(float(row["t"]), str(row["field"]), row["value"]))
        else:
            t, name, value = row
            events.append(Event(float(t), str(name), value))
    return sorted(events, key=lambda event: event.t)


def apply_event(state: WorkState, event: Event) -> None:
    """Write one event's value into `state`; unknown fields are ignored."""
    if event.field == DESIGN:
        state.design = event.value if isinstance(event.value, dict) else empty_design()
    elif event.field == SCRATCH:
        state.scratch = event.value if isinstance(event.value, str) else ""
    elif event.field.startswith(NUMBERS_PREFIX):
        name = event.field[len(NUMBERS_PREFIX) :]
        text = event.value if isinstance(event.value, str) else ""
        if text:
            state.numbers[name] = text
        else:
            state.numbers.pop(name, None)


def state_at(
    rows: Iterable[Event | Mapping[str, Any] | Sequence[Any]], t: float, start: WorkState | None = None
) -> WorkState:
    """The work as it stood at `t` seconds: every event at or before `t` applied in order onto `start`, the
    work the round opened with (empty when not given). `start` itself is left unchanged."""
    state = copy.deepcopy(start) if start is not None else WorkState()
    for event in as_events(rows):
        if event.t > t:
            break
        apply_event(state, event)
    return state
