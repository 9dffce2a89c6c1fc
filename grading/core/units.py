"""Units of the reference models: our own pint registry, dimension algebra and cached conversion factors.

The registry starts empty and holds only what the question bank needs, so `Gb` is a gigabit (pint's
defaults make it a gilbert) and every count (tokens, requests, GPUs, ...) is a dimension of its own. Pint is
touched once per distinct unit string: `parse_unit` caches the factor to base units and the dimensions, so
conversions on hot paths are one multiplication.

Base units: bytes `B`, seconds `s`, `FLOP`, watts `W`, `USD`, and 1 of each count.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pint

# (symbol, pint dimension, long names and aliases). Byte and bit names stay case-sensitive: B is not b.
_PHYSICAL_BASES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("B", "information", ("byte", "bytes")),
    ("FLOP", "compute", ("flop",)),
    ("W", "power", ("watt", "watts")),
    ("USD", "money", ("usd", "dollar", "dollars", "buck", "bucks")),
    ("s", "time", ("sec", "secs", "second", "seconds")),
)

COUNT_UNITS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("tok", ("token", "tokens", "toks")),
    ("req", ("request", "requests", "reqs")),
    ("GPU", ("GPUs", "gpu", "gpus")),
    ("node", ("nodes",)),
    ("replica", ("replicas",)),
    ("seq", ("seqs", "sequence", "sequences")),
    ("user", ("users",)),
    ("job", ("jobs",)),
    ("prompt", ("prompts",)),
    ("param", ("params", "parameter", "parameters")),
    ("switch", ("switches",)),
    ("pod", ("pods",)),
    ("rack", ("racks",)),
    ("eval", ("evals", "evaluation", "evaluations")),
    ("adapter", ("adapters",)),
    ("expert", ("experts",)),
    ("query", ("queries", "q")),  # "50 q/s"
    ("pair", ("pairs",)),
    ("event", ("events",)),
    ("tenant", ("tenants",)),
    ("shard", ("shards",)),
    ("conn", ("conns", "connection", "connections")),
    ("series", ()),
    ("step", ("steps",)),
    ("layer", ("layers",)),
    ("session", ("sessions",)),
    ("team", ("teams",)),
    ("key", ("keys",)),
    ("chunk", ("chunks",)),
    ("frame", ("frames",)),
    ("image", ("images",)),
    ("doc", ("docs", "document", "documents")),
    ("sample", ("samples",)),
    ("ckpt", ("ckpts", "checkpoint", "checkpoints")),
    ("failure", ("failures",)),
    ("region", ("regions",)),
    ("instance", ("instances",)),
)

# Nouns people use for what a line counts, by the count they name ("44 conversations" on a session line).
# A noun is read as a count the line has, so "machines" can be nodes or instances.
COUNT_NOUNS: dict[str, tuple[str, ...]] = {
    "session": ("conversation", "conv", "chat", "convo", "dialog", "dialogue", "thread"),
    "instance": ("machine", "server", "host", "vm", "box", "worker"),
    "node": ("machine", "server", "host", "box"),
    "GPU": ("card", "accelerator", "device", "h100", "a100", "h200", "b200"),
    "chunk": ("passage", "snippet", "segment", "piece"),
    "pair": ("passage", "candidate", "snippet"),  # a reranker scores (query, passage) pairs
    "key": ("lookup", "fetch", "feature"),
    "doc": ("passage", "page", "file", "article"),
    "req": ("op", "operation", "call", "hit", "rpc", "lookup", "write", "read", "stream", "message", "msg"),
    "query": ("search", "lookup", "question", "op"),
    "user": ("person", "people", "customer", "developer", "employee", "engineer", "researcher"),
    "job": ("task", "run", "workload"),
    "prompt": ("example", "item", "question", "input"),
    "sample": ("example", "row", "record", "item"),
    "event": ("record", "row", "message", "entry", "span", "log"),
    "tenant": ("customer", "org", "organisation", "organization", "account"),
    "team": ("group",),
    "failure": ("fault", "crash", "error", "incident", "interruption", "outage"),
    "step": ("iteration", "iter", "update"),
    "ckpt": ("snapshot", "save"),
    "image": ("picture", "photo", "img"),
    "param": ("weight",),
    "conn": ("socket", "stream"),
    "replica": ("copy",),
    "adapter": ("lora",),
    "region": ("site", "datacenter", "datacentre", "dc"),
    "shard": ("partition",),
    "series": ("metric", "timeseries"),
}
# One thing, two names in the bank, with why: decode batches count requests in some questions, sequences in
# others; a usage event is one per request; a query or a prompt is a request (QPS on a request rate).
COUNT_EQUIVALENTS: dict[str, dict[str, str]] = {
    "req": {
        "seq": "one request is one sequence",
        "event": "one event per request",
        "query": "one query is one request",
        "prompt": "one prompt is one request",
    },
    "seq": {"req": "one request is one sequence"},
    "event": {"req": "one event per request"},
    "query": {"req": "one query is one request"},  # "314 QPS" on a request rate, "10k req/s" on queries
    "prompt": {"req": "one prompt is one request"},
    "replica": {"instance": "a serving instance is one replica"},  # "16 instances" of the model
    "instance": {"replica": "a serving instance is one replica"},
}
# The work a server holds in flight, counted by any of its names: a request is one sequence in the batch, a
# conversation (session) is served one request at a time, and each holds one connection while it streams. An
# expert reads "44 sequences" on a line of conversations, or "2,170 connections" on a line of open streams, as
# the line's own count.
IN_FLIGHT_NAMES: dict[str, str] = {
    "req": "a request",
    "seq": "a sequence",
    "session": "a conversation",
    "conn": "a connection",
}
for _one, _one_words in IN_FLIGHT_NAMES.items():
    for _other, _other_words in IN_FLIGHT_NAMES.items():
        if _one != _other:
            COUNT_EQUIVALENTS.setdefault(_one, {}).setdefault(
                _other, f"{_one_words} in flight is one {_other_words[2:]}"
            )


def _plurals(noun: str) -> tuple[str, ...]:
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return (noun, noun[:-1] + "ies")
    if noun.endswith(("s", "x", "ch", "sh")):
        return (noun, noun + "es")
    return (noun, noun + "s")


def plural(noun: str) -> str:
    """A count noun's plural: "replica" -> "replicas", "query" -> "queries", "switch" -> "switches"."""
    return _plurals(noun)[1]


