"""The training family: Monte-Carlo replay of node failures against checkpoints, restarts and spares."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grading.core.sim.family_specs import (
    EventSpec,
    FamilySpec,
    ParamSpec,
    SloSpec,
    about,
    check_slo_keys,
    resolve_events,
    resolve_params,
    with_domains,
)
from grading.core.sim.narrative import num
from grading.core.sim.result import MAX_POINTS, ScenarioResult, check_slos
from grading.core.sim.slo_words import slo_sentence

P = ParamSpec

TRAINING = FamilySpec(
    name="training",
    description="Training-job reliability: node failures, checkpoints, restarts, spare pool (Monte Carlo).",
    params=with_domains(
        (
            P("gpus", "GPU", 1024.0, "GPUs in the job"),
            P("gpus_per_node", "GPU", 8.0, "GPUs per node (a failure takes a node)"),
            P("gpu_failure_rate_per_day", "1/(GPU·day)", 4.74e-4, "interruption rate per GPU"),
            P("ckpt_interval_s", "s", 1800.0, "compute between checkpoints"),
            P("ckpt_write_s", "s", 60.0, "stall per checkpoint (unless ckpt_bytes and storage_bw are given)"),
            P("ckpt_bytes", "B", 0.0, "checkpoint size"),
            P("storage_bw", "B/s", 0.0, "aggregate storage write bandwidth"),
            P("restart_s", "s", 600.0, "detect + reschedule + reload after a failure"),
            P("spare_nodes", "node", 4.0, "hot spare nodes"),
            P("repair_s", "s", 259200.0, "time to repair a failed node"),
            P("work_s", "s", 0.0, "compute needed at full size; 0 = duration_s"),
            P("runs", "", 100.0, "Monte-Carlo replicas"),
            P("price_gpu_hour", "USD", 2.0, "price of one GPU-hour (job GPUs and spare nodes)"),
        ),
        {
            "positive": ["gpus", "gpus_per_node", "ckpt_interval_s"],
            "count": ["spare_nodes"],
            "count1": ["runs"],
        },
        runs=10000.0,
    ),
    events=(EventSpec("node_failures", {"count": None}, "count nodes fail together at wall time at"),),
    slo=(
        SloSpec("goodput_min", False, "work / wall time, mean over runs"),
        SloSpec("ckpt_write_max_s", True, "time to write one checkpoint"),
        SloSpec("finish_max_s", True, "mean time to finish"),
        SloSpec("lost_gpu_hours_max", True, "mean GPU-hours of recomputed work"),
    ),
)

MAX_SLOWDOWN = 50.0
MAX_FAILURES = 2_000_000  # simulated failures over all runs; more is refused before the first run


@dataclass
class RunRecord:
    """One Monte-Carlo run: totals and the (time, saved work) breakpoints of its progress."""

    finish_s: float = 0.0
    failures: int = 0
    lost_s: float = 0.0
    restart_s: float = 0.0
    wait_s: float = 0.0
    ckpt_s: float = 0.0
    points: list[tuple[float, float]] = field(default_factory=list)
    repairs: list[tuple[float, float]] = field(default_factory=list)


def checkpoint_write_s(p: dict[str, Any]) -> float:
    """Checkpoint stall: bytes over storage bandwidth when both are given, else `ckpt_write_s`."""
    if p["ckpt_bytes"] > 0 and p["storage_bw"] > 0:
        return float(p["ckpt_bytes"] / p["storage_bw"])
    return float(p["ckpt_write_s"])


def job_failure_rate(p: dict[str, Any]) -> float:
    """Failures per second of the whole job at full size."""
    return float(p["gpus"] * p["gpu_failure_rate_per_day"] / 86400.0)


def young_daly_interval(ckpt_write_s: float, mtbf_s: float) -> float:
    """Young/Daly first-order optimum checkpoint interval √(2·δ·MTBF)."""
    return math.sqrt(2.0 * ckpt_write_s * mtbf_s)


def simulate_run(
    work_s: float,
    interval_s: float,
    write_s: float,
    restart_s: float,
    rate: float,
    spares: int,
    repair_s: float,
    forced: Sequence[tuple[float, int]],
    rng: np.random.Generator,
) -> RunRecord:
    """One job from start to finish: exponential failures, lost work since the last checkpoint, restarts.

    A failed node is replaced by a spare when one is free, else the job waits for the earliest repair; a
    repaired node joins the spare pool. Failures while the job is down are not modelled.
    """
    rec = RunRecord(points=[(0.0, 0.0)])
    t, saved = 0.0, 0.0
    returns: list[float] = []
    free = spares
    forced = list(forced)
    cap = work_s * MAX_SLOWDOWN
    while True:
        remaining = work_s - saved
        ckpts_left = max(0, math.ceil(remaining / interval_s - 1e-12) - 1)
        to_finish = remaining + ckpts_left * write_s
        gap = rng.exponential(1.0 / rate) if rate > 0 else math.inf
        count = 1
        if forced and forced[0][0] - t < gap:
            gap, count = max(0.0, forced[0][0] - t), forced[0][1]
            forced.pop(0)
        if gap >= to_finish or t + gap > cap:
            rec.ckpt_s += ckpts_left * write_s
            t += min(to_finish, cap - t)
            saved = work_s if t < cap else saved
            rec.points.append((t, saved))
            rec.finish_s = t
            return rec
        cycles = math.floor(gap / (interval_s + write_s))
        saved += cycles * interval_s
        rec.ckpt_s += cycles * write_s
        rec.lost_s += gap - cycles * (interval_s + write_s)
        t += gap
        rec.points.append((t, saved + (gap - cycles * (interval_s + write_s))))
        rec.points.append((t, saved))
        rec.failures += count
        while returns and returns[0] <= t:
            heapq.heappop(returns)
            free += 1
        for _ in range(count):
            heapq.heappush(returns, t + repair_s)
            rec.repairs.append((t, t + repair_s))
        taken = min(count, free)
        free -= taken
        ready = t
        for _ in range(count - taken):
            ready = heapq.heappop(returns)
        rec.wait_s += ready - t
        rec.restart_s += restart_s
        t = ready + restart_s
        rec.points.append((t, saved))


def _mean_curve(records: Sequence[RunRecord], grid: np.ndarray, work_s: float) -> np.ndarray:
    curves = []
    for rec in records:
        times, values = zip(*rec.points, strict=True)
        curves.append(np.interp(grid, times, values, right=values[-1]))
    return np.mean(curves, axis=0) / work_s


def _repair_curve(records: Sequence[RunRecord], grid: np.ndarray) -> np.ndarray:
    counts = np.zeros_like(grid)
    for rec in records:
        if rec.repairs:
            starts, ends = (np.sort(np.array(x)) for x in zip(*rec.repairs, strict=True))
            counts += np.searchsorted(starts, grid, side="right") - np.searchsorted(ends, grid, side="right")
    return counts / len(records)


def _check_failure_budget(p: dict[str, Any], work: float, rate: float, runs: int) -> None:
    """Refuse a run whose failures alone would take more steps than MAX_FAILURES, naming the inputs.

    A run lasts at most MAX_SLOWDOWN × work; each failure costs at least restart_s of it, so a run has at
    most min(rate × that, that / restart_s) failures on average.
    """
    wall = work * MAX_SLOWDOWN
    per_run = rate * wall
    if p["restart_s"] > 0:
        per_run = min(per_run, wall / p["restart_s"] + 1.0)
    if not per_run * runs <= MAX_FAILURES:
        raise ValueError(
            f"training: gpus = {p['gpus']:.6g} at gpu_failure_rate_per_day = "
            f"{p['gpu_failure_rate_per_day']:.6g} for work_s = {work:.6g} s means about "
            f"{about(per_run * runs)} failures over {runs} runs, more than the {MAX_FAILURES:,} one replay "
            "may simulate"
        )


def run_training(
    params: dict[str, Any],
    events: list[dict[str, Any]],
    slo: dict[str, float],
    duration_s: float,
    seed: int,
    progress: Callable[[float], None] | None = None,
) -> ScenarioResult:
    """Run one training-reliability scenario (see README.md, family `training`)."""
    p = resolve_params(TRAINING, params)
    resolved = resolve_events(TRAINING, events)
    check_slo_keys(TRAINING, slo)
    work = p["work_s"] if p["work_s"] > 0 else duration_s
    write = checkpoint_write_s(p)
    rate = job_failure_rate(p)
    runs = max(1, int(p["runs"]))
    forced = [(e["at"], int(e["count"])) for e in resolved]
    _check_failure_budget(p, work, rate, runs)
    rng = np.random.default_rng(seed)
    records = []
    for k in range(runs):
        records.append(
            simulate_run(
                work,
                p["ckpt_interval_s"],
                write,
                p["restart_s"],
                rate,
                int(p["spare_nodes"]),
                p["repair_s"],
                forced,
                rng,
            )
        )
        if progress is not None and (k + 1) % max(1, runs // 20) == 0:
            progress((k + 1) / runs)
    summary = training_summary(p, records, work, write, rate)
    checks = check_slos(
        TRAINING,
        slo,
        {
            "goodput_min": summary["goodput"],
            "ckpt_write_max_s": write,
            "finish_max_s": summary["time_to_finish_s"],
            "lost_gpu_hours_max": summary["lost_work_gpu_hours"],
        },
    )
    finish = np.array([r.finish_s for r in records])
    grid = np.linspace(0.0, float(np.percentile(finish, 90)), MAX_POINTS)
    series = {
        "t": grid.tolist(),
        "progress_frac": _mean_curve(records, grid, work).tolist(),
        "nodes_in_repair": _repair_curve(records, grid).tolist(),
    }
    narrative = training_narrative(p, summary, write, checks)
    return ScenarioResult("training", all(c["passed"] for c in checks), checks, summary, series, narrative)


def training_summary(
    p: dict[str, Any], records: Sequence[RunRecord], work: float, write: float, rate: float
) -> dict[str, Any]:
    """Means and spreads over the Monte-Carlo runs, in seconds, GPU-hours and USD."""
    finish = np.array([r.finish_s for r in records])
    goodput = work / finish
    gpus = p["gpus"]
    mtbf = 1.0 / rate if rate > 0 else math.inf
    paid_gpus = gpus + p["spare_nodes"] * p["gpus_per_node"]
    return {
        "runs": len(records),
        "work_s": work,
        "goodput": float(goodput.mean()),
        "goodput_p10": float(np.percentile(goodput, 10)),
        "goodput_p90": float(np.percentile(goodput, 90)),
        "time_to_finish_s": float(finish.mean()),
        "time_to_finish_p90_s": float(np.percentile(finish, 90)),
        "failures": float(np.mean([r.failures for r in records])),
        "lost_work_gpu_hours": float(np.mean([r.lost_s for r in records])) * gpus / 3600.0,
        "restart_gpu_hours": float(np.mean([r.restart_s for r in records])) * gpus / 3600.0,
        "wait_gpu_hours": float(np.mean([r.wait_s for r in records])) * gpus / 3600.0,
        "ckpt_gpu_hours": float(np.mean([r.ckpt_s for r in records])) * gpus / 3600.0,
        "wait_for_repair_s": float(np.mean([r.wait_s for r in records])),
        "ckpt_write_s": write,
        "ckpt_burst_bw": p["ckpt_bytes"] / write if p["ckpt_bytes"] > 0 and write > 0 else math.nan,
        "job_mtbf_s": mtbf,
        "young_daly_interval_s": young_daly_interval(write, mtbf) if math.isfinite(mtbf) else math.inf,
        "cost_usd": float(finish.mean()) * paid_gpus * p["price_gpu_hour"] / 3600.0,
    }


def training_narrative(
    p: dict[str, Any], s: dict[str, Any], write: float, checks: Sequence[dict[str, Any]]
) -> list[str]:
    """Plain-words account: failure count, what each cost, and how the interval compares with Young/Daly."""
    lines = [
        f"{num(p['gpus'])} GPUs fail at {p['gpu_failure_rate_per_day']:.3g} per GPU-day: the job sees a "
        f"failure every {num(s['job_mtbf_s'] / 3600)} h on average, {num(s['failures'])} failures over "
        f"{num(s['time_to_finish_s'] / 86400)} days to finish {num(s['work_s'] / 86400)} days of work.",
        f"Each failure loses the work since the last checkpoint (every {num(p['ckpt_interval_s'] / 60)} min) "
        f"and a {num(p['restart_s'] / 60)} min restart: {num(s['lost_work_gpu_hours'])} GPU-hours recomputed "
        f"and {num(s['restart_gpu_hours'])} spent restarting; checkpoints cost {num(s['ckpt_gpu_hours'])} "
        f"GPU-hours ({num(write)} s per write).",
    ]
    if s["wait_for_repair_s"] > 0:
        lines.append(
            f"With {num(p['spare_nodes'])} spare nodes the job waited {num(s['wait_for_repair_s'] / 3600)} h "
            f"in all for repaired nodes ({num(p['repair_s'] / 3600)} h per repair)."
        )
    if math.isfinite(s["young_daly_interval_s"]):
        lines.append(
            f"Young/Daly √(2·δ·MTBF) suggests a checkpoint every {num(s['young_daly_interval_s'] / 60)} min; "
            f"you use {num(p['ckpt_interval_s'] / 60)} min."
        )
    if math.isfinite(s["ckpt_burst_bw"]):
        lines.append(
            f"A {num(p['ckpt_bytes'] / 1e12)} TB checkpoint at {num(p['storage_bw'] / 1e9)} GB/s takes "
            f"{num(write)} s."
        )
    lines.append(
        f"Goodput {s['goodput']:.1%} (p10 {s['goodput_p10']:.1%}, p90 {s['goodput_p90']:.1%}); cost "
        f"${num(s['cost_usd'])}."
    )
    lines.extend(slo_sentence(check) for check in checks)
    return lines
