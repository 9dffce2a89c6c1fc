"""Drill steps drawn from a question's model and graded by the grader (pure core, no Django)."""

import dataclasses
from pathlib import Path

import pytest

from grading.core.drills import DrillError, drill_grade, drill_lines, drill_samples, drill_step
from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.question_reader import parse_question
from grading.core.question_types import SpecError

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"
KV = load_question(BANK / "kv-cache-tiering.yaml")


def given(step, name: str) -> float:
    return next(g.value for g in step.givens if g.name == name)


@pytest.mark.parametrize("seed", [1, 2, 3, 11, 12345])
def test_a_kv_per_token_step_worked_by_hand_is_graded_correct(seed):
    step = drill_step(KV, "kv_bytes_per_token", seed=seed)
    layers, heads, dim, elem = (
        given(step, n) for n in ("n_layers", "n_kv_heads", "head_dim", "kv_bytes_per_elem")
    )
    by_hand_kib = 2 * layers * heads * dim * elem / 1024  # K and V, per layer, per KV head, per element
    line = drill_grade(step, f"{by_hand_kib:g} KiB/tok")
    assert line["verdict"] == "correct", line
    assert not line["show_arithmetic"]


def test_a_wrong_answer_shows_the_formula_with_the_steps_numbers():
    step = drill_step(KV, "kv_bytes_per_token", seed=5)
    layers = given(step, "n_layers")
    elem = given(step, "kv_bytes_per_elem")
    by_hand_kib = 2 * layers * 8 * 128 * elem / 1024
    line = drill_grade(step, f"{by_hand_kib / 2:g} KiB/tok")  # forgot the 2 for K and V
    assert line["verdict"] != "correct"
    assert line["show_arithmetic"]
    assert line["arithmetic"].startswith(f"2 × {layers:g} × 8 × 128 × {elem:g} B = ")


def test_a_conversation_step_reads_units_as_the_sheet_does():
    step = drill_step(KV, "kv_conv", seed=8)
    tokens = given(step, "context_tokens")
    per_token_kib = given(step, "kv_bytes_per_token")
    by_hand_gb = tokens * per_token_kib * 1024 / 1e9
    assert drill_grade(step, f"{by_hand_gb * 1000:.4g} MB")["verdict"] == "correct"
    assert drill_grade(step, f"{by_hand_gb:.4g}")["verdict"] == "correct"  # no unit: the line's GB
    assert drill_grade(step, "12 seconds")["verdict"] == "unit_error"


def test_the_same_seed_draws_the_same_step_and_other_seeds_draw_new_numbers():
    assert (
        drill_step(KV, "kv_bytes_per_token", seed=9).prompt
        == drill_step(KV, "kv_bytes_per_token", seed=9).prompt
    )
    prompts = {drill_step(KV, "kv_bytes_per_token", seed=seed).prompt for seed in range(20)}
    assert len(prompts) >= 10


def test_a_step_never_asks_for_the_references_own_answer():
    reference_kib = 2 * 80 * 8 * 128 * 2 / 1024  # Llama-3-70B: 320 KiB a token
    for seed in range(60):
        step = drill_step(KV, "kv_bytes_per_token", seed=seed)
        assert abs(step.answer - reference_kib) > 0.1 * reference_kib, step.prompt
        assert drill_grade(step, "320 KiB/tok")["verdict"] != "correct"


def test_the_givens_stay_inside_the_questions_ranges():
    for seed in range(30):
        step = drill_step(KV, "kv_bytes_per_token", seed=seed)
        assert 32 <= given(step, "n_layers") <= 126
        assert given(step, "n_kv_heads") == 8 and given(step, "head_dim") == 128


def test_a_line_whose_inputs_are_all_fixed_cannot_be_drilled():
    fixed = load_question(BANK / "eight-gpu-design-review.yaml")
    assert "kv_cap_tp8" in drill_lines(fixed)
    with pytest.raises(DrillError, match="fixed by the question"):
        drill_step(fixed, "kv_cap_tp8", seed=1)


