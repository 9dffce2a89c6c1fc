"""Line verdicts: the tolerance checks, the unit slips we recognise, and the messages a person reads.

A line gets one verdict:

- `correct`: within tolerance of what the candidate's own inputs imply (an assumption: inside its range);
- `arithmetic_slip`: their inputs imply another value (the message shows the arithmetic);
- `unit_error`: the wrong dimension, or off by exactly a unit factor (1,000, 1,024, 8, 60, ...), named;
- `out_of_range`: an assumption outside its plausible range (with the range and its source);
- `far_from_reference`: consistent with their inputs, beyond the band from the reference, and driven by an
  assumption no other line was marked down for (named);
- `missing`, `unparsed`.

Checks: `relative` lines accept |given − expected| ≤ tolerance × |expected|; `count` lines accept the
neighbouring whole numbers (|given − expected| ≤ 1; a fraction only within 8× of the expected value);
`magnitude` lines accept a factor of `tolerance` either way.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from grading.core.report_text import format_number
from grading.core.units import Dims

CORRECT = "correct"
ARITHMETIC_SLIP = "arithmetic_slip"
UNIT_ERROR = "unit_error"
OUT_OF_RANGE = "out_of_range"
FAR_FROM_REFERENCE = "far_from_reference"
MISSING = "missing"
UNPARSED = "unparsed"
VERDICTS = (CORRECT, ARITHMETIC_SLIP, UNIT_ERROR, OUT_OF_RANGE, FAR_FROM_REFERENCE, MISSING, UNPARSED)

# How a verdict is shown: the CSS classes verdict-correct, verdict-warn and verdict-bad.
TONES = {
    CORRECT: "correct",
    FAR_FROM_REFERENCE: "warn",
    OUT_OF_RANGE: "warn",
    UNIT_ERROR: "bad",
    ARITHMETIC_SLIP: "bad",
    MISSING: "bad",
    UNPARSED: "bad",
}

LABELS = {
    CORRECT: "Correct",
    ARITHMETIC_SLIP: "Arithmetic slip",
    UNIT_ERROR: "Unit error",
    OUT_OF_RANGE: "Out of range",
    FAR_FROM_REFERENCE: "Far from the reference",
    MISSING: "Missing",
    UNPARSED: "Not readable",
}

# Say how close: a pass names its band. Inside INNER_BAND of the value a line's own numbers imply, a pass is
# exact; a line whose band is looser (a relative tolerance above it, or an order-of-magnitude check) passes
# further out in its loose band, labelled as such and credited LOOSE_CREDIT of a full pass.
INNER_BAND = 0.1
LOOSE_CREDIT = {"relative": 0.8, "magnitude": 0.6}

COUNT_SLACK = 1.0
COUNT_FRACTION_FACTOR = 8.0
_RELATIVE_EPSILON = 1e-9


def within(check: str, tolerance: float | None, given: float, expected: float) -> bool:
    """True when `given` is accepted for `expected` under the line's check and tolerance."""
    if check == "count":
        if abs(given - expected) > COUNT_SLACK + _RELATIVE_EPSILON * abs(expected):
            return False
        if given == round(given) or given == 0 or expected == 0:
            return True  # a whole neighbour: rounded up or down
        # A fraction within one of a small count is only accepted near it ("0.001" is not "1" rounded).
        return 1 / COUNT_FRACTION_FACTOR < given / expected < COUNT_FRACTION_FACTOR
    if check == "magnitude":
        factor = tolerance or 3.0
        if expected == 0 or given == 0:
            return given == expected
        if (given > 0) != (expected > 0):
            return False
        ratio = given / expected
        return 1 / factor - _RELATIVE_EPSILON <= ratio <= factor + _RELATIVE_EPSILON
    band = 0.05 if tolerance is None else tolerance
    return abs(given - expected) <= (band + _RELATIVE_EPSILON) * abs(expected)


