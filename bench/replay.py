"""Benchmark the failure replay: one simulated hour of 2,000 concurrent users (about 240,000 requests) with a
replica loss, and its speed ratio to the same scenario written with SimPy (bench/simpy_peer.py).

Run: `.venv/bin/python bench/replay.py` (needs `simpy==4.1.2`, in the bench extra, for the peer only).
Prints medians of a few runs, for both paths of the simulator in the same run: the default (numpy fast path
where nobody would queue, the event loop elsewhere) and the event loop alone; the replay's wall time (target
≤ 2 s on one core) and SimPy's time over each (target ≥ 20×, with the event loop too). A second case, a
lightly loaded single server, shows the fast path is only taken where it is faster. The replay time is the
whole `run_serving` call: arrivals, the simulation, percentiles, series and narrative.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from grading.core.sim.serving import run_serving  # noqa: E402

REPLAY_TARGET_S = 2.0
RATIO_TARGET = 20.0
REPEATS = 5
PEER_REPEATS = 3
DURATION_S = 3600.0
PARAMS = {"users": 2000, "think_time_s": 20, "replicas": 16, "max_batch": 64, "tpot_s": 0.04}
EVENTS = [{"at": 1800, "type": "replica_loss", "count": 2}]
SLO = {"ttft_p95_s": 2.0, "dropped_max_frac": 0.0}
LIGHT = {"servers": 1, "mu": 1.0, "arrival_rate": 0.3}  # ~100,000 requests over 100 h, rarely two at once
LIGHT_DURATION_S = 360000.0


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


def main() -> None:
    paths = {}
    for name, fast in (("default (fast path + event loop)", True), ("event loop alone", False)):
        paths[name] = median_run(PARAMS, EVENTS, DURATION_S, fast)
    summary = paths["event loop alone"][2].summary
    assert paths["default (fast path + event loop)"][2].to_dict() == paths["event loop alone"][2].to_dict()
    print(
        f"replay: {summary['arrivals']:,} requests over {DURATION_S:.0f} s at "
        f"{summary['arrival_rate']:.2f} req/s, "
        f"{summary['retried']} retried after the replica loss; TTFT p95 {summary['ttft_p95_s']:.3f} s "
        "(both paths give the same records)"
    )
    for name, (median, times, _) in paths.items():
        print(
            f"replay median, {name}: {median:.3f} s   (target ≤ {REPLAY_TARGET_S:.1f} s)   runs: "
            + ", ".join(f"{t:.3f}" for t in times)
        )
    light = {
        name: median_run(LIGHT, [], LIGHT_DURATION_S, fast)[0]
        for name, fast in (("default", True), ("loop", False))
    }
    print(
        f"light single server ({LIGHT_DURATION_S / 3600:.0f} h at {LIGHT['arrival_rate']} req/s): default "
        f"{light['default']:.3f} s, event loop alone {light['loop']:.3f} s, default / loop "
        f"{light['default'] / light['loop']:.2f} (the fast path backs off where it would be slower)"
    )
    try:
        from simpy_peer import run_simpy_replay
    except ImportError:
        print("simpy peer: skipped (pip install simpy==4.1.2)")
        return
    peer_times = []
    for seed in range(PEER_REPEATS):
        seconds, peer = timed(lambda seed=seed: run_simpy_replay(summary["arrival_rate"], DURATION_S, seed))
        peer_times.append(seconds)
    peer_median = statistics.median(peer_times)
    print(
        f"simpy peer: {peer['arrivals']:,.0f} requests, {peer['retried']:.0f} retried; TTFT p95 "
        f"{peer['ttft_p95_s']:.3f} s; median {peer_median:.3f} s"
    )
    for name, (median, _, _) in paths.items():
        print(f"ratio simpy / replay, {name}: {peer_median / median:.1f}x   (target ≥ {RATIO_TARGET:.0f}x)")


if __name__ == "__main__":
    main()
