"""`python manage.py bank_sweep [SLUG ...] [--seeds K] [--key KEY] [--family F]`

Re-checks the question bank's replays (issue 32): for every bank question with scenarios, the reference
model's numbers on each scenario; for a review question, the given design (its reference side) and the
reference fix (`review.fix`). Each scenario and side runs over K seeds (REPLAY_SEEDS, five) drawn from KEY
(default: the slug, as `manage.py replay`), and one line says in how many runs it met its SLO, what was
expected of it and each check's median and spread against its target:

- a design question's reference is expected to meet every scenario, except one marked `breaks_every_design`
  in the bank (built to show a failure every design suffers), which it is expected to miss;
- a review question's given design is expected to miss every scenario (its planted flaws) and the reference
  fix to meet them, except where marked `breaks_every_design` (the fix is expected to miss it too).

A line whose outcome disagrees with its expectation ends in "<< UNEXPECTED". Reads the bank files (no
database); the exit status is 1 when any line is unexpected.

`--capacity` instead compares each serving question's replica rate (its model's arithmetic,
`grading.core.bank_capacity.REPLICA_RATES`) with the engine's capacity for one replica of its workload (the
highest steady rate meeting the scenario's latency targets on every seed), as a Markdown table: question,
scenario, model rate, engine rate, ratio, the question's band, verdict (docs/bank-audit.md). Cheap (one
replica, no events): the bank in about a minute. The exit status is 1 when a rate is outside its band.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from grading.core.bank_capacity import NO_REPLICA_RATE, REPLICA_RATES, RateCheck, measure
from grading.core.failure_modes import runs_view
from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.replay_inputs import replay_inputs, replay_seeds
from grading.core.review_check import reference_fix_numbers
from grading.core.sim import run_scenario_seeds
from rounds.management.commands.replay import Command as ReplayCommand

BANK = Path(settings.BASE_DIR) / "questions" / "bank" / "core"


def sweep_sides(spec: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]], bool]]:
    """(label, replay entries, expected to meet the unmarked scenarios) per side swept for one question."""
    reference = replay_inputs(spec, side="reference")
    if not spec.get("review"):
        return [("reference", reference, True)]
    sides = [("given", reference, False)]
    fix = reference_fix_numbers(spec)
    if fix:
        sides.append(("fix", replay_inputs(spec, side="candidate", numbers=fix), True))
    return sides


def expected_to_meet(scenario: dict[str, Any], side_meets: bool) -> bool:
    """A side meant to meet its scenarios meets every one not marked as built to break every design."""
    return side_meets and not scenario.get("breaks_every_design")


def outcome_ok(met: int, runs: int, expect_meet: bool) -> bool:
    """Expected to meet: met in every run; expected to miss: missed in every run."""
    return met == runs if expect_meet else met == 0


def check_words(view: dict[str, Any]) -> str:
    """Each SLO check as 'words: median (spread)', joined by '; '."""
    parts = []
    for check in view["checks"]:
        spread = f" ({check['range_words']})" if check["range_words"] else ""
        parts.append(f"{check['words']}: {check['median_words']}{spread} [{check['met']}/{check['runs']}]")
    return "; ".join(parts)


def capacity_line(check: RateCheck) -> str:
    """One Markdown table row: the question's rate against the engine's, with its band and verdict."""
    band = check.band.words if check.band else "none asked"
    return (
        f"| {check.slug} | {check.scenario} | {check.model_rate:.3g} req/s | {check.engine_rate:.3g} req/s | "
        f"{check.ratio:.2f} | {band} | {check.verdict} |"
    )


class Command(BaseCommand):
    help = "Replay every bank question's scenarios on its reference (and a review's given design and fix)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", help="questions to sweep (default: every one with scenarios)")
        parser.add_argument("--seeds", type=int, default=settings.REPLAY_SEEDS, help="runs per scenario")
        parser.add_argument("--key", help="seed key (default: each question's slug, as manage.py replay)")
        parser.add_argument("--family", help="only scenarios of this family (serving, training, ...)")
        parser.add_argument(
            "--capacity",
            action="store_true",
            help="compare each serving question's replica rate with the engine's capacity instead",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        paths = [BANK / f"{slug}.yaml" for slug in options["slugs"]] or sorted(BANK.glob("*.yaml"))
        missing = [path.name for path in paths if not path.is_file()]
        if missing:
            raise CommandError(f"Not in the bank: {', '.join(missing)}")
        if options["capacity"]:
            self.capacity(paths, options)
            return
        unexpected = 0
        for path in paths:
            spec = spec_to_dict(load_question(path))
            if spec.get("scenarios"):
                unexpected += self.sweep(spec, options)
        self.stdout.write(f"\n{unexpected} unexpected line(s)")
        if unexpected:
            raise SystemExit(1)

    def capacity(self, paths: list[Path], options: dict[str, Any]) -> None:
        self.stdout.write(
            "| question | scenario (workload, SLO) | model rate | engine rate | ratio | band | verdict |\n"
            "| --- | --- | --- | --- | --- | --- | --- |"
        )
        outside = 0
        for path in paths:
            if path.stem in NO_REPLICA_RATE:
                self.stdout.write(f"| {path.stem} | | | | | | not measured: {NO_REPLICA_RATE[path.stem]} |")
            if path.stem not in REPLICA_RATES:
                continue
            check = measure(spec_to_dict(load_question(path)), seeds=options["seeds"])
            outside += check.verdict == "outside band"
            self.stdout.write(capacity_line(check))
            self.stdout.flush()
        self.stdout.write(f"\n{outside} rate(s) outside the band")
        if outside:
            raise SystemExit(1)

    def sweep(self, spec: dict[str, Any], options: dict[str, Any]) -> int:
        scenarios = {scenario["name"]: scenario for scenario in spec["scenarios"]}
        key = options["key"] or spec["slug"]
        unexpected = 0
        for label, entries, side_meets in sweep_sides(spec):
            for entry in entries:
                scenario = scenarios[entry["scenario"]]
                if options["family"] and entry["family"] != options["family"]:
                    continue
                expect_meet = expected_to_meet(scenario, side_meets)
                started = time.perf_counter()
                seeds = replay_seeds(key, entry["scenario"], options["seeds"])
                family, params, events, slo = (entry[name] for name in ("family", "params", "events", "slo"))
                result = run_scenario_seeds(family, params, events, slo, entry["duration_s"], seeds).to_dict()
                view = runs_view(result)
                ok = outcome_ok(view["met"], view["runs"], expect_meet)
                unexpected += not ok
                self.stdout.write(
                    f"{spec['slug']} | {entry['scenario']} | {label} | "
                    f"{'meet' if expect_meet else 'miss'} | {ReplayCommand.verdict(view)} | "
                    f"{check_words(view)} | {time.perf_counter() - started:.1f} s"
                    + ("" if ok else " << UNEXPECTED")
                )
                self.stdout.flush()
        return unexpected