@functools.lru_cache(maxsize=256)  # the question's bands, formatted for every line of every grading
def band_text(check: str, tolerance: float | None) -> str:
    """A line's band as people read it: "within 5%", "whole number, ±1", "within 3×"."""
    if check == "count":
        return "whole number, ±1"
    if check == "magnitude":
        return f"within {format_number(tolerance or 3.0)}×"
    return f"within {format_number(100 * (0.05 if tolerance is None else tolerance))}%"


def pass_band(check: str, tolerance: float | None, given: float, expected: float) -> tuple[str, float]:
    """The label of a pass and the share of full credit it earns: "Correct (within 5%)" and 1, or
    "Right order of magnitude (within 3×)" and LOOSE_CREDIT["magnitude"] when it is only in the loose band."""
    band = band_text(check, tolerance)
    loose = check == "magnitude" or (check == "relative" and (tolerance or 0.05) > INNER_BAND)
    if not loose or within("relative", INNER_BAND, given, expected):
        inner = band if not loose else band_text("relative", INNER_BAND)
        return f"Correct ({inner})", 1.0
    if check == "magnitude":
        return f"Right order of magnitude ({band})", LOOSE_CREDIT["magnitude"]
    return f"Correct in the loose band ({band})", LOOSE_CREDIT["relative"]


@dataclass(frozen=True, slots=True)
class UnitFactor:
    """A factor people slip by, what it usually means, and its family (metric, binary, bits, time...)."""

    factor: float
    meaning: str
    family: str = "metric"


_METRIC = (
    UnitFactor(1e3, "one metric prefix or a thousand (KB and MB, ms and s, k and M)"),
    UnitFactor(1e6, "two metric prefixes or a million (KB and GB, M and T)"),
    UnitFactor(1e9, "three metric prefixes or a billion"),
    UnitFactor(1e12, "four metric prefixes or a trillion"),
)
_BYTES = (
    UnitFactor(8, "bits versus bytes", "bits"),
    UnitFactor(8e3, "bits versus bytes and one metric prefix", "bits"),
    UnitFactor(8e6, "bits versus bytes and two metric prefixes", "bits"),
    UnitFactor(8e9, "bits versus bytes and three metric prefixes", "bits"),
    UnitFactor(1024, "one binary prefix (KiB and MiB)", "binary"),
    UnitFactor(1024**2, "two binary prefixes (KiB and GiB)", "binary"),
    UnitFactor(1024**3, "three binary prefixes (KiB and TiB)", "binary"),
    UnitFactor(1.024, "KB (1,000 B) versus KiB (1,024 B)", "binary"),
    UnitFactor(1.024**2, "MB versus MiB", "binary"),
    UnitFactor(1.024**3, "GB versus GiB", "binary"),
    UnitFactor(1.024**4, "TB versus TiB", "binary"),
)
_TIME = (
    UnitFactor(60, "seconds versus minutes (or minutes versus hours)", "time"),
    UnitFactor(3600, "seconds versus hours", "time"),
    UnitFactor(86400, "seconds versus days", "time"),
    UnitFactor(24, "hours versus days", "time"),
    UnitFactor(7, "days versus weeks", "time"),
    UnitFactor(30, "days versus months (a day's figure on a monthly line, or the reverse)", "time"),
    UnitFactor(12, "months versus years", "time"),
    UnitFactor(365, "days versus years", "time"),
)
_PLAIN = (UnitFactor(100, "a percentage written as a fraction, or the reverse", "percent"),)
_SMALL_FACTOR = 1.2
MAX_FACTOR_BAND = 0.1
EXACT_FACTOR_BAND = 0.02  # an assumption's unit slip is named only this close to the real factor
_TYPED_PREFIX = re.compile(
    r"\d\s*(?:[kKMGTP](?:i?[Bb]|bit|FLOPS?|W|bps)?|[EZY](?:i?B|FLOPS?)|[munµ]s|thousand|million|billion|"
    r"trillion|bn|mn|(?i:kilo|mega|giga|tera|peta|exa|zetta|yotta)[A-Za-z]+)(?![A-Za-z])"
)
_SMALL_FACTOR_BAND = 0.01
_BINARY_NOTE_BAND = 0.003


