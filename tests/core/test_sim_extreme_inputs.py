"""No typed number breaks a replay or the grader: zeros, negatives, huge and tiny values, and one size
typed into every field, for every family's parameters and every question of the bank. Each run ends in a
result whose JSON holds no NaN or infinity, or in a ValueError whose message names the family and the input;
never another exception. A run too big to simulate is refused before anything is drawn, in milliseconds."""

import json
import random
import time
from functools import cache
from pathlib import Path

import pytest

from grading.core.grader import grade
from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.replay_inputs import replay_inputs
from grading.core.review_check import grade_review
from grading.core.sim import FAMILIES, run_scenario

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"
SLUGS = sorted(path.stem for path in BANK.glob("*.yaml"))
EXTREMES = (0.0, -1.0, -1e30, 1e30, 1e-30, 1e-300, 0.5)
SHORT = {"serving": 120.0, "training": 86400.0, "pipeline": 600.0, "events": 120.0}


def finite_json(value) -> str:
    return json.dumps(value, allow_nan=False)  # raises on NaN or infinity anywhere


def run_or_refusal(family, params, events, slo, duration_s, seed=1):
    """The result's JSON, or the refusal's message."""
    try:
        result = run_scenario(family, params, events, slo, duration_s, seed)
    except ValueError as refusal:
        assert str(refusal).startswith(f"{family}:") or "diurnal_period_s" in str(refusal), str(refusal)
        return str(refusal)
    return finite_json(result.to_dict())


@pytest.mark.parametrize(
    ("family", "name"),
    [(family, spec.name) for family, fam in FAMILIES.items() for spec in fam.params if spec.unit != "list"],
)
def test_every_parameter_at_every_extreme_gives_a_finite_result_or_a_refusal_naming_it(family, name):
    slo = {spec.key: 1.0 for spec in FAMILIES[family].slo}
    for value in EXTREMES:
        outcome = run_or_refusal(family, {name: value}, [], slo, SHORT[family])
        if not outcome.startswith("{"):
            assert name in outcome or "gives about" in outcome, outcome


@cache
def question(slug):
    return load_question(BANK / f"{slug}.yaml")


def typed_numbers(slug: str, mix: str) -> dict[str, str]:
    """What a candidate might type into every asked field: a seeded mix of extremes, or one size in all."""
    spec = question(slug)
    units = spec.model.reference.units
    pick = random.Random(f"{slug}:{mix}")
    numbers = {}
    for asked in spec.asked:
        if mix == "same size everywhere":
            numbers[asked.name] = "90 GB"
        else:
            value = pick.choice(["0", "-5", "1e30", "1e-30", "-0.0001", "3"])
            numbers[asked.name] = f"{value} {units[asked.name]}".strip()
    return numbers


def grade_typed(spec, numbers: dict[str, str]) -> dict:
    """The report of a sheet with `numbers` typed (a review question's with its replays), checked finite."""
    if spec.review is not None:
        report = grade_review(spec, {"numbers": numbers}, seed_key=1)
    else:
        report = grade(spec, {"numbers": numbers})
    finite_json(report)
    return report


def short_length(entry: dict) -> float:
    """The inputs are what is extreme here, not the run's length: the first minutes of the scenario are
    enough to meet every division and cap they reach (a whole hour of the per-step engine is ~10-40 s)."""
    return min(entry["duration_s"], SHORT[entry["family"]])


def replay_typed(spec, numbers: dict[str, str], length=short_length) -> list[tuple[dict, str]]:
    """Every replay of the question on the candidate side with `numbers` typed, for `length(entry)` seconds:
    each entry with its result's JSON (checked finite) or its refusal (checked to name its family)."""
    outcomes = []
    for entry in replay_inputs(spec_to_dict(spec), side="candidate", numbers=numbers):
        duration_s = length(entry)
        events = [event for event in entry["events"] if event.get("at", 0) < duration_s]
        outcome = run_or_refusal(entry["family"], entry["params"], events, entry["slo"], duration_s)
        outcomes.append((entry, outcome))
    return outcomes


@pytest.mark.parametrize("mix", ["extremes", "same size everywhere"])
@pytest.mark.parametrize("slug", SLUGS)
def test_every_bank_question_grades_and_replays_whatever_is_typed(slug, mix):
    spec = question(slug)
    numbers = typed_numbers(slug, mix)
    grade_typed(spec, numbers)
    replay_typed(spec, numbers)


@pytest.mark.parametrize(
    ("family", "params"),
    [
        ("serving", {"arrival_rate": 1e9}),
        ("serving", {"arrival_rate": 6e8 / 3600}),
        ("serving", {"users": 1e12, "think_time_s": 1.0}),
        ("events", {"event_rate": 1e9}),
        ("training", {"gpu_failure_rate_per_day": 1e6, "restart_s": 0.0}),
    ],
)
def test_a_run_too_big_is_refused_before_anything_is_drawn_naming_its_input(family, params):
    started = time.perf_counter()
    with pytest.raises(ValueError, match="one replay may simulate") as refusal:
        run_scenario(family, params, [], {}, 3600.0, 1)
    assert time.perf_counter() - started < 0.5  # nothing was generated (6e8 arrivals used to take 4.7 GB)
    assert next(iter(params)) in str(refusal.value) or "gpus" in str(refusal.value)
