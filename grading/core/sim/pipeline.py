"""The pipeline family: a fluid model of stages with throughputs and bounded buffers."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from grading.core.sim.family_specs import (
    EventSpec,
    FamilySpec,
    ParamSpec,
    SloSpec,
    check_slo_keys,
    resolve_events,
    resolve_params,
)
from grading.core.sim.narrative import at, num
from grading.core.sim.result import ScenarioResult, check_slos, downsample
from grading.core.sim.slo_words import slo_sentence

DEFAULT_STAGES = [
    {"name": "read", "throughput": 2000.0, "buffer": 0.0},
    {"name": "transform", "throughput": 1000.0, "buffer": 10000.0},
    {"name": "write", "throughput": 1500.0, "buffer": 10000.0},
]
STEPS = 6000

PIPELINE = FamilySpec(
    name="pipeline",
    description="Stages with throughputs and buffers (data pipeline, eval sharding, artifact fan-out).",
    params=(
        ParamSpec(
            "stages",
            "list",
            DEFAULT_STAGES,
            "list of {name, throughput (items/s), buffer (items; null = unbounded)}",
        ),
        ParamSpec("items", "item", 1e6, "items to push through"),
        ParamSpec("source_rate", "item/s", 0.0, "rate items become available; 0 = all at t=0"),
    ),
    events=(
        EventSpec("stage_outage", {"stage": None, "duration": None}, "the stage stops for duration"),
        EventSpec(
            "stage_slowdown",
            {"stage": None, "factor": None, "duration": None},
            "throughput × factor for duration",
        ),
    ),
    slo=(
        SloSpec("completion_max_s", True, "time until every item has left the last stage"),
        SloSpec("backlog_max", True, "largest buffer content of any stage (items)"),
    ),
)


def parse_stages(p: dict[str, Any]) -> list[dict[str, Any]]:
    """Stages from the `stages` list or the flat `stage<i>_throughput` / `stage<i>_buffer` parameters."""
    flat = sorted(
        {
            int(key[5:].split("_")[0])
            for key in p
            if key.startswith("stage") and key[5:].split("_")[0].isdigit()
        }
    )
    missing = [f"stage{i}_throughput" for i in flat if f"stage{i}_throughput" not in p]
    if missing:
        raise ValueError(f"pipeline: {', '.join(missing)} missing")
    stages: list[dict[str, Any]]
    if flat:
        stages = [
            {
                "name": f"stage{i}",
                "throughput": float(p[f"stage{i}_throughput"]),
                "buffer": _buffer(p.get(f"stage{i}_buffer", 0.0)),
            }
            for i in flat
        ]
    else:
        stages = [
            {
                "name": str(stage.get("name", f"stage{index + 1}")),
                "throughput": float(stage["throughput"]),
                "buffer": _buffer(stage.get("buffer", 0.0)),
            }
            for index, stage in enumerate(p["stages"])
        ]
    if not stages:
        raise ValueError("pipeline: there must be at least one stage")
    for stage in stages:
        name, throughput, buffer = stage["name"], stage["throughput"], stage["buffer"]
        given = f" ({name}_throughput)" if flat else ""  # the parameter a scenario maps a quantity to
        if not (math.isfinite(throughput) and throughput > 0):
            raise ValueError(
                f"pipeline: stage {name!r} needs a positive throughput{given}; it is {throughput:.6g} item/s"
            )
        if not buffer >= 0:  # +inf is an unbounded buffer
            given = f" ({name}_buffer)" if flat else ""
            raise ValueError(
                f"pipeline: stage {name!r} needs a buffer of 0 or more{given}; it is {buffer:.6g} items"
            )
    return stages


def _buffer(value: float | None) -> float:
    """A stage's buffer: None (JSON's null) is unbounded, +inf."""
    return math.inf if value is None else float(value)


def _stage_index(stages: Sequence[dict[str, Any]], ref: float | str) -> int:
    if isinstance(ref, str):
        names = [s["name"] for s in stages]
        if ref not in names:
            raise ValueError(f"pipeline: unknown stage {ref!r}")
        return names.index(ref)
    return int(ref)


def throughput_factors(
    stages: Sequence[dict[str, Any]], events: Sequence[dict[str, Any]], t: float
) -> np.ndarray:
    """Multiplier of each stage's throughput at time `t` from outages and slowdowns."""
    factor = np.ones(len(stages))
    for event in events:
        if event["at"] <= t < event["at"] + event["duration"]:
            k = _stage_index(stages, event["stage"])
            factor[k] *= 0.0 if event["type"] == "stage_outage" else event["factor"]
    return factor


