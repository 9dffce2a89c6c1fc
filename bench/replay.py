"""Benchmark the failure replay: one simulated hour of 2,000 concurrent users (about 240,000 requests) with a
replica loss, and its speed ratio to the same scenario written with SimPy (bench/simpy_peer.py).

Run: `.venv/bin/python bench/replay.py` (needs `simpy==4.1.2` for the peer only). Prints medians of a few
runs: the replay's wall time (target ≤ 2 s on one core) and SimPy's time over ours (target ≥ 20×). The replay
time is the whole `run_scenario` call: arrivals, the event loop, percentiles, series and narrative.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from grading.core.sim import run_scenario  # noqa: E402

REPLAY_TARGET_S = 2.0
RATIO_TARGET = 20.0
REPEATS = 5
PEER_REPEATS = 3
DURATION_S = 3600.0
PARAMS = {"users": 2000, "think_time_s": 20, "replicas": 16, "max_batch": 64, "tpot_s": 0.04}
EVENTS = [{"at": 1800, "type": "replica_loss", "count": 2}]
SLO = {"ttft_p95_s": 2.0, "dropped_max_frac": 0.0}


def timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def main() -> None:
    replay_times, results = [], []
    for seed in range(REPEATS):
        seconds, result = timed(
            lambda seed=seed: run_scenario("serving", PARAMS, EVENTS, SLO, DURATION_S, seed)
        )
        replay_times.append(seconds)
        results.append(result)
    summary = results[0].summary
    replay = statistics.median(replay_times)
    print(
        f"replay: {summary['arrivals']:,} requests over {DURATION_S:.0f} s at "
        f"{summary['arrival_rate']:.2f} req/s, "
        f"{summary['retried']} retried after the replica loss; TTFT p95 {summary['ttft_p95_s']:.3f} s"
    )
    print(
        f"replay median: {replay:.3f} s   (target ≤ {REPLAY_TARGET_S:.1f} s)   runs: "
        + ", ".join(f"{t:.3f}" for t in replay_times)
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
    print(f"ratio simpy / replay: {peer_median / replay:.1f}x   (target ≥ {RATIO_TARGET:.0f}x)")


if __name__ == "__main__":
    main()
