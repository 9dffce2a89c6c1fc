"""Loading the question bank: every pack file becomes an immutable question version when it changed."""

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question, pack_question_paths, pack_workloads
from grading.core.question_text import rendered_spec
from grading.core.question_types import SpecError
from questions.models import Question, QuestionVersion, search_text_of
from questions.palette import PALETTE_FILE, palette_components

CORE_PACK = PALETTE_FILE.parent / "core"


@dataclass
class LoadReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def publish(self, *, spec_dict: dict, source: str, created_by=None) -> None:
        """Publish one question (`question_version_publish`) and count it: created, updated or unchanged.
        Loading the bank and importing a pack both count this way."""
        existed = Question.objects.filter(slug=spec_dict["slug"]).exists()
        _, is_new = question_version_publish(spec_dict=spec_dict, source=source, created_by=created_by)
        tally = self.unchanged if not is_new else self.updated if existed else self.created
        tally.append(spec_dict["slug"])


def content_hash(spec_dict: dict) -> str:
    canonical = json.dumps(spec_dict, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


@transaction.atomic
def question_version_publish(
    *, spec_dict: dict, source: str, created_by=None
) -> tuple[QuestionVersion, bool]:
    """Make a new immutable version when the content changed; return (current version, whether it is new)."""
    digest = content_hash(spec_dict)
    title = str(rendered_spec(spec_dict)["title"])  # a title's {placeholders} at the question's own values
    question, _ = Question.objects.select_for_update().get_or_create(
        slug=spec_dict["slug"],
        defaults={
            "title": title,
            "track": spec_dict["track"],
            "difficulty": spec_dict["difficulty"],
        },
    )
    latest = question.versions.order_by("-number").first()
    if latest is not None and latest.content_hash == digest and question.current_version_id == latest.id:
        return latest, False
    version = QuestionVersion.objects.create(
        question=question,
        title=title,
        number=(latest.number + 1) if latest else 1,
        spec=spec_dict,
        content_hash=digest,
        source=source,
        created_by=created_by,
    )
    question.title = title
    question.track = spec_dict["track"]
    question.difficulty = spec_dict["difficulty"]
    question.kind = spec_dict.get("kind", "design")
    question.summary = spec_dict.get("summary", "")
    question.search_text = search_text_of(spec_dict)
    question.current_version = version
    question.save()
    return version, True


def question_bank_load(*, folder: Path = CORE_PACK) -> LoadReport:
    """Load every question file in a pack folder. A broken file loads nothing; the others still load."""
    report = LoadReport()
    kinds = palette_components()
    try:
        workloads = pack_workloads(folder)  # read once, not once per question file
    except SpecError as error:
        report.errors.extend(error.lines())
        return report
    for path in pack_question_paths(folder):
        try:
            spec_dict = spec_to_dict(load_question(path, palette=kinds, workloads=workloads))
        except SpecError as error:
            report.errors.extend(f"{path.name}: {where}: {message}" for where, message in error.problems)
            continue
        report.publish(spec_dict=spec_dict, source=f"pack:{folder.name}/{path.name}")
    _order_tracks()
    return report


def _order_tracks() -> None:
    """Within a track: easy before hard, then by title; `position` drives "up next"."""
    from questions.models import DIFFICULTY_ORDER

    by_track: dict[str, list[Question]] = {}
    for question in Question.objects.published():
        by_track.setdefault(question.track, []).append(question)
    for questions in by_track.values():
        questions.sort(key=lambda q: (DIFFICULTY_ORDER.get(q.difficulty, 9), q.title.lower()))
        for position, question in enumerate(questions):
            if question.position != position:
                Question.objects.filter(pk=question.pk).update(position=position)
