"""One scenario replayed over several seeds: how many runs met the SLO, and the spread of each figure."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from grading.core.sim.result import ScenarioResult, round_sig

DEFAULT_SEEDS = 5


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
        values = [_number(result.summary.get(key)) for result in self.results]
        defined = [value for value in values if value is not None]
        if not defined:
            return {"values": values, "min": None, "median": None, "max": None}
        return {
            "values": values,
            "min": min(defined),
            "median": statistics.median(defined),
            "max": max(defined),
        }

    def check_spread(self) -> list[dict[str, Any]]:
        """Per SLO key: its words and target, how many runs met it, and the actual of each run."""
        if not self.results:
            return []
        out = []
        for position, first in enumerate(self.results[0].slo_checks):
            checks = [result.slo_checks[position] for result in self.results]
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

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable: seeds, runs, met, met_share, seed_dependent, checks (check_spread), figures
        (spread of every numeric summary figure) and each run's own to_dict()."""
        keys = sorted(
            key
            for key, value in (self.results[0].summary.items() if self.results else ())
            if isinstance(value, (int, float)) and not isinstance(value, bool)
        )
        return {
            "seeds": list(self.seeds),
            "runs": self.runs,
            "met": self.met,
            "met_share": self.met_share,
            "seed_dependent": self.seed_dependent,
            "checks": self.check_spread(),
            "figures": {key: self.spread(key) for key in keys},
            "results": [result.to_dict() for result in self.results],
        }


def _number(value: Any) -> float | None:
    """A finite figure rounded as results are (6 significant digits); None for nan, inf or a non-number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return round_sig(float(value)) if math.isfinite(value) else None


def run_scenario_seeds(
    family: str,
    params: dict[str, Any],
    events: list[dict[str, Any]],
    slo: dict[str, float],
    duration_s: float,
    seeds: Sequence[int],
    progress: Callable[[float], None] | None = None,
) -> SeedRuns:
    """Run one scenario once per seed (same inputs otherwise) and gather the runs.

    `progress(fraction)` gets the fraction of all the runs done (0..1) and may raise to cancel. A parameter
    error raises ValueError at the first seed, as `run_scenario` does.
    """
    from grading.core.sim import run_scenario

    seeds = tuple(int(seed) for seed in seeds)
    if not seeds:
        raise ValueError("seeds: at least one seed is needed")
    results = []
    for index, seed in enumerate(seeds):
        part = None
        if progress is not None:

            def part(fraction: float, index: int = index) -> None:
                progress((index + fraction) / len(seeds))

        results.append(run_scenario(family, params, events, slo, duration_s, seed, part))
    return SeedRuns(seeds, tuple(results))
