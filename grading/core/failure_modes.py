"""The failure-modes score: the candidate's design replayed against each scenario's SLO and the cost a good
design needs. Pure Python over stored run results; no Django.

Each side of a scenario is stored as `SeedRuns.to_dict()` (one run per seed) or, from before the multi-seed
replays, one `ScenarioResult.to_dict()`. Per scenario:

- A scenario the reference design meets in at least one run is an ordinary one: each candidate run that
  met every SLO check earns 1, a run that missed any earns 0 (a missed SLO never scores as met). The
  scenario earns the share of runs that met it.
- A scenario the reference design misses in every run is built to break every design. A candidate run that
  still meets it earns 1; one that misses earns at most BROKEN_CAP, times how it degrades: the mean of
  `closeness` (per missed check, the reference's shortfall over the candidate's, capped at 1: missing by no
  more than a good design does) and, for serving, `shed share` (of the requests not served, the share refused,
  timed out or failed rather than left queued at the end: a queue that grew without bound sheds nothing).
- Cost: when both sides report `cost_usd` and the candidate's median is more than COST_SLACK times the
  reference's, the scenario's credit is multiplied by COST_SLACK / ratio (an oversized fleet earns less).

The score is 100 times the mean over scenarios. A review round's fixed design is compared with the reference
fix (the review's `fix`), never with the flawed given design; with no reference at all every scenario is an
ordinary one and cost is not compared.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from grading.core.sim.narrative import num
from grading.core.sim.slo_words import actual_words, slo_words

BROKEN_CAP = 0.75
COST_SLACK = 1.25


def seed_results(stored: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The per-seed results of one stored side: SeedRuns.to_dict()'s `results`, or the one legacy result."""
    if not stored:
        return []
    if "results" in stored:
        return [result for result in stored["results"] if isinstance(result, Mapping)]
    return [stored] if "slo_checks" in stored else []


def shortfall(check: Mapping[str, Any]) -> float:
    """How far a check's actual lies beyond its target, relative to the target (0 when met; inf when the run
    has no value for it)."""
    if check.get("passed"):
        return 0.0
    actual, target = check.get("actual"), float(check["target"])
    if actual is None or not math.isfinite(float(actual)):
        return math.inf
    beyond = float(actual) - target if _is_upper(check["key"]) else target - float(actual)
    return max(0.0, beyond) / (abs(target) if target else 1.0)


def _is_upper(key: str) -> bool:
    return not key.endswith("_min") and "_min_" not in key


def closeness(run: Mapping[str, Any], reference_runs: Sequence[Mapping[str, Any]]) -> float:
    """Mean over the run's missed checks of min(1, reference's median shortfall / the run's): 1 when it misses
    by no more than the reference does, 0 when it has no value where the reference has one."""
    ratios = []
    for check in run.get("slo_checks") or []:
        if check.get("passed"):
            continue
        own = shortfall(check)
        theirs = _median(
            [
                shortfall(c)
                for r in reference_runs
                for c in r.get("slo_checks") or []
                if c["key"] == check["key"]
            ]
        )
        if theirs is None or own <= theirs:
            ratios.append(1.0)
        elif math.isinf(own):
            ratios.append(0.0)
        else:
            ratios.append(min(1.0, theirs / own))
    return sum(ratios) / len(ratios) if ratios else 1.0


def shed_share(run: Mapping[str, Any]) -> float | None:
    """Of the requests a serving run did not serve, the share refused, timed out or failed rather than left
    waiting at the end (1 when everything was served); None for other families."""
    summary = run.get("summary") or {}
    if run.get("family") != "serving" or "dropped" not in summary:
        return None
    dropped = float(summary.get("dropped") or 0)
    if dropped <= 0:
        return 1.0
    return max(0.0, 1.0 - float(summary.get("unfinished") or 0) / dropped)


def degradation(run: Mapping[str, Any], reference_runs: Sequence[Mapping[str, Any]]) -> float:
    """How gracefully a run that missed a breaking scenario degrades, 0..1 (see the module docstring)."""
    parts = [closeness(run, reference_runs)]
    shed = shed_share(run)
    if shed is not None:
        parts.append(shed)
    return sum(parts) / len(parts)


