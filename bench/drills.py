"""Benchmark the drills: drawing and grading one step against grading a whole submission of the same question,
and the due queue for a person with 500 and with 5,000 cards.

Run: `.venv/bin/python bench/drills.py` (SQLite in memory by default; with DATABASE_URL set, a throwaway test
database on that server, as the test suite makes). The step and the submission are timed interleaved on the
bank's kv-cache-tiering question: each step drawn with a new seed and graded, the submission typed with the
reference's own values and its reference design, both with the number-parse cache emptied first (as
bench/grading.py does). The queue is timed with its query count: it must stay one query whatever the number of
cards, and its time must grow far less than the tenfold growth of the cards.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "1")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from grading.core.drills import drill_grade, drill_step  # noqa: E402
from grading.core.grader import grade  # noqa: E402
from grading.core.quantity_text import parse_quantity  # noqa: E402
from grading.core.question_files import load_question  # noqa: E402

QUESTION = ROOT / "questions" / "bank" / "core" / "kv-cache-tiering.yaml"
LINE = "kv_conv"
REPEATS = 300
STEP_SHARE_TARGET = 0.1
QUEUE_SIZES = (500, 5000)
QUEUE_REPEATS = 50


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_step_against_submission() -> None:
    spec = load_question(QUESTION)
    reference = grade(spec, {"numbers": {}})
    design = {
        "nodes": [
            {"id": n.id, "kind": n.kind, "label": n.label, "job": n.job, "failure": n.failure}
            for n in spec.design.nodes
        ],
        "edges": [{"source": e.source, "target": e.target, "label": e.label} for e in spec.design.edges],
    }
    numbers = {line["name"]: line["reference_shown"] for line in reference["lines"]}
    submission = {"numbers": numbers, "design": design}
    steps, whole, numbers_only = [], [], []
    for seed in range(REPEATS):
        parse_quantity.cache_clear()  # both start with no number text read before, as bench/grading.py does
        start = time.perf_counter()
        step = drill_step(spec, LINE, seed=10_000 + seed)
        drill_grade(step, step.answer_shown)
        steps.append(time.perf_counter() - start)
        parse_quantity.cache_clear()
        start = time.perf_counter()
        grade(spec, submission)
        whole.append(time.perf_counter() - start)
        parse_quantity.cache_clear()
        start = time.perf_counter()
        grade(spec, {"numbers": numbers})
        numbers_only.append(time.perf_counter() - start)
    step_ms, whole_ms = median_ms(steps), median_ms(whole)
    share = step_ms / whole_ms
    print(f"one step (draw + grade), median of {REPEATS}: {step_ms:.3f} ms")
    lines, boxes = len(numbers), len(design["nodes"])
    print(f"whole submission of the same question ({lines} lines, {boxes} boxes): {whole_ms:.3f} ms")
    verdict = "met" if share < STEP_SHARE_TARGET else "MISSED"
    print(f"step / submission: {share:.3f} (target < {STEP_SHARE_TARGET}: {verdict})")
    print(f"for scale, the same submission without its design: {median_ms(numbers_only):.3f} ms")


def bench_due_queue() -> None:
    from django.contrib.auth import get_user_model

    from drills.models import DrillCard
    from drills.services import drill_due
    from questions.models import Question
    from questions.services.question_bank import question_bank_load

    question_bank_load(folder=ROOT / "questions" / "bank" / "core")
    question = Question.objects.get(slug="kv-cache-tiering")
    times = {}
    for size in QUEUE_SIZES:
        user = get_user_model().objects.create_user(f"bench{size}", password="x")
        now = timezone.now()
        DrillCard.objects.bulk_create(
            DrillCard(user=user, question=question, line=f"line_{i}", due=now - timedelta(seconds=i))
            for i in range(size)
        )
        samples = []
        for _ in range(QUEUE_REPEATS):
            with CaptureQueriesContext(connection) as queries:
                start = time.perf_counter()
                drill_due(user=user, now=now, limit=5)
                samples.append(time.perf_counter() - start)
        times[size] = median_ms(samples)
        print(f"due queue, {size:,} cards: {times[size]:.3f} ms, {len(queries)} query")
    small, large = QUEUE_SIZES
    growth = times[large] / times[small]
    print(f"queue time {large:,} / {small:,} cards: {growth:.2f}× for {large // small}× the cards")


def main() -> None:
    bench_step_against_submission()
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        bench_due_queue()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
