"""Read a quantity as a person types it: "320 KB", "1.7M tok/s", "~10 GB", "$2/h", "175B params", "45%".

`parse_quantity(text)` gives the magnitude in base units and the dimensions of the unit it read (None when
the text is a bare number, so the caller applies the asked quantity's unit), or a ParseFailure with a message
a person can act on; it never raises. Results are cached per text, and pint is consulted once per unit string.
`read_on_line(text, unit, label)` reads a text for one line (its unit, its counts, its label's period and
nouns); the grader uses it.

Rules, in order:
- Digits of other scripts ("٣٢٠", "３２０") are read as ASCII digits, with a note.
- An explicit non-answer ("idk", "N/A", "?", "none", "-") is a ParseFailure of kind "missing".
- Leading "~", "≈", "about", "approx.", "around", "roughly" (and a trailing "or so", "-ish") mark the value
  as approximate; leading "<", "≤", "under", "at most", ">", "at least", ... mark it as a bound. Both are
  noted and the number is read as it is.
- Two or more time parts are one duration ("1h30m", "2 min 10 s").
- A number: digits with "," only between groups of three ("2,000"; "2,5" is refused), "_" separators, a
  decimal point, an exponent ("1.7e6"), or "× 10^6". A leading "$", "US$", "USD", "€", "£", "EUR" (or a
  following "€", "EUR", "euros") is money, read as USD with a note when it is not dollars; "cents" and "¢"
  are hundredths. Beyond ±1e308, or non-zero and below 1e-308, a number is refused as such (never as 0).
- A ratio or fraction right after the number is a plain number ("3:1", "1,000:1", "1/6", "2/3 of the fleet").
- A scale word right after the number: k/K/thousand = 1e3, M/mn/million = 1e6, G/B/bn/billion = 1e9,
  T/trillion = 1e12, when it ends there ("10k", "1.7M tok/s", "2 T"). A bare "B" is bytes ("175B", "175 B",
  "9.8e9 B"); "B" is a billion only before a count unit ("175B params") or after "$" ("$1.5B").
- A trailing "of the fleet" after a fraction or percentage is noted and dropped; a trailing "each" or
  "apiece" is noted and dropped (one of what the line counts).
- The rest is a unit over our registry (grading/core/units.py): "KiB/tok", "Gb/s" (bits), "tokens per second",
  "GPU-hours", "%" (0.01), "x" (a plain ratio); "a day", "every hour" are per that period.
- Text that does not read so is read the way people write around an answer (issue 30), each way noted: a
  parallel width ("TP8"); the stated result of shown working, after the last "=" or arrow ("80 × 8 × 128 × 4 B
  = 320 KiB"); the quantity after a label ("TTFT ~ 180 ms"); a count of GPUs by model ("8xH100"); a per-count
  with a power-of-ten scale ("$0.97 per 1M tokens", "/Mtok": divided by it); a narrow range (its midpoint,
  both ends kept, "2-2.5 s"); the leading quantity before a note ("6 nodes (48 GPUs)", "40 ms at p95",
  "9.6 TB/dataset", "200 ms target"); punctuation after the answer ("1.4 s;", "9.8 GB?" is unsure); the
  answer in brackets ("(9.8 GB)", "1.4 [s]"); SI-spaced thousands ("500 000"); a word describing the count
  after it ("12k output tok/s"); and a label with no mark ("hit rate 70%", "ρ 1.2"; never after "not").
- Text that still does not read is read again with its numbers in words written as digits, where a number
  starts (the text's start past "about", "~", "$"...; after "=", an arrow or a label's ":"; after a range's
  "-" or "to"), and the note says what it read ("'twenty seconds' read as '20 seconds'"): units, teens and
  tens ("twenty-four"), "hundred", "thousand", "million", "billion", "trillion" ("two million three
  thousand"), "and" ("a hundred and twenty ms"), "dozen" ("2 dozen"), halves and quarters ("one and a
  half", "three quarters", "half a minute", "an hour and a half"). "a"/"an" is one before a scale, "dozen",
  "half", "quarter" or a unit ("a minute"), never elsewhere ("$1,080 a day" is per day, "8 nodes, one per
  rack" keeps its note). Vague amounts ("a few", "a couple of", "lots", "hundreds of") stay unread. A text
  that reads with digits is never read again, so no reading that reads in digits changes.
- "each GPU", "a GPU", "for every node" after a unit are "per GPU", "per node"; "daily", "hourly" are per
  that period; "/m" is per minute (units.normalize_unit_text). "x2.8", "2.8-fold" are ratios; "10²⁵" is 10^25.
- On a line (`read_on_line`): "unbounded", "no limit", "∞" are an unbounded value, however said ("there is
  no limit", "it's unbounded", "no queue limit", "not capped", "N/A (no limit)"); "1:10" on a line of time is
  m:ss (h:mm on a line of minutes or more); lowercase "gb" takes the line's bytes or bits; a figure restated
  after "≈" or "=" in another unit ("217 GPUs ≈ 28 nodes") is the leading figure where it fits the line; a
  share ("2.3%") where the line asks for an amount is the wrong dimension; one vocabulary of count nouns
  (units.COUNT_NOUNS) names the line's counts; a figure naming no count is in the line's counts ("3/s" on
  requests per second per team); a "per X" the line's label says it is one of is the line's own; a "B" before
  a "per" on a line not in bytes is a billion ("2.6B/mo"); a lone "m" on a line of time is minutes ("~45m").
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from grading.core.report_text import format_number, format_quantity, format_unit
from grading.core.units import (
    BIT_UNIT_NAMES,
    COUNT_EQUIVALENTS,
    COUNT_UNITS,
    DIMENSIONLESS,
    Dims,
    Unit,
    UnitError,
    compatible,
    count_symbol,
    counts_named_by,
    is_count_word,
    normalize_unit_text,
    parse_unit,
    plural,
    singular,
)

MAX_TEXT_CHARS = 200

_SPACES = {"\u00a0": " ", "\u202f": " ", "\u2009": " ", "−": "-", "–": "-"}
_APPROXIMATE_PREFIX = re.compile(
    r"(?:~=?|≈|≃|∼|about|approx(?:\.|imately)?|around|roughly|circa|ca\.|some)\s*", re.IGNORECASE
)
_BOUND_PREFIX = re.compile(
    r"(?:<=|>=|≤|≥|<|>|under|over|below|above|at\s+most|at\s+least|up\s+to|(?:no|not)\s+(?:less|more)\s+than|"
    r"less\s+than|more\s+than|max(?:imum|\.)?|minimum)\s*",
    re.IGNORECASE,
)
_APPROXIMATE_SUFFIX = re.compile(
    r"\s*(?:\(approx(?:\.|imately)?\)|approx(?:\.|imately)?|or\s+so|give\s+or\s+take|-?ish)\Z", re.I
)
# "16+", "16 replicas or more", "16 nodes minimum": a bound written after the number.
_BOUND_SUFFIX = re.compile(r"(?:(?<=\d)\s*\+|\s+(?:or\s+more|at\s+(?:least|minimum)|minimum))\s*\Z", re.I)
_EACH = re.compile(r"\s+(each|apiece)\s*\Z", re.IGNORECASE)  # "16.4 GB each": one of what the line counts
_NUMBER = re.compile(
    r"""(?P<sign>[+-])?\s*
    (?P<digits>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d*)?|\d[\d_]*(?:\.\d*)?|\.\d+)
    (?:[eE](?P<exponent>[+-]?\d{1,6}))?
    (?:\s*[x×*·]\s*10\s*(?:\^|\*\*)\s*(?P<power_of_ten>[+-]?\d{1,6}))?""",
    re.VERBOSE,
)
_EUROPEAN_DECIMAL = re.compile(r",\d")
_SCALE = re.compile(r"(?P<word>(?i:thousand|million|billion|trillion)|bn|mn|k|K|M|G|B|T)(?![A-Za-z])")
_SCALES = {
    "k": ("thousand", 1e3),
    "K": ("thousand", 1e3),
    "thousand": ("thousand", 1e3),
    "M": ("million", 1e6),
    "mn": ("million", 1e6),
    "million": ("million", 1e6),
    "B": ("billion", 1e9),
    "G": ("billion", 1e9),
    "bn": ("billion", 1e9),
    "billion": ("billion", 1e9),
    "T": ("trillion", 1e12),
    "trillion": ("trillion", 1e12),
}
_RATIO_WORDS = frozenset({"x", "×", "times", "fold", "-fold"})  # "2.8x", "2.8 times", "2.8-fold"
_TIMES_FIRST = re.compile(r"[x×]\s*(?P<number>\d[\d,]*(?:\.\d+)?|\.\d+)(?P<after>\s+[A-Za-z].*)?")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_POWER_OF_TEN_SUPERSCRIPT = re.compile(r"(?<![\d.])10(?P<power>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")


def _superscript_power(match: re.Match[str]) -> str:
    return "10^" + match.group("power").translate(_SUPERSCRIPTS)


_FIRST_WORD = re.compile(r"[A-Za-z]+")
_UNIT_START = re.compile(r"[A-Za-z%/(µμ$¢]")
_PER_ONE = re.compile(r"\A1\s*/")
_EXPONENTS = re.compile(r"(?:\*\*|\^)\s*[+-]?\d+(?:\.5)?")
_DIGIT = re.compile(r"\d")
_TOO_FAR = "that number is too far from zero to compute with (its size passes 1e308)"
_TOO_CLOSE = "that number is too close to zero to compute with (below 1e-308); write 0 if you mean zero"
_NON_ANSWER = re.compile(
    r"\s*(?:idk|i\s+don'?t\s+know|don'?t\s+know|dunno|no\s+idea|not\s+sure|n/?a|tbd|tbc|unknown|skip(?:ped)?|"
    r"pass|none|nothing|-+|—|\?+)\s*[.!]?\s*",
    re.IGNORECASE,
)
# ... with filler words and no number after it: "idk tbh", "no idea, sorry", "skipped - ran out of time".
_NON_ANSWER_SAID = re.compile(
    r"\s*(?:idk|i\s+don'?t\s+know|don'?t\s+know|dunno|no\s+idea|not\s+sure|tbd|skip(?:ped)?)"
    r"(?![A-Za-z])[^\d]*",
    re.IGNORECASE,
)
# A design's limit that is not there: read as +inf (a line whose value is unbounded, or the bank's stand-in),
# said as people say it: "unbounded", "no limit", "no queue limit", "no upper bound", "not capped", after a
# subject ("there is no limit", "it's unbounded", "the queue is unbounded").
_NO_LIMIT_WORD = (
    r"(?:unbounded|unlimited|uncapped|limitless|infinite|infinity|inf|∞|"
    r"no\s+(?:[A-Za-z]+\s+){0,2}?(?:limit|bound|cap|maximum|max|ceiling|timeout)s?|"
    r"not\s+(?:limited|bounded|capped))"
)
_NO_LIMIT_SUBJECT = (  # "there is", "there's", "it is", "the queue is", "its" (for "it's"), "is"
    r"(?:(?:there|it|that|this|which|the\s+[A-Za-z]+(?:\s+[A-Za-z]+)?)\s*(?:\s(?:is|are|has)|['’]s)\s+"
    r"|its\s+|is\s+)?"
)
_NO_LIMIT = re.compile(rf"\s*{_NO_LIMIT_SUBJECT}{_NO_LIMIT_WORD}\s*[.!]?\s*", re.IGNORECASE)
# ... with a note after it that holds no number: "unbounded FIFO", "none (no cap)", "no limit at all".
_NO_LIMIT_NOTED = re.compile(
    rf"\s*{_NO_LIMIT_SUBJECT}(?P<word>{_NO_LIMIT_WORD}|none)"
    r"(?![A-Za-z])(?P<note>\s*[(,;:—-]?\s*[A-Za-z(][^\d]*)",
    re.IGNORECASE,
)
# ... or a non-answer that says it in a note: "N/A (no limit)", "- unbounded".
_NO_LIMIT_AFTER_NONE = re.compile(
    rf"\s*(?:n/?a|-+|—)\s*[(,;:-]?\s*(?P<word>{_NO_LIMIT_WORD})\s*\)?\s*[.!]?\s*", re.IGNORECASE
)
_ZERO_WORDS = frozenset({"none", "nothing"})
_NONE_SAID = re.compile(rf"\s*{_NO_LIMIT_SUBJECT}(?P<word>none|nothing)\s*[.!]?\s*", re.IGNORECASE)
_ARABIC_SEPARATORS = {"\u066b": ".", "\u066c": ","}
_DURATION_SECONDS = {
    **dict.fromkeys(("d", "day", "days"), 86400.0),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600.0),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60.0),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1.0),
    "ms": 1e-3,
}
_DURATION_UNIT = r"(days?|d|hours?|hrs?|h|minutes?|mins?|ms|m|seconds?|secs?|s)"
_HARDWARE = re.compile(r"(\d+\s*[x×]\s*[A-Z]{1,2}\d{2,4}[A-Za-z]*)\s+(?=[A-Za-z])")
# "per 8xH100 node", "/ 4-GPU server": the hardware that describes what a figure is per.
_DESCRIBED_PER = re.compile(
    r"(?P<per>(?<![A-Za-z])per\s+|/\s*)(?:an?\s+|one\s+)?"
    r"(?P<description>\d+\s*[x×-]\s*(?:[A-Z]{1,2}\d{2,4}[A-Za-z]*|GPUs?)\s+)(?=[A-Za-z])"
)
# "460 nodes' worth", "a node's worth": the possessive before "worth" says nothing about the count.
_POSSESSIVE_WORTH = re.compile(r"(?<=[A-Za-z])['’]s?(?=\s+worth(?![A-Za-z]))", re.IGNORECASE)
# "no spares", "no extra nodes": none of what a count line counts.
_NO_COUNT = re.compile(r"\s*no\s+(?P<counted>[A-Za-z][A-Za-z' -]{0,40}?)\s*[.!]?\s*", re.IGNORECASE)
# "16 × 8xH100", "16 x TP8 replicas", "4 × 8-GPU nodes": so many of what the description names.
_TIMES_DESCRIBED = re.compile(
    r"[x×*]\s*(?P<description>\d+\s*[x×-]\s*(?:[A-Z]{1,2}\d{2,4}[A-Za-z]*|GPUs?)|(?i:tp)\d+)"
    r"(?:\s+(?P<noun>[A-Za-z]+))?\s*\Z"
)
_MODEL_NAME = re.compile(r"[A-Z]\d")  # "217 H100s" counts GPUs: it is not 217 h and 100 s
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*" + _DURATION_UNIT + r"(?![A-Za-z])", re.IGNORECASE)
_COMPOUND_DURATION = re.compile(
    r"(?:\d+(?:\.\d+)?\s*" + _DURATION_UNIT + r"(?![A-Za-z])\s*,?\s*(?:and\s+)?){2,}", re.IGNORECASE
)
_CURRENCY_PREFIX = re.compile(r"(\$|US\$|€|£|USD|EUR|GBP)\s*", re.IGNORECASE)
_CURRENCY_SUFFIX = re.compile(r"(?<![A-Za-z])(€|£|EUR|GBP|euros?)(?![A-Za-z])", re.IGNORECASE)
_RATIO_OR_FRACTION = re.compile(
    r"(?P<sign>[:/]|in(?=\s))\s*(?P<denominator>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][+-]?\d{1,3})?)"
    r"(?![\w.])(?P<after>.*)\Z"
)
# A ratio's denominator after its joiner: "in a thousand", "per 1,000", "out of 10k", "in every million".
_RATIO_JOINER = re.compile(r"(?P<joiner>in|per|out\s+of)\s+(?:every\s+)?(?P<tail>\S.*)\Z", re.IGNORECASE)
_DENOMINATOR_SCALES = {"hundred": 1e2, "cent": 1e2, "thousand": 1e3, "mille": 1e3, "k": 1e3, "million": 1e6}
_DENOMINATOR_SCALES |= {"m": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9}
_DENOMINATOR_DIGITS = re.compile(
    r"(?:an?\s+)?(?P<number>\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?)\s*(?P<scale>[kKM]|mn|bn|thousand|million|billion)?"
    r"(?![\w.,])",
    re.IGNORECASE,
)
_DENOMINATOR_WORD = re.compile(
    r"(?P<word>hundred|cent|thousand|mille|million|billion)(?![A-Za-z])", re.IGNORECASE
)
_COUNTED_WORDS = re.compile(r"[A-Za-z][A-Za-z -]{0,40}")
_NOUN = re.compile(r"(?<![A-Za-z])[A-Za-z][A-Za-z0-9]*")
_UNIT_PREFIX = re.compile(r"\s*(?P<prefix>[kKMGTPE])i?(?:B|b|bit|FLOPS|FLOP|Wh|W|bps)(?![A-Za-z])")
_PREFIX_OF_SCALE = {
    **{"k": "K", "K": "K", "M": "M", "mn": "M", "G": "G", "B": "G", "bn": "G", "T": "T"},
    **{"thousand": "K", "million": "M", "billion": "G", "trillion": "T"},
}
_SECONDS = parse_unit("s")
_BUDGET_PERIOD_S = 3600.0
GPUS_PER_NODE = 8.0  # an HGX node
ALIKE_REASON = "in this question one replica is one node"
_NOT_CONVERTED = "; it is read as this line's figure ({unit}), not converted"


def not_converted(line_unit: str) -> str:
    """The end of a per-count note: the line's unit as the report prints it ("GPU·h", "a plain number")."""
    return _NOT_CONVERTED.format(unit=format_unit(line_unit) if line_unit else "a plain number")


