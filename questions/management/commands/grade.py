"""`python manage.py grade SLUG SUBMISSION.json [--json]`: grade a submission against the question's current
published version and print the report. A malformed submission stops with the API's message, naming each field
(grading.core.submission.read_submission checks both)."""

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.service_errors import invalid_detail, problems_by_field
from grading.core.submission import SubmissionError
from questions.selectors import published_question_version
from questions.services.grading import question_version_grade


def _read_json(source: str) -> Any:
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        return json.loads(text)
    except (OSError, ValueError) as error:
        raise CommandError(f"Cannot read the submission {source}: {error}") from None


class Command(BaseCommand):
    help = "Grade a submission ({numbers, design, events, depth}) against a question's published version."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the question's slug")
        parser.add_argument(
            "submission", help='a JSON file {"numbers": {...}, "design": {...}} ("-" reads stdin)'
        )
        parser.add_argument("--json", action="store_true", help="print the whole report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        version = published_question_version(options["slug"])
        if version is None:
            raise CommandError(
                f"No published question {options['slug']!r}; run `manage.py load_questions` first."
            )
        submission = _read_json(options["submission"])
        try:
            report = question_version_grade(version=version, submission=submission)
        except SubmissionError as error:
            raise CommandError(invalid_detail(problems_by_field(error.problems))) from None
        if options["json"]:
            self.stdout.write(json.dumps(report, sort_keys=True, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(summary(report))


def summary(report: dict[str, Any]) -> str:
    """The report as a few lines of text: each line's verdict and message, the design, the scores."""
    question = report["question"]
    out = [f"{question['slug']} version {question['version']} (grader {report['grader_version']})", ""]
    for line in report["lines"]:
        out.append(f"{line['verdict_label']:<22} {line['label']}: {line['message']}")
    design = report["design"]
    if design is not None:
        out.append("")
        for component in design["components"]:
            out.append(f"{component['verdict']:<22} {component['name']}: {component['message']}")
        out.append(design["path_message"])
    if report["sensitivity"]:
        moves = ", ".join(f"{item['label']} ({item['elasticity']:+.2f})" for item in report["sensitivity"])
        out += ["", f"What moves the answer most: {moves}"]
    out += _depth_summary(report.get("depth"))
    scores = {phase: score for phase, score in report["scores"].items() if score is not None}
    out += ["", "Scores: " + ", ".join(f"{phase} {score:g}" for phase, score in scores.items())]
    return "\n".join(out)


def _depth_summary(depth: dict[str, Any] | None) -> list[str]:
    """The depth phase in brief: each curveball's lines and consequences, each decision, their scores."""
    if not depth:
        return []
    out = [""]
    for curveball in depth["curveballs"]:
        out.append(f"Curveball {curveball['title']} ({curveball['score']:g}): {curveball['says']}")
        for line in curveball["lines"]:
            out.append(f"  {line['verdict_label']:<22} {line['label']}: {line['message']}")
        for consequence in curveball["design"]:
            out.append(f"  {'met' if consequence['met'] else 'not met':<22} {consequence['message']}")
    for decision in depth["follow_ups"]:
        out.append(
            f"Follow-up ({decision['score']:g}): {decision['text']} {decision['places']} of "
            f"{decision['order_length']} places match {' > '.join(decision['best_order'])}"
        )
    return out
