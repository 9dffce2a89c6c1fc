"""Parameter, event and SLO specifications shared by the scenario families."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ParamSpec:
    """One documented scenario parameter, in base units."""

    name: str
    unit: str
    default: float | list | None
    description: str


@dataclass(frozen=True)
class EventSpec:
    """One event type: its fields (besides `at` and `type`) with their defaults (None = required)."""

    type: str
    fields: dict[str, float | str | None]
    description: str


@dataclass(frozen=True)
class SloSpec:
    """One SLO key; `upper` is True when the actual value must not exceed the target."""

    key: str
    upper: bool
    description: str


@dataclass(frozen=True)
class FamilySpec:
    """A scenario family: its parameters, event types and SLO keys."""

    name: str
    description: str
    params: tuple[ParamSpec, ...]
    events: tuple[EventSpec, ...]
    slo: tuple[SloSpec, ...]
    extra: dict[str, Any] = field(default_factory=dict)

    def param(self, name: str) -> ParamSpec:
        """The spec of parameter `name`."""
        for spec in self.params:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def slo_spec(self, key: str) -> SloSpec:
        """The spec of SLO key `key`."""
        for spec in self.slo:
            if spec.key == key:
                return spec
        raise KeyError(key)


def resolve_params(family: FamilySpec, params: Mapping[str, Any], passthrough: Sequence[str] = ()) -> dict:
    """Defaults overlaid with `params`; raises ValueError on unknown names or non-finite numbers."""
    known = {spec.name for spec in family.params}
    resolved: dict[str, Any] = {spec.name: spec.default for spec in family.params}
    for name, value in params.items():
        if name not in known and not any(name.startswith(prefix) for prefix in passthrough):
            raise ValueError(f"{family.name}: unknown parameter {name!r}")
        if isinstance(value, bool):
            value = float(value)
        if isinstance(value, (int, float)):
            if not math.isfinite(float(value)):
                raise ValueError(f"{family.name}: parameter {name!r} must be a finite number")
            value = float(value)
        resolved[name] = value
    return resolved


def resolve_events(family: FamilySpec, events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Events with defaults filled in, sorted by time; ValueError on unknown types or missing fields."""
    by_type = {spec.type: spec for spec in family.events}
    out = []
    for index, event in enumerate(events):
        kind = event.get("type")
        if kind not in by_type:
            raise ValueError(f"{family.name}: event {index} has unknown type {kind!r}")
        if "at" not in event:
            raise ValueError(f"{family.name}: event {index} ({kind}) needs 'at'")
        spec = by_type[kind]
        filled: dict[str, Any] = {"at": float(event["at"]), "type": kind}
        for name, default in spec.fields.items():
            value = event.get(name, default)
            if value is None:
                raise ValueError(f"{family.name}: event {index} ({kind}) needs {name!r}")
            filled[name] = value if isinstance(value, str) else float(value)
        unknown = set(event) - set(spec.fields) - {"at", "type"}
        if unknown:
            raise ValueError(f"{family.name}: event {index} ({kind}) has unknown fields {sorted(unknown)}")
        out.append(filled)
    return sorted(out, key=lambda e: e["at"])


def check_slo_keys(family: FamilySpec, slo: Mapping[str, float]) -> None:
    """Raise ValueError when an SLO key is not one the family knows."""
    known = {spec.key for spec in family.slo}
    for key in slo:
        if key not in known:
            raise ValueError(f"{family.name}: unknown SLO key {key!r}")
