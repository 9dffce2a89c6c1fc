import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.core.quantity_text import (
    LineReading,
    ParsedQuantity,
    ParseFailure,
    parse_quantity,
    read_on_line,
    read_value,
)
from grading.core.units import format_dims, parse_unit, registry


def read(text: str) -> ParsedQuantity:
    parsed = parse_quantity(text)
    assert isinstance(parsed, ParsedQuantity), parsed
    return parsed


@pytest.mark.parametrize(
    ("text", "base_value", "dims"),
    [
        ("320 KB", 320e3, "B"),
        ("320KiB", 327_680, "B"),
        ("3.35 TB/s", 3.35e12, "B/s"),
        ("1.7M tok/s", 1.7e6, "tok/s"),
        ("1.7e6 tokens/s", 1.7e6, "tok/s"),
        ("14 MW", 14e6, "W"),
        ("2,000", 2000, None),
        ("70 s", 70, "s"),
        ("1.5 h", 5400, "s"),
        ("~10 GB", 10e9, "B"),
        ("about 10 GB", 10e9, "B"),
        ("400 Gb/s", 50e9, "B/s"),
        ("$2/h", 2 / 3600, "USD/s"),
        ("175B params", 175e9, "param"),
        ("175B", 175, "B"),
        ("175 B", 175, "B"),
        ("1.7M", 1.7e6, None),
        ("10k", 10e3, None),
        ("1,280 nodes", 1280, "node"),
        ("9.8e9 B", 9.8e9, "B"),
        ("≈ 700", 700, None),
        ("0.5 s", 0.5, "s"),
        ("500ms", 0.5, "s"),
        ("45%", 0.45, "1"),
        ("16.7 GB/s", 16.7e9, "B/s"),
        ("133 Gb/s", 133e9 / 8, "B/s"),
        ("9.16 GiB", 9.16 * 1024**3, "B"),
        ("2 bn tokens", 2e9, "tok"),
        ("10K GPUs", 10e3, "GPU"),
        ("5 T", 5e12, None),
        ("$1.5B", 1.5e9, "USD"),
        ("$2 per GPU-hour", 2 / 3600, "USD/(GPU·s)"),
        ("3 x 10^6 tok", 3e6, "tok"),
        ("12 Tokens per Second", 12, "tok/s"),
        ("10x", 10, "1"),
        ("< 1 min", 60, "s"),
        ("1.5 h-ish", 5400, "s"),
        ("10 GB or so", 10e9, "B"),
        ("  42  ", 42, None),
        ("100 Gbps", 12.5e9, "B/s"),
        ("4.74e-4 per GPU per day", 4.74e-4 / 86400, "1/(GPU·s)"),
    ],
)
def test_it_reads_what_people_type(text: str, base_value: float, dims: str | None):
    parsed = read(text)
    assert parsed.base_value == pytest.approx(base_value)
    assert (format_dims(parsed.dims) if parsed.dims is not None else None) == dims


def test_approximate_markers_are_noted():
    assert read("~10 GB").approximate and read("about 10 GB").approximate and read("≈ 700").approximate
    assert not read("10 GB").approximate
    assert "approximate" in read("~10 GB").note


def test_it_notes_when_it_read_bits_or_a_scale_word():
    assert "bits" in read("400 Gb/s").note
    assert "billion" in read("175B params").note
    assert read("320 KB").note == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a few pods", "no number"),
        ("", "nothing was typed"),
        ("   ", "nothing was typed"),
        ("lots", "no number"),
        ("2,5", "use a point for decimals"),
        ("1,2345", "use a point for decimals"),
        ("10 5", "write one number and a unit"),
        ("10 0000", "write one number and a unit"),  # "10 000" is ten thousand (SI spacing); this is not
        ("5 gb", "ambiguous"),
        ("3 furlongs", "unknown unit"),
        ("1e400", "too far from zero"),
        ("1e300 PB", "too far from zero"),
        ("1e300 T", "too far from zero"),
        ("5 10**10**10", "write one number and a unit"),
        ("x" * 500, "longer than"),
    ],
)
def test_unreadable_text_gives_a_parse_failure_with_a_message(text: str, message: str):
    parsed = parse_quantity(text)
    assert isinstance(parsed, ParseFailure)
    assert message in parsed.message


def test_it_never_raises_on_odd_input():
    odd = ["$", "~", "%", "1 %%", "1 ((", "1 ) B", "∞", "nan", "1e", "--1", "1..2", "$$1", "1 /", None, 3]
    for text in odd:
        assert isinstance(parse_quantity(text), ParsedQuantity | ParseFailure)  # type: ignore[arg-type]


def test_a_bare_number_takes_the_unit_of_the_quantity_asked():
    assert read_value("320", "KiB/tok") == 327_680
    assert read_value("1.7M", "tok/s") == 1.7e6
    assert read_value("45", "%") == pytest.approx(0.45)