def singular(word: str) -> str:
    """`_plurals` the other way: "spares" -> "spare", "queries" -> "query", "switches" -> "switch"; lower
    case."""
    word = word.lower()
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


_NOUN_COUNTS: dict[str, frozenset[str]] = {}
for _symbol, _nouns in COUNT_NOUNS.items():
    for _noun in _nouns:
        for _form in _plurals(_noun):
            _NOUN_COUNTS[_form] = _NOUN_COUNTS.get(_form, frozenset()) | {_symbol}


def counts_named_by(word: str) -> frozenset[str]:
    """The count symbols a noun outside the registry can stand for ("conversations" -> {"session"})."""
    return _NOUN_COUNTS.get(word.lower(), frozenset())


_FLOP_PREFIXES = (
    ("k", "kilo", "1e3"),
    ("M", "mega", "1e6"),
    ("G", "giga", "1e9"),
    ("T", "tera", "1e12"),
    ("P", "peta", "1e15"),
    ("E", "exa", "1e18"),
    ("Z", "zetta", "1e21"),
    ("Y", "yotta", "1e24"),
)
# (name, definition, aliases). Aliases in _CASE_INSENSITIVE_WORDS below also match in any letter case.
_DERIVED_UNITS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("KB", "1e3 * B", ("kB", "kilobyte", "kilobytes", "Kbyte", "Kbytes", "kbyte", "kbytes")),
    ("MB", "1e6 * B", ("megabyte", "megabytes", "Mbyte", "Mbytes")),
    ("GB", "1e9 * B", ("gigabyte", "gigabytes", "Gbyte", "Gbytes")),
    ("TB", "1e12 * B", ("terabyte", "terabytes", "Tbyte", "Tbytes")),
    ("PB", "1e15 * B", ("petabyte", "petabytes", "Pbyte", "Pbytes")),
    ("EB", "1e18 * B", ("exabyte", "exabytes")),
    ("KiB", "1024 * B", ("kibibyte", "kibibytes")),
    ("MiB", "1024**2 * B", ("mebibyte", "mebibytes")),
    ("GiB", "1024**3 * B", ("gibibyte", "gibibytes")),
    ("TiB", "1024**4 * B", ("tebibyte", "tebibytes")),
    ("PiB", "1024**5 * B", ("pebibyte", "pebibytes")),
    ("bit", "B / 8", ("bits",)),
    ("Kb", "1e3 * bit", ("kbit", "kilobit", "kilobits")),
    ("Mb", "1e6 * bit", ("Mbit", "megabit", "megabits")),
    ("Gb", "1e9 * bit", ("Gbit", "gigabit", "gigabits")),
    ("Tb", "1e12 * bit", ("Tbit", "terabit", "terabits")),
    ("KBps", "KB / s", ("kBps",)),  # a capital B is bytes: "9.19GBps" is not 9.19 Gb/s
    ("MBps", "MB / s", ()),
    ("GBps", "GB / s", ()),
    ("TBps", "TB / s", ()),
    # Tokens and requests with a scale glued on, as price sheets write them ("$0.60/Mtok", "12 ktok/s").
    ("ktok", "1e3 * tok", ("Ktok", "ktoks", "Ktoks", "ktokens", "Ktokens")),
    ("Mtok", "1e6 * tok", ("Mtoks", "Mtokens")),
    ("Btok", "1e9 * tok", ("Btoks", "Btokens", "Gtok", "Gtokens")),
    ("Ttok", "1e12 * tok", ("Ttoks", "Ttokens")),
    ("kreq", "1e3 * req", ("Kreq", "kreqs", "Kreqs", "krequests", "Krequests")),
    ("Mreq", "1e6 * req", ("Mreqs", "Mrequests")),
    ("QPS", "query / s", ("qps",)),
    ("RPS", "req / s", ("rps",)),
    ("RPM", "req / min", ("rpm",)),
    ("TPS", "tok / s", ("tps",)),
    ("TPM", "tok / min", ("tpm",)),
    ("GPUh", "GPU * h", ("gpuh",)),
    ("bps", "bit / s", ()),
    ("Kbps", "Kb / s", ("kbps",)),
    ("Mbps", "Mb / s", ()),
    ("Gbps", "Gb / s", ()),
    ("Tbps", "Tb / s", ()),
    ("ns", "1e-9 * s", ("nanosecond", "nanoseconds")),
    ("us", "1e-6 * s", ("microsecond", "microseconds")),
    ("ms", "1e-3 * s", ("msec", "millisecond", "milliseconds")),
    ("min", "60 * s", ("mins", "minute", "minutes")),
    ("h", "3600 * s", ("hr", "hrs", "hour", "hours")),
    ("day", "86400 * s", ("d", "days")),
    ("week", "7 * day", ("wk", "weeks")),
    ("month", "30 * day", ("months", "mo", "mos")),
    ("year", "365 * day", ("yr", "yrs", "years")),
    ("FLOPS", "FLOP / s", ()),
    ("Hz", "1 / s", ("hertz",)),
    # kFLOP to YFLOP, with the prefix spelled out ("petaFLOP", "yottaflop"; "petaFLOPs" is their plural), and
    # the rates kFLOPS to YFLOPS ("petaFLOPS"; "exaFLOP/s" is exaFLOP per second).
    *(
        definition
        for prefix, word, size in _FLOP_PREFIXES
        for definition in (
            (f"{prefix}FLOP", f"{size} * FLOP", (f"{word}FLOP", f"{word}flop")),
            (f"{prefix}FLOPS", f"{prefix}FLOP / s", (f"{word}FLOPS",)),
        )
    ),
    ("kW", "1e3 * W", ("KW", "kilowatt", "kilowatts")),
    ("MW", "1e6 * W", ("megawatt", "megawatts")),
    ("GW", "1e9 * W", ("gigawatt", "gigawatts")),
    ("J", "W * s", ("joule", "joules")),
    ("Wh", "W * h", ()),
    ("kWh", "kW * h", ("KWh",)),
    ("MWh", "MW * h", ()),
    ("GWh", "GW * h", ()),
    ("percent", "0.01", ("pct",)),
    ("cent", "0.01 * USD", ("cents",)),
)

