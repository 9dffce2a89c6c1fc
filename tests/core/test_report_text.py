"""Numbers written for people."""

import pytest

from grading.core.report_text import (
    arithmetic_template,
    format_number,
    format_percent,
    format_quantity,
    format_unit,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (327_680, "327,680"),
        (2_000, "2,000"),
        (28_035.2, "28,035"),
        (9.8304, "9.83"),
        (13.456, "13.5"),
        (162.0, "162"),
        (0.04, "0.04"),
        (0.000474, "0.000474"),
        (4.74e-5, "4.74e-5"),
        (1.7e6, "1.7M"),
        (1_327_186.85, "1.33M"),
        (70.55e9, "70.6bn"),
        (999_999.7, "1M"),
        (999.96e9, "1e12"),
        (1.04e12, "1.04e12"),
        (-2.5, "-2.5"),
        (0, "0"),
    ],
)
def test_numbers_read_the_way_people_write_them(value, text):
    assert format_number(value) == text


def test_a_billion_is_never_written_b_so_it_cannot_be_read_as_bytes():
    assert "B" not in format_number(141e9)


def test_non_finite_numbers_have_words():
    assert format_number(float("inf")) == "∞"
    assert format_number(float("nan")) == "not a number"


def test_a_quantity_carries_its_unit_and_a_plain_number_none():
    assert format_quantity(9.8304, "GB") == "9.83 GB"
    assert format_quantity(1.7e6, "tok/s") == "1.7M tok/s"
    assert format_quantity(0.7, "") == "0.7"


# Counts agree in number (the rule in report_text's docstring): in English only exactly one is singular, so
# 0, fractions and 1.5 take the plural, and a value shown as "1" after rounding reads as one. Written by hand.
@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (1, "replica", "1 replica"),
        (3, "region", "3 regions"),
        (44, "session", "44 sessions"),
        (1, "replicas", "1 replica"),  # a plural unit typed by a person is put back to one
        (0, "replica", "0 replicas"),
        (0.5, "replica", "0.5 replicas"),
        (1.5, "GPU", "1.5 GPUs"),
        (0.9996, "replica", "1 replica"),  # shown as "1"
        (1.004, "node", "1 node"),
        (2, "query", "2 queries"),
        (4, "switch", "4 switches"),
        (3, "series", "3 series"),
        (14, "day", "14 days"),
        (1, "days", "1 day"),
        (2, "tokens", "2 tokens"),
        (1, "tokens", "1 token"),
        (70.6e9, "param", "70.6bn params"),
        (8, "GPU/node", "8 GPUs/node"),  # eight GPUs per node: the counted word leads
        (1, "GPU/node", "1 GPU/node"),
        (0.5, "failure/day", "0.5 failures/day"),
    ],
)
def test_a_count_agrees_in_number_and_only_exactly_one_is_singular(value, unit, text):
    assert format_quantity(value, unit) == text


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (2_000, "tok", "2,000 tok"),  # clipped count symbols are written as symbols, like GB
        (162, "req", "162 req"),
        (64, "seq", "64 seq"),
        (3, "min", "3 min"),
        (2, "GB", "2 GB"),
        (46.9, "GPU*h", "46.9 GPU·h"),  # a product is a unit symbol
        (4.39, "req/(s*replica)", "4.39 req/(s·replica)"),  # only a leading word is counted
        (3, "USD/month", "3 USD/month"),
    ],
)
def test_symbols_and_products_never_change(value, unit, text):
    assert format_quantity(value, unit) == text


def test_a_quantity_per_unit_of_one_drops_the_one():
    assert format_quantity(0.5, "1/s") == "0.5/s"
    assert format_quantity(4.74e-4, "1/(GPU*day)") == "0.000474/(GPU·day)"


def test_units_show_a_middle_dot_for_multiplication():
    assert format_unit("TB/(s*GPU)") == "TB/(s·GPU)"


def test_percentages_keep_two_significant_figures():
    assert format_percent(0.123) == "12%"
    assert format_percent(0.024) == "2.4%"


def test_the_arithmetic_template_replaces_names_and_keeps_functions():
    template = arithmetic_template("floor(kv_cap / max_context) * 2 ** 2", {"kv_cap", "max_context"})
    shown = template.render(lambda name: {"kv_cap": "1.33M tok", "max_context": "8,192 tok"}[name])
    assert shown == "floor(1.33M tok / 8,192 tok) × 2^2"


def test_a_value_with_a_unit_raised_to_a_power_is_bracketed_whole():
    # "32,760 tok ^ 2" read as squaring the unit alone; the power takes the value and its unit.
    template = arithmetic_template("attn * tokens ** 2", {"attn", "tokens"})
    shown = template.render(lambda name: {"attn": "819,200 FLOP/tok^2", "tokens": "32,760 tok"}[name])
    assert shown == "819,200 FLOP/tok^2 × (32,760 tok)^2"
    assert arithmetic_template("n ** 2", {"n"}).render(lambda name: "3") == "3^2"  # a plain number as it is


def test_a_name_inside_a_longer_name_is_left_alone():
    template = arithmetic_template("tokens * tokens_per_step", {"tokens", "tokens_per_step"})
    assert template.render(str.upper) == "TOKENS × TOKENS_PER_STEP"


def test_a_divisor_in_a_unit_of_one_over_something_is_bracketed():
    # "/ 20/day" reads as (.../20)/day; the divisor is 20 a day.
    template = arithmetic_template("(1 - p) / bursts", {"p", "bursts"})
    assert template.render(lambda name: {"p": "0.99", "bursts": "20/day"}[name]) == "(1 - 0.99) / (20/day)"
    assert arithmetic_template("x / y", {"x", "y"}).render(lambda name: "25 GB/s") == "25 GB/s / 25 GB/s"
