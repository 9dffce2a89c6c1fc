"""Benchmark the failure replay: one simulated hour of 2,000 concurrent users (about 230,000 requests) with a
replica loss, on the per-step engine, against the same engine written with SimPy (bench/simpy_peer.py); the
compiled loop's first-call cost; and what one submission's replays cost for the bank's heaviest question.

Run: `.venv/bin/python bench/replay.py` (needs `simpy==4.1.2`, in the bench extra, for the peer only).
Prints, in one run:
- the compiled loop's compile cost, paid by the first replay in a process: cold (a fresh process with an empty
  numba cache: import, compile, one small replay) and warm (a fresh process loading that cache);
- the hour's median wall time over REPEATS seeds on the compiled loop, on the reference Python loop (the same
  result, checked) and in SimPy, the three interleaved seed by seed, and the ratios (target: SimPy / compiled
  ≥ 20×);
- how the replay and the SimPy engine agree on TTFT and TPOT p50/p95, completed requests and the queue at the
  end, and the per-step agreement grid of tests/core/test_sim_engine_agreement.py;
- a lightly loaded single server showing the generic queue's fast path is only taken where it is faster;
- one submission of the heaviest bank question (rag-at-10k-qps: 3,000 req/s on 60 replicas, 1.26-1.74M
  requests a run) replayed as the report will: both sides, every serving scenario, DEFAULT_SEEDS seeds each
  (`run_scenario_seeds`), in this one process after the compile: with each scenario's seeds in threads (one
  thread a CPU), then one after another (the simulation's own cost, nothing kept);
- the same question's submission as `make run` serves it, against the 10 s its replays should take: the time
  from submit to every replay done on make run's own worker and embedded default, medians over SUBMIT_REPEATS
  submissions with the reference's replays kept from the round's start and cold (`bench/replay_submit.py`,
  in a process of its own).
The replay time is the whole `run_serving` call: arrivals, the simulation, percentiles, series and narrative.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from grading.core.sim.serving import run_serving  # noqa: E402

REPLAY_TARGET_S = 2.0
RATIO_TARGET = 20.0
REPEATS = 3
ENGINES = {"compiled": "compiled", "reference Python loop": "python"}
FIRST_REPLAY = "from grading.core.sim.warm_engine import warm; print(warm())"
DURATION_S = 3600.0
PARAMS = {"users": 2000, "think_time_s": 20, "replicas": 16, "max_batch": 64, "tpot_s": 0.04}
EVENTS = [{"at": 1800, "type": "replica_loss", "count": 2}]
SLO = {"ttft_p95_s": 2.0, "dropped_max_frac": 0.0}
LIGHT = {"servers": 1, "mu": 1.0, "arrival_rate": 0.3}  # ~100,000 requests over 100 h, rarely two at once
LIGHT_DURATION_S = 360000.0
AGREEMENT_KEYS = ("ttft_p50_s", "ttft_p95_s", "tpot_p50_s", "tpot_p95_s", "completed", "queue_at_end")
HEAVIEST_QUESTION = "rag-at-10k-qps"
SUBMISSION_TARGET_S = 10.0
SUBMIT_REPEATS = 3


def timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def median_run(
    params: dict, events: list, duration_s: float, fast: bool
) -> tuple[float, list[float], object]:
    times, result = [], None
    for seed in range(REPEATS):
        seconds, result = timed(
            lambda seed=seed: run_serving(params, events, SLO, duration_s, seed, fast=fast)
        )
        times.append(seconds)
    return statistics.median(times), times, result


def first_replay_seconds(cache_dir: str) -> float:
    """A fresh process's first compiled replay (import, compile or load, run), with this numba cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_REPLAY], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout.split()[-1])


def print_compile_cost() -> None:
    with tempfile.TemporaryDirectory() as cache_dir:
        cold = first_replay_seconds(cache_dir)
        warm = [first_replay_seconds(cache_dir) for _ in range(REPEATS)]
    print(
        f"compiled loop, first replay in a fresh process: cold (empty numba cache) {cold:.1f} s; warm (from "
        f"the on-disk cache) median {statistics.median(warm):.2f} s, runs "
        + ", ".join(f"{t:.2f}" for t in warm)
    )