# Words matched in any letter case: counts, spelled-out time and money, bit rates that cannot be bytes.
_CASE_INSENSITIVE_WORDS: dict[str, str] = {
    **{alias.lower(): symbol for symbol, aliases in COUNT_UNITS for alias in (symbol, *aliases)},
    **{
        word: name
        for name, _, aliases in _DERIVED_UNITS
        if name in {"ns", "us", "ms", "min", "h", "day", "week", "month", "year", "percent", "cent"}
        for word in (name, *aliases)
    },
    **{word: "s" for word in ("s", "sec", "secs", "second", "seconds")},
    **{word: "USD" for word in ("usd", "dollar", "dollars", "buck", "bucks")},
    # "bit" spells bits in any letter case: "133 gbit/s", "26.7 MBit/s" (only "Gb" and "GB" differ by case).
    **{
        word.lower(): name
        for name, _, aliases in _DERIVED_UNITS
        if name in {"Kb", "Mb", "Gb", "Tb"}
        for word in aliases
        if word.lower().endswith("bit")
    },
    # A unit spelled out reads in any letter case ("Gigabytes", "Milliseconds"); "MB" and "Mb" do not.
    **{
        word.lower(): name
        for name, _, aliases in _DERIVED_UNITS
        for word in aliases
        if len(word) >= 5 and word.isalpha() and word[1:].islower()
    },
    "kbps": "Kbps",
    "mbps": "Mbps",
    "gbps": "Gbps",
    "tbps": "Tbps",
    "flop": "FLOP",
    "flops": "FLOP",  # "Flops" as "flops": a count, as pint reads the plural; only "FLOPS" is a rate
    **{
        spelled: f"{prefix}FLOP"
        for prefix, word, _ in _FLOP_PREFIXES
        for spelled in (f"{word}flop", f"{word}flops")
    },
}