_RESULT_MARK = re.compile(r"=>|->|→|⇒|=|≈")
_LABEL_MARK = re.compile(
    r"(?P<label>[^\W\d_][\w /().-]{0,40}?)\s*(?P<mark>[:=~≈])\s*(?=[$~≈<>]?\s*[\d.])"  # "ρ = 0.9" too
)
_GPU_COUNT = re.compile(r"(?P<count>\d{1,6})\s*[x×*]\s*(?P<model>[A-Za-z]\d{2,4}[A-Za-z]*)")
_PER_SCALED = re.compile(
    r"(?P<head>.+?\S)\s*(?:/|\s+per\s+)\s*(?P<scale>\d[\d,]*(?:\.\d+)?\s*(?:[kKMB]|thousand|million|billion|mn|bn)?|"
    r"[kKMB](?=\s*[a-z])|thousand|million|billion)\s*(?P<noun>[A-Za-z]+(?:-[A-Za-z]+)?)"
    r"(?P<period>\s*(?:/|\s+per\s+|\s+an?\s+)\s*[A-Za-z]+)?\s*\Z"  # "per 10,000 GPUs per day"
)
_PARALLEL_WIDTH = re.compile(r"(?P<kind>(?i:tp|pp|dp|ep))\s*[=:]?\s*(?P<width>\d{1,6})")
_BARE_NUMBER = re.compile(r"\s*\$?\s*(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d*)?|\.\d+)\s*")
_BETWEEN = re.compile(
    r"(?i:between|from)\s+(?P<low>\$?\s*[\d.][^-]*?)\s+(?i:and|to)\s+(?P<high>\$?\s*[\d.].*)"
)
_RANGE = re.compile(r"(?P<low>[^-]*?\d[^-]*?)\s*(?:-|(?<=\s)to(?=\s))\s*(?P<high>\$?\s*[\d.].*)")
MAX_RANGE_RATIO = 2.0  # a narrow range, "2-2.5 s"; "1-100 GB" is no answer
_NOTE_PARENTHESIS = re.compile(r"\s+\(.*\)\s*\Z")
_NOTE_CLAUSE = re.compile(
    r"(?:\s*[,;](?=\s)|\s+/\s+(?=[~≈]?\d)|\s+(?:--+|-|—|–|at|in|on|of|for|with|across|over|from|during|incl\.?|including|i\.e\.|e\.g\.|"
    r"assuming|because|since|total|peak|worst|if|by|as|when|given|per\s+(?:the|my|our|your)|"
    r"i\s+(?:think|guess|believe|reckon)|maybe|probably|iirc|tbh|hopefully)(?=\s|\Z|[.!?])).*\Z",
    re.IGNORECASE,
)
_NOTE_WORD = re.compile(r"\s+(?P<thing>[A-Za-z][A-Za-z0-9-]*)\s*\Z")  # "200 ms target", "27% saved"
# Words that say how a bare number stands, never what it counts: "0.45 needed", "1.2 overall".
_BARE_NOTE_WORDS = frozenset(
    {
        "needed",
        "required",
        "overall",
        "tops",
        "max",
        "avg",
        "average",
        "est",
        "estimated",
        "expected",
        "exactly",
    }
)
_NOTE_PER_THING = re.compile(r"\s*(?:/|\s+per\s+)\s*(?:an?\s+|one\s+)?(?P<thing>[A-Za-z][A-Za-z_]*)\s*\Z")
_SHARE_OF = re.compile(r"(?P<keep>%|percent)?\s*(?P<of>of\s.*)", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedQuantity:
    """What was read: the value in base units, the unit's dimensions (None for a bare number), the unit as
    read (None for a bare number), and a note on how it was read ("approximate", "bits", ...)."""

    base_value: float
    dims: Dims | None
    unit: str | None = None
    note: str = ""
    approximate: bool = False
    scale: float = 1.0  # the scale word's factor ("1.04T": 1e12), already inside base_value
    scale_word: str = ""
    spread: tuple[float, float] | None = None  # a range's ends over its midpoint ("2-2.5 s": 0.89, 1.11)


@dataclass(frozen=True)
class ParseFailure:
    """Text that could not be read, with a message for the person who typed it. `kind` is "unparsed", or
    "missing" for an explicit non-answer ("idk", "N/A", "?"), or "dimension" for a reading in the wrong
    dimension for the line (from `read_on_line`)."""

    text: str
    message: str
    kind: str = "unparsed"
    as_line_unit: float | None = None  # kind "dimension": the number typed, read in the line's unit


@functools.lru_cache(maxsize=16384)
def parse_quantity(text: str, _digits_only: bool = False) -> ParsedQuantity | ParseFailure:
    """Read `text` as a number with an optional unit; never raises.

    Text that does not read as one number and a unit is read the way people write around an answer, each
    way noted: the stated result of shown working (after the last "=" or arrow), a parallel width ("TP8"),
    a narrow range (its midpoint), and the leading quantity before a note ("6 nodes (48 GPUs)", "40 ms at
    p95", "9.6 TB/dataset")."""
    parsed = _parse_one(text)
    if not isinstance(parsed, ParseFailure) or parsed.kind != "unparsed" or not isinstance(text, str):
        return parsed
    if len(text) > MAX_TEXT_CHARS:
        return parsed
    cleaned = text
    for old, new in _SPACES.items():
        cleaned = cleaned.replace(old, new)
    cleaned = _POSSESSIVE_WORTH.sub("", cleaned.strip())
    for around in (
        _sentence_end,
        _described_per,
        _enclosed,
        _space_grouped,
        _parallel_width,
        _stated_result,
        _after_label,
        _gpu_count,
        _per_scaled_count,
        _narrow_range,
        _leading_quantity,
        _describing_word,
        _bare_label,
    ):
        found = around(cleaned)
        if found is not None:
            return found
    return parsed if _digits_only else _read_in_words(text, parsed)


_TRAILING_MARKS = re.compile(r"(?<=[\w%).])\s*(?P<marks>[.;:,!?✓✔✅☑]+)\Z")
_ENCLOSED = re.compile(r"\A[(\[](?P<inner>[^()\[\]]*\d[^()\[\]]*)[)\]]\Z")
# "500 000 pairs/s": groups of three digits after single spaces (thin or not) are one number.
_SPACE_GROUPED = re.compile(r"(?<![\d.,])(?P<number>\d{1,3}(?: \d{3})+)(?![\d.,]|\s\d)")
_NEGATION = re.compile(r"(?<![A-Za-z])(?:not|no|never|nor|without|isn'?t|aren'?t|wasn'?t)(?![A-Za-z])", re.I)
# A label with no mark before the number: "hit rate 70%", "TTFT p99 180 ms".
_BARE_LABEL = re.compile(
    r"(?P<label>[^\W\d_][\w /().,'-]{0,40}?)\s+(?=[$~≈]?\s*\d)"
    r"|(?P<joined>[A-Za-z]{3,})-(?=\d)"  # "top-50": a word joined to its number by a hyphen
)


def _sentence_end(text: str) -> ParsedQuantity | None:
    """ "70 s.", "1.4 s;", "44!": punctuation after the answer; "9.8 GB?" is the answer, unsure."""
    match = _TRAILING_MARKS.search(text)
    if not match or match.start() == 0:
        return None
    found = parse_quantity(text[: match.start()], _digits_only=True)
    if not isinstance(found, ParsedQuantity):
        return None
    if "?" in match.group("marks"):
        return dataclasses.replace(_noted(found, "'?' read as unsure: approximate"), approximate=True)
    return found


def _enclosed(text: str) -> ParsedQuantity | None:
    """ "(9.8 GB)", "[44]": the answer in brackets; "1.4 [s]": a unit in square brackets, as in "(s)"."""
    match = _ENCLOSED.fullmatch(text)
    if match:
        found = parse_quantity(match.group("inner"), _digits_only=True)
        return found if isinstance(found, ParsedQuantity) else None
    if "[" in text and "]" in text:
        found = parse_quantity(text.replace("[", "(").replace("]", ")"), _digits_only=True)
        return found if isinstance(found, ParsedQuantity) else None
    return None


def _space_grouped(text: str) -> ParsedQuantity | None:
    """ "500 000 pairs/s", "1 200 GB": thousands written with spaces, as the SI style writes them."""
    match = _SPACE_GROUPED.search(text)
    if not match:
        return None
    joined = match.group("number").replace(" ", ",")
    found = parse_quantity(text[: match.start()] + joined + text[match.end() :], _digits_only=True)
    if not isinstance(found, ParsedQuantity):
        return None
    return _noted(found, f"{match.group('number')!r} read as {joined}")


_DESCRIBING = re.compile(r"(?<=[\d\s/])(?P<word>[A-Za-z]{3,})\s+(?=(?P<noun>[A-Za-z]+)(?![A-Za-z]))")


def _describing_word(text: str) -> ParsedQuantity | None:
    """ "12k output tok/s", "13.5 ms per decode step": a word no vocabulary knows before a count it
    describes is a note; the count is read."""
    for match in _DESCRIBING.finditer(text):
        word, noun = match.group("word"), match.group("noun")
        if _is_unit_word(word) or counts_named_by(word) or not (count_symbol(noun) or counts_named_by(noun)):
            continue
        found = parse_quantity(text[: match.start()] + text[match.start("noun") :], _digits_only=True)
        if isinstance(found, ParsedQuantity):
            return _noted(found, f"{word!r} read as a note on {noun!r}")
    return None


def _described_per(text: str) -> ParsedQuantity | None:
    """ "2.06 GB per 8xH100 node", "1.44 req/s / 4-GPU server": the hardware is a description of the count
    the figure is per, read as a note."""
    match = _DESCRIBED_PER.search(text)
    if not match:
        return None
    found = parse_quantity(text[: match.start("description")] + text[match.end() :], _digits_only=True)
    if not isinstance(found, ParsedQuantity):
        return None
    return _noted(found, f"{match.group('description').strip()!r} read as a description")


def _bare_label(text: str) -> ParsedQuantity | None:
    """ "hit rate 70%", "TTFT p99 180 ms": words before the number with no mark are a label, unless they
    deny it ("not 5")."""
    match = _BARE_LABEL.match(text)
    if not match:
        return None
    label = match.group("label") or match.group("joined")
    if _NEGATION.search(label):
        return None
    found = parse_quantity(text[match.end() :], _digits_only=True)
    if not isinstance(found, ParsedQuantity):
        return None
    return _noted(found, f"{label.strip()!r} read as a label")


def _stated_result(text: str) -> ParsedQuantity | None:
    """ "80 × 8 × 128 × 4 B = 320 KiB", "3 + 1.5 = 4.5 s", "2.1 → 0.7 ms": the result after the last "=" or
    arrow, when working with a digit comes before it."""
    marks = list(_RESULT_MARK.finditer(text))
    before = text[: marks[-1].start()].strip() if marks else ""
    if not marks or (before and not _DIGIT.search(before)):  # "= 70 s" alone is its result too
        return None
    result = parse_quantity(text[marks[-1].end() :], _digits_only=True)
    if not isinstance(result, ParsedQuantity):
        return None
    return _noted(result, f"read the result after {marks[-1].group(0)!r}")


def stated_answer(text: str) -> str:
    """The part of `text` that holds the answer: after the last "=" or arrow of shown working whose result
    reads as a quantity ("30k × 320 KiB = 9.8 GB": "9.8 GB"), else the whole text."""
    marks = list(_RESULT_MARK.finditer(text))
    if not marks or not _DIGIT.search(text[: marks[-1].start()]):
        return text
    after = text[marks[-1].end() :]
    return after if isinstance(parse_quantity(after), ParsedQuantity) else text


# An operator between two terms of shown working: "×", "*", "/", "+", "-", or an "x" with spaces round it.
_WORKING_OPERATOR = re.compile(r"\s*(?P<op>[×*+]|(?<=\s)[x/-](?=\s)|/(?=\s*[\d.]))\s*")
_WORKING_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def working_value(text: str) -> float | None:
    """The value, in base units, of the working shown before the stated result ("9.83 GB / 3.2 GB/s = 3.1 s":
    3.07 s; "1.4 s + 25 ms = 1.43 s": 1.425 s), when it is terms (numbers with or without units) joined by
    + - × / alone; the last stretch between marks that holds working ("a = b × c = d": b × c). None
    otherwise, or when a term does not read."""
    found = working_terms(text)
    return None if found is None else terms_value(*found)


def working_terms(text: str) -> tuple[list[float], list[str]] | None:
    """The terms of `working_value`'s working in base units, and the operators between them."""
    answer = stated_answer(text)
    if answer == text:
        return None
    stretches = _RESULT_MARK.split(text[: len(text) - len(answer)])
    shown = [part.replace("(", " ").replace(")", " ").strip() for part in stretches]
    stretch = next((part for part in reversed(shown) if _WORKING_OPERATOR.search(part)), "")
    pieces = _WORKING_OPERATOR.split(stretch)  # term, operator, term, ...
    terms, operators = pieces[0::2], ["*" if op in ("x", "×") else op for op in pieces[1::2]]
    if not operators or len(terms) != len(operators) + 1:
        return None
    values = []
    for term in terms:
        found = parse_quantity(term, _digits_only=True)
        if not isinstance(found, ParsedQuantity) or found.spread is not None:
            return None
        values.append(found.base_value)
    return values, operators


def terms_value(values: list[float], operators: list[str]) -> float | None:
    """`values` joined by `operators` (+ - * /), products before sums; None on a division by zero."""
    sums: list[float] = [values[0]]
    signs: list[str] = []
    for op, value in zip(operators, values[1:], strict=True):
        if _WORKING_PRECEDENCE[op] == 2:
            if op == "/" and value == 0:
                return None
            sums[-1] = sums[-1] * value if op == "*" else sums[-1] / value
        else:
            sums.append(value)
            signs.append(op)
    total = sums[0]
    for sign, value in zip(signs, sums[1:], strict=True):
        total = total + value if sign == "+" else total - value
    return total


def _after_label(text: str) -> ParsedQuantity | None:
    """ "TTFT ~ 180 ms", "p99: 180 ms", "KV = 320 KiB": the quantity after a label and its mark."""
    match = _LABEL_MARK.match(text)
    if not match:
        return None
    found = parse_quantity(text[match.end() :], _digits_only=True)
    if not isinstance(found, ParsedQuantity):
        return None
    note = f"{match.group('label').strip()!r} read as a label"
    if match.group("mark") in ("~", "≈"):
        note += "; approximate"
    return _noted(found, note)


def _gpu_count(text: str) -> ParsedQuantity | None:
    """ "8xH100", "8 × H100": eight GPUs."""
    match = _GPU_COUNT.fullmatch(text)
    if not match or counts_named_by(match.group("model")) != {"GPU"}:
        return None
    found = parse_quantity(f"{match.group('count')} GPU", _digits_only=True)
    return (
        _noted(found, f"{text!r} read as {match.group('count')} GPU")
        if isinstance(found, ParsedQuantity)
        else None
    )


def _per_scaled_count(text: str) -> ParsedQuantity | None:
    """ "$0.97 per 1M tokens", "$0.97/Mtok", "12 GB per 1k requests": per one of the count, the figure
    divided by the scale."""
    match = _PER_SCALED.fullmatch(text)
    if not match:
        return None
    scale_text = match.group("scale").replace(",", "").strip()
    number = _NUMBER.match(scale_text)
    count = float(number.group(0)) if number else 1.0
    word = scale_text[number.end() :].strip() if number else scale_text
    scale = _SCALE.fullmatch(word) if word else None
    if word and not scale:
        return None
    factor = count * (_SCALES[scale.group("word") if len(word) <= 2 else word.lower()][1] if scale else 1.0)
    if factor <= 1 or not math.isclose(math.log10(factor), round(math.log10(factor)), abs_tol=1e-9):
        return None  # per 1k, per 1M, per 100: a power of ten; "40 nodes / 320 GPUs" is no rate
    found = parse_quantity(
        f"{match.group('head')} per {match.group('noun')}{match.group('period') or ''}", _digits_only=True
    )
    if not isinstance(found, ParsedQuantity):
        return None
    note = f"per {format_number(factor)} {match.group('noun')} read as per one ÷ {format_number(factor)}"
    return dataclasses.replace(_noted(found, note), base_value=found.base_value / factor)


def _parallel_width(text: str) -> ParsedQuantity | None:
    """ "TP8", "TP=8", "EP 64": a parallel group's width, a plain count."""
    match = _PARALLEL_WIDTH.fullmatch(text)
    if not match:
        return None
    width = float(match.group("width"))
    return ParsedQuantity(
        width, None, None, f"{text!r} read as {format_number(width)} ({match.group('kind')} width)"
    )


def _narrow_range(text: str) -> ParsedQuantity | ParseFailure | None:
    """ "2-2.5 s", "2 to 2.5 s", "10-12k GPUs": the midpoint, with both ends kept (`spread`) so a check can
    ask that both are inside its band. A range wider than MAX_RANGE_RATIO is refused: give one number.
    "about 1.3-1.5 s" is an approximate range; "between 1.3 and 1.5 s", "from 2 to 3 s" are ranges too."""
    approximate = _APPROXIMATE_PREFIX.match(text)
    if approximate and approximate.end() < len(text) and _starts_a_number(text[approximate.end() :]):
        found = _narrow_range(text[approximate.end() :])
        if isinstance(found, ParsedQuantity):
            return dataclasses.replace(_noted(found, "approximate"), approximate=True)
        return found
    between = _BETWEEN.fullmatch(text)
    if between:
        text = f"{between.group('low')} to {between.group('high')}"
    match = _RANGE.fullmatch(text)
    if not match:
        return None
    low_text, high_text = match.group("low").strip(), match.group("high").strip()
    if low_text.startswith("$") and not high_text.startswith("$"):  # "$2-3/h"
        high_text = "$" + high_text
    if _BARE_NUMBER.fullmatch(low_text):  # "2-2.5 s", "$2-3/h": the low end takes the high end's unit
        number_part = high_text.lstrip("$").lstrip()
        number = _NUMBER.match(number_part)
        currency = "$" if high_text.startswith("$") and not low_text.startswith("$") else ""
        low_text = currency + low_text + (number_part[number.end() :] if number else "")
    low, high = parse_quantity(low_text, _digits_only=True), parse_quantity(high_text, _digits_only=True)
    if not (isinstance(low, ParsedQuantity) and isinstance(high, ParsedQuantity)):
        return None
    if low.spread is not None or high.spread is not None or low.dims != high.dims:
        return None
    if not 0 < low.base_value < high.base_value:
        return None
    if high.base_value / low.base_value > MAX_RANGE_RATIO:
        return ParseFailure(text, "that range is too wide to read as one answer; write one number")
    middle = (low.base_value + high.base_value) / 2
    note = f"the range {match.group('low').strip()} to {match.group('high').strip()} read as its midpoint"
    return dataclasses.replace(
        _noted(high, note), base_value=middle, spread=(low.base_value / middle, high.base_value / middle)
    )


def _leading_quantity(text: str) -> ParsedQuantity | None:
    """The quantity before a note: a parenthesis ("51 (408 H100s)"), a clause ("40 ms at p95", "10 GB, the
    peak") or a "per" of something no vocabulary counts ("9.6 TB/dataset": one of what the line is about).
    A qualifier that changes the quantity ("per GPU", "each", "a day") is no note: it is read."""
    for pattern in (_NOTE_PARENTHESIS, _NOTE_CLAUSE, _NOTE_PER_THING, _NOTE_WORD):
        match = pattern.search(text)
        if not match or match.start() == 0:
            continue
        if pattern in (_NOTE_PER_THING, _NOTE_WORD) and (
            _is_unit_word(match.group("thing")) or counts_named_by(match.group("thing"))
        ):
            continue
        head = parse_quantity(text[: match.start()], _digits_only=True)
        if (
            pattern is _NOTE_WORD
            and isinstance(head, ParsedQuantity)
            and head.dims is None
            and match.group("thing").lower() not in _BARE_NOTE_WORDS
        ):
            continue  # "44 widgets": a noun no vocabulary knows, not a note after a unit
        if isinstance(head, ParsedQuantity) and head.spread is None:
            return _noted(head, f"{text[match.start() :].strip()!r} read as a note")
    return None


def _noted(parsed: ParsedQuantity, note: str) -> ParsedQuantity:
    return dataclasses.replace(parsed, note="; ".join(part for part in (note, parsed.note) if part))


def _parse_one(text: str) -> ParsedQuantity | ParseFailure:
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
    if not cleaned.isascii():
        cleaned, digits_note = _ascii_digits(cleaned)
        if digits_note:
            notes.append(digits_note)
        cleaned = _POWER_OF_TEN_SUPERSCRIPT.sub(_superscript_power, cleaned)  # "3.6 × 10²⁵"
    if _NON_ANSWER.fullmatch(cleaned) or _NON_ANSWER_SAID.fullmatch(cleaned):
        return ParseFailure(text, "no answer given", kind="missing")
    cleaned, approximate, bound = _strip_qualifiers(cleaned)
    times = _TIMES_FIRST.fullmatch(cleaned)  # "x2.8", "×2.8": a ratio written with its sign first
    if times:
        cleaned = f"{times.group('number')} x"
        if times.group("after"):  # "×2.8 faster": the words after it a note, as after "2.8x"
            notes.append(f"{times.group('after').strip()!r} read as a note")
    each = _EACH.search(cleaned)
    if each and each.start() > 0:
        cleaned = cleaned[: each.start()]
        notes.append(f"{each.group(1)!r} read as the line's own figure")
    if approximate:
        notes.append("approximate")
    if bound:
        notes.append(f"read {bound!r} as the value itself")
    duration = _compound_duration(cleaned)
    if duration is not None:
        notes.append(f"read as {format_number(duration)} s")
        return ParsedQuantity(duration, parse_unit("s").dims, "s", "; ".join(notes), approximate)
    cleaned, currency, money = _strip_currency(cleaned)
    if currency not in ("", "$", "USD"):
        notes.append(f"read {currency} as the question's currency (USD)")
    number = _NUMBER.match(cleaned)
    if not number:
        return ParseFailure(
            text, f"no number at the start of {text.strip()!r}; write the number itself, like 10 pods"
        )
    rest = cleaned[number.end() :].strip()
    if _EUROPEAN_DECIMAL.match(rest) or (rest.startswith(",") and rest[1:2].isdigit()):
        return ParseFailure(text, "use a point for decimals (2.5) and commas only between thousands (2,000)")
    magnitude = _magnitude(number)
    if isinstance(magnitude, str):
        return ParseFailure(text, magnitude)
    described = _TIMES_DESCRIBED.fullmatch(rest)
    if described:  # "16 × 8xH100" is 16 nodes, "16 × TP8" 16 replicas: the description a note
        notes.append(f"{rest[: described.end('description')]!r} read as a description")
        tp = described.group("description").lower().startswith("tp")
        rest = described.group("noun") or ("replicas" if tp else "nodes")
    hardware = _HARDWARE.match(rest)
    if hardware:  # "1,280 8xH100 nodes": the node's description, not a second number
        notes.append(f"{hardware.group(1)!r} read as a description")
        rest = rest[hardware.end() :]
    rest = _ratio_in_digits(rest, notes, money)
    ratio = _RATIO_OR_FRACTION.match(rest)
    if ratio:
        return _ratio(text, magnitude, number.group(0).strip(), ratio, notes, approximate)
    scale, rest, scale_word = _scale(rest, money)
    if scale_word and scale_word != _SCALES[scale_word][0]:  # "1.33 million" needs no note
        notes.append(f"{scale_word!r} read as {_SCALES[scale_word][0]}")
    share = _SHARE_OF.fullmatch(rest)
    if share:
        notes.append(f"{share.group('of')!r} read as a share")
        rest = share.group("keep") or ""
    if money:
        rest = "USD" if not rest else ("USD" + rest if rest.startswith("/") else f"USD {rest}")
    parsed = _with_unit(text, magnitude * scale, rest, notes, approximate)
    if scale != 1 and isinstance(parsed, ParsedQuantity):
        return dataclasses.replace(parsed, scale=scale, scale_word=scale_word)
    return parsed


_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven")
_TEENS = ("twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_SMALL_NUMBERS = {word: value for value, word in enumerate((*_ONES, *_TEENS))}
_TENS = {
    word: 10 * (index + 2)
    for index, word in enumerate(
        ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
    )
}
_LARGE_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_ORDINAL_DENOMINATORS = {
    "third": 3,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
_FRACTIONS = {
    "half": 0.5,
    "quarter": 0.25,
    "quarters": 0.25,
    **{word: 1 / count for name, count in _ORDINAL_DENOMINATORS.items() for word in (name, name + "s")},
}
_AFTER_A = frozenset({*_LARGE_SCALES, "hundred", "dozen", *_FRACTIONS})
_VAGUE = frozenset(
    {"bit", "bits", "lot", "lots", "few", "couple", "little", "while", "pair"}
)  # "a bit", "a few"
_WORD_TOKEN = re.compile(r"(?P<gap>\s*(?P<hyphen>-)?\s*)(?P<word>[A-Za-z]+)(?!\w)")
_DIGITS_BEFORE_WORD = re.compile(r"(?P<number>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\d.,])\s*(?=[A-Za-z])")
_AND_A_FRACTION = re.compile(
    r"(?P<unit>\s+[A-Za-z]+)\s+and\s+a\s+(?P<fraction>half|quarter)(?![A-Za-z])", re.I
)
# Where a number starts: the text's start, after a result or label mark ("= twenty ms", "TTFT: twenty ms") or
# after a range's or a ratio's joiner that follows a number ("2 to three s", "one in a thousand"), past a
# qualifier or a currency sign.
_NUMBER_PLACE = re.compile(
    r"(?:\A|=>|->|→|⇒|=|≈|:|\d\s*-|\d\s+(?:to|in)\s)\s*"
    r"(?:(?:~=?|≈|about|approx(?:\.|imately)?|around|roughly|circa|some|<=|>=|≤|≥|<|>|under|over|below|above|"
    r"at\s+most|at\s+least|up\s+to|less\s+than|more\s+than)\s*)*(?:\$|US\$|€|£|USD\s|EUR\s|GBP\s)?\s*\Z",
    re.IGNORECASE,
)
_WORD_OR_NUMBER_START = re.compile(r"(?<![\w.,])(?:[A-Za-z]|\d)")


def _number_words(text: str, start: int) -> tuple[float, int] | None:
    """The number written in words at `start` and where it ends, or None: units, teens and tens
    ("twenty-four"), "hundred" and the scales ("two million three thousand"), "and" ("a hundred and
    twenty"), "dozen", halves and quarters ("one and a half", "three quarters", "half a minute", "half a
    million", "half a dozen"), a number in digits before a word ("2 dozen", "2 and a half"). "a"/"an" is one
    only before a scale, "dozen", "half", "quarter" or a unit ("a minute"); "a few", "a lot", "a couple of",
    "lots" are vague and read as no number."""
    total, group, largest, last = 0.0, 0.0, math.inf, ""
    read: tuple[float, int] | None = None
    position = start
    digits = _DIGITS_BEFORE_WORD.match(text, start)
    if digits:
        group, last, position = float(digits.group("number").replace(",", "")), "one", digits.end()
    tokens: list[tuple[str, bool, int]] = []
    while len(tokens) < 24 and (token := _WORD_TOKEN.match(text, position)):
        tokens.append((token.group("word").lower(), bool(token.group("hyphen")), token.end()))
        position = token.end()
    tokens.append(("", False, position))
    for index, (word, hyphen, end) in enumerate(tokens[:-1]):
        following = tokens[index + 1][0]
        complete = True
        if hyphen and (word in _TENS or (word in _SMALL_NUMBERS and last != "ten")):
            break  # "twenty-four", "two-hundred", "one-and-a-half" are one number; "two-three s" is a range
        if word in ("a", "an") and last in ("", "and", "fraction"):
            if following in _VAGUE or not following:
                break
            if last == "":
                if following not in _AFTER_A and not _is_unit_word(following):
                    break
                group, last = 1.0, "a"
            elif last == "and":
                if following not in _FRACTIONS:
                    break
                last, complete = "and a", False
            elif following in _FRACTIONS:
                break
            elif following in _AFTER_A:  # "half a million", "half a dozen"
                complete = False
            elif _is_unit_word(following):  # "half a minute": the "a" is the half's
                read = (total + group, end)
                break
            else:
                break
        elif word == "of" and last == "fraction" and following in ("a", "an"):
            complete = False  # "three quarters of an hour"
        elif word in _SMALL_NUMBERS and (
            last in ("", "hundred", "scale", "and") or (last == "ten" and 0 < _SMALL_NUMBERS[word] < 10)
        ):
            group, last = group + _SMALL_NUMBERS[word], "one"
        elif word in _TENS and last in ("", "hundred", "scale", "and"):
            group, last = group + _TENS[word], "ten"
        elif word in ("hundred", "dozen") and last in ("one", "ten", "a", "fraction") and 0 < group < 100:
            group, last = group * (100 if word == "hundred" else 12), word
        elif word in _LARGE_SCALES and last in ("one", "ten", "hundred", "a", "fraction", "dozen"):
            if group <= 0 or _LARGE_SCALES[word] >= largest:
                break
            total, group, largest, last = (
                total + group * _LARGE_SCALES[word],
                0.0,
                _LARGE_SCALES[word],
                "scale",
            )
        elif word in _FRACTIONS and last in ("", "a", "one", "and a"):
            if last == "and a":  # "one and a half"
                group += _FRACTIONS[word]
            elif last == "one":  # "three quarters", "one half"
                group *= _FRACTIONS[word]
            else:  # "half", "a half", "a quarter"
                group = _FRACTIONS[word]
            last = "fraction"
        elif (
            word == "and"
            and last in ("one", "ten", "hundred", "scale", "dozen")
            and (
                (last in ("hundred", "scale") and (following in _SMALL_NUMBERS or following in _TENS))
                or (following == "a" and tokens[index + 2][0] in _FRACTIONS)
            )
        ):
            last, complete = "and", False  # "a hundred and twenty", "two and a half"
        else:
            break
        if complete:
            read = (total + group, end)
    return read


def _in_digits(value: float) -> str:
    return f"{int(value):,}" if value.is_integer() and abs(value) < 1e18 else f"{value:.12g}"


def _words_in_digits(text: str) -> tuple[str, bool]:
    """`text` with each number written in words where a number starts (`_NUMBER_PLACE`) as digits, and
    whether there was one. Words elsewhere ("8 nodes, one replica per node", "$1,080 a day") are
    left as they are: they are notes and qualifiers, read as such."""
    out: list[str] = []
    position = 0
    for start in _WORD_OR_NUMBER_START.finditer(text):
        if start.start() < position or not _NUMBER_PLACE.search(
            "".join(out) + text[position : start.start()]
        ):
            continue
        found = _number_words(text, start.start())
        if found is None:
            continue
        value, end = found
        if text[start.start()].isdigit() and isinstance(
            parse_quantity(text[start.start() : end], _digits_only=True), ParsedQuantity
        ):
            continue  # "1.01 million" reads as it is; "2 dozen" does not
        fraction = _AND_A_FRACTION.match(text, end)
        unit = ""
        if fraction and _is_unit_word(fraction.group("unit").strip()):  # "an hour and a half": 1.5 hours
            value += _FRACTIONS[fraction.group("fraction").lower()]
            unit, end = fraction.group("unit"), fraction.end()
        digits = _in_digits(value)
        out.append(text[position : start.start()] + digits + unit)
        position = end
    out.append(text[position:])
    return "".join(out), position > 0


def _read_in_words(text: str, failure: ParseFailure) -> ParsedQuantity | ParseFailure:
    """A text that did not read, read again with its numbers in words as digits ("twenty seconds" as 20
    seconds), or `failure` when it has none."""
    cleaned = text
    for old, new in _SPACES.items():
        cleaned = cleaned.replace(old, new)
    cleaned = cleaned.strip()
    in_digits, read = _words_in_digits(cleaned)
    if not read:
        return failure
    found = parse_quantity(in_digits, _digits_only=True)
    if isinstance(found, ParseFailure):
        return dataclasses.replace(found, text=text)
    return _noted(found, f"{cleaned!r} read as {in_digits!r}")


def _ascii_digits(text: str) -> tuple[str, str]:
    """Digits of other scripts ("٣٢٠", "３２０") as ASCII, read on purpose and noted."""
    scripts = []
    out = []
    for char in text:
        digit = unicodedata.decimal(char, None) if not char.isascii() else None
        if digit is not None:
            out.append(str(digit))
            script = unicodedata.name(char, "").split(" DIGIT")[0].title()
            if script not in scripts:
                scripts.append(script)
        else:
            out.append(_ARABIC_SEPARATORS.get(char, char))
    converted = "".join(out)
    if not scripts:
        return converted, ""
    return converted, f"read the {' and '.join(scripts)} digits as {converted.strip()}"


def _compound_duration(text: str) -> float | None:
    """ "1h30m", "2 min 10 s", "1 h 30 min" as seconds; None if the text is not two or more such parts."""
    if not _COMPOUND_DURATION.fullmatch(text) or _MODEL_NAME.search(text):
        return None
    parts = _DURATION_PART.findall(text)
    if len(parts) < 2:
        return None
    return sum(float(amount) * _DURATION_SECONDS[unit.lower()] for amount, unit in parts)


def _strip_currency(text: str) -> tuple[str, str, bool]:
    """The text with a currency sign or code taken off the front (then the third item is True) or written as
    USD where it follows the number, and the sign or code as typed ("" if none)."""
    match = _CURRENCY_PREFIX.match(text)
    if match and _starts_a_number(text[match.end() :]):
        sign = match.group(1).upper().replace("US$", "$")
        return text[match.end() :].lstrip(), sign, True
    match = _CURRENCY_SUFFIX.search(text)
    if match:
        return text[: match.start()] + " USD " + text[match.end() :], match.group(1), False
    return text, "", False


def _ratio(
    text: str, numerator: float, shown: str, match: re.Match[str], notes: list[str], approximate: bool
) -> ParsedQuantity | ParseFailure:
    """ "3:1", "1,000:1", "1/6", "1 in 1,000", "2/3 of the fleet": a plain number."""
    denominator = float(match.group("denominator").replace(",", ""))
    if denominator == 0:
        return ParseFailure(text, "a ratio or fraction cannot have 0 below the line")
    value = numerator / denominator
    sign = " in " if match.group("sign") == "in" else match.group("sign")  # "1 in 1,000"
    written = f"{shown}{sign}{match.group('denominator')}"
    kind = "the ratio" if match.group("sign") == ":" else "the fraction"
    notes.append(f"{kind} {written} read as {format_number(value)}")
    after = match.group("after").strip()
    if _SHARE_OF.fullmatch(after):
        notes.append(f"{after!r} read as a share")
    elif _counted(after):  # "1 in 1,000 requests", "1 in 2,000 lookups per shard": what is counted
        notes.append(f"{after!r} read as what is counted")
    elif after:
        return ParseFailure(text, f"cannot read {after!r} after {written}; write the fraction alone (1/6)")
    return ParsedQuantity(value, DIMENSIONLESS, None, "; ".join(notes), approximate)


def _counted(after: str) -> bool:
    """Words after a ratio that name what it counts ("requests", "lookups per shard"), not a unit with a
    physical dimension ("3/4 GB" is no share of anything)."""
    if not _COUNTED_WORDS.fullmatch(after):
        return False
    try:
        return parse_unit(after).dims.physical.is_dimensionless
    except UnitError:
        return True


def _ratio_in_digits(rest: str, notes: list[str], money: bool) -> str:
    """The text after a number with a ratio's denominator in words or with a scale written in digits, so
    the fraction reads: "in a thousand", "per thousand", "out of 1,000", "in every 10k", "per 1M", "per
    mille", "per cent" -> "in 1,000" (a note says so). "per" only ends the text or comes before "of ...":
    "per 1M tokens" is a price per count, not a fraction. Anything else is returned as it was."""
    joined = _RATIO_JOINER.match(rest)
    if not joined or money:  # "$0.97 per 1M tokens" is a price
        return rest
    tail = joined.group("tail")
    digits = _DENOMINATOR_DIGITS.match(tail)
    if digits:
        scale = _DENOMINATOR_SCALES.get((digits.group("scale") or "").lower(), 1.0)
        denominator, end = float(digits.group("number").replace(",", "")) * scale, digits.end()
    else:
        words = _number_words(tail, 0)
        bare = _DENOMINATOR_WORD.match(tail)
        if words is not None:
            denominator, end = words
        elif bare:
            denominator, end = _DENOMINATOR_SCALES[bare.group("word").lower()], bare.end()
        else:
            return rest
    after = tail[end:].strip()
    if joined.group("joiner").lower() == "per" and after and not _SHARE_OF.fullmatch(after):
        return rest
    written = rest[: len(rest) - len(tail) + end].strip()
    canonical = f"in {denominator:,.0f}" if denominator.is_integer() else f"in {denominator}"
    if re.fullmatch(r"in\s+\d[\d,]*(?:\.\d+)?", written, re.IGNORECASE):
        return rest  # "1 in 1,000" reads as it is
    notes.append(f"{written!r} read as {canonical!r}")
    return f"{canonical} {after}".strip()


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
    after = _BOUND_SUFFIX.search(text)
    if not bound and after and after.start() > 0 and _starts_a_number(text):
        bound, text = after.group(0).strip(), text[: after.start()].rstrip()
    return text, approximate, bound


def _starts_a_number(text: str) -> bool:
    return bool(re.match(r"\s*[$+-]?\s*[\d.]", text))


def _magnitude(number: re.Match[str]) -> float | str:
    """The number's value, or a message when it cannot be computed with (beyond ±1e308, or a non-zero
    number so close to zero that it would read as 0)."""
    digits = number.group("digits").replace(",", "").replace("_", "")
    exponent = int(number.group("exponent") or 0) + int(number.group("power_of_ten") or 0)
    try:
        value = float(digits) * 10.0**exponent
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        return _TOO_FAR
    if (value == 0 and float(digits) != 0) or 0 < abs(value) < sys.float_info.min:
        return _TOO_CLOSE  # 0 < 1e-320 < 2.2e-308: a subnormal float, whose ratios underflow to 0
    if value == 0:
        return 0.0  # "-0" is 0
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
        return ParseFailure(text, _TOO_FAR)
    if not unit_text:
        return ParsedQuantity(value, None, None, "; ".join(notes), approximate)
    if unit_text in _RATIO_WORDS:
        notes.append("a ratio")
        return ParsedQuantity(value, DIMENSIONLESS, unit_text, "; ".join(notes), approximate)
    body = _PER_ONE.sub("/", unit_text, count=1)  # "20,000 1/s": the unit 1/s as the question writes it
    if not _UNIT_START.match(body) or _DIGIT.search(_EXPONENTS.sub("", body)):
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
        return ParseFailure(text, _TOO_FAR)
    if value != 0 and abs(value * unit.factor) < sys.float_info.min:
        return ParseFailure(text, _TOO_CLOSE)
    return ParsedQuantity(value * unit.factor, unit.dims, unit_text, "; ".join(notes), approximate)


@functools.lru_cache(maxsize=1024)
def _uses_bits(unit_text: str) -> bool:
    return any(word in BIT_UNIT_NAMES for word in re.findall(r"[A-Za-z]+", normalize_unit_text(unit_text)))


@dataclass(frozen=True)
class LineReading:
    """A text read for one line: the value in the line's base units, the notes on how it was read, and
    whether a unit was written (else the line's unit was applied)."""

    value: float
    note: str
    unit_written: bool
    as_typed: float | None = None  # a unit other than the line's: the number typed, read in the line's unit
    per: str = ""  # the count of a "per GPU" (per node...) the text names and the line does not
    spread: tuple[float, float] | None = None  # a range's ends over its midpoint (ParsedQuantity.spread)
    per_count: tuple[str, float] | None = (
        None  # converted from per another count: that count, the value unconverted
    )


_LABEL_PERIOD = re.compile(
    r"\b(?:per|a|an|each|every)\s+(?P<word>second|minute|hour|day|week|month|year)\b"
    r"|\b(?P<adjective>hourly|daily|weekly|monthly|yearly|annual)\b",
    re.IGNORECASE,
)
_PERIOD_OF_ADJECTIVE = {"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month"}


@functools.lru_cache(maxsize=1024)
def label_period(label: str, unit: str) -> str:
    """The period a line's label names when its unit leaves time out ("Revenue per month" in USD: "month";
    "Daily active users": "day"), else "": a text per that period is the line's own figure."""
    if any(symbol == "s" for symbol, _ in parse_unit(unit).dims.exponents):
        return ""
    match = _LABEL_PERIOD.search(label)
    if not match:
        return ""
    if match.group("word"):
        return match.group("word").lower()
    return _PERIOD_OF_ADJECTIVE.get(match.group("adjective").lower(), "year")


def read_on_line(
    text: str,
    unit: str | Unit,
    label: str = "",
    zero: bool | None = None,
    alike: frozenset[tuple[str, str]] = frozenset(),
    *,
    no_limit: bool = False,
    ratios: frozenset[CountRatio] = frozenset(),
) -> LineReading | ParseFailure:
    """`text` read for a line shown in `unit`; never raises for bad text.

    On top of `parse_quantity`: a bare number is in the line's unit, and a scale word that repeats the unit's
    own prefix is that prefix ("1.04T" on a TB line is 1.04 TB); a bare "B" on a line that is not in bytes is
    a billion ("175B" parameters); a noun the line counts under another name is that count ("44
    conversations" on a session line, "20k ops/s" on a req/s line; units.COUNT_NOUNS), and requests and
    sequences are one count; "none" is 0 where `zero` says zero is meant (an assumption whose range holds
    0), else on a line of counts (None: not known); on a line whose value may be no limit (`no_limit`: a
    design's limit whose range reaches unbounded) "none" is no limit, as the no-limit words are. A number
    with only a "per" count ("102 per GPU") is in the line's unit, per that count. On a line whose `label`
    names a period its unit leaves out (`label_period`: "Revenue per month" in USD), a figure per that
    period is the line's own ("$19.4M/month"), and one per another period converts ("$648k/day" is × 30);
    a noun of the label names what the line counts ("92 spares" on "Fleet spare pool" in nodes, "8
    workers" on a plain count of prefill workers). A unit of another dimension is a failure of kind
    "dimension".

    A number that fits a float as typed but not once in the line's base units ("1e308" on a KiB/tok line,
    "1e-322 ms") is refused as too far from (or too close to) zero, like one typed beyond ±1e308."""
    if isinstance(text, str) and len(text) <= MAX_TEXT_CHARS:
        unbounded = _no_limit(text, no_limit)
        if unbounded is not None:
            return LineReading(math.inf, unbounded, False)
    reading = _read_on_line(text, unit, label, zero, alike)
    if isinstance(reading, ParseFailure) and reading.kind == "dimension" and isinstance(text, str):
        reading = _restated(text, unit, label, zero, alike) or _per_count(text, unit, ratios) or reading
    if isinstance(reading, ParseFailure):
        if reading.as_line_unit is not None and not math.isfinite(reading.as_line_unit):
            return dataclasses.replace(reading, as_line_unit=None)
        return reading
    if not math.isfinite(reading.value):
        return ParseFailure(text, _TOO_FAR)
    if reading.as_typed is not None and not math.isfinite(reading.as_typed):
        reading = dataclasses.replace(reading, as_typed=None)  # "1e306 s" on a line in days: read as s only
    typed = parse_quantity(text)
    if reading.value == 0 and isinstance(typed, ParsedQuantity) and typed.base_value != 0:
        return ParseFailure(text, _TOO_CLOSE)
    if 0 < abs(reading.value) < sys.float_info.min:
        return ParseFailure(text, _TOO_CLOSE)
    if isinstance(typed, ParsedQuantity) and typed.spread is not None:
        reading = dataclasses.replace(reading, spread=typed.spread)
    return reading


def _restated(
    text: str, unit: str | Unit, label: str, zero: bool | None, alike: frozenset[tuple[str, str]]
) -> LineReading | None:
    """ "217 GPUs ≈ 28 nodes" on a GPU line: one quantity in the line's dimension, restated after "≈" or "="
    in another unit; the first is the answer and the restatement a note (shown working, "8 × 27 = 216 GPUs",
    still reads its result). None when the text before the mark is not one quantity that fits the line."""
    mark = _RESULT_MARK.search(text)
    if mark is None:
        return None
    if not isinstance(_parse_one(text[: mark.start()]), ParseFailure):
        head = _read_on_line(text[: mark.start()], unit, label, zero, alike)
        if isinstance(head, LineReading):
            note = f"{text[mark.start() :].strip()!r} read as a note"
            return dataclasses.replace(head, note=_joined(head.note, note))
    # "5% of rev = $0.97M" on a line of money: the head is working in another dimension, and the stated
    # result after the last mark is the answer, where it fits the line.
    last = list(_RESULT_MARK.finditer(text))[-1]
    if not _DIGIT.search(text[: last.start()]):
        return None
    result = _read_on_line(text[last.end() :], unit, label, zero, alike)
    if isinstance(result, ParseFailure):
        return None
    return dataclasses.replace(result, note=_joined(f"read the result after {last.group(0)!r}", result.note))


def _no_limit(text: str, no_limit: bool) -> str | None:
    """The note for a text that says there is no limit ("no limit", "there is no cap", "it's unbounded",
    "N/A (no limit)", "none" where the line's value may be no limit: `no_limit`), else None."""
    if _NO_LIMIT.fullmatch(text) or (no_limit and _NONE_SAID.fullmatch(text)):
        return f"read {text.strip()!r} as no limit"
    noted = _NO_LIMIT_NOTED.fullmatch(text)
    if noted and (no_limit or noted.group("word").lower() not in _ZERO_WORDS):
        note = noted.group("note").strip(" ,;:—-")
        return f"read {noted.group('word')!r} as no limit; {note!r} read as a note"
    if _NO_LIMIT_AFTER_NONE.fullmatch(text):
        return f"read {text.strip()!r} as no limit"
    return None


# How many of one count make one of another, as a question's model says it (GPUs per node: "GPU", "node", 8).
CountRatio = tuple[str, str, float]


def count_ratios(inputs: Iterable[tuple[str, float]]) -> frozenset[CountRatio]:
    """The ratios among a question's inputs (unit text, value in that unit) whose unit is one count per
    another ("GPU/node", 8), for `read_on_line`'s `ratios`."""
    found = set()
    for unit_text, value in inputs:
        try:
            dims = parse_unit(unit_text).dims
            factor = parse_unit(unit_text).factor
        except UnitError:
            continue
        exponents = dict(dims.exponents)
        many = [symbol for symbol, exponent in exponents.items() if exponent == 1]
        one = [symbol for symbol, exponent in exponents.items() if exponent == -1]
        count = float(value) * factor
        if dims.physical.is_dimensionless and len(exponents) == 2 and many and one and 0 < count < math.inf:
            found.add((many[0], one[0], count))
    return frozenset(found)


def _per_count(text: str, unit: str | Unit, ratios: frozenset[CountRatio]) -> LineReading | None:
    """A figure per one count on a line per another, where the question says how many of one make the other
    (issue 30: "convert when the chain gives the count, and say so"): "31 GB per node" on a GB-per-GPU line
    is 31 / 8 GB per GPU, "6.25 qps/GPU" on a per-node line 6.25 x 8. Only a "per" count converts: "28
    nodes" on a GPU count stays the wrong dimension. None when nothing converts."""
    parsed = parse_quantity(text) if ratios else None
    if not isinstance(parsed, ParsedQuantity) or parsed.dims is None:
        return None
    target = unit if isinstance(unit, Unit) else parse_unit(unit)
    written = dict(parsed.dims.exponents)
    for many, one, count in sorted(ratios):
        ratio = Dims.of(((many, 1), (one, -1)))
        for per, dims, scale in ((many, parsed.dims * ratio, count), (one, parsed.dims / ratio, 1 / count)):
            if written.get(per) == -1 and dims == target.dims:
                how = f"× {format_number(count)}" if scale > 1 else f"÷ {format_number(count)}"
                note = _joined(parsed.note, f"a figure per {per}: {how} {plural(many)} a {one}")
                value = parsed.base_value * scale
                return LineReading(value, note, True, per_count=(per, parsed.base_value))
    return None


def alike_counts(gpus_per_replica: float | None) -> frozenset[tuple[str, str]]:
    """The counts a question uses for one thing, for `read_on_line`: where a replica is one 8-GPU node
    (the question's GPUs per replica), "47 nodes" is 47 replicas."""
    if gpus_per_replica is not None and math.isclose(gpus_per_replica, GPUS_PER_NODE):
        return frozenset({("node", "replica")})
    return frozenset()


def _read_on_line(
    text: str, unit: str | Unit, label: str, zero: bool | None, alike: frozenset[tuple[str, str]]
) -> LineReading | ParseFailure:
    target = unit if isinstance(unit, Unit) else parse_unit(unit)
    clock = _clock_duration(text, target) if target.dims == _SECONDS.dims else None
    if clock is not None:
        return clock
    period = label_period(label, target.text) if label else ""
    parsed = parse_quantity(text)
    if isinstance(parsed, ParseFailure):
        return _read_failure(text, parsed, target, label, zero, alike)
    if parsed.dims is None:
        return _bare_on_line(parsed, target)
    line_symbols = {symbol for symbol, _ in target.dims.exponents}
    if parsed.unit == "B" and "B" not in line_symbols:
        notes = _joined(parsed.note, _B_AS_BILLION)
        return LineReading(parsed.base_value * 1e9 * target.factor, notes, False)
    billion = _BILLION_PER.sub(r"\g<number>bn", text, count=1) if "B" not in line_symbols else text
    if billion != text and parsed.dims.exponents and dict(parsed.dims.exponents).get("B", 0) == 1:
        # "2.6B/mo" on a line of events a month: a billion per month, as "2.6B" alone is a billion.
        again = _read_on_line(billion, target, label, zero, alike)
        if isinstance(again, LineReading):
            note = again.note.replace("'bn' read as billion", _B_AS_BILLION)
            return dataclasses.replace(again, note=note)
    # "102 per GPU" on a line in minutes: the number in the line's unit, per GPU ("/GPU" on a GB/GPU line is
    # the line's own "per GPU"; "98,304 per GPU" on a GPU*h/day line is in GPU-hours a day, not GPU).
    per_only = _per_only_on_line(parsed.dims, target.dims, target.text)
    if per_only is not None:
        note, per = per_only
        return LineReading(parsed.base_value * target.factor, _joined(parsed.note, note), False, None, per)
    if target.dims.is_dimensionless and _counts_of_label(parsed.dims, label):
        # "3.36 tokens per step" on a plain line labelled "Expected tokens per target step".
        note = f"{parsed.unit!r} read as what the line counts (a plain number)"
        return LineReading(parsed.base_value, _joined(parsed.note, note), True)
    if parsed.dims.is_dimensionless and not target.dims.is_dimensionless and _is_share(parsed):
        # "2.3%" on a count of nodes, "85%" on a rate: a share where the line asks for an amount.
        asked = format_unit(target.text)
        message = f"{text.strip()!r} is a share; this line asks for {asked}"
        return ParseFailure(text, message, "dimension", parsed.base_value * target.factor)
    fits, how = _fit(parsed.dims, target.dims, target.text, alike)
    if fits:
        as_typed = parsed.base_value / _unit_factor(parsed.unit) * target.factor
        as_typed_or_none = None if math.isclose(as_typed, parsed.base_value, rel_tol=1e-9) else as_typed
        per = _written_per(parsed.dims, target.dims)
        if per and per in label_counts(label) | {other for one, other in alike if one == per}:
            # "9.8 GB per conversation" on "KV cache of one conversation": the line's own qualifier.
            per, how = "", f"'per {per}' read as the line's own (it is for one {per})"
        return LineReading(parsed.base_value, _joined(parsed.note, how), True, as_typed_or_none, per)
    # "$38,880" or "$38,880 per team" on a per-team-per-month line: per month, the period the text leaves out.
    # Only a budget's period (an hour or longer) goes without saying: "28k tokens" is no rate per second.
    left_out = _line_period(target.text, parsed.dims)
    if left_out is not None and left_out[0] >= _BUDGET_PERIOD_S:
        amount = format_number(parsed.base_value / _unit_factor(parsed.unit))
        note = f"read as {amount} {parsed.unit} in the line's unit, {format_unit(target.text)}"
        return LineReading(parsed.base_value / left_out[0], _joined(parsed.note, note), True)
    # "$19.4M/month" on a line of revenue per month in USD: the period is the line's own.
    written = _line_period(parsed.unit or "", target.dims) if period else None
    if written is not None:
        seconds = _unit_factor(period)
        value = parsed.base_value * seconds
        if math.isclose(seconds, written[0], rel_tol=1e-9):
            amount = format_quantity(value / target.factor, target.text)
            note = f"read as {amount} per {period}, the line's period"
        else:
            ratio = seconds / written[0]
            times = f"× {format_number(ratio)}" if ratio >= 1 else f"÷ {format_number(1 / ratio)}"
            note = f"a figure per {written[1]}; this line is per {period}: {times}"
        return LineReading(value, _joined(parsed.note, note), True)
    asked = format_unit(target.text) or "a plain number"
    unit_said = parsed.unit if parsed.unit else "a plain number"  # "1:10" on a count: a ratio, no unit
    message = f"{text.strip()!r} is {'in ' if parsed.unit else ''}{unit_said}; this line asks for {asked}"
    as_line_unit = parsed.base_value / _unit_factor(parsed.unit) * target.factor
    return ParseFailure(text, message, "dimension", as_line_unit)


_B_AS_BILLION = "'B' read as billion (this line is not in bytes)"
# A "B" straight after the number and before a "per": "2.6B/mo", "1.2B per day".
_BILLION_PER = re.compile(r"(?P<number>\d)\s*B(?=\s*(?:/|per\s))")
_ONE_OF = re.compile(r"\b(?:per|one|a|an|each|every)\s+(?P<noun>[A-Za-z][\w-]*)", re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def label_counts(label: str, *, singular_nouns: bool = False) -> frozenset[str]:
    """The counts a label says it is for one of: "KV cache of one conversation" (session), "HBM left on a
    replica" (replica), "Requests per second one replica serves"; with `singular_nouns`, any count noun in the
    singular too ("Longest prompt": prompt; "the eight GPUs" is many of them)."""
    counts: set[str] = set()
    nouns = [match.group("noun") for match in _ONE_OF.finditer(label)]
    if singular_nouns:
        nouns += [word for word in _NOUN.findall(label) if singular(word) == word.lower()]
    for noun in nouns:
        noun = re.sub(r"['’]s\Z", "", noun)
        symbol = count_symbol(noun)
        counts |= {symbol} if symbol else counts_named_by(noun)
    return frozenset(counts)


_CLOCK = re.compile(r"\s*[~≈]?\s*(?P<first>\d{1,3}):(?P<second>[0-5]\d)(?::(?P<third>[0-5]\d))?\s*")


def _clock_duration(text: str, target: Unit) -> LineReading | None:
    """ "1:10" on a line of time, as a clock writes a duration: minutes and seconds on a line of seconds or
    less (70 s), hours and minutes on a line of minutes or more (70 min); "1:02:30" is h:mm:ss."""
    match = _CLOCK.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return None
    first, second = int(match.group("first")), int(match.group("second"))
    if match.group("third") is not None:
        seconds, how = first * 3600 + second * 60 + int(match.group("third")), "h:mm:ss"
    elif target.factor < 60:
        seconds, how = first * 60 + second, "m:ss"
    else:
        seconds, how = first * 3600 + second * 60, "h:mm"
    note = f"{text.strip()!r} read as {how}, {format_quantity(seconds / target.factor, target.text)}"
    return LineReading(float(seconds), note, True)


def _is_share(parsed: ParsedQuantity) -> bool:
    return "a percentage" in parsed.note or "read as a share" in parsed.note


@functools.lru_cache(maxsize=4096)
def _fit(
    given: Dims, line: Dims, line_text: str, alike: frozenset[tuple[str, str]] = frozenset()
) -> tuple[bool, str]:
    """Whether a reading in `given` fits a line in `line` (the count rule, a count read as its equivalent,
    or a figure that names no count at all on a line of counts: "3/s" on requests per second per team),
    and the note that says how; cached, as the dimension algebra is the costly part."""
    if compatible(given, line):
        return True, _qualifier_note(given, line, line_text)
    if not given.counts.exponents and given.physical == line.physical:
        return True, f"read in the line's counts, {format_unit(line_text)}"
    renamed = _equivalent_counts(given, line, alike)
    return bool(renamed), renamed


@functools.lru_cache(maxsize=1024)
def _per_counts(given: Dims, line: Dims) -> tuple[str, ...]:
    """The counts of a "per GPU" (per node...) written in `given` that the line does not have ("50 per
    second" on a req/s line leaves the request out: it is no per-req figure)."""
    written_per = {symbol for symbol, exponent in given.counts.exponents if exponent < 0}
    return tuple(
        symbol
        for symbol, exponent in (given / line).counts.exponents
        if exponent < 0 and symbol in written_per
    )


@functools.lru_cache(maxsize=1024)
def _per_only_on_line(given: Dims, line: Dims, line_text: str) -> tuple[str, str] | None:
    """For a text whose unit is only "per" counts ("102 per GPU", "3.91/GPU"), read in the line's unit: the
    note and the written per count (as `_written_per`), or None for any other text. A count the line is
    already per is its own ("3.91/GPU" on a GB/GPU line); another is a per-count figure, as ever."""
    if not given.exponents or not given.physical.is_dimensionless:
        return None
    if any(exponent > 0 for _, exponent in given.exponents):
        return None
    below = {symbol for symbol, exponent in line.exponents if exponent < 0}
    extra = tuple(symbol for symbol, _ in given.exponents if symbol not in below)
    if not extra:
        return "", ""  # the line's own "per GPU"
    note = f"you wrote a per-{' and '.join(extra)} figure" + not_converted(line_text)
    return note, extra[0] if len(extra) == 1 else ""


def _written_per(given: Dims, line: Dims) -> str:
    counts = _per_counts(given, line)
    return counts[0] if len(counts) == 1 else ""


def _qualifier_note(given: Dims, line: Dims, line_text: str) -> str:
    """A note when the text says "per GPU" (or per node, per replica) and the line does not: the value is
    read as the line's own figure, and the note says so rather than dropping the qualifier silently (the
    grader converts it where the line's chain counts them: `not_converted` is replaced)."""
    per = " and ".join(_per_counts(given, line))
    if not per:
        return ""
    return f"you wrote a per-{per} figure" + not_converted(line_text)


def _read_failure(
    text: str,
    failure: ParseFailure,
    target: Unit,
    label: str,
    zero: bool | None,
    alike: frozenset[tuple[str, str]],
) -> LineReading | ParseFailure:
    if failure.kind == "missing":
        word = text.strip().rstrip(".!").lower()
        counts_only = bool(target.dims.exponents) and not target.dims.physical.exponents
        if word in _ZERO_WORDS and (counts_only if zero is None else zero):
            return LineReading(0.0, f"read {word!r} as 0", False)
        return failure
    no_count = _NO_COUNT.fullmatch(text) if failure.kind == "unparsed" else None
    counts_only = bool(target.dims.exponents) and not target.dims.physical.exponents
    if no_count and (counts_only if zero is None else zero):
        # "no spares" on a count of spare nodes: zero of them, read as "0 spares" would be.
        none_of = read_on_line(f"0 {no_count.group('counted')}", target, label, zero, alike)
        if isinstance(none_of, LineReading):
            return dataclasses.replace(none_of, note=_joined(f"read {text.strip()!r} as 0", none_of.note))
    if "is ambiguous" in failure.message:  # "9.8 gb" on a line in bytes is 9.8 GB; on a line in bits, Gb
        return _case_of_line(text, failure, target, label, zero, alike)
    flop = dict(target.dims.exponents).get("FLOP", 0) == 1
    short = _FLOP_SHORT.search(text) if flop and failure.kind == "unparsed" else None
    if short is not None:
        # "144 PF" on a line of PFLOP, "989 TF" on one of TFLOP/s: the FLOP word the line itself is in.
        rate = "/s" if dict(target.dims.exponents).get("s", 0) == -1 else ""
        spelled = f"{'k' if short.group('prefix') in 'kK' else short.group('prefix')}FLOP{rate}"
        again = read_on_line(
            text[: short.start()] + spelled + text[short.end() :], target, label, zero, alike
        )
        if isinstance(again, LineReading):
            return dataclasses.replace(
                again, note=_joined(again.note, f"{short.group(0)!r} read as {spelled}")
            )
    if target.dims == _SECONDS.dims and _MINUTES_M.search(text) and "unknown unit 'm'" in failure.message:
        # "~45m" on a line of time: minutes, as "6m40s" reads (the bank measures no length).
        minutes = read_on_line(_MINUTES_M.sub("min", text), target, label, zero, alike)
        if isinstance(minutes, LineReading):
            return dataclasses.replace(minutes, note=_joined(minutes.note, "'m' read as minutes"))
    # "twenty convs": the words as digits first, so that the note says what was typed ("'twenty convs' read
    # as '20 convs'"), then the nouns.
    in_digits, words = _words_in_digits(text.strip())
    renamed_text, renamed = _with_line_nouns(in_digits if words else text, target, label, alike)
    if not renamed:
        return failure
    reading = read_on_line(renamed_text, target, label, zero, alike)
    if isinstance(reading, ParseFailure) and reading.kind == "dimension":
        # "480 H100s" on a line of nodes: read, and GPUs where nodes are asked, not unreadable.
        message = reading.message.replace(repr(renamed_text.strip()), repr(text.strip()), 1)
        return dataclasses.replace(reading, text=text, message=message)
    if isinstance(reading, ParseFailure):
        return failure
    read_words = f"{text.strip()!r} read as {in_digits!r}" if words else ""
    return dataclasses.replace(reading, note=_joined(read_words, reading.note, renamed))


_FLOP_SHORT = re.compile(r"(?<=[\d\s])(?P<prefix>[kKMGTPE])F(?![A-Za-z])")
_MINUTES_M = re.compile(r"(?<=[\d\s])m(?![A-Za-z])")
_BYTE_OR_BIT = re.compile(r"(?<![A-Za-z])(?P<prefix>[kmgtp])(?P<b>b)(?P<rest>s|ps)?(?![A-Za-z])")


def _case_of_line(
    text: str,
    failure: ParseFailure,
    target: Unit,
    label: str,
    zero: bool | None,
    alike: frozenset[tuple[str, str]],
) -> LineReading | ParseFailure:
    """ "9.8 gb" read in the case of the line's own unit: GB on a line in bytes, Gb on a line in bits; on a
    line in neither, "1.4 gb" on a time, it is the wrong dimension either way (read as bytes, so said)."""
    in_bits = any(word in BIT_UNIT_NAMES for word in re.findall(r"[A-Za-z]+", target.text))
    written: list[str] = []

    def cased(match: re.Match[str]) -> str:
        rest = match.group("rest") or ""
        unit = match.group("prefix").upper() + ("b" if in_bits else "B") + ("" if rest == "s" else rest)
        written.append(f"{match.group(0)!r} read as {unit}")
        return unit

    reading = read_on_line(_BYTE_OR_BIT.sub(cased, text), target, label, zero, alike)
    if isinstance(reading, ParseFailure) and reading.kind == "dimension" and written:
        return dataclasses.replace(
            reading,
            text=text,
            message=reading.message.replace(repr(reading.text.strip()), repr(text.strip()), 1),
        )
    if isinstance(reading, ParseFailure) or not written:
        return failure
    kind = "bits" if in_bits else "bytes"
    return dataclasses.replace(reading, note=_joined(reading.note, f"{written[0]} (this line is in {kind})"))


def _with_line_nouns(
    text: str, target: Unit, label: str = "", alike: frozenset[tuple[str, str]] = frozenset()
) -> tuple[str, str]:
    """`text` with the nouns outside the registry that name one of the line's counts (or name one count
    only) replaced by that count's symbol, and a note saying so ("" if nothing was replaced). A noun of the
    line's own label ("spares" on "Fleet spare pool") is the one count the line has above its "/", or on a
    plain line nothing but what it counts."""
    line_counts = {symbol for symbol, _ in target.dims.counts.exponents}
    above = [symbol for symbol, exponent in target.dims.counts.exponents if exponent > 0]
    own_words = _label_nouns(label)
    notes = []

    def replace(match: re.Match[str]) -> str:
        word = match.group(0)
        named = counts_named_by(word)
        # "12 servers" on a replica line where a replica is one node: the count the question calls alike.
        kin = {one for one in named for other in _kin(one, alike) if other in line_counts}
        fitting = named & line_counts or kin
        # The count the question itself calls alike first: "servers" are its nodes before any instance.
        chosen = sorted(fitting or named, key=lambda one: (all(one != each for each, _ in alike), one))
        if len(chosen) > 1 and set.intersection(*(_kin(one, alike) for one in chosen)) & line_counts:
            chosen = chosen[:1]  # "streams" (requests or connections) on a line of conversations: either fits
        # A noun of the label that names no count the line has, as "spares", or names others ("6 servers" on
        # "4-GPU servers (one TP4 replica each)" in replicas, where a server is no 8-GPU node): the line's.
        if not fitting and _names_label_word(word, own_words) and not _is_unit_word(word):
            if len(above) == 1:
                notes.append(f"{word!r} read as {above[0]}, what the line counts")
                return above[0]
            if target.dims.is_dimensionless:
                notes.append(f"{word!r} read as what the line counts")
                return ""
        if not chosen or (len(chosen) > 1 and line_counts):
            return word
        # A noun of several counts on a line that counts none of them: any count fits it the same way.
        notes.append(f"{word!r} read as {chosen[0]}" if len(chosen) == 1 else f"{word!r} read as a count")
        return chosen[0]

    replaced = _NOUN.sub(replace, text)
    # "key lookups", "GPU cards": a noun after the count it names is that count once.
    replaced = _TWO_WORDS.sub(lambda match: _one_count(match), replaced)
    return replaced, "; ".join(notes)


def _kin(count: str, alike: frozenset[tuple[str, str]]) -> set[str]:
    """The counts `count` is read as: its equivalents (a request is a sequence) and the question's alike."""
    return {*COUNT_EQUIVALENTS.get(count, {}), *(other for one, other in alike if one == count)}


_TWO_WORDS = re.compile(r"(?<![A-Za-z])(?P<first>[A-Za-z]\w*)\s+(?P<second>[A-Za-z]\w*)(?![A-Za-z])")


def _one_count(match: re.Match[str]) -> str:
    first = count_symbol(match.group("first"))
    return match.group("first") if first and first == count_symbol(match.group("second")) else match.group(0)


_LABEL_STOP_WORDS = frozenset(
    {"the", "and", "for", "with", "per", "from", "into", "that", "this", "all", "one"}
)


@functools.lru_cache(maxsize=1024)
def _names_label_word(word: str, own_words: frozenset[str]) -> bool:
    """Whether `word` is a noun of the label, or the same word shortened ("compares" for "Comparisons",
    "evals" for "evaluations"): all but its last two letters, and at least five, begin a label noun."""
    noun = singular(word)
    if noun in own_words:
        return True
    stem = noun[: max(5, len(noun) - 2)]
    return len(noun) >= 5 and any(other.startswith(stem) for other in own_words)


def _label_nouns(label: str) -> frozenset[str]:
    return frozenset(
        singular(word) for word in re.findall(r"[A-Za-z]{3,}", label) if word.lower() not in _LABEL_STOP_WORDS
    )


@functools.lru_cache(maxsize=1024)
def _counts_of_label(given: Dims, label: str) -> bool:
    """Whether `given` is counts only, each one named in `label` ("tok/step" and "Expected tokens per target
    step"): on a plain line, the unit the label spells out."""
    if not given.exponents or not given.physical.is_dimensionless or not label:
        return False
    own_words = _label_nouns(label)
    names = {symbol: {symbol, *aliases} for symbol, aliases in COUNT_UNITS}
    return all(
        any(singular(name) in own_words for name in names.get(symbol, {symbol}))
        for symbol, _ in given.exponents
    )


@functools.lru_cache(maxsize=1024)
def _is_unit_word(word: str) -> bool:
    try:
        parse_unit(word)
    except UnitError:
        return False
    return True


def _equivalent_counts(given: Dims, line: Dims, alike: frozenset[tuple[str, str]] = frozenset()) -> str:
    """A note when `given` fits the line once a count is read as its equivalent (req as seq, or a pair the
    question counts alike, `alike`: node as replica), else ""."""
    line_counts = {symbol for symbol, _ in line.counts.exponents}
    renames: dict[str, tuple[str, str]] = {}
    for symbol, _ in given.counts.exponents:
        if symbol in line_counts:
            continue
        options = {
            **COUNT_EQUIVALENTS.get(symbol, {}),
            **{other: ALIKE_REASON for one, other in alike if one == symbol},
        }
        for other in sorted(options):
            if other in line_counts:
                renames[symbol] = (other, options[other])
                break
    if not renames:
        return ""
    renamed = Dims.of((renames.get(symbol, (symbol,))[0], exponent) for symbol, exponent in given.exponents)
    if not compatible(renamed, line):
        return ""
    return "; ".join(f"{old} read as {new} ({why})" for old, (new, why) in renames.items())


@functools.lru_cache(maxsize=1024)
def _line_period(line_unit: str, given: Dims) -> tuple[float, str] | None:
    """The seconds of the time word below the unit's "/" that `given` leaves out, and the word: "$38,880" on a
    USD/(team*month) line is an amount per team per month, "98,300 GPU-hours" on a GPU*h/day line per day."""
    normalized = normalize_unit_text(line_unit)  # "USD per month" as "USD/(month)", "/day" as "1/day"
    below = normalized.partition("/")[2]
    for word in reversed(_NOUN.findall(below)):
        try:
            period = parse_unit(word)
            without = parse_unit(f"({normalized}) * {word}")
        except UnitError:
            continue
        if period.dims == _SECONDS.dims and compatible(given, without.dims):
            return period.factor, word
    return None


def _unit_factor(unit_text: str | None) -> float:
    try:
        return parse_unit(unit_text or "").factor
    except UnitError:
        return 1.0


def _bare_on_line(parsed: ParsedQuantity, target: Unit) -> LineReading:
    prefix = _UNIT_PREFIX.match(target.text)
    repeats_prefix = prefix and _PREFIX_OF_SCALE.get(parsed.scale_word) == prefix.group("prefix").upper()
    if parsed.scale != 1 and prefix and repeats_prefix:
        number = parsed.base_value / parsed.scale
        as_scale = f"{parsed.scale_word!r} read as {_SCALES[parsed.scale_word][0]}"
        as_prefix = (
            f"{parsed.scale_word!r} read as the {prefix.group('prefix')} of {format_unit(target.text)}"
        )
        kept = [note for note in parsed.note.split("; ") if note and note != as_scale]
        return LineReading(number * target.factor, _joined(*kept, as_prefix), False)
    return LineReading(parsed.base_value * target.factor, parsed.note, False)


def _joined(*notes: str) -> str:
    return "; ".join(note for note in notes if note)


def read_value(text: str, unit: str | Unit) -> float | ParseFailure:
    """`text` as a base-unit value for a quantity shown in `unit` (see `read_on_line`)."""
    reading = read_on_line(text, unit)
    return reading if isinstance(reading, ParseFailure) else reading.value
