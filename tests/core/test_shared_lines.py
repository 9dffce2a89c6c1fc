"""Which answers a check of one question states of another (grading.core.shared_lines)."""

from pathlib import Path

from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.shared_lines import answer_figures, revealed_answers, stated_figures

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"


def spec(slug: str) -> dict:
    return spec_to_dict(load_question(BANK / f"{slug}.yaml"))


def test_a_check_stating_the_same_kv_per_token_reveals_that_answer_and_nothing_else():
    # Both questions take 320 KiB of KV a token (327,680 B/tok; 3.3e5 to two figures, in B/tok): llm-batching
    # asks it, and a check of kv-cache-tiering (where it is a premise since issue 30) states it.
    kv_answers = answer_figures(spec("llm-batching-system"))
    assert kv_answers["kv_bytes_per_token"] == (3.3e5, "B/tok")
    assert "kv_bytes_per_token" in revealed_answers(stated_figures(spec("kv-cache-tiering")), kv_answers)
    assert "kv_bytes_per_token" not in answer_figures(spec("kv-cache-tiering"))
    assert revealed_answers(stated_figures(spec("usage-billing-pipeline")), kv_answers) == []


def test_the_same_number_in_another_dimension_reveals_nothing():
    stated = {(3.3e5, "B/s")}
    assert revealed_answers(stated, {"kv_bytes_per_token": (3.3e5, "B/tok")}) == []


def test_a_review_questions_given_inputs_are_not_answers_but_its_derived_lines_are():
    answers = answer_figures(spec("eight-gpu-design-review"))
    assert "tp_gpus" not in answers and "queue_limit" not in answers  # on the opening sheet
    assert "servers_needed" in answers