def test_a_number_with_a_unit_must_fit_the_quantity_asked():
    assert read_value("320 KB", "KiB/tok") == 320_000
    assert read_value("9.83 GB", "GiB") == pytest.approx(9.83e9)
    failure = read_value("400 GB", "tok/s")
    assert isinstance(failure, ParseFailure)
    assert failure.message == "'400 GB' is in GB; this line asks for tok/s"
    assert isinstance(read_value("12 req/s", "tok/s"), ParseFailure)


def test_pint_reads_a_unit_string_once_however_many_numbers_carry_it(monkeypatch):
    # The speed of reading lives in bench/grading.py; what makes it fast is that pint, the costly part,
    # parses each unit string once. Count its parses over 2,000 different numbers in one unit.
    unit_registry = registry()
    parses: list[str] = []
    original = unit_registry.parse_expression

    def counted(text, *args, **kwargs):
        parses.append(text)
        return original(text, *args, **kwargs)

    monkeypatch.setattr(unit_registry, "parse_expression", counted)
    parse_quantity.cache_clear()
    parse_unit.cache_clear()
    parse_quantity("1 GiB/s")
    first = len(parses)
    assert first >= 1  # the unit was parsed by pint
    for index in range(2000):
        assert parse_quantity(f"{index}.5 GiB/s").base_value == pytest.approx((index + 0.5) * 2**30)
    assert len(parses) == first


_PIECES = [
    "1",
    "2.5",
    "1,000",
    "1e6",
    "e",
    "k",
    "M",
    "B",
    "T",
    "bn",
    "$",
    "~",
    "≈",
    "<",
    "%",
    "x",
    "10^6",
    "×",
    "^",
]
_PIECES += [
    "KB",
    "KiB",
    "Gb",
    "gb",
    "/",
    "s",
    "tok",
    "tokens",
    "per",
    "GPU-hour",
    "(",
    ")",
    "*",
    "**",
    "-",
    " ",
    ",",
]


@settings(max_examples=500, deadline=200)
@given(st.text(max_size=60))
def test_random_text_gives_a_reading_or_a_parse_failure(text: str):
    assert isinstance(parse_quantity(text), ParsedQuantity | ParseFailure)


@settings(max_examples=1000, deadline=200)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_random_number_and_unit_soups_give_a_reading_or_a_parse_failure(pieces: list[str]):
    parsed = parse_quantity("".join(pieces))
    assert isinstance(parsed, ParsedQuantity | ParseFailure)
    if isinstance(parsed, ParsedQuantity):
        assert math.isfinite(parsed.base_value)


# Every way people write a number (issue 19). Expected values worked out by hand.


@pytest.mark.parametrize(
    ("text", "base_value", "dims"),
    [
        ("3:1", 3, "1"),
        ("1,000:1", 1000, "1"),
        ("1:4", 0.25, "1"),
        ("1/6", 1 / 6, "1"),
        ("1/30", 1 / 30, "1"),
        ("2/3 of the fleet", 2 / 3, "1"),
        ("40% of GPUs", 0.4, "1"),
        ("1h30m", 5400, "s"),
        ("2 min 10 s", 130, "s"),
        ("1 h 30 min", 5400, "s"),
        ("1 day 2 h", 93600, "s"),
        ("€20", 20, "USD"),
        ("20 EUR", 20, "USD"),
        ("USD 300", 300, "USD"),
        ("US$3", 3, "USD"),
        ("50 cents", 0.5, "USD"),
        ("5¢", 0.05, "USD"),
        ("2 B tokens", 2e9, "tok"),
        ("2bn tokens", 2e9, "tok"),
        ("-0", 0, None),
        ("٣٢٠ KB", 320e3, "B"),
        ("３２０ KB", 320e3, "B"),
        ("٣٫٥ GB", 3.5e9, "B"),
    ],
)
def test_it_reads_ratios_fractions_durations_currencies_and_other_digits(text, base_value, dims):
    parsed = read(text)
    assert parsed.base_value == pytest.approx(base_value)
    assert (format_dims(parsed.dims) if parsed.dims is not None else None) == dims


def test_how_a_ratio_fraction_or_other_script_was_read_is_noted():
    assert read("1/6").note == "the fraction 1/6 read as 0.167"
    assert read("1,000:1").note == "the ratio 1,000:1 read as 1,000"
    assert read("€20").note == "read € as the question's currency (USD)"
    assert read("٣٢٠ KB").note == "read the Arabic-Indic digits as 320 KB"
    assert read("1h30m").note == "read as 5,400 s"
    assert str(read("-0").base_value) == "0.0"  # not "-0.0"


