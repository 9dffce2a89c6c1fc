"""`python manage.py replay SLUG SUBMISSION.json [--scenario NAME] [--seeds K | --seed N] [--side S] --json`

Runs a question's failure replays synchronously against a submission's numbers (and the reference model) and
prints the results. No database rows, no broker: the same resolution and simulator the Celery task uses.
Each scenario and side runs over K seeds (REPLAY_SEEDS, five, as the pages do; both sides share them) and
says in how many runs it met its SLO, with each check's spread; `--seed N` runs one seed.
"""

import json
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from grading.core.failure_modes import failure_score, runs_view
from grading.core.replay_inputs import SIDES, replay_inputs, replay_seeds, simulator_version
from grading.core.sim import run_scenario_seeds

BANK = Path(settings.BASE_DIR) / "questions" / "bank" / "core"


def question_spec(slug: str) -> tuple[dict, str]:
    """The published version's spec from the database, else the question bank file; and where it came from."""
    from django.db import DatabaseError

    from questions.models import Question

    try:
        question = Question.objects.filter(slug=slug).select_related("current_version").first()
    except DatabaseError:  # no database (or not migrated): the bank file still works
        question = None
    if question is not None and question.current_version is not None:
        return question.current_version.spec, f"version {question.current_version.number}"
    path = BANK / f"{slug}.yaml"
    if not path.is_file():
        raise CommandError(f"No question {slug!r}: not in the database, no {path.name} in the question bank.")
    from grading.core.question_export import spec_to_dict
    from grading.core.question_files import load_question
    from grading.core.question_types import SpecError

    try:
        return spec_to_dict(load_question(path)), f"bank file {path.name}"
    except SpecError as error:
        raise CommandError(f"{path.name} does not load: {error}") from None