BIT_UNIT_NAMES = frozenset(
    word
    for name, _, aliases in _DERIVED_UNITS
    if name in {"bit", "Kb", "Mb", "Gb", "Tb", "bps", "Kbps", "Mbps", "Gbps", "Tbps"}
    for word in (name, *aliases)
)
_AMBIGUOUS_BIT_OR_BYTE = {"kb", "mb", "gb", "tb", "pb", "kbs", "mbs", "gbs", "tbs", "pbs"}

MAX_UNIT_CHARS = 100
_UNIT_TOKEN = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<number>\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)"
    r"|(?P<power>\*\*|\^)|(?P<op>[*/()]))"
)
_WORD = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*")
_HYPHEN_COMPOUND = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:-[A-Za-z_]\w*)+")
_PER = re.compile(r"(?:^|\s+)per\s+", re.IGNORECASE)
# "a day", "every hour", "each GPU", "a GPU", "for each node", "per each replica": per that period or count,
# as "per GPU" reads (issue 30: "<qty> each <countable>", "<qty> a <countable>" read as "<qty> per ...").
_A_PER = re.compile(
    r"(?:(?<=\S)\s+|^)(?:(?:for|per)\s+(?:each|every|one|a|an)|a|an|every|each)\s+(?=(?P<word>[A-Za-z][\w-]*))",
    re.IGNORECASE,
)
_PER_M = re.compile(r"(?P<per>/\s*|(?<![A-Za-z])[Pp]er\s+)m(?![A-Za-z])")  # "/M" stays a million
# "$192 hourly", "$4,608 daily": per that period.
_PERIOD_ADJECTIVE = re.compile(
    r"(?:(?<=\S)\s+|^)(?P<word>hourly|daily|weekly|monthly|yearly|annually)(?![A-Za-z])", re.IGNORECASE
)
_PERIOD_OF_ADJECTIVE = {"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month"}
_PERIOD_WORD = re.compile(r"(?:second|sec|minute|min|hour|hr|day|week|month|year)s?\Z", re.IGNORECASE)
_SMALL_EXPONENT = re.compile(r"\s*[+-]?(?:10|\d)(?:\.5)?(?![\w.])")