def unit_factors(
    dims: Dims, upstream: tuple[Dims, ...] = (), *, timed: bool = False
) -> tuple[UnitFactor, ...]:
    """The unit slips that make sense for a quantity of dimensions `dims` computed from quantities of
    dimensions `upstream`: bits and binary prefixes only where bytes are involved (a transfer time slips by 8
    when a link's bits are read as bytes), KB versus KiB only for a size itself, minutes only where time is
    (`timed`: a time unit is written in the line or its chain even where it cancels, GPU-hours a day), percent
    only for a plain number."""
    symbols = frozenset(symbol for each in (dims, *upstream) for symbol, _ in each.exponents)
    if timed:
        symbols |= {"s"}
    own_bytes = any(symbol == "B" for symbol, _ in dims.exponents)
    return _unit_factors(symbols, own_bytes, dims.is_dimensionless)


@functools.lru_cache(maxsize=256)
def _unit_factors(symbols: frozenset[str], own_bytes: bool, plain: bool) -> tuple[UnitFactor, ...]:
    factors = list(_METRIC)
    if "B" in symbols:  # bits wherever bytes are involved; binary prefixes only on a line in bytes
        factors += [factor for factor in _BYTES if own_bytes or factor.family == "bits"]
    if "s" in symbols:
        factors += _TIME
    if plain:
        factors += _PLAIN
    return tuple(factors)


def typed_prefix(text: str) -> bool:
    """Whether `text` carries a metric prefix or a scale word after its number ("30M tokens", "4 GB/s"),
    which a slip by a thousand can be in whatever the line's unit."""
    return _TYPED_PREFIX.search(text) is not None


def exact_unit_factor(ratio: float, factors: tuple[UnitFactor, ...]) -> UnitFactor | None:
    """The unit factor `ratio` is exactly (either way), as between two units; None if none is."""
    if not ratio > 0 or not math.isfinite(ratio):
        return None
    size = ratio if ratio >= 1 else 1 / ratio
    return next((factor for factor in factors if math.isclose(size, factor.factor, rel_tol=1e-6)), None)


def binary_prefix_slip(ratio: float) -> UnitFactor | None:
    """The KB-versus-KiB family factor `ratio` sits on (within 0.3%), even inside the tolerance."""
    if not ratio > 0:
        return None
    size = ratio if ratio >= 1 else 1 / ratio
    for factor in _BYTES:
        if factor.factor < _SMALL_FACTOR and abs(size / factor.factor - 1) <= _BINARY_NOTE_BAND:
            return factor
    return None


def factor_band(check: str, tolerance: float | None) -> float:
    """How close to an exact unit factor a ratio must be to count as that slip: the line's own tolerance,
    at most 10%, so the factor named is the real one (7× off is not "8×: bits versus bytes")."""
    if check in ("count", "magnitude"):
        return MAX_FACTOR_BAND
    return min(max(tolerance or 0.05, 0.01), MAX_FACTOR_BAND)


def match_unit_factor(
    ratio: float, factors: tuple[UnitFactor, ...], band: float, accepted: float
) -> tuple[UnitFactor, bool] | None:
    """The unit factor `ratio` (given / expected) sits on, and whether the given value is too large; None if
    none does. Factors no larger than `accepted` (what the tolerance already accepts) are skipped."""
    if not ratio > 0 or not math.isfinite(ratio):
        return None
    log_ratio = math.log(ratio)
    best: tuple[float, UnitFactor, bool] | None = None
    for candidate in factors:
        if candidate.factor <= accepted:
            continue
        allowed = math.log1p(_SMALL_FACTOR_BAND if candidate.factor < _SMALL_FACTOR else band)
        distance = abs(abs(log_ratio) - math.log(candidate.factor))
        if distance <= allowed and (best is None or distance < best[0]):
            best = (distance, candidate, log_ratio > 0)
    return None if best is None else (best[1], best[2])


