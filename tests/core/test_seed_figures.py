"""Every concrete figure in the seeds is reproduced by its question's model at default inputs.

Each row: the seed sentence, the quantity that reproduces it, the figure as stated, and the tolerance
(±2% for exact figures, ±15% for "about"). The rows live beside the model, in each question file's `figures`.
"""

from pathlib import Path

import pytest

from grading.core.question_files import load_pack
from grading.core.units import from_base, parse_unit

PACK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"
SPECS, LOAD_ERRORS = load_pack(PACK)
FIGURES = [
    pytest.param(spec, figure, id=f"{spec.slug}:{figure.quantity}={figure.value:g} {figure.unit}")
    for spec in SPECS
    for figure in spec.figures
]
# Figures the seeds state, by question: every question whose seed paragraph carries a number has figures.
QUESTIONS_WITH_SEED_FIGURES = {
    "seven-boxes-serving-walkthrough",
    "forty-five-minute-plan",
    "gpu-credit-system",
    "rag-at-10k-qps",
    "ten-thousand-gpu-cluster",
    "job-scheduler-100k-jobs",
    "eval-pipeline-10m-prompts",
    "pretraining-data-pipeline",
    "multi-lora-serving",
    "autoscaling-cold-start",
    "kv-cache-tiering",
    "model-artifact-distribution",
    "token-rate-limits",
    "two-region-failover",
    "checkpoint-storage",
    "ttft-200ms-p99",
    "agent-sessions",
    "video-generation-serving",
    "training-disaster-recovery",
    "moe-serving-on-a-rack",
    "moe-total-or-active",
    "multi-provider-gateway",
    "internal-llm-gateway",
    "eight-gpu-design-review",
}


def test_every_question_file_in_the_bank_loads():
    assert LOAD_ERRORS == []
    assert len(SPECS) >= 36


def test_the_questions_with_seed_figures_all_list_them():
    with_figures = {spec.slug for spec in SPECS if spec.figures}
    assert with_figures >= QUESTIONS_WITH_SEED_FIGURES


@pytest.mark.parametrize(("spec", "figure"), FIGURES)
def test_the_model_reproduces_the_seed_figure(spec, figure):
    model = spec.model.reference
    values = model.evaluate()
    got = float(from_base(values[figure.quantity], parse_unit(figure.unit)))
    assert figure.seed.strip(), "each figure quotes its seed sentence"
    assert got == pytest.approx(figure.value, rel=figure.tolerance), (
        f"{spec.slug}: {figure.quantity} is {got:.4g} {figure.unit}, the seed says {figure.value:g} "
        f"({figure.seed!r})"
    )


def test_the_figures_page_of_the_docs_is_up_to_date():
    from grading.core.figures_doc import main

    assert main(["--check"]) == 0, "run: python -m grading.core.figures_doc"