class UnitError(ValueError):
    """A unit string that does not parse, or is not one of ours."""


@dataclass(frozen=True, slots=True)
class Dims:
    """A dimensionality: sorted (base symbol, exponent) pairs with non-zero exponents.

    Symbols are the base units: `B`, `FLOP`, `W`, `USD`, `s`, and one per count (`tok`, `GPU`, ...).
    """

    exponents: tuple[tuple[str, Fraction], ...] = ()

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, Fraction | int]]) -> Dims:
        """Dims from (symbol, exponent) pairs; repeated symbols add up and zero exponents drop out."""
        total: dict[str, Fraction] = {}
        for symbol, exponent in pairs:
            total[symbol] = total.get(symbol, Fraction(0)) + Fraction(exponent)
        kept = [(symbol, exponent) for symbol, exponent in total.items() if exponent != 0]
        return cls(tuple(sorted(kept, key=lambda pair: _SYMBOL_ORDER.get(pair[0], len(_SYMBOL_ORDER)))))

    def __mul__(self, other: Dims) -> Dims:
        return Dims.of((*self.exponents, *other.exponents))

    def __truediv__(self, other: Dims) -> Dims:
        return Dims.of((*self.exponents, *((symbol, -exponent) for symbol, exponent in other.exponents)))

    def __pow__(self, power: Fraction | int) -> Dims:
        return Dims.of((symbol, exponent * Fraction(power)) for symbol, exponent in self.exponents)

    @property
    def is_dimensionless(self) -> bool:
        """True for a plain number (no physical dimension and no count)."""
        return not self.exponents

    @property
    def physical(self) -> Dims:
        """The bytes, FLOP, power, money and time part."""
        return Dims(tuple(pair for pair in self.exponents if pair[0] in PHYSICAL_SYMBOLS))

    @property
    def counts(self) -> Dims:
        """The count part (tokens, requests, GPUs, ...)."""
        return Dims(tuple(pair for pair in self.exponents if pair[0] not in PHYSICAL_SYMBOLS))

    def __str__(self) -> str:
        return format_dims(self)


DIMENSIONLESS = Dims()
PHYSICAL_SYMBOLS = frozenset(symbol for symbol, _, _ in _PHYSICAL_BASES)
COUNT_SYMBOLS = frozenset(symbol for symbol, _ in COUNT_UNITS)
# Display order: bytes, FLOP, power, money, the counts, then time ("B·tok/s").
_SYMBOL_ORDER = {
    symbol: index
    for index, symbol in enumerate(["B", "FLOP", "W", "USD", *(symbol for symbol, _ in COUNT_UNITS), "s"])
}
_PINT_DIMENSION_SYMBOL = {f"[{dimension}]": symbol for symbol, dimension, _ in _PHYSICAL_BASES} | {
    f"[{symbol}]": symbol for symbol in COUNT_SYMBOLS
}


