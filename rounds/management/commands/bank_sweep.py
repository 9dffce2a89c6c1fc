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
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

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


class Command(BaseCommand):
    help = "Replay every bank question's scenarios on its reference (and a review's given design and fix)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", help="questions to sweep (default: every one with scenarios)")
        parser.add_argument("--seeds", type=int, default=settings.REPLAY_SEEDS, help="runs per scenario")
        parser.add_argument("--key", help="seed key (default: each question's slug, as manage.py replay)")
        parser.add_argument("--family", help="only scenarios of this family (serving, training, ...)")

    def handle(self, *args: Any, **options: Any) -> None:
        paths = [BANK / f"{slug}.yaml" for slug in options["slugs"]] or sorted(BANK.glob("*.yaml"))
        missing = [path.name for path in paths if not path.is_file()]
        if missing:
            raise CommandError(f"Not in the bank: {', '.join(missing)}")
        unexpected = 0
        for path in paths:
            spec = spec_to_dict(load_question(path))
            if spec.get("scenarios"):
                unexpected += self.sweep(spec, options)
        self.stdout.write(f"\n{unexpected} unexpected line(s)")
        if unexpected:
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
