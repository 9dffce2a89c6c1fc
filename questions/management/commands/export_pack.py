from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from questions.services.packs import pack_export_folder


class Command(BaseCommand):
    help = "Write published questions (their current versions) as question YAML files into a pack folder."

    def add_arguments(self, parser) -> None:
        parser.add_argument("folder", type=Path, help="Folder to write <slug>.yaml files into")
        parser.add_argument("--slug", action="append", default=[], help="Only this question (repeatable)")

    def handle(self, *args, folder: Path, slug: list[str], **options) -> None:
        if folder.exists() and not folder.is_dir():
            raise CommandError(f"{folder}: not a folder")
        written = pack_export_folder(folder=folder, slugs=slug or None)
        missing = sorted(set(slug) - {name.removesuffix(".yaml") for name in written})
        self.stdout.write(f"Wrote {len(written)} question files to {folder}.")
        if missing:
            raise CommandError("No published question: " + ", ".join(missing))
