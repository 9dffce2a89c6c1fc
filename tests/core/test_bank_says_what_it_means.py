"""The bank says what it means (issue 30): the files its texts name exist, and the no-limit, queueing and
range rules hold over the whole bank."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from grading.core.formula import FormulaError, is_valid_name, parse_formula
from grading.core.model import ModelError, read_model
from grading.core.units import DIMENSIONLESS, parse_unit

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