def _median(values: Sequence[float | None]) -> float | None:
    defined = [float(value) for value in values if value is not None]
    return statistics.median(defined) if defined else None


def median_cost(runs: Sequence[Mapping[str, Any]]) -> float | None:
    """The median `cost_usd` over runs that report a finite one."""
    costs = [(run.get("summary") or {}).get("cost_usd") for run in runs]
    return _median([c for c in costs if isinstance(c, (int, float)) and math.isfinite(c)])


def cost_factor(candidate_cost: float | None, reference_cost: float | None) -> tuple[float, float | None]:
    """(the credit multiplier, the cost ratio): 1 up to COST_SLACK times the reference's cost, then
    COST_SLACK / ratio; (1, None) when either cost is unknown or the reference's is 0."""
    if candidate_cost is None or reference_cost is None or reference_cost <= 0:
        return 1.0, None
    ratio = candidate_cost / reference_cost
    return (min(1.0, COST_SLACK / ratio) if ratio > 0 else 1.0), ratio


def scenario_credit(
    candidate: Mapping[str, Any] | None,
    reference: Mapping[str, Any] | None,
    *,
    title: str = "",
    reference_name: str = "the reference",
) -> dict[str, Any] | None:
    """One scenario's credit (0..1) and the lines that say why; None when the candidate side has no run. A
    side stored as {"error": why} (the simulator refused the candidate's numbers) scores 0: a design that
    cannot run meets no SLO."""
    runs = seed_results(candidate)
    if not runs and candidate is not None and candidate.get("error"):
        return _refused(str(candidate["error"]), title)
    if not runs:
        return None
    reference_runs = seed_results(reference)
    met = sum(1 for run in runs if run.get("passed"))
    reference_met = sum(1 for run in reference_runs if run.get("passed"))
    breaks_every_design = bool(reference_runs) and reference_met == 0
    run_credits = [
        1.0
        if run.get("passed")
        else (BROKEN_CAP * degradation(run, reference_runs) if breaks_every_design else 0)
        for run in runs
    ]
    base = sum(run_credits) / len(run_credits)
    candidate_cost, reference_cost = median_cost(runs), median_cost(reference_runs)
    factor, ratio = cost_factor(candidate_cost, reference_cost) if reference_runs else (1.0, None)
    credit = base * factor
    lines = [_met_line(met, len(runs), breaks_every_design, len(reference_runs), base, reference_name)]
    if breaks_every_design and met < len(runs):
        lines.append(_degradation_line(runs, reference_runs, reference_name))
    if factor < 1.0:
        lines.append(
            f"Your fleet costs ${num(candidate_cost)} a run against {reference_name}'s "
            f"${num(reference_cost)} "
            f"({num(ratio)}×, more than {num(COST_SLACK)}×): the scenario's credit is scaled by "
            f"{num(COST_SLACK)} / {num(ratio)} = {factor:.2f}."
        )
    return {
        "title": title,
        "runs": len(runs),
        "met": met,
        "seed_dependent": 0 < met < len(runs),
        "reference_runs": len(reference_runs),
        "reference_met": reference_met,
        "breaks_every_design": breaks_every_design,
        "run_credits": [round(credit, 4) for credit in run_credits],
        "base": round(base, 4),
        "cost": {
            "candidate": candidate_cost,
            "reference": reference_cost,
            "ratio": None if ratio is None else round(ratio, 4),
            "factor": round(factor, 4),
        },
        "credit": round(credit, 4),
        "score": round(100 * credit, 1),
        "lines": lines,
    }


def _refused(error: str, title: str) -> dict[str, Any]:
    line = f"Could not be replayed on your numbers ({error}): a design that cannot run meets no SLO: 0 / 100."
    return {
        "title": title,
        "runs": 0,
        "met": 0,
        "seed_dependent": False,
        "reference_runs": 0,
        "reference_met": 0,
        "breaks_every_design": False,
        "run_credits": [],
        "base": 0.0,
        "cost": {"candidate": None, "reference": None, "ratio": None, "factor": 1.0},
        "credit": 0.0,
        "score": 0.0,
        "lines": [line],
    }


def _runs_words(count: int, total: int) -> str:
    return f"{count} of {total} run{'s' if total != 1 else ''}"


