"""No typed text breaks the grader or a replay, at random (hypothesis): what a candidate can type on a
sheet line (zero, negatives, huge and tiny numbers, also beyond what a float holds, ordinary values, with the
line's unit, another unit or none, scale words, junk) on a random subset of a random bank question's lines.
The report and every replay's result hold only finite numbers (or None), a value that cannot be used is
refused with a message naming it, and nothing raises. The systematic half is test_sim_extreme_inputs."""

import math
import re
from functools import cache

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grading.core.grader import grade
from grading.core.sim import FAMILIES
from grading.core.sim.arrivals import expected_arrivals
from grading.core.sim.family_specs import resolve_events
from grading.core.sim.serving import MAX_REQUESTS
from tests.core.test_sim_extreme_inputs import SLUGS, grade_typed, question, replay_typed, short_length

LINE_UNITS = sorted(
    {
        question(slug).model.reference.units[asked.name].text
        for slug in SLUGS
        for asked in question(slug).asked
    }
)
# fmt: off
EXTREME_NUMBERS = (
    "0", "-0", "0.0", "-1", "-5", "-1e30", "1e30", "1e300", "1e308", "1.7976931348623157e308", "1e309",
    "1e999", "-1e999", "0.5", "3", "1e-30", "1e-300", "1e-308", "2.3e-308", "1e-320", "5e-324", "1e-400",
    "2,000", "1_000_000", "1.5 × 10^6", "1/0", "0/0", "3:0", "1/1e-400",
)
SCALE_WORDS = ("k", "K", "M", "mn", "bn", "B", "G", "T", "thousand", "million", "billion")
PREFIXES = ("~", "$", "<", "about ", "at least ", "€")
JUNK = (
    "nan", "NaN", "inf", "-inf", "Infinity", "∞", "idk", "N/A", "?", "-", "1e", "e5", "2,5", "--5", "+-3",
    "½", "٣٢٠", "1..2", "five", "$", "~", "1 2 3", "1h30m", "0 s 0 ms", "furlongs 3", "3 furlongs",
)
# fmt: on


def numbers_typed() -> st.SearchStrategy[str]:
    """A number as a person types it: an extreme, an ordinary value, any float, a long integer."""
    return st.one_of(
        st.sampled_from(EXTREME_NUMBERS),
        st.floats(1e-3, 1e6).map(lambda x: f"{x:.4g}"),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.integers(-(10**40), 10**40).map(str),
    )


# What a slip makes of the right value: a unit factor, a power of ten, a sign, a term left out (0).
SLIPS = (1, 1.03, 0.5, 2, 8, 1 / 8, 60, 1 / 60, 24, 1000, 1e-3, 1024, 3600, -1, 10, 0.1, 1e9, 1e-9, 1e200, 0)


@cache
def references(slug: str) -> dict[str, float | None]:
    """Each asked line's reference value in its unit (what a candidate near the answer types around)."""
    return {line["name"]: line["reference"] for line in grade(question(slug), {"numbers": {}})["lines"]}


@st.composite
def line_text(draw, line_unit: str, reference: float | None = None) -> str:
    """What a candidate can type on a line shown in `line_unit`: junk one time in ten, a third of the rest
    the line's reference after a slip (when it has one), else a number with a prefix, scale word and unit."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.one_of(st.sampled_from(JUNK), st.text(max_size=12)))
    if reference is not None and draw(st.integers(0, 2)) == 0:
        slipped = f"{reference * draw(st.sampled_from(SLIPS)):.4g}"
        return f"{slipped} {draw(st.sampled_from(('', line_unit)))}".strip()
    prefix = draw(st.sampled_from(("",) * 12 + PREFIXES))  # one in three
    scale = draw(st.sampled_from(("",) * 3 + SCALE_WORDS))
    unit = draw(st.one_of(st.just(""), st.just(line_unit), st.sampled_from(LINE_UNITS)))  # a third each
    space = draw(st.sampled_from(("", " ")))
    return f"{prefix}{draw(numbers_typed())}{space}{scale} {unit}".strip()


@st.composite
def typed_sheets(draw) -> tuple[str, dict[str, str]]:
    """A bank question and what was typed on a random subset of its asked lines."""
    slug = draw(st.sampled_from(SLUGS))
    spec = question(slug)
    units = spec.model.reference.units
    names = draw(st.lists(st.sampled_from([asked.name for asked in spec.asked]), unique=True, min_size=1))
    return slug, {name: draw(line_text(units[name].text, references(slug)[name])) for name in names}


# Derandomized and without the example database, so every run (and CI) tries the same sheets.
PROPERTY = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
ARRIVALS_PER_RUN = 20_000


def bounded_length(entry: dict) -> float:
    """The family's short length, shortened for a serving run expected to draw more than ARRIVALS_PER_RUN
    requests (a typed rate can ask for millions; the per-step engine takes ~12 µs a request), unless it is
    over the replay's cap, which must be refused before anything is drawn."""
    duration = short_length(entry)
    if entry["family"] != "serving":
        return duration
    spec = FAMILIES["serving"]
    p = {param.name: param.default for param in spec.params} | entry["params"]
    if p["users"] > 0:
        rate = p["users"] / p["think_time_s"] if p["think_time_s"] > 0 else math.inf
    else:
        rate = p["arrival_rate"]
    try:
        events = resolve_events(spec, [event for event in entry["events"] if event.get("at", 0) < duration])
        expected = expected_arrivals(rate, duration, events, p["diurnal_amplitude"], p["diurnal_period_s"])
    except (ValueError, KeyError):
        return duration  # refused by the run itself
    if not ARRIVALS_PER_RUN < expected <= MAX_REQUESTS:
        return duration
    return max(1.0, duration * ARRIVALS_PER_RUN / expected)


