from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from questions.services.packs import pack_files_from_folder, pack_import


class Command(BaseCommand):
    help = (
        "Import a pack folder of question YAML files. Every file is checked first; a broken file loads "
        "nothing (reported as file: field: message), the valid ones load, an unchanged one makes no version."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("folder", type=Path, help="Pack folder of question YAML files")

    def handle(self, *args, folder: Path, **options) -> None:
        if not folder.is_dir():
            raise CommandError(f"{folder}: no such pack folder")
        report = pack_import(files=pack_files_from_folder(folder), source=f"import:{folder.name}")
        for line in report.errors:
            self.stderr.write(line)
        broken = {line.split(":")[0] for line in report.errors}
        self.stdout.write(
            f"Questions: {len(report.created)} new, {len(report.updated)} new versions, "
            f"{len(report.unchanged)} unchanged, {len(broken)} broken files."
        )
        if report.errors:
            raise CommandError("Some question files are broken (listed above); they loaded nothing.")