def test_an_input_line_is_not_a_drill():
    assert "n_layers" not in drill_lines(KV)
    with pytest.raises(DrillError):
        drill_step(KV, "n_layers", seed=1)


def with_wording(spec, name: str, wording: str):
    """`spec` with `wording` on its asked line `name`; a line it does not ask (kv-cache-tiering states its KV
    per token since issue 30) is asked first, as the per-token line was."""
    lines = spec.asked
    if name not in {a.name for a in lines}:
        lines = (dataclasses.replace(lines[0], name=name, tolerance=0.02, weight=1.0), *lines)
    asked = tuple(dataclasses.replace(a, drill=wording) if a.name == name else a for a in lines)
    return dataclasses.replace(spec, asked=asked)


def test_an_authored_wording_fills_in_the_givens():
    wording = "{n_layers} layers, {n_kv_heads} KV heads of {head_dim}, {kv_bytes_per_elem} an element. KV?"
    step = drill_step(with_wording(KV, "kv_bytes_per_token", wording), "kv_bytes_per_token", seed=3)
    assert step.prompt == (
        f"{given(step, 'n_layers'):g} layers, 8 KV heads of 128, "
        f"{given(step, 'kv_bytes_per_elem'):g} B an element. KV?"
    )


def test_the_question_reader_refuses_a_wording_that_leaves_out_an_input():
    data = spec_to_dict(
        with_wording(KV, "kv_bytes_per_token", "{n_layers} layers of {head_dim}. KV per token?")
    )
    with pytest.raises(SpecError) as refused:
        parse_question(data, source="kv-cache-tiering")
    assert (
        "asked[0].drill",
        "the wording does not give {kv_bytes_per_elem}, {n_kv_heads}, "
        "so its inputs do not determine the answer",
    ) in refused.value.problems


def test_a_wording_round_trips_through_the_question_file():
    wording = "{n_layers} layers, {n_kv_heads} heads of {head_dim}, {kv_bytes_per_elem} each. KV?"
    again = parse_question(
        spec_to_dict(with_wording(KV, "kv_bytes_per_token", wording)), source="kv-cache-tiering"
    )
    assert again.asked[0].drill == wording


def test_the_editor_samples_two_steps_a_line_and_says_why_a_line_cannot_be_drilled():
    samples = {item["name"]: item for item in drill_samples(KV)}
    assert len(samples["kv_bytes_per_token"]["steps"]) == 2
    first, second = samples["kv_bytes_per_token"]["steps"]
    assert first["prompt"] != second["prompt"]
    fixed = {
        item["name"]: item for item in drill_samples(load_question(BANK / "eight-gpu-design-review.yaml"))
    }
    assert fixed["kv_cap_tp8"]["steps"] == []
    assert "fixed by the question" in fixed["kv_cap_tp8"]["refusal"]


def test_minutes_left_is_never_negative_whatever_the_phases_drawn():
    # slack_min = round_min - planned_min: phases drawn near the top of their ranges overrun a 45-minute
    # round ("-2 minutes left"); such a draw is drawn again, so every step has minutes to spare.
    plan = load_question(BANK / "forty-five-minute-plan.yaml")
    for seed in range(80):
        step = drill_step(plan, "slack_min", seed=seed)
        round_min, planned_min = given(step, "round_min"), given(step, "planned_min")
        assert step.answer == pytest.approx(round_min - planned_min) and step.answer > 0, step.prompt


def test_a_line_clamped_at_zero_is_drilled_only_where_its_answer_is_not_zero():
    # uncovered_s is a max(0, ...) of the cold start's uncovered time: a draw where the fleet covers it all
    # would ask for "0 s", which the reference (25 s) never is.
    cold = load_question(BANK / "autoscaling-cold-start.yaml")
    assert all(drill_step(cold, "uncovered_s", seed=seed).answer > 0 for seed in range(40))
