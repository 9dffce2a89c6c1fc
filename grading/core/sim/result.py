"""The result of one scenario run, and the helpers that shape it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grading.core.sim.family_specs import FamilySpec
from grading.core.sim.slo_words import actual_words, slo_words

MAX_POINTS = 300


@dataclass
class ScenarioResult:
    """Outcome of a replay: SLO verdict, overall metrics, time series and a plain-words narrative."""

    family: str
    passed: bool
    slo_checks: list[dict[str, Any]]
    summary: dict[str, Any]
    series: dict[str, list[float]]
    narrative: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable, deterministic dict (floats to 6 significant digits, inf/nan as None)."""
        return {
            "family": self.family,
            "passed": self.passed,
            "slo_checks": [_clean(check) for check in self.slo_checks],
            "summary": _clean(self.summary),
            "series": _clean(self.series),
            "narrative": list(self.narrative),
        }


def round_sig(value: float, digits: int = 6) -> float | None:
    """`value` rounded to `digits` significant digits; None for inf and nan."""
    value = float(value)
    if not math.isfinite(value):
        return None
    if value == 0.0:
        return 0.0
    return round(value, digits - 1 - int(math.floor(math.log10(abs(value)))))


def _clean(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _clean(value[key]) for key in sorted(value)}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_clean(item) for item in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return round_sig(float(value))
    return value


UNDEFINED = "it is not defined in this run: nothing it measures happened"


def check_slos(
    family: FamilySpec,
    slo: Mapping[str, float],
    actuals: Mapping[str, float],
    reasons: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One check per SLO key: {key, target, actual, passed}; a missing or nan actual fails, with a `reason`
    (from `reasons[key]`, else UNDEFINED) saying why it has no value."""
    checks = []
    for key in sorted(slo):
        spec = family.slo_spec(key)
        target = float(slo[key])
        actual = float(actuals.get(key, math.nan))
        check: dict[str, Any] = {
            "key": key,
            "target": target,
            "actual": actual,
            "words": slo_words(key, target),
            "actual_words": actual_words(key, actual),
        }
        if math.isnan(actual):
            check["passed"] = False
            check["reason"] = (reasons or {}).get(key, UNDEFINED)
        elif spec.upper:
            check["passed"] = actual <= target + 1e-12 * max(1.0, abs(target))
        else:
            check["passed"] = actual >= target - 1e-12 * max(1.0, abs(target))
        checks.append(check)
    return checks


def downsample(series: dict[str, np.ndarray], how: Mapping[str, str] | None = None) -> dict[str, list[float]]:
    """Shrink equally spaced series (with a `t` axis) to at most MAX_POINTS points.

    `how[name]` is "mean" (default), "max", "sum" or "last": how a block of points is merged; `t` keeps the
    start of each block.
    """
    how = how or {}
    t = np.asarray(series["t"], dtype=float)
    step = max(1, math.ceil(len(t) / MAX_POINTS))
    out: dict[str, list[float]] = {}
    for name, values in series.items():
        values = np.asarray(values, dtype=float)
        if step == 1:
            out[name] = values.tolist()
            continue
        n_full = len(values) // step * step
        blocks = values[:n_full].reshape(-1, step)
        tail = values[n_full:]
        mode = "first" if name == "t" else how.get(name, "mean")
        merged = {
            "first": blocks[:, 0],
            "mean": blocks.mean(axis=1),
            "max": blocks.max(axis=1),
            "sum": blocks.sum(axis=1),
            "last": blocks[:, -1],
        }[mode]
        if len(tail):
            extra = {
                "first": tail[0],
                "mean": tail.mean(),
                "max": tail.max(),
                "sum": tail.sum(),
                "last": tail[-1],
            }[mode]
            merged = np.append(merged, extra)
        out[name] = merged.tolist()
    return out
