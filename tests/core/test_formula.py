import contextlib
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.core.formula import FormulaError, is_valid_name, parse_formula
from grading.core.units import DIMENSIONLESS, format_dims, parse_unit


def evaluate(source: str, **env: float | np.ndarray):
    return parse_formula(source).evaluate(env)


def dims_of(source: str, **units: str) -> str:
    dims = {name: parse_unit(unit).dims for name, unit in units.items()}
    return format_dims(parse_formula(source).dims(dims))


def test_the_kv_cache_formula_gives_320_kib_per_token():
    env = {"n_layers": 80, "n_kv_heads": 8, "head_dim": 128, "kv_bytes_per_elem": 2}
    assert evaluate("2 * n_layers * n_kv_heads * head_dim * kv_bytes_per_elem", **env) == 327_680


def test_it_knows_which_names_a_formula_reads():
    assert parse_formula("max(0, a - b) / ceil(c)").names == {"a", "b", "c"}


def test_it_evaluates_names_holding_arrays_elementwise():
    layers = np.array([32.0, 80.0, 126.0])
    result = evaluate("2 * n_layers * 8 * 128 * 2 + max(0, n_layers - 100)", n_layers=layers)
    assert np.allclose(result, 2 * layers * 8 * 128 * 2 + np.maximum(0, layers - 100))


def test_it_evaluates_every_allowed_function():
    assert evaluate("min(a, 2, 5)", a=3.0) == 2
    assert evaluate("max(a, 2)", a=3.0) == 3
    assert evaluate("ceil(a) + floor(a) + abs(-a)", a=2.5) == 3 + 2 + 2.5
    assert evaluate("sqrt(a) + log(exp(a)) + log2(8) + log10(1000)", a=4.0) == pytest.approx(2 + 4 + 3 + 3)
    assert evaluate("a ** 2 + a ** -1 + a ** 0.5", a=4.0) == pytest.approx(16 + 0.25 + 2)


def test_round_goes_half_away_from_zero_for_counts():
    assert evaluate("round(a)", a=2.5) == 3
    assert evaluate("round(a)", a=-2.5) == -3
    assert evaluate("round(a)", a=2.4) == 2


def test_parts_made_only_of_numbers_are_folded_once():
    formula = parse_formula("users / (20 + 0.5 + 250 * 0.04)")
    assert formula.evaluate({"users": 2000.0}) == pytest.approx(2000 / 30.5)


def test_a_result_that_is_not_finite_raises():
    with pytest.raises(FormulaError, match="non-finite"):
        evaluate("a / b", a=1.0, b=0.0)
    with pytest.raises(FormulaError, match="non-finite"):
        evaluate("exp(a)", a=1000.0)
    with pytest.raises(FormulaError, match="non-finite"):
        evaluate("sqrt(a)", a=np.array([1.0, -1.0]))


def test_a_missing_name_raises():
    with pytest.raises(FormulaError, match="no value for b"):
        evaluate("a + b", a=1.0)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x.real", "attribute access"),
        ("().__class__", "attribute access"),
        ("(1).__class__", "attribute access"),
        ("__import__('os')", "strings are not allowed"),
        ("__import__", "no dunders"),
        ("__builtins__", "no dunders"),
        ("max(*x)", "unpacked"),
        ("max", "is a function; call it as max(...)"),
        ("sqrt + 1", "is a function"),
        ("x[0]", "subscripts"),
        ("'a' * 3", "strings are not allowed"),
        ("lambda: 1", "lambdas"),
        ("[a for a in b]", "lists"),
        ("a < b", "comparisons"),
        ("a == b", "comparisons"),
        ("a and b", "'and' / 'or'"),
        ("not a", "only unary"),
        ("~a", "not allowed"),
        ("a if b else c", "'if ... else'"),
        ("a // b", "floor(a / b)"),
        ("a % b", "'%'"),
        ("a ^ 2", "write ** for powers"),
        ("a ** b", "exponent of ** must be a plain number"),
        ("9**9**9", "exponent of ** must be a plain number"),
        ("a ** (1/2)", "exponent of ** must be a plain number"),
        ("a ** 11", "limited to ±10"),
        ("foo(1)", "unknown function 'foo'"),
        ("eval(1)", "unknown function 'eval'"),
        ("round(a, 2)", "round() takes 1 argument, got 2"),
        ("ceil()", "ceil() takes 1 argument, got 0"),
        ("max(a)", "max() takes at least 2 arguments, got 1"),
        ("True + 1", "plain numbers"),
        ("None", "plain numbers"),
        ("1j", "plain numbers"),
        ("...", "plain numbers"),
        ("1e999", "too large"),
        ("9" * 400, "too large"),
        ("1 / 0", "not finite"),
        ("", "empty"),
        ("a b", "cannot read the formula"),
        ("a; b", "only one expression"),
        ("(a", "never closed"),
        ("a)", "no matching"),
        ("ｍａｘ(1, 2)", "not allowed"),
        ("a\x00", "not allowed"),
        ("a, b", "not a tuple"),
    ],
)
def test_it_refuses_what_is_not_in_the_allow_list(source: str, message: str):
    with pytest.raises(FormulaError, match=None) as caught:
        parse_formula(source)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    "source",
    [
        "(" * 10_000 + "1" + ")" * 10_000,
        "a" * 10**6,
        "-" * 499 + "1",
        "+".join(["a"] * 240),
        "max(" * 40 + "1" + ", 1)" * 40,
        "9**9**9**9**9",
        "((" * 20 + "1" + "))" * 20,
    ],
)
def test_it_refuses_pathological_inputs_quickly(source: str):
    started = time.perf_counter()
    with pytest.raises(FormulaError):
        parse_formula(source)
    assert time.perf_counter() - started < 0.5  # generous for a busy CI box; a real hang takes minutes