def difference(ours: float, theirs: float) -> str:
    return f"{100 * (ours - theirs) / theirs:+.1f}%" if theirs else f"{ours - theirs:+.0f}"


def print_grid() -> None:
    """The per-step agreement figures of the tests' grid (same requests through both)."""
    sys.path.insert(0, str(ROOT / "tests" / "core"))
    try:
        from test_sim_engine_agreement import GRID, reference_figures, replay_figures
    except ImportError as missing:
        print(f"per-step agreement grid: skipped ({missing})")
        return
    print("per-step agreement (replay vs the independent per-step model, same requests):")
    for case, (params, events, duration_s) in GRID.items():
        reference = reference_figures(params, events, duration_s, seed=11)
        replay = replay_figures(params, events, duration_s, seed=11)
        print(
            f"  {case:22s} "
            + "  ".join(f"{key} {difference(replay[key], reference[key])}" for key in AGREEMENT_KEYS)
        )


def print_submission(slug: str = HEAVIEST_QUESTION) -> None:
    """One submission's replays of `slug`: both sides, every serving scenario, DEFAULT_SEEDS seeds each; with
    each scenario's seeds in threads as the worker runs them (`seed_threads()`), then one after another."""
    from grading.core.design_check import DEFAULT_PALETTE_PATH
    from grading.core.figures_doc import PACK
    from grading.core.question_export import spec_to_dict
    from grading.core.question_files import load_palette, load_question
    from grading.core.replay_inputs import replay_inputs, replay_seeds
    from grading.core.sim import DEFAULT_SEEDS, run_scenario_seeds
    from grading.core.sim.seeds import seed_threads

    palette = load_palette(DEFAULT_PALETTE_PATH)  # the bank's own paths, wherever the bank lives
    spec = spec_to_dict(load_question(PACK / f"{slug}.yaml", palette=palette))
    entries = [
        (side, entry)
        for side in ("reference", "candidate")
        for entry in replay_inputs(spec, side=side, numbers={})
        if entry["family"] == "serving"
    ]
    verdicts = {}
    for threads in dict.fromkeys((seed_threads(), 1)):
        start = time.perf_counter()
        runs = []
        for side, entry in entries:
            seeds = replay_seeds(1, entry["scenario"], DEFAULT_SEEDS)
            args = (entry["family"], entry["params"], entry["events"], entry["slo"], entry["duration_s"])
            seconds, sweep = timed(
                lambda args=args, seeds=seeds, threads=threads: run_scenario_seeds(
                    *args, seeds, threads=threads
                )
            )
            verdicts.setdefault((side, entry["scenario"]), set()).add(sweep.met)
            runs.append(f"{side} {entry['scenario']} {seconds:.1f} s (met in {sweep.met} of {sweep.runs})")
        total = time.perf_counter() - start
        print(
            f"one submission of {slug} ({DEFAULT_SEEDS} seeds a scenario, both sides, one process, "
            f"{threads} thread{'s' if threads > 1 else ''} of {os.cpu_count()} CPUs, load "
            f"{os.getloadavg()[0]:.1f}): {total:.1f} s (target ≤ {SUBMISSION_TARGET_S:.0f} s: "
            f"{'met' if total <= SUBMISSION_TARGET_S else 'missed'}); " + "; ".join(runs)
        )
    assert all(len(met) == 1 for met in verdicts.values()), "threads changed a verdict"