def _met_line(
    met: int, runs: int, breaks: bool, reference_runs: int, base: float, reference_name: str = "the reference"
) -> str:
    if breaks:
        head = (
            f"Built to break every design: {reference_name} misses it too (in all {reference_runs} runs), so "
            f"a missed run earns at most {int(100 * BROKEN_CAP)} for how it degrades."
        )
        return f"{head} Yours met it in {_runs_words(met, runs)}: {round(100 * base)} / 100."
    verdict = f"Met its SLO in {_runs_words(met, runs)}"
    if 0 < met < runs:
        verdict += " (the verdict depends on the seed)"
    return f"{verdict}: {round(100 * base)} / 100."


def _degradation_line(
    runs: Sequence[Mapping[str, Any]],
    reference_runs: Sequence[Mapping[str, Any]],
    reference_name: str = "the reference",
) -> str:
    missed = [run for run in runs if not run.get("passed")]
    close = statistics.mean(closeness(run, reference_runs) for run in missed)
    shed = [share for share in (shed_share(run) for run in missed) if share is not None]
    if round(100 * close) >= 100:
        words = f"Where it missed, it missed by no more than {reference_name} does"
    else:
        words = (
            f"Where it missed, it missed by more than {reference_name} does (closeness {round(100 * close)}%)"
        )
    if shed:
        words += (
            f"; of what was not served, {round(100 * statistics.mean(shed))}% was refused or shed rather "
            "than left queued at the end"
        )
    return words + "."


def failure_report(
    candidate: Mapping[str, Mapping[str, Any] | None],
    reference: Mapping[str, Mapping[str, Any] | None] | None,
    *,
    titles: Mapping[str, str] | None = None,
    reference_name: str = "the reference",
) -> dict[str, Any]:
    """The score (0–100, None with nothing to score) and each scenario's credit and lines.

    `candidate` and `reference` map a scenario name to its stored side; `reference` None judges the candidate
    against the SLOs alone. `reference_name` names the reference side in the lines ("the reference fix")."""
    scenarios = {}
    for name, stored in candidate.items():
        row = scenario_credit(
            stored,
            (reference or {}).get(name),
            title=(titles or {}).get(name, name),
            reference_name=reference_name,
        )
        if row is not None:
            scenarios[name] = row
    credits = [row["credit"] for row in scenarios.values()]
    score = round(100 * sum(credits) / len(credits), 1) if credits else None
    return {"score": score, "scenarios": scenarios}


def failure_score(
    candidate: Mapping[str, Mapping[str, Any] | None],
    reference: Mapping[str, Mapping[str, Any] | None] | None,
) -> float | None:
    """0–100 from both sides' stored results (see `failure_report`); None with nothing to score."""
    score: float | None = failure_report(candidate, reference)["score"]
    return score


def runs_view(stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a page shows of one stored side: runs, met, passed (every run met), seed_dependent, the first
    run (its narrative and series), and per SLO check its words, runs met and the actual's spread in words."""
    runs = seed_results(stored)
    met = sum(1 for run in runs if run.get("passed"))
    checks = []
    for position, first in enumerate(runs[0].get("slo_checks") or [] if runs else []):
        same = [run["slo_checks"][position] for run in runs if len(run.get("slo_checks") or []) > position]
        actuals = [float(c["actual"]) for c in same if isinstance(c.get("actual"), (int, float))]
        low, mid, high = (min(actuals), statistics.median(actuals), max(actuals)) if actuals else (None,) * 3
        checks.append(
            {
                "key": first["key"],
                "target": float(first["target"]),
                "median": mid,
                "words": first.get("words") or slo_words(first["key"], float(first["target"])),
                "met": sum(1 for c in same if c.get("passed")),
                "runs": len(same),
                "median_words": actual_words(first["key"], mid),
                "range_words": ""
                if low is None or low == high
                else f"{actual_words(first['key'], low)} to {actual_words(first['key'], high)}",
                "reason": next((c["reason"] for c in same if c.get("reason")), ""),
            }
        )
    return {
        "runs": len(runs),
        "met": met,
        "passed": bool(runs) and met == len(runs),
        "seed_dependent": 0 < met < len(runs),
        "seeds": list((stored or {}).get("seeds") or []),
        "first": runs[0] if runs else None,
        "checks": checks,
    }
