"""Benchmark the grader: the median time to grade a 40-quantity, 12-box submission, and its ratio to the time
to read the same inputs alone (check the submission and parse its 40 numbers).

Run: `.venv/bin/python bench/grading.py`. The question is synthetic (20 assumptions, 20 derived lines, all
asked; 12 boxes on a path), so the figures do not move when the bank changes. Both timings start with the
parse cache of number texts empty (the unit cache and the compiled question stay warm, as in a running
server), and they are interleaved so that a busy machine slows them alike; the report is built in full,
messages and all. A last line times the question passed as a new dict each time, as a request reading the
version from the database does (the grader then hashes its content to find the compiled question).
"""

from __future__ import annotations

import copy
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from grading.core.grader import grade  # noqa: E402
from grading.core.quantity_text import parse_quantity  # noqa: E402
from grading.core.submission import read_submission  # noqa: E402

GRADE_TARGET_S = 0.005
RATIO_TARGET = 3.0
REPEATS = 400
N_INPUTS = 20
N_DERIVED = 20
BOX_KINDS = (
    "gateway",
    "rate_limiter",
    "tokenizer",
    "router",
    "admission_queue",
    "scheduler",
    "engine",
    "kv_tier",
    "streamer",
    "autoscaler",
    "observability",
    "model_registry",
)
INPUT_UNITS = ("GB", "tok", "s", "B/tok", "TB/s", "req/s", "", "GPU", "W", "ms")
FREE_LABELS = {"tokenizer": "Tokeniser", "kv_tier": "KV offload tier", "observability": "Metrics and tracing"}


def bench_question() -> dict[str, Any]:
    """A synthetic question: a chain of formulas over 20 inputs, every quantity asked, 12 boxes on a path."""
    quantities: list[dict[str, Any]] = []
    for index in range(N_INPUTS):
        unit = INPUT_UNITS[index % len(INPUT_UNITS)]
        value = 2.0 + index
        quantities.append(
            {
                "name": f"x{index}",
                "label": f"Assumption {index}",
                "value": value,
                "unit": unit,
                "range": [value / 2, value * 2],
                "source": "bench",
            }
        )
    for index in range(N_DERIVED):
        a, b = f"x{index}", f"x{(index + 7) % N_INPUTS}"
        previous = f"d{index - 1}" if index else "x0"
        formula = f"{a} * {b} / {b} + {a} * 0.5" if index % 2 else f"max({a}, {a} * 0.9) * 2"
        if index % 5 == 4:
            formula = f"ceil({previous} / {previous} * {a} * 3)"
        quantities.append(
            {
                "name": f"d{index}",
                "label": f"Derived {index}",
                "formula": formula,
                "unit": quantities[index]["unit"],
            }
        )
    asked = [
        {
            "name": item["name"],
            "phase": "numbers" if item["name"].startswith("x") else "arithmetic",
            "check": "count" if "ceil" in item.get("formula", "") else "relative",
        }
        for item in quantities
    ]
    nodes = [
        {
            "id": f"n{index}",
            "kind": kind,
            "label": kind.replace("_", " ").title(),
            "job": f"The job of box {index}.",
            "failure": f"How box {index} fails.",
        }
        for index, kind in enumerate(BOX_KINDS)
    ]
    edges = [{"source": "client", "target": "n0"}] + [
        {"source": f"n{index}", "target": f"n{index + 1}"} for index in range(len(nodes) - 1)
    ]
    plan = [
        {"phase": phase, "minutes": minutes, "expect": "bench"}
        for phase, minutes in (
            ("intro", 1),
            ("numbers", 5),
            ("shape", 7),
            ("arithmetic", 10),
            ("depth", 16),
            ("failures", 5),
            ("close", 1),
        )
    ]
    levels = {1: "a", 2: "b", 3: "c", 4: "d"}
    return {
        "slug": "bench-grading",
        "title": "Bench",
        "track": "inference",
        "difficulty": "hard",
        "kind": "design",
        "summary": "Bench.",
        "prompt": "Bench.",
        "plan": plan,
        "model": {"headline": f"d{N_DERIVED - 1}", "quantities": quantities},
        "asked": asked,
        "design": {"nodes": nodes, "edges": edges, "path": list(BOX_KINDS)},
        "rubric": [{"dimension": "numbers", "levels": levels}],
        "outline": "Bench.",
    }


def bench_submission(question: dict[str, Any]) -> dict[str, Any]:
    """40 numbers as people type them (a few wrong), and 12 boxes (three by free label, one without a job)."""
    from grading.core.question_reader import parse_question

    spec = parse_question(question, source=question["slug"])
    model = spec.model.reference
    values = model.evaluate()
    numbers = {}
    for index, quantity in enumerate(spec.model.quantities):
        shown = float(model.display_value(quantity.name, values[quantity.name]))
        if index % 9 == 3:
            shown *= 1.3  # a slip or an out-of-range assumption
        text = f"{shown:,.4g}"
        numbers[quantity.name] = (
            f"~{text} {quantity.unit}".strip() if index % 3 == 0 and quantity.unit else text
        )
    nodes = []
    for node in question["design"]["nodes"]:
        box = dict(node)
        if node["kind"] in FREE_LABELS:
            box.update(kind="", label=FREE_LABELS[node["kind"]])
        nodes.append(box)
    nodes[5]["job"] = ""
    return {"numbers": numbers, "design": {"nodes": nodes, "edges": question["design"]["edges"]}}


def median_seconds(runs: dict[str, Callable[[], object]], repeats: int = REPEATS) -> dict[str, float]:
    """The median wall time of each run, interleaved so that a busy machine slows them alike."""
    for run in runs.values():
        for _ in range(5):
            run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    question = bench_question()
    submission = bench_submission(question)
    texts = list(submission["numbers"].values())
    # Copies made beforehand: a stored version read from the database is a new dict on every request.
    fresh = iter([copy.deepcopy(question) for _ in range(REPEATS + 10)])

    def read_only() -> None:
        parse_quantity.cache_clear()
        read_submission(submission)
        for text in texts:
            parse_quantity(text)

    def grade_only() -> None:
        parse_quantity.cache_clear()
        grade(question, submission)

    def grade_fresh() -> None:
        parse_quantity.cache_clear()
        grade(next(fresh), submission)

    report = grade(question, submission)
    verdicts = [line["verdict"] for line in report["lines"]]
    medians = median_seconds({"grade": grade_only, "fresh": grade_fresh, "read": read_only})
    grading, reading = medians["grade"], medians["read"]
    print(
        f"grading a {len(texts)}-quantity, {len(submission['design']['nodes'])}-box submission "
        f"({verdicts.count('correct')} lines correct, shape {report['scores']['shape']})"
    )
    print(f"  grade:             {grading * 1e3:7.3f} ms median   (target <= {GRADE_TARGET_S * 1e3:.0f} ms)")
    print(f"  read inputs alone: {reading * 1e3:7.3f} ms median")
    print(f"  ratio:             {grading / reading:7.2f}x          (target <= {RATIO_TARGET:.0f}x)")
    print(
        f"  question as a new dict each time (as from the database): {medians['fresh'] * 1e3:.3f} ms, "
        f"{medians['fresh'] / reading:.2f}x"
    )


if __name__ == "__main__":
    main()
