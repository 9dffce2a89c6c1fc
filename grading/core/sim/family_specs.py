"""Parameter, event and SLO specifications shared by the scenario families."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

# What values a parameter accepts: (lowest, whether the lowest itself is allowed, highest). Counts are capped
# so that a typed 1e30 is refused by name instead of asking the simulator for memory or time it cannot have.
COUNT_MAX = 1e9
DOMAINS: dict[str, tuple[float, bool, float]] = {
    "real": (-math.inf, True, math.inf),
    "nonneg": (0.0, True, math.inf),
    "positive": (0.0, False, math.inf),
    "fraction": (0.0, True, 1.0),
    "efficiency": (0.0, False, 1.0),
    "count": (0.0, True, COUNT_MAX),
    "count1": (1.0, True, COUNT_MAX),
    "flag": (0.0, True, 1.0),
}
_DOMAIN_WORDS = {
    "nonneg": "0 or more",
    "positive": "more than 0",
    "fraction": "between 0 and 1",
    "efficiency": "more than 0 and at most 1",
    "count": "between 0 and {high:.6g}",
    "count1": "between 1 and {high:.6g}",
    "flag": "0 or 1",
}


@dataclass(frozen=True)
class ParamSpec:
    """One documented scenario parameter, in base units, and the values it accepts (a key of DOMAINS)."""

    name: str
    unit: str
    default: float | list[Any] | None
    description: str
    domain: str = "nonneg"
    high: float | None = None  # a tighter ceiling than the domain's
    unbounded: bool = False  # None (JSON's null) or +inf is no limit: the parameter is not there (issue 30)


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

    def slo_spec(self, key: str) -> SloSpec:
        """The spec of SLO key `key`."""
        for spec in self.slo:
            if spec.key == key:
                return spec
        raise KeyError(key)


def about(count: float) -> str:
    """A count for a refusal message: digits with separators, or 3 significant digits when huge."""
    return f"{count:,.0f}" if count < 1e12 else f"{count:.3g}"


def with_domains(
    params: Sequence[ParamSpec], domains: Mapping[str, Sequence[str]], **highs: float
) -> tuple[ParamSpec, ...]:
    """`params` with the domain of each parameter named in `domains` ({domain: names}) and ceilings from
    `highs` ({name: highest}); the others keep the default domain (0 or more)."""
    domain_of = {name: domain for domain, names in domains.items() for name in names}
    unknown = (set(domain_of) | set(highs)) - {spec.name for spec in params}
    if unknown:
        raise KeyError(f"no such parameters: {sorted(unknown)}")
    return tuple(
        replace(spec, domain=domain_of.get(spec.name, spec.domain), high=highs.get(spec.name, spec.high))
        for spec in params
    )


def out_of_domain(family: FamilySpec, spec: ParamSpec, value: float) -> str | None:
    """Why `value` is not a value `spec` accepts, in words naming the parameter; None when it is."""
    low, low_allowed, high = DOMAINS[spec.domain]
    high = spec.high if spec.high is not None else high
    if (value >= low if low_allowed else value > low) and value <= high:
        return None
    unit = f" {spec.unit}" if spec.unit else ""
    words = _DOMAIN_WORDS[spec.domain].format(high=high)
    return f"{family.name}: {spec.name} must be {words}{unit}; it is {value:.6g}{unit}"


def resolve_params(
    family: FamilySpec, params: Mapping[str, Any], passthrough: Sequence[str] = ()
) -> dict[str, Any]:
    """Defaults overlaid with `params`.

    Raises ValueError on unknown names, non-finite numbers and values out of a parameter's domain (the message
    names the parameter and the value). A parameter that may be unbounded takes None or +inf as no limit
    (resolved to +inf); a `*_buffer` passthrough (a pipeline stage's buffer) does too."""
    specs = {spec.name: spec for spec in family.params}
    known = set(specs)
    resolved: dict[str, Any] = {spec.name: spec.default for spec in family.params}
    for name, value in params.items():
        if name not in known and not any(name.startswith(prefix) for prefix in passthrough):
            raise ValueError(f"{family.name}: unknown parameter {name!r}")
        if isinstance(value, bool):
            value = float(value)
        may_be_unbounded = specs[name].unbounded if name in specs else name.endswith("_buffer")
        if may_be_unbounded and (value is None or (isinstance(value, (int, float)) and value == math.inf)):
            resolved[name] = math.inf
            continue
        if value is None:
            raise ValueError(f"{family.name}: parameter {name!r} needs a number (only a limit may be none)")
        if isinstance(value, (int, float)):
            if not math.isfinite(float(value)):
                raise ValueError(f"{family.name}: parameter {name!r} must be a finite number")
            value = float(value)
            if name in specs and (why := out_of_domain(family, specs[name], value)):
                raise ValueError(why)
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
