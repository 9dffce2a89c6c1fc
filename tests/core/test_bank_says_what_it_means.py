"""The bank says what it means (issue 30): the files its texts name exist, and the no-limit, queueing and
range rules hold over the whole bank."""

import ast
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from grading.core.formula import FormulaError, is_valid_name, parse_formula
from grading.core.grader import grade
from grading.core.model import ModelError, read_model
from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_pack
from grading.core.replay_inputs import replay_inputs
from grading.core.sim import run_scenario
from grading.core.units import DIMENSIONLESS, parse_unit
from rounds.readings import describe_reading
from tests.core.test_grader_bank import graded

ROOT = Path(__file__).resolve().parents[2]
BANK_FOLDER = ROOT / "questions" / "bank"
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)+\.(?:yaml|py|md|json)")


def test_every_file_a_bank_text_names_exists():
    # Three questions and the workloads file named interview/bank/workloads.yaml after the bank moved to
    # questions/bank/: a source a reader follows must lead somewhere.
    named = {
        (path.relative_to(ROOT).as_posix(), match)
        for path in sorted(BANK_FOLDER.rglob("*.yaml"))
        for match in _PATH.findall(path.read_text(encoding="utf-8"))
    }
    assert named, "the bank names no files at all: the pattern is wrong"
    missing = sorted((where, name) for where, name in named if not (ROOT / name).exists())
    assert not missing, missing


# No limit is a value of the model language (issue 30): `unbounded`, and div_or_unbounded for a queue's wait.


def _value(source: str, **env: float) -> float:
    return float(parse_formula(source).evaluate(env))


def test_unbounded_compares_in_min_and_max_and_carries_through_meaningful_arithmetic():
    assert _value("min(queue_limit, unbounded)", queue_limit=110) == 110  # a bound under no limit
    assert _value("max(queue_limit, unbounded)", queue_limit=110) == math.inf
    assert _value("unbounded / rate", rate=5) == math.inf  # an unbounded queue takes no finite time to fill
    assert _value("rate / unbounded", rate=5) == 0  # nothing is a share of no limit
    assert _value("ceil(2 * unbounded + 1)") == math.inf


@pytest.mark.parametrize(
    "source",
    [
        "unbounded - unbounded",  # no figure: NaN
        "0 * unbounded",  # NaN
        "deadline - unbounded",  # a negative infinity means nothing
        "deadline / (rate - rate)",  # a division by zero is still one: no unbounded value explains it
    ],
)
def test_arithmetic_without_a_meaning_is_an_error(source):
    with pytest.raises(FormulaError, match="non-finite"):
        _value(source, deadline=30.0, rate=5.0)


def test_unbounded_is_no_name_a_quantity_may_take():
    assert not is_valid_name("unbounded")
    assert parse_formula("min(queue_limit, unbounded)").names == frozenset({"queue_limit"})


def test_div_or_unbounded_is_the_mm1_wait_below_saturation_and_unbounded_past_it():
    # M/M/1, service 0.5 s: at rho = 0.5 (1 req/s into mu = 2/s) Wq = rho S / (1 - rho) = 0.25 / 0.5 = 0.5 s,
    # the textbook lambda / (mu (mu - lambda)) = 1 / (2 x 1). At rho = 1 and 1.2 the queue grows without end.
    wait = parse_formula("div_or_unbounded(rho * service, 1 - rho)")
    assert float(wait.evaluate({"rho": 0.5, "service": 0.5})) == pytest.approx(0.5)
    values = wait.evaluate({"rho": np.array([0.5, 1.0, 1.2]), "service": np.array(0.5)})
    assert values[0] == pytest.approx(0.5) and values[1] == values[2] == math.inf
    ms = parse_unit("ms").dims
    dims = parse_formula("div_or_unbounded(service, 1 - rho)").dims({"service": ms, "rho": DIMENSIONLESS})
    assert dims == ms


def _limit_model(**limit: object) -> dict:
    return {
        "quantities": [
            {"name": "queue_limit", "label": "Queue limit", "unit": "req", "source": "The design: no limit"}
            | ({"value": "unbounded", "range": [10, "unbounded"]} | limit),
            {"name": "rate", "label": "Rate", "value": 5, "unit": "req/s", "range": [1, 10], "source": "s"},
            {"name": "fill_s", "label": "Time to fill", "formula": "queue_limit / rate", "unit": "s"},
            {"name": "bound", "label": "Bound", "formula": "min(queue_limit, 200)", "unit": "req"},
        ]
    }


