"""Failure-replay simulator: scenario families run from plain parameters (no Django).

`run_scenario(family, params, events, slo, duration_s, seed)` runs one replay; `FAMILIES` documents each
family's parameters, event types and SLO keys. See README.md in this folder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grading.core.sim.events import EVENTS, run_events
from grading.core.sim.family_specs import EventSpec, FamilySpec, ParamSpec, SloSpec
from grading.core.sim.pipeline import PIPELINE, run_pipeline
from grading.core.sim.result import ScenarioResult
from grading.core.sim.seeds import DEFAULT_SEEDS, SeedRuns, run_scenario_seeds, seed_runs_dict
from grading.core.sim.serving import run_serving
from grading.core.sim.serving_spec import SERVING
from grading.core.sim.training import TRAINING, run_training

FAMILIES: dict[str, FamilySpec] = {spec.name: spec for spec in (SERVING, TRAINING, PIPELINE, EVENTS)}

_RUNNERS = {"serving": run_serving, "training": run_training, "pipeline": run_pipeline, "events": run_events}


def run_scenario(
    family: str,
    params: dict[str, Any],
    events: list[dict[str, Any]],
    slo: dict[str, float],
    duration_s: float,
    seed: int,
    progress: Callable[[float], None] | None = None,
) -> ScenarioResult:
    """Run one failure replay and check it against `slo`.

    `params` are in base units (see FAMILIES[family].params for names, units and defaults); `events` are dicts
    with `at` and `type`; `progress(fraction)` is called at least once per simulated chunk and may raise to
    cancel. The same inputs and seed give the same result.
    """
    if family not in _RUNNERS:
        raise ValueError(f"unknown scenario family {family!r}; known: {sorted(_RUNNERS)}")
    if not duration_s > 0:
        raise ValueError("duration_s must be positive")
    return _RUNNERS[family](dict(params), list(events), dict(slo), float(duration_s), int(seed), progress)


__all__ = [
    "DEFAULT_SEEDS",
    "FAMILIES",
    "SeedRuns",
    "run_scenario_seeds",
    "seed_runs_dict",
    "EventSpec",
    "FamilySpec",
    "ParamSpec",
    "ScenarioResult",
    "SloSpec",
    "run_scenario",
]
