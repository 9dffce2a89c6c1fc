import numpy as np
import pytest

from grading.core.units import (
    DIMENSIONLESS,
    Dims,
    UnitError,
    compatible,
    format_dims,
    from_base,
    parse_unit,
)


def factor(unit: str) -> float:
    return parse_unit(unit).factor


def test_gb_per_second_is_gigabits_not_gilberts():
    unit = parse_unit("Gb/s")
    assert unit.factor == pytest.approx(1e9 / 8)
    assert format_dims(unit.dims) == "B/s"


def test_kb_is_a_thousand_bytes_and_kib_is_1024():
    assert factor("KB") == 1000
    assert factor("kB") == 1000
    assert factor("KiB") == 1024


def test_binary_prefixes_grow_by_1024_and_decimal_ones_by_1000():
    assert factor("TiB") == 1024**4
    assert factor("TB") == 1e12
    assert factor("PB") == 1e15
    assert [factor(unit) for unit in ("Kb", "Mb", "Gb", "Tb")] == [125, 125e3, 125e6, 125e9]


def test_a_bit_is_an_eighth_of_a_byte():
    assert factor("bit") == 0.125
    assert factor("Gbps") == factor("Gb/s")


def test_time_units_have_the_documented_sizes():
    sizes = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600, "day": 86400}
    sizes |= {"week": 7 * 86400, "month": 30 * 86400, "year": 365 * 86400}
    for unit, seconds in sizes.items():
        assert factor(unit) == pytest.approx(seconds), unit


def test_flop_power_energy_and_money_have_their_own_dimensions():
    assert factor("PFLOP") == 1e15 and format_dims(parse_unit("TFLOPS").dims) == "FLOP/s"
    assert factor("MW") == 1e6 and format_dims(parse_unit("MW").dims) == "W"
    assert factor("kWh") == 3.6e6 and format_dims(parse_unit("kWh").dims) == "W·s"
    assert format_dims(parse_unit("USD/h").dims) == "USD/s"


def test_the_dollar_sign_reads_as_usd():
    assert parse_unit("$/h").dims == parse_unit("USD/h").dims


def test_each_count_is_its_own_dimension():
    assert parse_unit("tok").dims != parse_unit("req").dims
    assert format_dims(parse_unit("1/(GPU*day)").dims) == "1/(GPU·s)"
    assert not parse_unit("GPU").dims.is_dimensionless


def test_counts_and_long_names_match_in_any_letter_case():
    assert parse_unit("GPUs").dims == parse_unit("gpu").dims == parse_unit("GPU").dims
    assert parse_unit("Tokens per Second").dims == parse_unit("tok/s").dims
    assert parse_unit("parameters").dims == parse_unit("param").dims
    assert factor("Hours") == 3600


def test_bytes_and_bits_stay_case_sensitive_and_a_lowercase_gb_is_refused_as_ambiguous():
    assert factor("GB") == 8 * factor("Gb")
    with pytest.raises(UnitError, match="ambiguous; write GB for bytes or Gb for bits"):
        parse_unit("gb/s")


def test_per_and_hyphens_read_as_division_and_multiplication():
    assert parse_unit("USD per GPU-hour").factor == pytest.approx(1 / 3600)
    assert format_dims(parse_unit("USD per GPU-hour").dims) == "USD/(GPU·s)"
    assert format_dims(parse_unit("B/tok per s").dims) == "B/(tok·s)"


def test_an_empty_unit_is_a_plain_number_and_percent_is_a_hundredth():
    assert parse_unit("").dims == DIMENSIONLESS
    assert factor("%") == 0.01


def test_unknown_units_raise_unit_error_naming_the_unit():
    with pytest.raises(UnitError, match="unknown unit 'furlong'"):
        parse_unit("furlong/s")
    with pytest.raises(UnitError):
        parse_unit("B +")


def test_unit_towers_and_long_texts_are_refused_before_pint_sees_them():
    for text in ("10**10**10", "B**100", "s^(1/2)", "B" * 200, "(((((((B)))))))"):
        with pytest.raises(UnitError):
            parse_unit(text)


def test_from_base_takes_arrays():
    values = np.array([1024.0, 2560.0, 327_680.0])
    assert np.allclose(from_base(values, "KiB/tok"), [1.0, 2.5, 320.0])
    assert from_base(327_680, "KiB") == 320


def test_the_count_rule_allows_a_per_count_reading_either_way():
    assert compatible("B", "KiB/tok")
    assert compatible("KiB/tok", "B")
    assert compatible("", "GPU")
    assert compatible("B", "B/(tok*req)")


def test_the_count_rule_never_turns_one_count_into_another():
    assert not compatible("tok/s", "req/s")
    assert not compatible("B/tok", "B/req")


def test_the_count_rule_needs_physical_dimensions_to_agree_exactly():
    assert not compatible("B*tok", "KiB/s")
    assert not compatible("B", "bit/s")
    assert not compatible("W", "kWh")
    assert compatible("kWh", "MW*h")


def test_dims_format_as_base_units_with_time_last():
    assert format_dims(parse_unit("KiB*tok/s").dims) == "B·tok/s"
    assert format_dims(DIMENSIONLESS) == "1"
    assert format_dims(Dims.of([("s", -2)])) == "1/s^2"
    assert format_dims(parse_unit("B").dims ** 0.5) == "B^(1/2)"


def test_parsed_units_are_cached_per_string():
    assert parse_unit("MiB/s") is parse_unit("MiB/s")