def test_an_input_may_be_unbounded_and_its_readers_carry_it():
    model = read_model(_limit_model()).reference
    values = model.evaluate()
    assert values["queue_limit"] == math.inf and values["fill_s"] == math.inf and values["bound"] == 200
    assert float(model.evaluate({"queue_limit": 110})["fill_s"]) == pytest.approx(22)  # 110 req / 5 req/s
    assert model.may_be_unbounded("fill_s") and not model.may_be_unbounded("rate")
    assert model.range_base("queue_limit") == (10, math.inf)
    drawn = model.sample_inputs(3, np.random.default_rng(1))
    assert list(drawn["queue_limit"]) == [math.inf] * 3  # nothing to draw from up to no limit


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        ({"range": [10, 1000]}, "is unbounded, so its range must reach unbounded: [low, unbounded]"),
        ({"variable": True}, "is variable, so its range must be finite (a round draws its value from it)"),
        ({"value": "lots"}, "value must be a finite number or unbounded, not 'lots'"),
    ],
)
def test_an_unbounded_input_says_so_in_its_range(limit, message):
    with pytest.raises(ModelError) as refused:
        read_model(_limit_model(**limit))
    assert ("queue_limit", message) in refused.value.problems


# A queueing formula is never used past saturation (issue 30): over every question's plausible ranges.

SPECS, _ = load_pack(BANK_FOLDER / "core")
_QUEUEING = frozenset({"div_or_unbounded", "erlang_c", "erlang_c_rho_quantile", "erlang_c_rho_mean"})
_HEADROOM_WORDS = ("utilisation", "utilization", "busy", "load", "share")


def _calls(formula) -> set[str]:
    return {node.func.id for node in ast.walk(formula.tree) if isinstance(node, ast.Call)}


def _ranged_draws(spec, n: int, seed: int) -> dict[str, np.ndarray]:
    """Inputs drawn over their plausible ranges, the ones the question states kept at their value."""
    model = spec.model.reference
    drawn = model.sample_inputs(n, np.random.default_rng(seed))
    return {name: values for name, values in drawn.items() if not model.quantities[name].stated}


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.slug)
def test_queueing_waits_are_never_negative_or_undefined_inside_the_ranges(spec):
    model = spec.model.reference
    # One vectorised evaluation of 4,000 draws: any value that is not finite and not the no-limit value
    # (a division by zero, NaN) is a ModelError naming the quantity.
    values = model.evaluate(_ranged_draws(spec, 4000, seed=30))
    for name, formula in model.formulas.items():
        if _calls(formula) & _QUEUEING:
            value = np.asarray(values[name])
            assert not np.any(np.isnan(value)), name
            assert np.all(value >= 0), f"{spec.slug}: {name} goes negative (min {np.min(value):.3g})"


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.slug)
def test_no_formula_divides_by_a_utilisation_headroom_outside_div_or_unbounded(spec):
    # x / (1 - rho) goes negative past rho = 1, x / max(0, 1 - rho) has no value at all: a queue's wait
    # divides by its headroom through div_or_unbounded, which says unbounded there.
    model = spec.model.reference
    words = {
        name: any(word in quantity.label.lower() for word in _HEADROOM_WORDS) or name.startswith("rho")
        for name, quantity in model.quantities.items()
    }
    offending = []
    for name, formula in model.formulas.items():
        for node in ast.walk(formula.tree):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                for inner in ast.walk(node.right):
                    if (
                        isinstance(inner, ast.BinOp)
                        and isinstance(inner.op, ast.Sub)
                        and isinstance(inner.left, ast.Constant)
                        and inner.left.value == 1
                        and any(isinstance(n, ast.Name) and words.get(n.id) for n in ast.walk(inner.right))
                    ):
                        offending.append(name)
    assert not offending, f"{spec.slug}: {sorted(set(offending))}"


def test_multimodal_latency_s_wait_is_unbounded_past_a_utilisation_of_one():
    model = next(spec for spec in SPECS if spec.slug == "multimodal-latency").model.reference
    # Defaults: 3.8 req/s x (30 x 0.1 s + 0.6 s) / 16 GPUs = 0.855; Sakasegawa's Wq = rho^(sqrt(2 x 17) - 1) /
    # (16 x 0.145) x 3.6 s = 0.855^4.831 / 2.32 x 3.6 = 0.469 / 2.32 x 3.6 = 0.728 s.
    assert float(model.evaluate()["queue_wait"]) == pytest.approx(0.728, rel=0.01)
    # 4 req/s x (35 steps x 0.11 s + 0.6 s) / 16 = 4 x 4.45 / 16 = 1.11, inside every input's range: the
    # queue grows without end, so the wait and the total are unbounded, never negative.
    past = model.evaluate({"arrival_rate": 4.0, "steps": 35.0, "step_time": 0.11})
    assert float(past["rho"]) == pytest.approx(1.1125)
    assert past["queue_wait"] == math.inf and past["total_s"] == math.inf
    # Exactly at 1 (3.6 s of service, 4.444 req/s is out of range; 16 / 3.6 GPUs' worth): no headroom left.
    at_one = model.evaluate({"arrival_rate": 16 / 3.6})
    assert at_one["queue_wait"] == math.inf