def simulate_pipeline(
    stages: Sequence[dict[str, Any]],
    items: float,
    source_rate: float,
    events: Sequence[dict[str, Any]],
    duration_s: float,
    progress: Callable[[float], None] | None = None,
) -> dict[str, np.ndarray]:
    """Fluid time-stepping: each stage moves min(throughput·dt, input, room downstream) per step.

    Stages are updated from last to first so room freed downstream in a step can be used in the same step.
    Returns per-step `t`, `done` and one backlog array (the stage's input buffer) per stage.
    """
    n = len(stages)
    cap = np.array([s["throughput"] for s in stages])
    dt = duration_s / STEPS
    # a zero buffer still hands over one step's worth, so stages in series flow at the slowest rate
    room_cap = np.array([max(s["buffer"], s["throughput"] * dt) for s in stages[1:]] + [math.inf])
    source = items if source_rate <= 0 else 0.0
    released = source
    buffers = np.zeros(n)  # buffers[k] = items waiting in front of stage k (k ≥ 1)
    done = 0.0
    t_axis = np.arange(STEPS) * dt
    done_series = np.zeros(STEPS)
    backlog = np.zeros((STEPS, n))
    for step in range(STEPS):
        t = step * dt
        if source_rate > 0 and released < items:
            add = min(source_rate * dt, items - released)
            source += add
            released += add
        rates = cap * throughput_factors(stages, events, t) * dt
        for k in range(n - 1, -1, -1):
            available = source if k == 0 else buffers[k]
            room = room_cap[k] - buffers[k + 1] if k + 1 < n else math.inf
            moved = max(0.0, min(rates[k], available, room))
            if k == 0:
                source -= moved
            else:
                buffers[k] -= moved
            if k + 1 < n:
                buffers[k + 1] += moved
            else:
                done += moved
        buffers[0] = source
        done_series[step] = done
        backlog[step] = buffers
        if progress is not None and step % (STEPS // 20) == 0:
            progress(step / STEPS)
    series = {"t": t_axis, "done": done_series}
    for k, stage in enumerate(stages):
        series[f"backlog_{stage['name']}"] = backlog[:, k]
    return series


def completion_time(t: np.ndarray, done: np.ndarray, items: float, dt: float) -> float:
    """First time the finished count reaches `items` (interpolated inside the step), inf if never."""
    hit = np.flatnonzero(done >= items * (1 - 1e-9))
    if hit.size == 0:
        return math.inf
    k = int(hit[0])
    before = done[k - 1] if k else 0.0
    fraction = (items - before) / max(done[k] - before, 1e-12)
    return float(t[k] + fraction * dt)


def run_pipeline(
    params: dict[str, Any],
    events: list[dict[str, Any]],
    slo: dict[str, float],
    duration_s: float,
    seed: int,
    progress: Callable[[float], None] | None = None,
) -> ScenarioResult:
    """Run one pipeline scenario (see README.md, family `pipeline`); deterministic, `seed` is unused."""
    p = resolve_params(PIPELINE, params, passthrough=("stage",))
    resolved = resolve_events(PIPELINE, events)
    check_slo_keys(PIPELINE, slo)
    stages = parse_stages(p)
    for event in resolved:
        _stage_index(stages, event["stage"])
    items = p["items"]
    series = simulate_pipeline(stages, items, p["source_rate"], resolved, duration_s, progress)
    if progress is not None:
        progress(1.0)
    dt = duration_s / STEPS
    completion = completion_time(series["t"], series["done"], items, dt)
    slowest = min(range(len(stages)), key=lambda k: stages[k]["throughput"])
    limit = stages[slowest]["throughput"]
    analytic = items / min(limit, p["source_rate"]) if p["source_rate"] > 0 else items / limit
    backlog_max = max((float(series[f"backlog_{st['name']}"].max()) for st in stages[1:]), default=0.0)
    summary = {
        "bottleneck": stages[slowest]["name"],
        "bottleneck_throughput": limit,
        "source_limited": bool(0 < p["source_rate"] < limit),
        "completion_s": completion,
        "completed_items": float(series["done"][-1]),
        "analytic_completion_s": analytic,
        "backlog_max": backlog_max,
        "items": items,
    }
    checks = check_slos(PIPELINE, slo, {"completion_max_s": completion, "backlog_max": backlog_max})
    how = {key: "last" for key in series}
    narrative = pipeline_narrative(stages, resolved, summary, checks, series)
    return ScenarioResult(
        "pipeline", all(c["passed"] for c in checks), checks, summary, downsample(series, how), narrative
    )


def pipeline_narrative(
    stages: Sequence[dict[str, Any]],
    events: Sequence[dict[str, Any]],
    s: dict[str, Any],
    checks: Sequence[dict[str, Any]],
    series: dict[str, Any],
) -> list[str]:
    """Plain-words account: which stage limits, where the backlog builds, when it finishes."""
    lines = [
        f"The slowest stage is {s['bottleneck']} at {num(s['bottleneck_throughput'])} items/s, so "
        f"{num(s['items'])} items need at least {num(s['analytic_completion_s'])} s."
    ]
    for event in events:
        name = stages[_stage_index(stages, event["stage"])]["name"]
        what = "stopped" if event["type"] == "stage_outage" else f"slowed to ×{num(event['factor'])}"
        lines.append(f"At {at(event['at'])} stage {name} {what} for {num(event['duration'])} s.")
    worst = max(stages[1:], key=lambda st: series[f"backlog_{st['name']}"].max(), default=None)
    if worst is not None and s["backlog_max"] > 0:
        k = int(np.argmax(series[f"backlog_{worst['name']}"]))
        lines.append(
            f"The largest backlog, {num(s['backlog_max'])} items, built in front of {worst['name']} "
            f"(peak at {at(series['t'][k])}; its buffer holds {num(worst['buffer'])})."
        )
    if math.isfinite(s["completion_s"]):
        lines.append(f"All items were done at {at(s['completion_s'])}.")
    else:
        lines.append(f"Only {num(s['completed_items'])} of {num(s['items'])} items were done by the end.")
    lines.extend(slo_sentence(check) for check in checks)
    return lines