@pytest.mark.parametrize(
    "text", ["idk", "IDK", "N/A", "n/a", "?", "??", "none", "-", "tbd", "don't know", "no idea"]
)
def test_an_explicit_non_answer_is_missing_not_unreadable(text):
    parsed = parse_quantity(text)
    assert isinstance(parsed, ParseFailure) and parsed.kind == "missing"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1e-400", "too close to zero to compute with (below 1e-308); write 0 if you mean zero"),
        ("1e-322", "too close to zero to compute with"),  # a subnormal float: not 0, but below 2.2e-308
        ("-2e-310 GB", "too close to zero to compute with"),  # 2e-310 is subnormal before the unit
        ("-1e999", "too far from zero to compute with"),
        ("1e999", "too far from zero to compute with"),
        ("1/0", "cannot have 0 below the line"),
        ("3/4 GB", "write the fraction alone"),
    ],
)
def test_edge_numbers_get_a_message_that_says_what_is_wrong(text, message):
    parsed = parse_quantity(text)
    assert isinstance(parsed, ParseFailure) and parsed.kind == "unparsed"
    assert message in parsed.message
    assert "too large" not in parsed.message


@pytest.mark.parametrize(
    ("text", "unit", "message"),
    [
        # 1e308 fits a float, but 1e308 KiB/tok is 1.024e311 B/tok, beyond the largest, 1.8e308
        ("1e308", "KiB/tok", "too far from zero to compute with"),
        ("1e307 B params", "GB", "too far from zero to compute with"),  # 'B' a billion: 1e316
        # 1e-306 ms is 1e-309 s, a subnormal; 3e-322 ms is 3e-325 s, which rounds to 0
        ("1e-306", "ms", "too close to zero to compute with"),
        ("3e-322", "ms", "too close to zero to compute with"),
    ],
)
def test_a_number_beyond_a_float_in_the_lines_base_units_is_refused_as_such(text, unit, message):
    reading = read_on_line(text, unit)
    assert isinstance(reading, ParseFailure) and message in reading.message


def test_a_number_in_another_unit_that_fits_is_read_though_as_typed_in_the_lines_unit_it_would_not():
    reading = read_on_line("1e306 s", "day")  # 1e306 s is a float; 1e306 days (8.64e310 s) is not
    assert isinstance(reading, LineReading)
    assert reading.value == 1e306 and reading.as_typed is None


@pytest.mark.parametrize(
    ("text", "unit", "value", "note"),
    [
        ("44 conversations", "session", 44, "'conversations' read as session"),
        ("67 machines", "instance", 67, "'machines' read as instance"),
        ("67 machines", "node", 67, "'machines' read as node"),
        ("50 passages", "chunk", 50, "'passages' read as chunk"),
        ("20k ops/s", "req/s", 20e3, "'ops' read as req"),
        ("20k ops/s", "1/s", 20e3, "'ops' read as a count"),
        ("5,300 seqs", "req", 5300, "seq read as req (one request is one sequence)"),
        ("5,300 reqs", "seq", 5300, "req read as seq (one request is one sequence)"),
        ("1.04T", "TB", 1.04e12, "'T' read as the T of TB"),
        ("30T", "TB", 30e12, "'T' read as the T of TB"),
        ("989T", "TFLOPS", 989e12, "'T' read as the T of TFLOPS"),
        ("900G", "GB/s", 900e9, ""),
        ("1.5k", "GB", 1.5e12, "'k' read as thousand"),  # a thousand GB: k is not the line's prefix
        ("175B", "param", 175e9, "'B' read as billion (this line is not in bytes)"),
        ("none", "replica", 0, "read 'none' as 0"),
        ("$38,880", "USD/(team*month)", 38_880 / (30 * 86400), "read as 38,880 USD in the line's unit"),
        ("98,300 GPU-hours", "GPU*h/day", 98_300 * 3600 / 86400, "in the line's unit, GPU·h/day"),
        ("$1,000/day", "USD/month", 1000 / 86400, ""),  # an explicit other period converts
    ],
)
def test_on_a_line_it_reads_the_line_s_nouns_prefix_and_period(text, unit, value, note):
    reading = read_on_line(text, unit)
    assert isinstance(reading, LineReading), reading
    assert reading.value == pytest.approx(value)
    assert note in reading.note


def test_none_is_missing_on_a_line_that_is_not_a_count_and_tok_is_never_req():
    none = read_on_line("none", "GB")
    assert isinstance(none, ParseFailure) and none.kind == "missing"
    wrong = read_on_line("12 req/min", "tok/s")
    assert isinstance(wrong, ParseFailure) and wrong.kind == "dimension"
    assert wrong.message == "'12 req/min' is in req/min; this line asks for tok/s"
    assert isinstance(read_on_line("44 widgets", "session"), ParseFailure)  # not in the vocabulary