# A design's limit that is not there: graded, read back, replayed and shown as no limit.

REVIEWS = ("eight-gpu-design-review", "gateway-fallback-review")


def _spec(slug: str):
    return next(spec for spec in SPECS if spec.slug == slug)


@pytest.mark.parametrize("slug", REVIEWS)
@pytest.mark.parametrize("text", ["unbounded", "no limit", "none", "∞", "Unlimited."])
def test_no_limit_in_any_words_is_the_designs_queue_limit(slug, text):
    # The prompt: the queue has no length limit. Its value is unbounded, so every way of saying so is right.
    line = graded(slug, {"queue_limit": text})["queue_limit"]
    assert line["verdict"] == "correct", line["message"]
    assert line["note"] == f"read {text!r} as no limit"
    assert line["reference_shown"] == "no limit" and line["range"] == [10, "unbounded"]


@pytest.mark.parametrize("slug", REVIEWS)
def test_a_bound_never_reached_is_inside_the_range_and_none_is_not_zero_on_a_limit_line(slug):
    # "1e6", the figure the bank used to stand in for no limit, is a bound inside [10, no limit]: right, as
    # the expert grades it. 0 is no queue at all, below the range's 10.
    assert graded(slug, {"queue_limit": "1,000,000 requests"})["queue_limit"]["verdict"] == "correct"
    assert graded(slug, {"queue_limit": "0"})["queue_limit"]["verdict"] == "out_of_range"
    # The wait limit's range is [0, no limit]: "0" (a timeout setting's 'none') and "none" are both right,
    # and "none" reads as no limit, not as a 0 s limit.
    lines = graded(slug, {"queue_wait_limit": "none"})
    assert lines["queue_wait_limit"]["verdict"] == "correct"
    assert lines["queue_wait_limit"]["note"] == "read 'none' as no limit"
    assert graded(slug, {"queue_wait_limit": "0 s"})["queue_wait_limit"]["verdict"] == "correct"


def test_a_report_with_no_limit_is_json_postgresql_stores():
    spec = _spec("eight-gpu-design-review")
    report = grade(spec, {"numbers": {"queue_limit": "unbounded", "queue_wait_limit": "∞"}})
    json.dumps(report, allow_nan=False)  # raises on an infinity anywhere
    json.dumps(spec_to_dict(spec), allow_nan=False)
    quantity = next(q for q in spec_to_dict(spec)["model"]["quantities"] if q["name"] == "queue_limit")
    assert quantity["value"] == "unbounded" and quantity["range"] == [10, "unbounded"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("none", "Read as no limit (unbounded)"),
        ("no limit", "Read as no limit (unbounded)"),
        ("110", "Read as 110 req"),
    ],
)
def test_the_sheet_reads_a_limit_line_as_the_grade_does(text, message):
    spec = spec_to_dict(_spec("gateway-fallback-review"))
    reading = describe_reading(spec, "queue_limit", text)
    assert reading["state"] == "read" and reading["message"].startswith(message)


def test_a_replay_runs_no_limit_as_none_and_a_typed_bound_as_that_bound():
    spec = spec_to_dict(_spec("gateway-fallback-review"))
    reference = replay_inputs(spec, side="reference")
    assert all(entry["params"]["queue_limit"] is None for entry in reference)
    assert all(entry["params"]["queue_timeout_s"] is None for entry in reference)
    json.dumps(reference, allow_nan=False)
    typed = replay_inputs(spec, side="candidate", numbers={"queue_limit": "300", "queue_wait_limit": "2 s"})
    assert {(e["params"]["queue_limit"], e["params"]["queue_timeout_s"]) for e in typed} == {(300.0, 2.0)}
    unbounded = replay_inputs(spec, side="candidate", numbers={"queue_limit": "no limit"})
    assert all(entry["params"]["queue_limit"] is None for entry in unbounded)
    assert not unbounded[0]["fallbacks"]  # "no limit" is used, not replaced by the reference
    # A literal `unbounded` in a scenario's params is None too (eval-pipeline's scorer buffer).
    judge = next(
        entry
        for entry in replay_inputs(spec_to_dict(_spec("eval-pipeline-10m-prompts")), side="reference")
        if entry["scenario"] == "judge-is-the-bottleneck"
    )
    assert judge["params"]["stage3_buffer"] is None


