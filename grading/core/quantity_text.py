"""Read a quantity as a person types it: "320 KB", "1.7M tok/s", "~10 GB", "$2/h", "175B params", "45%".

`parse_quantity(text)` gives the magnitude in base units and the dimensions of the unit it read (None when
the text is a bare number, so the caller applies the asked quantity's unit), or a ParseFailure with a message
a person can act on; it never raises. Results are cached per text, and pint is consulted once per unit string.

Rules, in order:
- Leading "~", "≈", "about", "approx.", "around", "roughly" (and a trailing "or so", "-ish") mark the value
  as approximate; leading "<", "≤", "under", "at most", ">", "at least", ... mark it as a bound. Both are
  noted and the number is read as it is.
- A number: digits with "," only between groups of three ("2,000"; "2,5" is refused), "_" separators, a
  decimal point, an exponent ("1.7e6"), or "× 10^6". A leading "$" means USD.
- A scale word right after the number: k/K/thousand = 1e3, M/mn/million = 1e6, B/bn/billion = 1e9,
  T/trillion = 1e12, when it ends there ("10k", "1.7M tok/s", "2 T"). A bare "B" is bytes ("175B", "175 B",
  "9.8e9 B"); "B" is a billion only before a count unit ("175B params") or after "$" ("$1.5B").
- The rest is a unit over our registry (grading/core/units.py): "KiB/tok", "Gb/s" (bits), "tokens per second",
  "GPU-hours", "%" (0.01), "x" (a plain ratio).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from grading.core.units import (
    BIT_UNIT_NAMES,
    DIMENSIONLESS,
    Dims,
    Unit,
    UnitError,
    compatible,
    format_dims,
    is_count_word,
    normalize_unit_text,
    parse_unit,
)

MAX_TEXT_CHARS = 200

_SPACES = {"\u00a0": " ", "\u202f": " ", "\u2009": " ", "−": "-", "–": "-"}
_APPROXIMATE_PREFIX = re.compile(
    r"(?:~=?|≈|≃|∼|about|approx(?:\.|imately)?|around|roughly|circa|ca\.|some)\s*", re.IGNORECASE
)
_BOUND_PREFIX = re.compile(
    r"(?:<=|>=|≤|≥|<|>|under|over|below|above|at\s+most|at\s+least|up\s+to|less\s+than|more\s+than)\s*",
    re.IGNORECASE,
)
_APPROXIMATE_SUFFIX = re.compile(
    r"\s*(?:\(approx(?:\.|imately)?\)|approx(?:\.|imately)?|or\s+so|-?ish)\Z", re.I
)
_NUMBER = re.compile(
    r"""(?P<sign>[+-])?\s*
    (?P<digits>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d*)?|\d[\d_]*(?:\.\d*)?|\.\d+)
    (?:[eE](?P<exponent>[+-]?\d{1,3}))?
    (?:\s*[x×*·]\s*10\s*(?:\^|\*\*)\s*(?P<power_of_ten>[+-]?\d{1,3}))?""",
    re.VERBOSE,
)
_EUROPEAN_DECIMAL = re.compile(r",\d")
_SCALE = re.compile(r"(?P<word>(?i:thousand|million|billion|trillion)|bn|mn|k|K|M|B|T)(?![A-Za-z])")
_SCALES = {
    "k": ("thousand", 1e3),
    "K": ("thousand", 1e3),
    "thousand": ("thousand", 1e3),
    "M": ("million", 1e6),
    "mn": ("million", 1e6),
    "million": ("million", 1e6),
    "B": ("billion", 1e9),
    "bn": ("billion", 1e9),
    "billion": ("billion", 1e9),
    "T": ("trillion", 1e12),
    "trillion": ("trillion", 1e12),
}
_RATIO_WORDS = frozenset({"x", "×", "times"})
_FIRST_WORD = re.compile(r"[A-Za-z]+")
_UNIT_START = re.compile(r"[A-Za-z%/(µμ$]")
_EXPONENTS = re.compile(r"(?:\*\*|\^)\s*[+-]?\d+(?:\.5)?")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class ParsedQuantity:
    """What was read: the value in base units, the unit's dimensions (None for a bare number), the unit as
    read (None for a bare number), and a note on how it was read ("approximate", "bits", ...)."""

    base_value: float
    dims: Dims | None
    unit: str | None = None
    note: str = ""
    approximate: bool = False


@dataclass(frozen=True)
class ParseFailure:
    """Text that could not be read, with a message for the person who typed it."""

    text: str
    message: str


@functools.lru_cache(maxsize=16384)
def parse_quantity(text: str) -> ParsedQuantity | ParseFailure:
    """Read `text` as a number with an optional unit; never raises."""
    if not isinstance(text, str):
        return ParseFailure(str(text), "expected text")
    if len(text) > MAX_TEXT_CHARS:
        return ParseFailure(text[:MAX_TEXT_CHARS], f"that is longer than {MAX_TEXT_CHARS} characters")
    cleaned = text
    for old, new in _SPACES.items():
        cleaned = cleaned.replace(old, new)
    cleaned = cleaned.strip()
    if not cleaned:
        return ParseFailure(text, "nothing was typed; enter a number, like 320 KB")
    notes: list[str] = []
    cleaned, approximate, bound = _strip_qualifiers(cleaned)
    if approximate:
        notes.append("approximate")
    if bound:
        notes.append(f"read {bound!r} as the value itself")
    money = cleaned.startswith("$")
    if money:
        cleaned = cleaned[1:].lstrip()
    number = _NUMBER.match(cleaned)
    if not number:
        return ParseFailure(text, f"no number at the start of {text.strip()!r}; write digits, like 10 pods")
    rest = cleaned[number.end() :].strip()
    if _EUROPEAN_DECIMAL.match(rest) or (rest.startswith(",") and rest[1:2].isdigit()):
        return ParseFailure(text, "use a point for decimals (2.5) and commas only between thousands (2,000)")
    magnitude = _magnitude(number)
    if magnitude is None:
        return ParseFailure(text, "that number is too large")
    scale, rest, scale_word = _scale(rest, money)
    if scale_word:
        notes.append(f"{scale_word!r} read as {_SCALES[scale_word][0]}")
    if money:
        rest = "USD" if not rest else ("USD" + rest if rest.startswith("/") else f"USD {rest}")
    return _with_unit(text, magnitude * scale, rest, notes, approximate)


def _strip_qualifiers(text: str) -> tuple[str, bool, str]:
    approximate, bound = False, ""
    match = _APPROXIMATE_PREFIX.match(text)
    if match and match.end() < len(text) and _starts_a_number(text[match.end() :]):
        approximate, text = True, text[match.end() :]
    match = _BOUND_PREFIX.match(text)
    if match and match.end() < len(text) and _starts_a_number(text[match.end() :]):
        bound, text = match.group(0).strip(), text[match.end() :]
    suffix = _APPROXIMATE_SUFFIX.search(text)
    if suffix and suffix.start() > 0:
        approximate, text = True, text[: suffix.start()].rstrip()
    return text, approximate, bound


def _starts_a_number(text: str) -> bool:
    return bool(re.match(r"\s*[$+-]?\s*[\d.]", text))


def _magnitude(number: re.Match[str]) -> float | None:
    digits = number.group("digits").replace(",", "").replace("_", "")
    exponent = int(number.group("exponent") or 0) + int(number.group("power_of_ten") or 0)
    try:
        value = float(digits) * 10.0**exponent
    except OverflowError:
        return None
    if not math.isfinite(value):
        return None
    return -value if number.group("sign") == "-" else value


def _scale(rest: str, money: bool) -> tuple[float, str, str]:
    """The scale factor of a word right after the number, the text after it, and the word as a key of _SCALES
    (or "" if none)."""
    match = _SCALE.match(rest)
    if not match:
        return 1.0, rest, ""
    word, after = match.group("word"), rest[match.end() :].strip()
    if word == "B" and not money:
        first_word = _FIRST_WORD.match(after)
        if not (first_word and is_count_word(first_word.group(0))):
            return 1.0, rest, ""  # "175B", "175 B/s": bytes
    key = word.lower() if len(word) > 2 else word
    return _SCALES[key][1], after, key


def _with_unit(
    text: str, value: float, unit_text: str, notes: list[str], approximate: bool
) -> ParsedQuantity | ParseFailure:
    if not math.isfinite(value):
        return ParseFailure(text, "that number is too large")
    if not unit_text:
        return ParsedQuantity(value, None, None, "; ".join(notes), approximate)
    if unit_text in _RATIO_WORDS:
        notes.append("a ratio")
        return ParsedQuantity(value, DIMENSIONLESS, unit_text, "; ".join(notes), approximate)
    if not _UNIT_START.match(unit_text) or _DIGIT.search(_EXPONENTS.sub("", unit_text)):
        return ParseFailure(text, f"cannot read {unit_text!r} after the number; write one number and a unit")
    try:
        unit = parse_unit(unit_text)
    except UnitError as error:
        return ParseFailure(text, f"cannot read the unit: {error}")
    if _uses_bits(unit_text):
        notes.append("bits, not bytes (8 bits = 1 B)")
    if "percent" in normalize_unit_text(unit_text):
        notes.append("a percentage")
    if not math.isfinite(value * unit.factor):
        return ParseFailure(text, "that number is too large")
    return ParsedQuantity(value * unit.factor, unit.dims, unit_text, "; ".join(notes), approximate)


@functools.lru_cache(maxsize=1024)
def _uses_bits(unit_text: str) -> bool:
    return any(word in BIT_UNIT_NAMES for word in re.findall(r"[A-Za-z]+", normalize_unit_text(unit_text)))


def read_value(text: str, unit: str | Unit) -> float | ParseFailure:
    """`text` as a base-unit value for a quantity shown in `unit`: a bare number is taken in `unit`; a number
    with a unit must be compatible with it (count rule). Never raises for bad text."""
    parsed = parse_quantity(text)
    if isinstance(parsed, ParseFailure):
        return parsed
    target = unit if isinstance(unit, Unit) else parse_unit(unit)
    if parsed.dims is None:
        return parsed.base_value * target.factor
    if not compatible(parsed.dims, target.dims):
        asked = target.text or "a plain number"
        return ParseFailure(text, f"{text.strip()!r} is in {_describe(parsed.dims)}; this asks for {asked}")
    return parsed.base_value


def _describe(dims: Dims) -> str:
    return "a plain number" if dims.is_dimensionless else format_dims(dims)