def format_dims(dims: Dims) -> str:
    """Dims as base units, e.g. `B·tok/s`, `1/s`, `B/(tok·s)`; a plain number is `1`."""
    if dims.is_dimensionless:
        return "1"
    above = [_format_factor(symbol, exponent) for symbol, exponent in dims.exponents if exponent > 0]
    below = [_format_factor(symbol, -exponent) for symbol, exponent in dims.exponents if exponent < 0]
    text = "·".join(above) or "1"
    if below:
        text += "/" + (below[0] if len(below) == 1 else "(" + "·".join(below) + ")")
    return text


def _format_factor(symbol: str, exponent: Fraction) -> str:
    if exponent == 1:
        return symbol
    if exponent.denominator == 1:
        return f"{symbol}^{exponent.numerator}"
    return f"{symbol}^({exponent.numerator}/{exponent.denominator})"


@dataclass(frozen=True, slots=True)
class Unit:
    """A parsed unit: its text as written, the factor to base units, and its dimensions."""

    text: str
    factor: float
    dims: Dims

    def __str__(self) -> str:
        return self.text


def _definition_lines() -> list[str]:
    lines = []
    for symbol, dimension, aliases in _PHYSICAL_BASES:
        lines.append(" = ".join((symbol, f"[{dimension}]", "_", *aliases)))
    for symbol, aliases in COUNT_UNITS:
        lines.append(" = ".join((symbol, f"[{symbol}]", "_", *aliases)))
    for name, definition, aliases in _DERIVED_UNITS:
        lines.append(" = ".join((name, definition, "_", *aliases)))
    return lines


_KNOWN_WORDS = frozenset(
    word
    for line in _definition_lines()
    for index, word in enumerate(part.strip() for part in line.split("="))
    if index != 1 and word != "_"
)


@functools.cache
def registry() -> pint.UnitRegistry:
    """Our pint registry, built once from our own definitions (none of pint's defaults)."""
    import pint  # imported lazily: only the first parse of each unit string needs it

    unit_registry = pint.UnitRegistry(None, autoconvert_offset_to_baseunit=False)
    unit_registry.load_definitions(_definition_lines())
    return unit_registry


def normalize_unit_text(text: str) -> str:
    """Rewrite what people write into our registry's spelling.

    `·`, `×` and hyphens between words multiply (`GPU-hour`), `per X` divides by X, `$` is USD, `%` is
    percent, `µs` is us, and counts and spelled-out time words match in any letter case (`GPUs`, `Hours`).
    """
    text = text.strip()
    for old, new in (("·", "*"), ("⋅", "*"), ("×", "*"), ("µ", "u"), ("μ", "u"), ("−", "-"), ("\u00a0", " ")):
        text = text.replace(old, new)
    for old, new in (("$", " USD "), ("¢", " cent "), ("%", " percent "), ("²", "**2"), ("³", "**3")):
        text = text.replace(old, new)
    text = _HYPHEN_COMPOUND.sub(lambda match: "(" + match.group(0).replace("-", "*") + ")", text)
    text = _PER_M.sub(r"\g<per>min", text)  # "tok/m", "req per m": per minute (the bank measures no length)
    text = _PERIOD_ADJECTIVE.sub(
        lambda match: f" per {_PERIOD_OF_ADJECTIVE.get(match.group('word').lower(), 'year')}", text
    )
    text = _A_PER.sub(_per_countable, text).strip()  # "120 GPU-h a day", "9.2 GB/s each GPU": per that
    pieces = _PER.split(text)
    if len(pieces) > 1:
        head = pieces[0].strip() or "1"
        text = head + "".join(f"/({piece.strip()})" for piece in pieces[1:])
    text = text.strip()
    if text.startswith("/"):
        text = "1" + text
    return _WORD.sub(_canonical_word, text)


