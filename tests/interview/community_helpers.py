"""Set-up shared by the discussion, bookmark, progress and concept tests: two real bank questions."""

import shutil
from pathlib import Path

from django.utils import timezone

from questions.models import Question
from questions.services.question_bank import CORE_PACK, question_bank_load
from rounds.models import Round, RoundMode, RoundStatus

# Both in the inference track: the easy one comes first, so the hard one is "up next" after it.
BANK_FILES = ("forty-five-minute-plan.yaml", "llm-batching-system.yaml")
PLAN_SLUG = "forty-five-minute-plan"
BATCHING_SLUG = "llm-batching-system"


def questions_load(folder: Path) -> dict[str, Question]:
    for name in BANK_FILES:
        shutil.copy(Path(CORE_PACK) / name, folder / name)
    report = question_bank_load(folder=folder)
    assert not report.errors, report.errors
    return {question.slug: question for question in Question.objects.select_related("current_version")}


def round_record(
    user, question: Question, *, status: str = RoundStatus.SUBMITTED, score: float | None = None
):
    return Round.objects.create(
        candidate=user,
        question_version=question.current_version,
        mode=RoundMode.PRACTICE,
        status=status,
        submitted_at=timezone.now() if status == RoundStatus.SUBMITTED else None,
        score=score,
    )
