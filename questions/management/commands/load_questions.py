from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from questions.services.question_bank import CORE_PACK, question_bank_load


class Command(BaseCommand):
    help = "Load the question bank: a changed file makes a new version; a broken file loads nothing."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--pack", type=Path, default=CORE_PACK, help="Pack folder of question YAML files")

    def handle(self, *args, pack: Path, **options) -> None:
        if not pack.is_dir():
            raise CommandError(f"{pack}: no such pack folder")
        report = question_bank_load(folder=pack)
        for line in report.errors:
            self.stderr.write(line)
        broken_files = {line.split(":")[0] for line in report.errors}
        self.stdout.write(
            f"Questions: {len(report.created)} new, {len(report.updated)} new versions, "
            f"{len(report.unchanged)} unchanged, {len(broken_files)} broken files."
        )
        if report.errors:
            raise CommandError("Some question files are broken (listed above); the others loaded.")
