"""Benchmark the reference models: (a) every model of a pack at its defaults, (b) the largest over 10,000
samples.

Run: `.venv/bin/python bench/models.py [pack folder]` (default: questions/bank/core). Prints medians beside
the targets. With no loadable question in the pack it times a built-in KV-cache model instead, so it always
runs.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from grading.core.model import ModelSpec, ReferenceModel, read_model  # noqa: E402
from grading.core.question_files import load_pack  # noqa: E402

DEFAULTS_TARGET_S = 0.200
SAMPLES_TARGET_S = 0.050
SAMPLES = 10_000


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    """The median wall time of `repeats` calls of `run`, after one warm-up call."""
    run()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def fallback_models() -> list[tuple[str, ModelSpec]]:
    """A small KV-cache model, used when the pack has nothing to measure."""
    quantities = [
        ("n_layers", 80, "", [24, 128]),
        ("n_kv_heads", 8, "", [1, 64]),
        ("head_dim", 128, "", [64, 256]),
        ("kv_bytes_per_elem", 2, "B", [1, 2]),
        ("context_tokens", 30_000, "tok", [1_000, 128_000]),
    ]
    block = {
        "headline": "conversation_kv",
        "quantities": [
            {"name": name, "label": name, "value": value, "unit": unit, "range": bounds, "source": "bench"}
            for name, value, unit, bounds in quantities
        ]
        + [
            {
                "name": "kv_bytes_per_token",
                "label": "KV per token",
                "formula": "2 * n_layers * n_kv_heads * head_dim * kv_bytes_per_elem",
                "unit": "KiB/tok",
            },
            {
                "name": "conversation_kv",
                "label": "KV per conversation",
                "formula": "context_tokens * kv_bytes_per_token",
                "unit": "GB",
            },
        ],
    }
    return [("built-in kv-cache model", read_model(block))]


def formula_size(spec: ModelSpec) -> tuple[int, int]:
    """How big a model is: its quantity count, then the total length of its formulas."""
    return len(spec.quantities), sum(len(quantity.formula or "") for quantity in spec.quantities)


def verdict(seconds: float, target: float) -> str:
    return "ok" if seconds <= target else "OVER"


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else ROOT / "questions" / "bank" / "core"
    started = time.perf_counter()
    specs, errors = load_pack(folder)
    load_s = time.perf_counter() - started
    named = [(spec.slug, spec.model) for spec in specs]
    print(f"pack {folder}: {len(specs)} questions loaded, {len(errors)} problems")
    print(
        f"  first load_pack (YAML, unit registry, every unit and formula parsed once): {load_s * 1e3:.0f} ms"
    )
    for line in errors[:10]:
        print(f"  {line}")
    if not named:
        print("  no question to measure; timing the built-in KV-cache model instead")
        named = fallback_models()
    models = [spec.reference for _, spec in named]

    def evaluate_all() -> None:
        for model in models:
            model.evaluate()

    def build_and_evaluate_all() -> None:
        for _, spec in named:
            ReferenceModel(spec).evaluate()  # formulas and units come from their caches, as in a server

    evaluate_s = median_seconds(evaluate_all, repeats=51)
    build_s = median_seconds(build_and_evaluate_all, repeats=11)
    slug, largest = max(named, key=lambda item: formula_size(item[1]))
    model = largest.reference
    rng = np.random.default_rng(1)
    samples = model.sample_inputs(SAMPLES, rng)
    samples_s = median_seconds(lambda: model.evaluate(samples), repeats=51)
    draw_and_evaluate_s = median_seconds(
        lambda: model.evaluate(model.sample_inputs(SAMPLES, rng)), repeats=21
    )

    largest_label = f"{slug} ({len(largest.quantities)} quantities) × {SAMPLES:,}"
    rows = [
        (f"(a) {len(models)} models at defaults, evaluate", evaluate_s, DEFAULTS_TARGET_S),
        (f"(a) {len(models)} models at defaults, build + evaluate", build_s, DEFAULTS_TARGET_S),
        (f"(b) {largest_label}, evaluate", samples_s, SAMPLES_TARGET_S),
        ("(b) same, draw samples + evaluate", draw_and_evaluate_s, SAMPLES_TARGET_S),
    ]
    width = max(len(label) for label, _, _ in rows)
    print(f"{'median':>{width + 12}}   target")
    for label, seconds, target in rows:
        figures = f"{seconds * 1e3:8.2f} ms  ≤ {target * 1e3:.0f} ms"
        print(f"{label:<{width}}  {figures}  {verdict(seconds, target)}")
    return 0 if all(seconds <= target for _, seconds, target in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
