"""`python -m grading.core.sim.warm_engine`: compile the replay's step loop into numba's on-disk cache
(NUMBA_CACHE_DIR, or __pycache__ beside the source) by running one small replay that takes every kernel the
Python side calls, and print how long it took (a cold compile, or a load from the cache)."""

from __future__ import annotations

import time

from grading.core.sim.serving import run_serving

# a replica loss, a region loss (requeued and admitted elsewhere) and queue timeouts: every entry point
PARAMS = {"arrival_rate": 8, "replicas": 2, "regions": 2, "max_batch": 16, "queue_timeout_s": 2}
EVENTS = [
    {"at": 10, "type": "replica_loss", "count": 1, "region": 1},
    {"at": 20, "type": "region_loss", "region": 0, "duration": 5},
]


def warm() -> float:
    """Seconds the first compiled replay took in this process."""
    start = time.perf_counter()
    run_serving(PARAMS, EVENTS, {}, 40.0, 1, engine="compiled")
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"compiled replay engine ready in {warm():.1f} s")