def test_the_simulator_takes_none_as_no_limit_and_refuses_it_where_a_number_is_needed():
    # One server, exponential service of 1 s, 10 arrivals a second for 200 s: with a queue of at most one
    # request nearly everything is turned away (it serves ~1 of the 10 a second: ~90% rejected); with no limit
    # nothing is rejected and the queue grows by ~9 a second.
    generic = {"servers": 1, "mu": 1.0, "arrival_rate": 10.0}
    bounded = run_scenario("serving", {**generic, "queue_limit": 1}, [], {"rejected_max_frac": 0.5}, 200, 7)
    unbounded = run_scenario(
        "serving", {**generic, "queue_limit": None}, [], {"rejected_max_frac": 0.5}, 200, 7
    )
    assert bounded.summary["rejected_frac"] == pytest.approx(0.9, abs=0.03)
    assert unbounded.summary["rejected_frac"] == 0
    assert unbounded.summary["queue_max"] == pytest.approx(9 * 200, rel=0.1)
    with pytest.raises(ValueError, match="arrival_rate"):
        run_scenario("serving", {**generic, "arrival_rate": None}, [], {}, 10, 7)


def test_an_unbounded_pipeline_buffer_holds_the_whole_backlog():
    # 1,000 items, a reader of 100/s and a writer of 10/s behind an unbounded buffer: the reader is done at
    # 10 s, when the writer has taken 100, so 900 wait; the writer finishes at 1,000 / 10 = 100 s.
    params = {"items": 1000, "stage1_throughput": 100, "stage2_throughput": 10, "stage2_buffer": None}
    result = run_scenario("pipeline", params, [], {"completion_max_s": 120}, 150, 1)
    assert result.summary["backlog_max"] == pytest.approx(900, rel=0.02)
    assert result.summary["completion_s"] == pytest.approx(100, rel=0.02)


# A range never admits a value the prompt fixes (issue 30): checked on the two the issue names.


def test_a_gpu_count_other_than_the_prompts_8000_is_charged_far_once():
    # The prompt: 8,000 H100s for three months (2,160 h). 12,000 GPUs is a plausible cluster but not this run:
    # 12,000 x 2,160 h = 25.92M GPU-h follows from it, charged far once; 25.92M x $2 = $51.84M repeats it.
    gpus = _spec("training-disaster-recovery").model.quantity("gpus")
    assert gpus.value == 8000 and gpus.stated
    lines = graded(
        "training-disaster-recovery", {"gpus": "12,000", "gpu_hours": "25.92M GPU-h", "run_cost": "$51.84M"}
    )
    assert lines["gpu_hours"]["verdict"] == "far_from_reference", lines["gpu_hours"]["message"]
    assert lines["run_cost"]["verdict"] == "correct", lines["run_cost"]["message"]
    assert graded("training-disaster-recovery", {"gpu_hours": "17.28M GPU-h"})["gpu_hours"]["verdict"] == (
        "correct"
    )


# Number words are read (a founder's decision, against the development set's policy, which marks "twenty
# seconds" and "twelve" unparsed: cases sv-05 and tl-06 disagree on purpose); the sheet before submitting and
# the report after it read them alike, and say the digits read. A vague amount stays unread, and both say to
# type the number itself.


@pytest.mark.parametrize(
    ("slug", "name", "text", "digits", "read_back"),
    [
        # 20 s on the cold start, the seed's 20 s; 12 oversubscription, the reference 12.3 within its band.
        ("serverless-gpu-warm-pool", "t_cold", "twenty seconds", "20 seconds", "Read as 20 s"),
        ("token-rate-limits", "oversubscription", "twelve", "12", "Read as 12"),
    ],
)
def test_a_number_in_words_is_read_alike_on_the_sheet_and_the_report(slug, name, text, digits, read_back):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "correct", line["message"]
    assert line["note"] == f"{text!r} read as {digits!r}"
    sheet = describe_reading(spec_to_dict(_spec(slug)), name, text)
    assert sheet["state"] == "read"
    assert sheet["message"].startswith(read_back + " ") and f"{text!r} read as {digits!r}" in sheet["message"]


@pytest.mark.parametrize(
    ("slug", "name", "text"),
    [
        ("serverless-gpu-warm-pool", "t_cold", "a few seconds"),
        ("token-rate-limits", "oversubscription", "a couple"),
        ("gateway-fallback-review", "max_batch", "lots"),
    ],
)
def test_a_vague_amount_is_unread_and_the_sheet_and_report_say_to_type_the_number(slug, name, text):
    line = graded(slug, {name: text})[name]
    assert line["verdict"] == "unparsed"
    assert line["message"].endswith("write the number itself, like 10 pods")
    sheet = describe_reading(spec_to_dict(_spec(slug)), name, text)
    assert sheet["state"] == "unread"
    assert sheet["message"] == f"Could not read this: {line['message']}."  # one reader, the same words