def accepted_factor(check: str, tolerance: float | None) -> float:
    """The largest ratio the line's own tolerance accepts (so a unit factor must exceed it)."""
    if check == "magnitude":
        return tolerance or 3.0
    if check == "count":
        return 1.0
    return 1 + (0.05 if tolerance is None else tolerance)


def format_factor(factor: float) -> str:
    """A unit factor as people know it: "8", "1,000", "1.024", "1.074"."""
    return format_number(factor) if factor >= 10 or factor == int(factor) else f"{factor:.4g}"


def power_of_ten(ratio: float) -> int:
    """k when `ratio` is within 10% of 10**k (k ≠ 0), else 0: a slipped decimal point."""
    if not ratio > 0 or not math.isfinite(ratio):
        return 0
    exponent = round(math.log10(ratio))
    if exponent == 0 or abs(ratio / 10.0**exponent - 1) > 0.1:
        return 0
    return exponent


# Messages. Numbers arrive formatted (grading.core.report_text); each function returns one or two sentences.


CORRECT_MESSAGE = "Correct."
UNBOUNDED_MESSAGE = "Correct: from your numbers it has no finite value (it grows without bound)."


def in_range_message(low: str, high: str, source: str, *, fixed: bool = False) -> str:
    text = f"The question fixes this at {high}" if fixed else f"Within the plausible range {low} to {high}"
    return text + (f" ({source})." if source else ".")


def slip_message(arithmetic: str, given: str, value: float, implied: float, check: str = "relative") -> str:
    return f"{arithmetic}; you wrote {given} — {slip_hint(value, implied, check)}."


def range_slip_message(
    arithmetic: str,
    given: str,
    ends: tuple[tuple[str, float], tuple[str, float]],
    implied: float,
    check: str,
    tolerance: float | None,
) -> str:
    """A range ("2-2.5 s") that misses the band: which end or ends fall outside it and how far, each end
    said as a slip of its own; an end inside the band is named as inside."""
    outside = [not within(check, tolerance, value, implied) for _, value in ends]
    band = band_text(check, tolerance)
    if all(outside):
        said = "; ".join(f"{shown} {slip_hint(value, implied, check)}" for shown, value in ends)
        return f"{arithmetic}; you wrote {given}: both ends are outside the band ({band}): {said}."
    index = outside.index(True)
    (shown, value), (other, _) = ends[index], ends[1 - index]
    end, other_end = ("low end", "high end") if index == 0 else ("high end", "low end")
    return (
        f"{arithmetic}; you wrote {given}: its {end}, {shown}, is outside the band ({band}), "
        f"{slip_hint(value, implied, check)}; its {other_end}, {other}, is inside."
    )


def range_outside_note(ends: tuple[tuple[str, float], tuple[str, float]], low: float, high: float) -> str:
    """For an assumption typed as a range that leaves its plausible range: which end leaves it."""
    outside = [not low <= value <= high for _, value in ends]
    if all(outside) or not any(outside):
        return ""
    index = outside.index(True)
    return f"Its {'low' if index == 0 else 'high'} end, {ends[index][0]}, is the one outside."