def read_submission(source: str) -> dict[str, Any]:
    """The submission JSON ({"numbers": {name: text}, ...}) from a file, or stdin for "-"."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text()
        data = json.loads(text)
    except (OSError, ValueError) as error:
        raise CommandError(f"Cannot read the submission {source}: {error}") from None
    numbers = data.get("numbers", {}) if isinstance(data, dict) else None
    if not isinstance(numbers, dict) or not all(isinstance(v, str | None) for v in numbers.values()):
        raise CommandError('The submission must be an object with "numbers": {name: "text as typed"}.')
    variant_values = data.get("variant_values") or {}
    if not isinstance(variant_values, dict):
        raise CommandError('"variant_values" must map input names to base-unit numbers.')
    return {"numbers": {k: v for k, v in numbers.items() if v}, "variant_values": variant_values}


class Command(BaseCommand):
    help = "Run a question's failure replays on a submission's numbers and print the results."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the question's slug")
        parser.add_argument("submission", help='a JSON file with {"numbers": {...}} ("-" reads stdin)')
        parser.add_argument("--scenario", help="run only this scenario")
        seeds = parser.add_mutually_exclusive_group()
        seeds.add_argument(
            "--seeds",
            type=int,
            help="runs per scenario and side, seeds drawn from the slug and scenario name "
            f"(default: REPLAY_SEEDS, {settings.REPLAY_SEEDS}, as the pages)",
        )
        seeds.add_argument("--seed", type=int, help="run this one seed instead")
        parser.add_argument("--side", choices=[*SIDES, "both"], default="both", help="default: both")
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["slug"]
        spec, origin = question_spec(slug)
        submission = read_submission(options["submission"])
        names = [scenario["name"] for scenario in spec.get("scenarios") or []]
        if not names:
            raise CommandError(f"{slug} has no failure scenarios.")
        if options["scenario"] and options["scenario"] not in names:
            raise CommandError(f"No scenario {options['scenario']!r} in {slug}; it has: {', '.join(names)}.")
        if options["seeds"] is None:
            options["seeds"] = settings.REPLAY_SEEDS
        if options["seed"] is None and options["seeds"] < 1:
            raise CommandError("--seeds must be at least 1.")
        sides = SIDES if options["side"] == "both" else (options["side"],)
        runs = []
        for side in sides:
            for inputs in replay_inputs(spec, side=side, **submission):
                if options["scenario"] and inputs["scenario"] != options["scenario"]:
                    continue
                runs.append(self.run_one(inputs, self.seeds(options, slug, inputs["scenario"])))
        runs.sort(key=lambda run: (names.index(run["scenario"]), SIDES.index(run["side"])))
        done = [run for run in runs if run["result"] is not None]
        report = {
            "question": slug,
            "source": origin,
            "simulator_version": simulator_version(),
            "runs": runs,
            "failure_score": failure_score(
                {run["scenario"]: run["result"] for run in done if run["side"] == "candidate"},
                {run["scenario"]: run["result"] for run in done if run["side"] == "reference"},
            ),
        }
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2, sort_keys=True))
        else:
            self.stdout.write(self.as_text(report))
        if len(done) < len(runs):
            raise CommandError("Some replays failed; see their errors above.")

    @staticmethod
    def seeds(options: dict[str, Any], slug: str, scenario: str) -> list[int]:
        if options["seed"] is not None:
            return [options["seed"]]
        return replay_seeds(slug, scenario, options["seeds"])

    @staticmethod
    def run_one(inputs: dict[str, Any], seeds: list[int]) -> dict[str, Any]:
        """One scenario and side over `seeds`: its result is what a replay run stores (SeedRuns.to_dict())."""
        run = {"scenario": inputs["scenario"], "side": inputs["side"], "seeds": seeds, "inputs": inputs}
        try:
            family, params, events, slo = (inputs[key] for key in ("family", "params", "events", "slo"))
            result = run_scenario_seeds(family, params, events, slo, inputs["duration_s"], seeds)
        except ValueError as error:
            return {**run, "result": None, "error": str(error)}
        return {**run, "result": result.to_dict(), "error": None}

    @staticmethod
    def as_text(report: dict[str, Any]) -> str:
        lines = [f"{report['question']} ({report['source']}), simulator {report['simulator_version']}"]
        for run in report["runs"]:
            seeds = run["seeds"]
            label = f"seed {seeds[0]}" if len(seeds) == 1 else f"{len(seeds)} seeds"
            if run["result"] is None:
                lines += [f"\n{run['scenario']} [{run['side']}, {label}]: ERROR", f"  {run['error']}"]
                continue
            lines.append(
                f"\n{run['scenario']} [{run['side']}, {label}]: {Command.verdict(runs_view(run['result']))}"
            )
            lines += Command.check_lines(runs_view(run["result"]))
            lines += [f"  {line}" for line in run["result"]["results"][0]["narrative"]]
        if report["failure_score"] is not None:
            lines.append(f"\nFailure-modes score: {report['failure_score']:g} / 100")
        return "\n".join(lines)

    @staticmethod
    def verdict(view: dict[str, Any]) -> str:
        """ "met its SLO in 3 of 5 runs (the verdict depends on the seed)", as the report words it."""
        runs, met = view["runs"], view["met"]
        if runs == 1:
            return "passed" if met else "FAILED"
        words = f"met its SLO in {met} of {runs} runs"
        return words + " (the verdict depends on the seed)" if view["seed_dependent"] else words

    @staticmethod
    def check_lines(view: dict[str, Any]) -> list[str]:
        """Per SLO check: its words, the median actual, the spread over the runs, in how many it was met."""
        lines = []
        for check in view["checks"]:
            spread = f" (runs {check['range_words']})" if check["range_words"] else ""
            met = "met" if check["met"] else "missed"
            if check["runs"] > 1:
                met = f"met in {check['met']} of {check['runs']} runs"
            lines.append(f"  {check['words']}: median {check['median_words']}{spread}; {met}")
        return lines