def _per_countable(match: re.Match[str]) -> str:
    """ " per " for "a"/"each"/"every"/"for each" before a period or a count ("a day", "each GPU", "a
    conversation", "each H100"); anything else stays as typed."""
    word = match.group("word").split("-")[0]
    countable = _PERIOD_WORD.match(word) or count_symbol(word) is not None or counts_named_by(word)
    return " per " if countable else match.group(0)


def _canonical_word(match: re.Match[str]) -> str:
    word = match.group(0)
    if word in _KNOWN_WORDS:
        return word
    return _CASE_INSENSITIVE_WORDS.get(word.lower(), word)


def _check_unit_syntax(text: str, original: str) -> None:
    """Refuse anything but names, plain numbers, * / ( ) and small exponents before pint evaluates it."""
    if len(text) > MAX_UNIT_CHARS:
        raise UnitError(f"unit {original!r} is longer than {MAX_UNIT_CHARS} characters")
    position, depth, after_power = 0, 0, False
    while text[position:].strip():
        match = _UNIT_TOKEN.match(text, position)
        if not match:
            raise UnitError(f"cannot read unit {original!r} at {text[position:].strip()[:10]!r}")
        position = match.end()
        if match.group("power"):
            exponent = _SMALL_EXPONENT.match(text, position)
            if after_power or not exponent:
                raise UnitError(f"unit {original!r}: exponents must be plain numbers between -10 and 10")
            position = exponent.end()
            after_power = True  # a second ** straight after would build a tower like 10**10**10
            continue
        after_power = False
        if match.group("op") == "(":
            depth += 1
            if depth > 5:
                raise UnitError(f"unit {original!r} nests parentheses too deeply")
        elif match.group("op") == ")":
            depth -= 1


@functools.lru_cache(maxsize=4096)
def parse_unit(text: str) -> Unit:
    """Parse a unit string ("KiB/tok", "Gb/s", "1/(GPU*day)", "" for a plain number), cached per string.

    Raises UnitError for unknown names or syntax we do not accept.
    """
    if not isinstance(text, str):
        raise UnitError(f"a unit must be a string, not {type(text).__name__}")
    normalized = normalize_unit_text(text)
    if not normalized:
        return Unit(text, 1.0, DIMENSIONLESS)
    _check_unit_syntax(normalized, text)
    import pint

    try:
        quantity = registry().parse_expression(normalized)
    except pint.UndefinedUnitError as error:
        raise UnitError(_unknown_unit_message(error, text)) from None
    except Exception as error:  # pint raises a variety of parse errors on malformed text
        raise UnitError(f"cannot read unit {text!r}: {error}") from None
    if not isinstance(quantity, registry().Quantity):
        return Unit(text, _finite_factor(float(quantity), text), DIMENSIONLESS)
    base = quantity.to_base_units()
    dims = Dims.of(
        (_PINT_DIMENSION_SYMBOL[name], _exponent(exponent))
        for name, exponent in quantity.dimensionality.items()
    )
    return Unit(text, _finite_factor(float(base.magnitude), text), dims)


def _exponent(value: object) -> Fraction:
    """A pint dimension's exponent (an int, a float or a Fraction) as a Fraction."""
    if not isinstance(value, int | float | Fraction):
        raise TypeError(f"pint gave the exponent {value!r}")
    return Fraction(value).limit_denominator(1000)


def _finite_factor(factor: float, text: str) -> float:
    if not np.isfinite(factor) or factor <= 0:
        raise UnitError(f"unit {text!r} has no usable size")
    return factor


def _unknown_unit_message(error: Exception, text: str) -> str:
    names = getattr(error, "unit_names", ())
    name = names if isinstance(names, str) else (names[0] if names else "")
    if name.lower() in _AMBIGUOUS_BIT_OR_BYTE:
        stem = name.lower().rstrip("s")
        byte, bit = stem[0].upper() + "B", stem[0].upper() + "b"
        return f"unit {text!r}: {name!r} is ambiguous; write {byte} for bytes or {bit} for bits"
    return f"unknown unit {name!r} in {text!r}" if name else f"unknown unit in {text!r}"


