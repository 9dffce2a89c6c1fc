"""A corpus of hostile formulas, names and units: each is refused quickly, with a clear message, and does
nothing on the way (no file written, no process started, no module imported)."""

import os
import subprocess
import sys
import time

import pytest

from grading.core.formula import FormulaError, parse_formula
from grading.core.model import ModelError, read_model
from grading.core.units import parse_unit

# A hang guard, not a speed target: evaluating 9**9**9 or expanding 10**9 characters would take minutes;
# refusing takes well under a millisecond. Loose enough that a loaded 2-core machine never trips it.
LIMIT_S = 2.0

# (formula, a word the refusal must contain)
HOSTILE_FORMULAS = [
    ("__import__('os').system('x')", "not allowed"),
    ("__import__(os)", "unknown function"),
    ("().__class__.__bases__[0].__subclasses__()", "not allowed"),
    ("a.__dict__", "not allowed"),
    ("a.__class__", "not allowed"),
    ("a.real", "attribute access"),
    ("__builtins__", "dunders"),
    ("(lambda: 1)()", "not allowed"),
    ("9**9**9", "exponent"),
    ("10**1000", "exponents are limited"),
    ("2**10**10", "exponent"),
    ("a ** b", "exponent"),
    ("a ** -11", "exponents are limited"),
    ("'a'*10**9", "strings are not allowed"),
    ("max(*[1]*10**8)", "not allowed"),
    ("(" * 10_000 + "1" + ")" * 10_000, "characters long"),
    ("(" * 33 + "a" + ")" * 33, "nest more than 32"),
    ("a+" * 50_000 + "a", "characters long"),
    ("1+" * 240 + "1", "more than 200 parts"),
    ("exp(1000)", "not finite"),
    ("1e308 * 10", "not finite"),
    ("9" * 400, "too large"),
    ("1e999", "too large"),
    ("log + 1", "log is a function"),
    ("max * 2", "max is a function"),
    ("ceil = 3", "assignments are not allowed"),
    ("f'{a}'", "strings are not allowed"),
    ('b"x"', "strings are not allowed"),
    ("[x for x in a]", "lists"),
    ("min(a, (x for x in a))", "GeneratorExp is not allowed"),
    ("{a: 1}", "dicts"),
    ("(y := 1)", "not allowed"),
    ("globals()", "unknown function"),
    ("open('x')", "strings are not allowed"),
    ("open(x)", "unknown function"),
    ("eval(a)", "unknown function"),
    ("getattr(a, b)", "unknown function"),
    ("breakpoint()", "unknown function"),
    ("max(a, b, key=c)", "not allowed"),
    ("a if b else c", "'if ... else' is not allowed"),
    ("not a", "only unary - and +"),
    ("~a", "not allowed"),
    ("a < b", "comparisons are not allowed"),
    ("a and b", "'and' / 'or' are not allowed"),
    ("a // b", "'//' is not allowed"),
    ("a % b", "'%' is not allowed"),
    ("a @ b", "'@' is not allowed"),
    ("a ^ b", "'^' is not allowed"),
    ("a + 1; import os", "only one expression"),
    ("\uff41 + 1", "not allowed"),  # fullwidth a
    ("\u0430 + 1", "not allowed"),  # Cyrillic a
    ("a\u200b+ b", "not allowed"),  # zero-width space
    ("a\x00 + 1", "not allowed"),
    ("True + 1", "only plain numbers"),
    ("None", "only plain numbers"),
    ("...", "only plain numbers"),
    ("1j * a", "only plain numbers"),
    ("min(a)", "at least 2 arguments"),
    ("sqrt(a, b)", "1 argument"),
    ("(a, b)", "not a tuple"),
    ("yield a", "cannot read the formula"),
    ("", "empty"),
]


def _input(name: str, value: float = 1.0, unit: str = "") -> dict:
    return {"name": name, "label": name, "value": value, "unit": unit, "range": [0, 1e6], "source": "test"}


# (model block, (quantity, a word the refusal must contain))
HOSTILE_MODELS = [
    ({"quantities": [_input("log")]}, ("log", "function or keyword")),
    ({"quantities": [_input("ceil")]}, ("ceil", "function or keyword")),
    ({"quantities": [_input("__class__")]}, ("__class__", "may not start with '__'")),
    ({"quantities": [_input("import")]}, ("import", "function or keyword")),
    ({"quantities": [_input("a.b")]}, ("a.b", "not a valid name")),
    ({"quantities": [_input("\uff41")]}, ("\uff41", "not a valid name")),
    ({"quantities": [_input("x", unit="__import__('os')")]}, ("x", "unit")),
    ({"quantities": [_input("x", unit="B**99999999")]}, ("x", "")),
    ({"quantities": [_input("x", unit="B" * 10_000)]}, ("x", "longer than")),
    (
        {
            "quantities": [
                _input("x", 10),
                {"name": "y", "label": "y", "unit": "", "formula": "exp(exp(exp(x)))"},
            ]
        },
        ("y", "overflow"),
    ),
    (
        {
            "quantities": [_input("q0", 10)]
            + [
                {"name": f"q{i}", "label": "q", "unit": "", "formula": f"q{i - 1} ** 10"}
                for i in range(1, 100)
            ]
        },
        ("q3", "overflow"),
    ),
    (
        {
            "quantities": [
                {"name": "a", "label": "a", "unit": "", "formula": "b"},
                {"name": "b", "label": "b", "unit": "", "formula": "a"},
            ]
        },
        ("a", "cycle"),
    ),
]


@pytest.fixture
def nothing_happens(tmp_path, monkeypatch):
    """Run in an empty folder with process starts recorded; afterwards, nothing was written or started and
    no new module was imported."""
    parse_unit("B")  # load the unit registry (it reads its definitions once) before watching
    started: list[object] = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "system", lambda *args: started.append(args))
    monkeypatch.setattr(os, "popen", lambda *args, **kwargs: started.append(args))
    monkeypatch.setattr(subprocess, "Popen", lambda *args, **kwargs: started.append(args))
    modules = set(sys.modules)
    yield
    assert list(tmp_path.iterdir()) == []
    assert started == []
    assert set(sys.modules) - modules == set()


@pytest.mark.parametrize(
    ("formula", "words"), HOSTILE_FORMULAS, ids=[repr(f[:40]) for f, _ in HOSTILE_FORMULAS]
)
def test_a_hostile_formula_is_refused_quickly_with_a_clear_message(formula, words, nothing_happens):
    start = time.perf_counter()
    with pytest.raises(FormulaError) as refused:
        parse_formula(formula)
    elapsed = time.perf_counter() - start
    assert elapsed < LIMIT_S, f"took {elapsed * 1000:.1f} ms"
    message = str(refused.value)
    assert words in message
    assert len(message) < 300  # a message, not an echo of a 100,000-character input


@pytest.mark.parametrize(
    ("block", "expected"), HOSTILE_MODELS, ids=[str(i) for i in range(len(HOSTILE_MODELS))]
)
def test_a_hostile_model_is_refused_quickly_naming_the_quantity(block, expected, nothing_happens):
    start = time.perf_counter()
    with pytest.raises(ModelError) as refused:
        read_model(block)
    elapsed = time.perf_counter() - start
    assert elapsed < LIMIT_S, f"took {elapsed * 1000:.1f} ms"
    name, words = expected
    assert any(field.startswith(name) and words in message for field, message in refused.value.problems), (
        refused.value.problems
    )


def test_the_corpus_is_large_enough():
    assert len(HOSTILE_FORMULAS) + len(HOSTILE_MODELS) >= 30
