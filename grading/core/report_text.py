"""Numbers and arithmetic written for people: "327,680 B", "9.83 GB", "1.7M tok/s", "8 × 80 GB/GPU = 640 GB".

Rules of `format_number`: whole numbers below a million keep every digit with thousands commas ("327,680");
other numbers of a thousand or more are rounded to whole units ("28,035"); a million and up use a scale word
with three significant figures ("1.33M", "70.6bn" — "bn", never "B", so it cannot be read as bytes); smaller
numbers get three significant figures ("13.5", "0.0404"); below 0.0001 and from 1e12 up, e-notation
("4.74e-4").
Rule of `format_quantity` for counts: a unit that is a countable word agrees in number with the value as
shown, and in English only exactly one is singular: "1 replica", "3 regions", "0 replicas", "0.5 replicas",
"1.5 GPUs", and a value shown as "1" (0.9996 rounds to it) reads "1 replica". A per-unit's first word agrees
the same way ("8 GPUs/node", "1 GPU/node", "0.5 failures/day"). Symbols never change: "GB", "s", "USD", and
the clipped count symbols "tok", "req", "seq", "conn", "ckpt" ("2,000 tok", "162 req"), as "tok/s" is written.
Every function is pure and deterministic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from grading.core.units import COUNT_UNITS, plural

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def format_number(value: float) -> str:
    """A number as a person writes it (see the module docstring for the rules)."""
    if value != value:
        return "not a number"
    if value in (math.inf, -math.inf):
        return "∞" if value > 0 else "-∞"
    size = abs(value)
    if size == 0:
        return "0"
    if size < 1e-4:
        return _e_notation(value)
    if size < 1000:
        return f"{int(value):,}" if value == int(value) else _trim(f"{value:.3g}")
    if size < 999_999.5:
        return f"{round(value):,}"
    rounded = float(f"{value:.3g}")  # three significant figures, before choosing the scale word
    if abs(rounded) >= 1e12:
        return _e_notation(value)
    scale, word = (1e9, "bn") if abs(rounded) >= 1e9 else (1e6, "M")
    return _trim(f"{rounded / scale:.3g}") + word


def _e_notation(value: float) -> str:
    mantissa, _, exponent = f"{value:.3g}".partition("e")
    return f"{_trim(mantissa)}e{int(exponent or 0)}"


def _trim(text: str) -> str:
    """Drop trailing zeros after a decimal point: "9.80" -> "9.8", "2.00" -> "2"."""
    if "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")
    return text


def format_unit(unit: str) -> str:
    """A unit as written in the question, with `*` shown as a middle dot: "TB/(s·GPU)"."""
    return unit.replace("**", "^").replace("*", "·")


# Count symbols written as clipped words stay as they are, like "GB" or "s" (module docstring).
_SYMBOLS = frozenset({"tok", "toks", "req", "reqs", "seq", "seqs", "conn", "conns", "ckpt", "ckpts"})
_WORDS = ("second", "minute", "hour", "day", "week", "month", "year", "byte", "bit", "watt", "dollar")


def _word_forms() -> dict[str, tuple[str, str]]:
    """Each countable unit word, singular or plural, to its (singular, plural): from the count units' names
    and aliases (the units registry), where both forms are there, and the spelled-out time and size words."""
    forms: dict[str, tuple[str, str]] = {}
    for symbol, aliases in COUNT_UNITS:
        names = {symbol, *aliases}
        for name in names - _SYMBOLS:
            many = plural(name)
            if many in names:
                forms[name] = forms[many] = (name, many)
    for word in _WORDS:
        forms[word] = forms[word + "s"] = (word, word + "s")
    return forms


_WORD_FORMS = _word_forms()
_LEADING_WORD = re.compile(r"[A-Za-z]+(?=/|$)")


def unit_in_number(unit: str, number: str) -> str:
    """`unit` agreeing with a value shown as `number` (module docstring): its leading countable word singular
    for exactly "1", plural otherwise; "replica" with "3" is "replicas", "GPU/node" with "8" "GPUs/node"."""
    match = _LEADING_WORD.match(unit)
    forms = _WORD_FORMS.get(match.group(0)) if match else None
    if match is None or forms is None:
        return unit
    singular, plural = forms
    return (singular if number.lstrip("-") == "1" else plural) + unit[match.end() :]


def format_quantity(value: float, unit: str) -> str:
    """A value in `unit` with its unit: "9.83 GB", "162 req", "3 regions", "1 replica", "0.7" (a plain number
    has no unit), "0.5/s" for a unit "1/s" (not "0.5 1/s", read as a one); the no-limit value (+inf) is "no
    limit", in any unit. Counts agree in number (module docstring)."""
    if value == math.inf:
        return "no limit"
    number = format_number(value)
    if unit.startswith("1/"):
        return f"{number}{format_unit(unit[1:])}"
    return f"{number} {format_unit(unit_in_number(unit, number))}" if unit else number


def format_percent(fraction: float) -> str:
    """A fraction as a percentage: 0.123 -> "12%", 0.024 -> "2.4%", 0.0004 -> "0.04%"."""
    percent = abs(fraction) * 100
    return (f"{round(percent):,}" if percent >= 10 else _trim(f"{percent:.2g}")) + "%"


@dataclass(frozen=True)
class ArithmeticTemplate:
    """A formula prepared for display: literal text between the names it reads ("×" for "*")."""

    parts: tuple[str, ...]  # literal, name, literal, name, ..., literal

    def render(self, shown: Callable[[str], str]) -> str:
        """The formula with each name replaced by `shown(name)`."""
        pieces = []
        for index, part in enumerate(self.parts):
            if index % 2:
                pieces.append(operand(shown(part), self.parts[index - 1], self.parts[index + 1]))
            else:
                pieces.append(part)
        return "".join(pieces)


def operand(shown: str, before: str, after: str) -> str:
    """A value as it sits between the formula's text before and after it: bracketed as the base of a power,
    "(32,760 tok)^2", not "32,760 tok^2" (which squares the unit alone), and as a divisor in a unit 1/X,
    "/ (20/day)", not "/ 20/day"; a plain number, or a value elsewhere, is left as it is."""
    if after.startswith("^") and (" " in shown or shown.startswith("-")):
        return f"({shown})"
    if before.rstrip().endswith("/") and "/" in shown and " " not in shown:
        return f"({shown})"
    return shown


def arithmetic_template(source: str, names: Mapping[str, object] | frozenset[str]) -> ArithmeticTemplate:
    """Split a formula's source into literal text and the names it reads (function names stay text)."""
    parts: list[str] = []
    last = 0
    for match in _NAME.finditer(source):
        if match.group(0) not in names:
            continue
        parts.append(_pretty_operators(source[last : match.start()]))
        parts.append(match.group(0))
        last = match.end()
    parts.append(_pretty_operators(source[last:]))
    return ArithmeticTemplate(tuple(parts))


_POWER = re.compile(r"\s*\*\*\s*")


def _pretty_operators(text: str) -> str:
    """`**` as "^" written close ("2^2", as units are: "tok^2"), `*` as "×"."""
    return _POWER.sub("^", text).replace("*", "×")