def test_function_names_keywords_and_dunders_are_not_valid_quantity_names():
    assert is_valid_name("kv_bytes_per_token")
    for name in ("max", "log2", "lambda", "None", "__x", "2x", "a-b", "", 3):
        assert not is_valid_name(name)


_TOKENS = [
    "a", "b", "x_1", "max", "min", "ceil", "sqrt", "log", "exp", "round", "abs", "__import__", "os", "foo",
    "lambda", "if", "else", "and", "not", "for", "in", "True", "None", "0", "1", "2.5", "1e308", "9", "1e-9",
    "10", "-", "+", "*", "/", "**", "//", "%", "(", ")", ",", ".", "[", "]", "'", '"', ":", "=", "==", "<",
    "@", "^", "~", "...", "\n", " ", "\\", "#", "0x", "j", "_",
]  # fmt: skip


def _check_only_value_or_formula_error(source: str) -> None:
    try:
        formula = parse_formula(source)
    except FormulaError:
        return
    env = {name: np.array([0.0, 1.5, -2.0, 1e300]) for name in formula.names}
    try:
        value = formula.evaluate(env)
    except FormulaError:
        return
    assert np.all(np.isfinite(value))
    with contextlib.suppress(FormulaError):
        formula.dims(dict.fromkeys(formula.names, DIMENSIONLESS))


@settings(max_examples=500, deadline=200)
@given(st.text(max_size=80))
def test_random_text_only_ever_gives_a_value_or_a_formula_error(source: str):
    _check_only_value_or_formula_error(source)


@settings(max_examples=1500, deadline=200)
@given(st.lists(st.sampled_from(_TOKENS), max_size=30))
def test_random_token_soups_only_ever_give_a_value_or_a_formula_error(tokens: list[str]):
    _check_only_value_or_formula_error(" ".join(tokens))
    _check_only_value_or_formula_error("".join(tokens))


@settings(max_examples=300, deadline=200)
@given(st.integers(min_value=0, max_value=3000), st.sampled_from(["(", "-", "max(", "a**2**", "not "]))
def test_deep_repetition_is_refused_or_evaluated_without_crashing(count: int, piece: str):
    _check_only_value_or_formula_error(piece * count + "1")


def test_units_multiply_and_divide():
    assert dims_of("kv * tokens", kv="KiB/tok", tokens="tok") == "B"
    assert dims_of("users / (think + busy)", users="user", think="s", busy="s") == "user/s"


def test_sqrt_halves_the_exponents():
    assert dims_of("sqrt(area)", area="B^2") == "B"
    assert dims_of("sqrt(ckpt_cost * mtbf)", ckpt_cost="s", mtbf="s") == "s"
    assert dims_of("x ** 0.5", x="s") == "s^(1/2)"


def test_adding_or_comparing_incompatible_units_is_an_error():
    with pytest.raises(FormulaError, match="cannot add B and s"):
        dims_of("a + b", a="B", b="s")
    with pytest.raises(FormulaError, match="cannot subtract tok/s and req/s"):
        dims_of("a - b", a="tok/s", b="req/s")
    with pytest.raises(FormulaError, match="max\\(\\) needs arguments in compatible units"):
        dims_of("max(a, b)", a="B", b="s")


def test_a_literal_zero_fits_any_unit():
    assert dims_of("max(0, a - b)", a="B", b="GB") == "B"
    with pytest.raises(FormulaError, match="cannot add B and a plain number"):
        dims_of("a + 1", a="B")


def test_adding_a_count_to_a_plain_number_keeps_the_count():
    assert dims_of("a + b", a="", b="tok") == "tok"
    assert dims_of("min(a, b)", a="B/tok", b="B") == "B"


def test_log_and_exp_need_a_plain_number_or_a_count():
    assert dims_of("log2(jobs)", jobs="job") == "1"
    assert dims_of("exp(ratio)", ratio="") == "1"
    with pytest.raises(FormulaError, match="log\\(\\) needs a plain number or a count, got B"):
        dims_of("log(size)", size="B")


def test_rounding_functions_keep_the_unit():
    assert dims_of("ceil(n / b)", n="seq", b="seq/replica") == "replica"
    assert dims_of("abs(x)", x="s") == "s"