def slip_hint(value: float, implied: float, check: str = "relative") -> str:
    """What kind of slip: the sign, a power of ten, a factor, or a percentage off; on a count a few off is
    said as a count ("2 too low (whole number, ±1)"), not as "too low by 0.4%"."""
    if implied == 0 or (value > 0) != (implied > 0):
        return "check the sign" if value and implied else f"{'too high' if value > implied else 'too low'}"
    ratio = float(value / implied)
    if ratio == 0 or not math.isfinite(ratio) or not math.isfinite(1 / ratio):
        return "far too high" if abs(value) > abs(implied) else "far too low"  # a ratio beyond ±1e308
    if power_of_ten(ratio):
        return "check the power of ten"
    if check == "count" and 0.5 < ratio < 2:
        direction = "too high" if value > implied else "too low"
        return f"{format_number(abs(value - implied))} {direction} ({band_text('count', None)})"
    if ratio >= 2:
        return f"{format_number(ratio)}× too high"
    if ratio <= 0.5:
        return f"{format_number(1 / ratio)}× too low"
    off = abs(ratio - 1) * 100
    return (
        f"{'too high' if ratio > 1 else 'too low'} by {off:.0f}%"
        if off >= 10
        else (f"{'too high' if ratio > 1 else 'too low'} by {off:.1f}%")
    )


def unit_factor_message(
    arithmetic: str, given: str, factor: UnitFactor, too_large: bool, factor_text: str
) -> str:
    direction = "too large" if too_large else "too small"
    return f"{arithmetic}; you wrote {given}, {factor_text}× {direction}: {factor.meaning}."


def term_factor_message(
    arithmetic: str,
    given: str,
    term: str,
    term_given: str,
    term_moved: str,
    factor: UnitFactor,
    too_large: bool,
    factor_text: str,
) -> str:
    """A unit factor inside one term of the line's sum: "... your weight load time 8× too large"."""
    direction = "too large" if too_large else "too small"
    return (
        f"{arithmetic}; you wrote {given}, which is that with your {term} {factor_text}× {direction} "
        f"({term_moved} instead of {term_given}): {factor.meaning}."
    )


def wrong_per_message(arithmetic: str, given: str, per: str, as_total: str | None) -> str:
    """A figure for all of them labelled per GPU (per node...): the right working with the wrong unit."""
    if as_total is not None:
        return (
            f"{arithmetic}; you wrote {given}: per {per}, that is {as_total} for all of them; the figure is "
            f"right for all of them together, not per {per}."
        )
    return f"{arithmetic}; you wrote {given}: the figure is right for the whole line, not per {per}."


def input_wrong_per_message(given: str, label: str, per: str) -> str:
    """An assumption for the whole of something labelled per GPU (per node...): the wrong unit."""
    return (
        f"You wrote {given}: {_the(label)} is one figure for the whole, not per {per}; per {per} it claims "
        f"that much for each {per}."
    )


def other_per_message(arithmetic: str, given: str, per: str, converted: str) -> str:
    """The line's own figure labelled per another count ("3.9 GB per node" for 3.9 GB a GPU)."""
    return (
        f"{arithmetic}; you wrote {given}: per {per}, that is {converted}; the figure is right as the "
        f"line's own, not per {per}."
    )


def inverted_message(arithmetic: str, given: str) -> str:
    """A plain ratio written upside down: a slip of method, whatever factor it makes."""
    return f"{arithmetic}; you wrote {given}, which is that ratio upside down: an arithmetic slip."


def left_out_message(arithmetic: str, given: str, term: str, term_shown: str) -> str:
    """A sum with one of its terms left out: a slip of method, whatever factor it makes."""
    without = f"which is that without your {term} ({term_shown})"
    return f"{arithmetic}; you wrote {given}, {without}: an arithmetic slip."


def one_instead_of_message(
    arithmetic: str, given: str, factor_text: str, too_large: bool, counted: str
) -> str:
    """A factor that is a count in their own chain (8 GPUs, 8 links) taken as one: an arithmetic slip."""
    direction = "too large" if too_large else "too small"
    return (
        f"{arithmetic}; you wrote {given}, {factor_text}× {direction}: as if your {counted} were 1 "
        f"instead of {factor_text}, an arithmetic slip rather than a unit error."
    )