NOT_A_NUMBER = re.compile(r"\b(nan|inf|infinity)\b|∞", re.IGNORECASE)


@PROPERTY
@given(sheet=typed_sheets())
# Found by this test: 1e308 KiB/tok overflowed to inf in base units ("∞× too high. That is inf orders of
# magnitude"); 1e-322, a subnormal float, was read and its ratio to the reference underflowed to 0
# (ValueError: math domain error); 2.3e-308 was "∞× too low"; 1e-300 FLOP against 3.6e25 FLOP underflowed
# given / implied to 0 (ValueError: math domain error). kv-cache-tiering's KV per token is now a premise:
# the same values on its conversation's GB line overflow and underflow alike.
@example(sheet=("kv-cache-tiering", {"kv_conv": "1e308"}))
@example(sheet=("kv-cache-tiering", {"kv_conv": "1e-322"}))
@example(sheet=("kv-cache-tiering", {"kv_conv": "2.3e-308"}))
@example(sheet=("ten-thousand-gpu-cluster", {"train_flops": "1e-300"}))
# Found by this test: a goodput of 1e10 (0.506 expected) made the probe of a unit factor hidden in one term of
# its sum take exp of about -1,500, 0, and then log(0) (ValueError: math domain error; a 500 on submit).
@example(sheet=("training-cluster-review", {"goodput_est": "1e10"}))
# Found by this test (values near the reference): a negative KV size and a chunk time of 2.55e305 ms overflow
# the unwritten step b_max_slo to +inf, shown as "min(∞ req, -163 req)" in the arithmetic.
@example(
    sheet=(
        "llm-batching-system",
        {"kv_bytes_per_token": "-320", "chunk_time": "2.551004216272652e+302k", "tokens_s_replica": "5246"},
    )
)
# Found by this test: the pipeline refused a negative stage throughput naming the stage, not the parameter.
@example(sheet=("job-scheduler-100k-jobs", {"index_time": "-5"}))
def test_whatever_is_typed_grades_and_replays_to_finite_numbers_or_a_refusal_naming_it(sheet):
    slug, numbers = sheet
    spec = question(slug)
    report = grade_typed(spec, numbers)  # its JSON holds no NaN or infinity (json.dumps(allow_nan=False))
    lines = {line["name"]: line for line in report["lines"]}
    for name, text in numbers.items():
        line = lines[name]
        words = (line["message"] + " " + line["note"]).replace(text.strip(), "")  # "nan" may be quoted
        assert not NOT_A_NUMBER.search(words), (text, line["message"], line["note"])
        if line["verdict"] == "unparsed":
            assert line["given"] is None and line["message"], (text, line)
    for entry, outcome in replay_typed(spec, numbers, bounded_length):  # each result checked finite likewise
        for name, why in entry["fallbacks"].items():  # a typed value the replay could not use, and why
            assert repr(numbers[name].strip()) in why or "your value makes" in why, (name, why)
        if not outcome.startswith("{"):
            named = [key for key in entry["params"] if key in outcome]
            assert named or "event" in outcome, (slug, entry["scenario"], outcome)


def test_a_value_hundreds_of_orders_from_the_reference_is_far_too_low_and_counted_in_orders():
    # 6 FLOP/(param·tok) × 405e9 param × 1.5e13 tok = 3.645e25 FLOP; log10(3.645e25 / 1e-300) = 325.56, and
    # 1e-300 / 3.645e25 underflows to 0 as a float (it raised "math domain error")
    flops = grade_typed(question("ten-thousand-gpu-cluster"), {"train_flops": "1e-300"})["lines"]
    line = next(line for line in flops if line["name"] == "train_flops")
    assert line["verdict"] == "arithmetic_slip"
    assert "you wrote 1e-300 — far too low. That is 326 orders of magnitude" in line["message"]
    # 30,000 tok x 327,680 B/tok = 9.8304e9 B against 2.3e-308 GB = 2.3e-299 B; 9.8304e9 / 2.3e-299 = 4.27e308
    # is 308.63 orders, a ratio whose inverse is beyond a float (it was "∞× too low")
    kv = grade_typed(question("kv-cache-tiering"), {"kv_conv": "2.3e-308"})["lines"]
    line = next(line for line in kv if line["name"] == "kv_conv")
    assert "you wrote 2.3e-308 — far too low. That is 309 orders of magnitude" in line["message"]


def test_a_goodput_ten_billion_times_too_high_is_a_slip_counted_in_orders():
    # 1e10 against 0.506: 1.98e10 (19.8 billion) times too high, log10 = 10.3 orders (it raised "math domain
    # error")
    lines = grade_typed(question("training-cluster-review"), {"goodput_est": "1e10"})["lines"]
    line = next(line for line in lines if line["name"] == "goodput_est")
    assert line["verdict"] == "arithmetic_slip"
    assert "= 0.506; you wrote 1e10 — 19.8bn× too high. That is 10 orders of magnitude" in line["message"]


def test_a_step_of_their_numbers_that_overflows_is_said_in_words_in_the_arithmetic():
    # b_max_slo = floor(((tpot_target × tokens_per_step - chunk_time) × replica_bw - weights) / kv_per_seq):
    # 2.55e305 ms is 2.55e302 s, times 18.8e12 B/s is below -1.8e308 (-inf); over a negative KV per sequence
    # (2,125 tok × -320 KiB/tok) that is +inf
    typed = {"kv_bytes_per_token": "-320", "chunk_time": "2.55e305", "tokens_s_replica": "5246"}
    lines = grade_typed(question("llm-batching-system"), typed)["lines"]
    line = next(line for line in lines if line["name"] == "tokens_s_replica")
    assert line["message"].startswith("min((more than 1e308), ") and "∞" not in line["message"]
