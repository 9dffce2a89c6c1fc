"""One scenario replayed over several seeds: how many runs met the SLO, and the spread of each figure."""

from __future__ import annotations

import math
import os
import statistics
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from grading.core.sim.result import ScenarioResult, round_sig

DEFAULT_SEEDS = 5
# At most this many seeds at once (default: the CPUs this process may use; in a Celery worker, its share of
# them, set when the worker starts: config/celery.py).
THREADS_ENV = "SEVENBOX_SIM_THREADS"
Progress = Callable[[float], None]
OneRun = Callable[[int, Progress | None], ScenarioResult]  # one seed's run, reporting to its callback
PROGRESS_POLL_S = 0.1  # how often the calling thread passes the runs' progress on while they run in threads


@dataclass(frozen=True)
class SeedRuns:
    """The runs of one scenario, one per seed (in the order given), and what they say together."""

    seeds: tuple[int, ...]
    results: tuple[ScenarioResult, ...]

    @property
    def runs(self) -> int:
        return len(self.results)

    @property
    def met(self) -> int:
        """Runs whose every SLO check passed."""
        return sum(1 for result in self.results if result.passed)

    @property
    def met_share(self) -> float:
        """The share of runs that met the SLO, 0..1 (0 for no runs)."""
        return self.met / self.runs if self.runs else 0.0

    @property
    def seed_dependent(self) -> bool:
        """Some runs met the SLO and some did not: the verdict depends on the seed."""
        return 0 < self.met < self.runs

    def spread(self, key: str) -> dict[str, Any]:
        """A summary figure over the runs: {values (None where undefined), min, median, max} of the defined
        ones (None when no run defines it)."""
        return _spread([result.summary.get(key) for result in self.results])

    def check_spread(self) -> list[dict[str, Any]]:
        """Per SLO key: its words and target, how many runs met it, and the actual of each run."""
        return _checks_spread([{"slo_checks": result.slo_checks} for result in self.results])

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable, as `seed_runs_dict` makes it from each run's own to_dict()."""
        return seed_runs_dict(self.seeds, [result.to_dict() for result in self.results])


def seed_runs_dict(seeds: Sequence[int], results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The runs of one scenario together, from each run's stored form (`ScenarioResult.to_dict()`, in the
    order of `seeds`), wherever each run was simulated: seeds, runs, met, met_share, seed_dependent, checks
    (per SLO check its words, target, runs met and each run's actual), figures (the spread of every summary
    figure that some run defines) and the runs themselves."""
    runs = len(results)
    met = sum(1 for result in results if result["passed"])
    keys = sorted(
        {
            key
            for result in results
            for key, value in result["summary"].items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
        }
    )
    return {
        "seeds": [int(seed) for seed in seeds],
        "runs": runs,
        "met": met,
        "met_share": met / runs if runs else 0.0,
        "seed_dependent": 0 < met < runs,
        "checks": _checks_spread(results),
        "figures": {key: _spread([result["summary"].get(key) for result in results]) for key in keys},
        "results": [dict(result) for result in results],
    }


def _checks_spread(results: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if not results:
        return []
    out = []
    for position, first in enumerate(results[0]["slo_checks"]):
        checks = [result["slo_checks"][position] for result in results]
        out.append(
            {
                "key": first["key"],
                "words": first["words"],
                "target": first["target"],
                "met": sum(1 for check in checks if check["passed"]),
                "actuals": [_number(check["actual"]) for check in checks],
            }
        )
    return out


def _spread(raw: Sequence[Any]) -> dict[str, Any]:
    values = [_number(value) for value in raw]
    defined = [value for value in values if value is not None]
    if not defined:
        return {"values": values, "min": None, "median": None, "max": None}
    return {"values": values, "min": min(defined), "median": statistics.median(defined), "max": max(defined)}


def _number(value: Any) -> float | None:
    """A finite figure rounded as results are (6 significant digits); None for nan, inf or a non-number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return round_sig(float(value)) if math.isfinite(value) else None