def input_unit_factor_message(
    given: str,
    corrected: str,
    factor: UnitFactor,
    too_large: bool,
    factor_text: str,
    low: str,
    high: str,
    *,
    fixed: bool = False,
) -> str:
    direction = "too large" if too_large else "too small"
    where = f"the question fixes it at {high}" if fixed else f"outside {low} to {high}"
    return f"You wrote {given}, {where}; it is {factor_text}× {direction} for {corrected}: {factor.meaning}."


def used_as_typed_message(given: str, read: str, used: str, factor: UnitFactor) -> str:
    """An assumption read inside its range whose later lines use the number as typed instead."""
    return f"You wrote {given}, which is {read}; your later lines use {used}: {factor.meaning}."


def out_of_range_message(
    given: str, low: str, high: str, source: str, hint: str = "", *, fixed: bool = False, label: str = ""
) -> str:
    if fixed:
        text = f"The question fixes {_the(label) if label else 'this'} at {high}" + (
            f" ({source})" if source else ""
        )
        text += f"; you wrote {given}."
    else:
        text = f"{given} is outside the plausible range {low} to {high}"
        text += f" ({source})." if source else "."
    return text + (f" {hint}" if hint else "")


_DETERMINERS = frozenset({"a", "an", "the", "one", "each", "every", "our", "your", "its", "their"})


def _the(label: str) -> str:
    """A label as the object of a sentence: "the link between the servers"; "a replica's batch" stays."""
    return label if label.split(" ", 1)[0].lower() in _DETERMINERS else f"the {label}"


def binary_prefix_note(message: str, given: str, given_shown: str, strict: str, factor: UnitFactor) -> str:
    if given_shown == strict:
        return f"{message[:-1]}; note {given} is {given_shown}: {factor.meaning}."
    if given.replace(" ", "") == given_shown.replace(" ", ""):  # "9.6 GB" is 9.6 GB: say it once
        return f"{message[:-1]}; strictly it is {strict}: {factor.meaning}."
    return f"{message[:-1]}; strictly it is {strict}, and {given} is {given_shown}: {factor.meaning}."


def far_message(
    given: str, reference: str, driver_label: str, driver_given: str, driver_reference: str
) -> str:
    return (
        f"Your arithmetic holds, but {given} is far from the reference {reference}: it comes from your "
        f"{driver_label} of {driver_given} (reference {driver_reference})."
    )


def stated_far_message(given: str, stated: str, source: str) -> str:
    """An assumption inside its plausible range that contradicts the value the question states."""
    where = f" ({source})" if source else ""
    return (
        f"The question states {stated}{where}; you wrote {given}. It is plausible in general but not this "
        "question's premise; the lines after it are checked from your value."
    )


def fixed_far_message(message: str, fixed: str, source: str) -> str:
    """A far-from-reference message whose driver is a value the question fixes."""
    return f"{message[:-1]}; the question fixes it at {fixed}" + (f" ({source})." if source else ".")


def follows_message(driver_label: str, driver_given: str, where: str) -> str:
    return f"Correct from your {driver_label} of {driver_given}, which {where}."


def unread_premises_message(assumed: list[str], worked: list[str]) -> str:
    """Sentences for a line worked from numbers that could not be read: an assumption is replaced by the
    reference's value, a line worked out by what their other numbers give."""
    sentences = []
    for labels, instead in ((assumed, "the reference's value"), (worked, "what your other numbers give")):
        if labels:
            named = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
            sentences.append(f" Could not read your {named}, so this line is checked with {instead} instead.")
    return "".join(sentences)


def missing_message(reference: str, implied: str | None = None) -> str:
    if implied is not None and implied != reference:
        return f"Not answered. From your other numbers it would be {implied}; the reference is {reference}."
    return f"Not answered; the reference is {reference}."


IMPLAUSIBLE_ORDERS = 9


def implausible_note(orders: float) -> str:
    return f" That is {orders:.0f} orders of magnitude from the reference: not a plausible value."


def no_value_message(reference: str) -> str:
    return f"Your inputs give no finite value here (a division by zero?); the reference is {reference}."
