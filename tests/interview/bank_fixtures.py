"""Small packs for tests: copies of real bank files in a temporary folder."""

import shutil
from pathlib import Path

from questions.models import Question
from questions.services.question_bank import CORE_PACK, question_bank_load

KV_QUESTION = "kv-cache-tiering"
PLAN_QUESTION = "forty-five-minute-plan"


def make_pack(folder: Path, *slugs: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for slug in slugs:
        shutil.copy(CORE_PACK / f"{slug}.yaml", folder / f"{slug}.yaml")
    return folder


def load_questions(folder: Path, *slugs: str) -> dict[str, Question]:
    report = question_bank_load(folder=make_pack(folder, *slugs))
    assert not report.errors, report.errors
    return {question.slug: question for question in Question.objects.filter(slug__in=slugs)}
