import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.core.quantity_text import ParsedQuantity, ParseFailure, parse_quantity, read_value
from grading.core.units import format_dims


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
        ("ten pods", "no number"),
        ("", "nothing was typed"),
        ("   ", "nothing was typed"),
        ("lots", "no number"),
        ("2,5", "use a point for decimals"),
        ("1,2345", "use a point for decimals"),
        ("10 5", "write one number and a unit"),
        ("10 000", "write one number and a unit"),
        ("5 gb", "ambiguous"),
        ("3 furlongs", "unknown unit"),
        ("1e400", "too large"),
        ("1e300 PB", "too large"),
        ("1e300 T", "too large"),
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
    assert failure.message == "'400 GB' is in B; this asks for tok/s"
    assert isinstance(read_value("12 req/s", "tok/s"), ParseFailure)


def test_reading_is_fast_once_a_unit_has_been_seen():
    parse_quantity("1 GiB/s")
    started = time.perf_counter()
    for index in range(2000):
        parse_quantity(f"{index}.5 GiB/s")
    assert (time.perf_counter() - started) / 2000 < 250e-6  # about 10 µs each on a quiet machine


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
