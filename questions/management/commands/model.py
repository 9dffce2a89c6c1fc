"""`manage.py model`: list the bank's questions, or print every quantity of one question's reference model."""

import json as jsonlib
import math

from django.core.management.base import BaseCommand, CommandError, CommandParser

from grading.core.model import ModelError, describe_model
from questions.models import Question
from questions.services.grading import question_version_spec


def _parse_sets(pairs: list[str]) -> dict[str, str]:
    overrides: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise CommandError(f"--set {pair!r}: expected NAME=VALUE, like --set users=4000")
        overrides[name.strip()] = value.strip()
    return overrides


class Command(BaseCommand):
    help = "List questions (--list) or print a question's reference model at its defaults or with --set."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", nargs="?", help="Question slug")
        parser.add_argument("--list", action="store_true", help="List the published questions")
        parser.add_argument(
            "--set", action="append", default=[], metavar="NAME=VALUE", help="Override a value"
        )
        parser.add_argument("--json", action="store_true", help="Print JSON")

    def handle(self, *args, slug: str | None, list: bool, set: list[str], json: bool, **options) -> None:
        if list:
            self._list(as_json=json)
        elif slug:
            self._describe(slug, _parse_sets(set), as_json=json)
        else:
            raise CommandError("Give a question slug, or --list.")

    def _list(self, *, as_json: bool) -> None:
        rows = [
            {"slug": q.slug, "title": q.title, "track": q.track, "version": q.current_version.number}
            for q in Question.objects.published()
        ]
        if as_json:
            self.stdout.write(json_dumps(rows))
            return
        for row in rows:
            self.stdout.write(f"{row['slug']:<40} v{row['version']:<3} {row['track']:<10} {row['title']}")

    def _describe(self, slug: str, overrides: dict[str, str], *, as_json: bool) -> None:
        question = Question.objects.published().filter(slug=slug)
        if not question:
            raise CommandError(f"{slug}: no such question (see --list)")
        try:
            rows = describe_model(question_version_spec(question[0].current_version), overrides)
        except ModelError as error:
            raise CommandError("; ".join(f"{name}: {message}" for name, message in error.problems)) from None
        for row in rows:
            row.pop("overridden", None)
            # No limit (+inf) as the question file writes it: JSON has no infinity (issue 30).
            for key in ("value", "base_value"):
                row[key] = "unbounded" if row[key] == math.inf else row[key]
            if row["range"]:
                row["range"] = ["unbounded" if bound == math.inf else bound for bound in row["range"]]
        if as_json:
            self.stdout.write(json_dumps(rows))
            return
        for row in rows:
            how = row["formula"] or f"range {row['range']}"
            value = "no limit" if row["value"] == "unbounded" else f"{row['value']:.6g}"
            self.stdout.write(f"{row['name']:<28} {value:>14} {row['unit']:<12} {how}")


def json_dumps(value: object) -> str:
    return jsonlib.dumps(value, indent=2, sort_keys=False)