def usable_cpus() -> int:
    """The CPUs this process may use (its affinity where the platform says, else the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def seed_threads() -> int:
    """Threads for a scenario's seeds: SEVENBOX_SIM_THREADS when set, else the CPUs this process may use."""
    named = os.environ.get(THREADS_ENV, "")
    if named:
        if not named.isdigit():  # not a ValueError: that would read as the scenario's inputs refused
            raise RuntimeError(f"{THREADS_ENV}={named!r}: expected a whole number of threads")
        return max(1, int(named))
    return usable_cpus()


def worker_seed_threads(cpus: int, concurrency: int) -> int:
    """Threads for a scenario's seeds in one of `concurrency` worker processes sharing `cpus` CPUs: the
    CPUs divided between them, at least one (two processes on two cores get one thread each, not two)."""
    return max(1, cpus // max(1, concurrency))


def run_scenario_seeds(
    family: str,
    params: dict[str, Any],
    events: list[dict[str, Any]],
    slo: dict[str, float],
    duration_s: float,
    seeds: Sequence[int],
    progress: Callable[[float], None] | None = None,
    threads: int | None = None,
) -> SeedRuns:
    """Run one scenario once per seed (same inputs otherwise) and gather the runs, in the order of `seeds`.

    The runs are independent, so up to `threads` of them (None: `seed_threads()`) run at once in threads (the
    compiled step loop releases the GIL; the results are the same as one after another). `progress(fraction)`
    gets the fraction of all the runs done (0..1), always from the calling thread, and may raise to cancel. A
    parameter error raises ValueError, as `run_scenario` does.
    """
    seeds = tuple(int(seed) for seed in seeds)
    if not seeds:
        raise ValueError("seeds: at least one seed is needed")
    from grading.core.sim import run_scenario

    def one(seed: int, part: Progress | None) -> ScenarioResult:
        return run_scenario(family, params, events, slo, duration_s, seed, part)

    workers = min(len(seeds), seed_threads() if threads is None else max(1, threads))
    if workers == 1:
        return SeedRuns(seeds, tuple(_in_turn(one, seeds, progress)))
    return SeedRuns(seeds, tuple(_in_threads(one, seeds, progress, workers)))


def _in_turn(one: OneRun, seeds: tuple[int, ...], progress: Progress | None) -> list[ScenarioResult]:
    """The runs one after another in this thread."""
    results = []
    for index, seed in enumerate(seeds):
        part = None
        if progress is not None:

            def part(fraction: float, index: int = index) -> None:
                progress((index + fraction) / len(seeds))

        results.append(one(seed, part))
    return results


class _Cancelled(Exception):
    """Raised in a seed's thread at its next progress report once the whole sweep is given up."""


def _in_threads(
    one: OneRun, seeds: tuple[int, ...], progress: Progress | None, workers: int
) -> list[ScenarioResult]:
    """The runs in `workers` threads. Their progress is gathered here and passed on from this thread (a
    caller's callback may use its thread's database connection); when it raises, or a run fails, the other
    runs stop at their next report and the first failure (in seed order) is raised."""
    fractions = [0.0] * len(seeds)
    stop = threading.Event()

    def part(index: int) -> Progress:
        def report(fraction: float) -> None:
            fractions[index] = fraction
            if stop.is_set():
                raise _Cancelled

        return report

    with ThreadPoolExecutor(workers, thread_name_prefix="replay-seed") as pool:
        futures = [
            pool.submit(one, seed, None if progress is None else part(index))
            for index, seed in enumerate(seeds)
        ]
        try:
            pending: set[Future[ScenarioResult]] = set(futures)
            while pending:
                finished, pending = wait(pending, timeout=PROGRESS_POLL_S, return_when=FIRST_COMPLETED)
                if any(future.exception() is not None for future in finished):
                    break
                if progress is not None:
                    progress(sum(fractions) / len(seeds))
        except BaseException:
            stop.set()
            for future in futures:
                future.cancel()
            raise
        stop.set()
        for future in futures:
            future.cancel()
    failed = [future.exception() for future in futures if not future.cancelled()]
    first = next((error for error in failed if error is not None and not isinstance(error, _Cancelled)), None)
    if first is not None:
        raise first
    return [future.result() for future in futures]