def is_count_word(word: str) -> bool:
    """True when `word` names a count unit in any letter case or spelling we know ("params", "GPUs")."""
    return count_symbol(word) is not None


def count_symbol(word: str) -> str | None:
    """The count unit `word` names in any letter case or spelling we know ("GPUs" -> "GPU"), else None."""
    symbol = _CASE_INSENSITIVE_WORDS.get(word.lower())
    return symbol if symbol in COUNT_SYMBOLS else None


def _as_dims(unit: str | Unit | Dims) -> Dims:
    if isinstance(unit, Dims):
        return unit
    if isinstance(unit, Unit):
        return unit.dims
    return parse_unit(unit).dims


def compatible(a_unit: str | Unit | Dims, b_unit: str | Unit | Dims) -> bool:
    """The count rule: physical dimensions agree exactly and count dimensions differ in one direction only.

    `B` and `B/tok` are compatible (a per-count reading); `tok/s` and `req/s` are not.
    """
    a, b = _as_dims(a_unit), _as_dims(b_unit)
    if a.physical != b.physical:
        return False
    signs = {exponent > 0 for _, exponent in (a / b).counts.exponents}
    return len(signs) <= 1


def from_base(value: float | np.ndarray, unit: str | Unit) -> float | np.ndarray:
    """A value in base units expressed in `unit`."""
    factor = unit.factor if isinstance(unit, Unit) else parse_unit(unit).factor
    return value / factor


# The sizes, in base units, of the units people write for each base symbol (bits and binary prefixes for
# bytes, ms to years for time); a count has only itself, and a scale word (k, M, B) may come on top.
_WRITTEN_SIZES: dict[str, tuple[float, ...]] = {
    "B": (
        *(1e3**k for k in range(7)),
        *(1024**k for k in range(1, 6)),
        *(1e3**k / 8 for k in range(6)),
        *(1024**k / 8 for k in range(1, 6)),
    ),
    "s": (1e-9, 1e-6, 1e-3, 1.0, 60.0, 3600.0, 86400.0, 604800.0, 2592000.0, 31536000.0),
    "FLOP": tuple(1e3**k for k in range(9)),
    "W": tuple(1e3**k for k in range(4)),
    "USD": (0.01, 1.0),
}
_SCALE_WORD_SIZES = (1.0, 1e3, 1e6, 1e9)
_PERCENT = 0.01


def _size_key(size: float) -> int:
    return round(math.log10(size) * 1000)  # 0.23% apart at most; written sizes differ by 2.4% or more


@functools.lru_cache(maxsize=512)
def _written_sizes(dims: Dims, scaled: bool) -> frozenset[int]:
    sizes = [1.0]
    for symbol, exponent in dims.exponents:
        if symbol not in _WRITTEN_SIZES or exponent.denominator != 1:
            continue
        power = int(exponent)
        sizes = [size * choice**power for size in sizes for choice in _WRITTEN_SIZES[symbol]]
    if dims.is_dimensionless:
        sizes += [_PERCENT]
    scales = _SCALE_WORD_SIZES if scaled else (1.0,)
    return frozenset(_size_key(size * scale) for size in sizes for scale in scales)


def is_written_size(dims: Dims, size: float, *, scaled: bool = True) -> bool:
    """Whether `size` (base units per unit) is the size of a unit people write for a quantity of `dims`,
    with a scale word (k, M, B) on top when `scaled`: for a duration 60 s (a minute) is, 1/60 s is not; for a
    count of requests 1,000 (20k) is, 1/1,000 is not; for a plain number 0.01 (a percentage) is."""
    if not size > 0 or not math.isfinite(size):
        return False
    return _size_key(size) in _written_sizes(dims, scaled)