def print_submit_to_done(slug: str = HEAVIEST_QUESTION) -> None:
    """bench/replay_submit.py's figures: submit to every replay done on make run's worker."""
    command = [sys.executable, str(ROOT / "bench" / "replay_submit.py"), "--slug", slug]
    done = subprocess.run(
        [*command, "--repeats", str(SUBMIT_REPEATS)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    print(done.stdout.rstrip())


def simpy_peer() -> Callable[..., dict] | None:
    """bench/simpy_peer.py's runner, or None without simpy."""
    sys.path.append(str(ROOT / "bench"))  # after the root: bench/grading.py would shadow the package
    try:
        from simpy_peer import run_simpy_replay
    except ImportError:
        return None
    return run_simpy_replay


def print_hour() -> None:
    """The hour on each loop and in SimPy, interleaved seed by seed (so a change in the machine's load falls
    on all three alike); the compiled and reference loops' results checked equal for every seed."""
    from grading.core.sim.warm_engine import warm

    warm()  # the compile (or cache load) is reported apart; not in the hour's first run
    peer = simpy_peer()
    times: dict[str, list[float]] = {name: [] for name in (*ENGINES, "simpy")}
    for seed in range(REPEATS):
        results = []
        for name, engine in ENGINES.items():
            seconds, result = timed(
                lambda seed=seed, engine=engine: run_serving(
                    PARAMS, EVENTS, SLO, DURATION_S, seed, engine=engine
                )
            )
            times[name].append(seconds)
            results.append(result)
        assert results[0].to_dict() == results[1].to_dict()
        summary = results[0].summary
        if peer is not None:
            rate = summary["arrival_rate"]
            seconds, peer_figures = timed(lambda seed=seed, rate=rate: peer(rate, DURATION_S, seed))
            times["simpy"].append(seconds)
    print(
        f"replay: {summary['arrivals']:,} requests over {DURATION_S:.0f} s at "
        f"{summary['arrival_rate']:.2f} req/s, {summary['engine_steps']:,} engine steps, "
        f"{summary['retried']} retried after the replica loss; TTFT p95 {summary['ttft_p95_s']:.3f} s, "
        f"TPOT p50 {1000 * summary['tpot_p50_s']:.1f} ms (both loops give the same result, every seed)"
    )
    medians = {name: statistics.median(runs) for name, runs in times.items() if runs}
    for name, runs in times.items():
        if runs:
            print(
                f"hour median, {name}: {medians[name]:.3f} s   runs: " + ", ".join(f"{t:.3f}" for t in runs)
            )
    print(
        f"reference loop / compiled: {medians['reference Python loop'] / medians['compiled']:.1f}x; "
        f"compiled ≤ {REPLAY_TARGET_S:.1f} s: {medians['compiled'] <= REPLAY_TARGET_S}"
    )
    if peer is None:
        print("simpy peer: skipped (pip install simpy==4.1.2)")
        return
    ours = {**summary, "queue_at_end": summary["unfinished"]}
    print(
        f"simpy engine: {peer_figures['arrivals']:,.0f} requests, {peer_figures['retried']:.0f} retried; "
        "replay vs simpy: "
        + "  ".join(f"{key} {difference(ours[key], peer_figures[key])}" for key in AGREEMENT_KEYS)
    )
    for name in ENGINES:
        pairs = [theirs / mine for theirs, mine in zip(times["simpy"], times[name], strict=True)]
        print(
            f"ratio simpy / {name}: {medians['simpy'] / medians[name]:.1f}x of the medians, seed by seed "
            + ", ".join(f"{ratio:.1f}x" for ratio in pairs)
            + f"   (target ≥ {RATIO_TARGET:.0f}x)"
        )


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    print_compile_cost()
    print_hour()
    light = {
        name: median_run(LIGHT, [], LIGHT_DURATION_S, fast)[0]
        for name, fast in (("default", True), ("loop", False))
    }
    print(
        f"generic queue, light single server ({LIGHT_DURATION_S / 3600:.0f} h at "
        f"{LIGHT['arrival_rate']} req/s): default {light['default']:.3f} s, event loop alone "
        f"{light['loop']:.3f} s, default / loop "
        f"{light['default'] / light['loop']:.2f} (the fast path backs off where it would be slower)"
    )
    print_grid()
    print_submission()
    print_submit_to_done()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
