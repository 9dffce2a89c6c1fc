"""The grading engine: a question version and a submission in, a JSON-ready report out.

`grade(question, submission)` checks each asked line with error carried forward, matches the drawn boxes to
the reference design, explains the headline's sensitivity, and scores the phases. Pure Python over the
reference model: no Django, no network, no language model. The same input gives a byte-identical
`json.dumps(report, sort_keys=True)`.

Error carried forward. The candidate's numbers define two worlds, both starting from the reference's inputs
(the variant's, in a variant round) wherever they gave none:
- the stated world uses every value they wrote;
- the corrected world uses their assumptions (with a recognised unit slip undone) and, for derived lines,
  the value they wrote when it was right and the value their inputs imply when it was not.
A derived line is right when it matches its formula applied to either world, so a wrong assumption costs once
(on its own line) and a slip costs once (lines computed from the slipped value, or from the value it should
have had, are both right). Verdicts and messages:
grading/core/verdicts.py; credit and weights: grading/core/scoring.py.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from grading.core import depth, scoring
from grading.core import verdicts as v
from grading.core.design_check import (
    DEFAULT_PALETTE_PATH,
    PaletteIndex,
    ReferenceBox,
    ReferenceDesign,
    box_kinds,
    build_index,
    check_consequence,
    check_design,
    load_index,
)
from grading.core.formula import Evaluator
from grading.core.model import ModelError, ReferenceModel
from grading.core.quantity_text import (
    CountRatio,
    ParsedQuantity,
    ParseFailure,
    alike_counts,
    count_ratios,
    label_counts,
    not_converted,
    parse_quantity,
    read_on_line,
    stated_answer,
    terms_value,
    working_terms,
)
from grading.core.question_export import spec_to_dict
from grading.core.question_reader import parse_question
from grading.core.question_text import written_at_defaults
from grading.core.question_types import CLIENT_KIND, Curveball, FollowUp, QuestionSpec
from grading.core.report_text import (
    ArithmeticTemplate,
    arithmetic_template,
    format_number,
    format_percent,
    format_quantity,
    format_unit,
    operand,
)
from grading.core.submission import CurveballAnswer, DecisionAnswer, Submission, read_submission
from grading.core.units import BIT_UNIT_NAMES, COUNT_EQUIVALENTS, Dims, Unit, is_written_size

# 1.1: the shape score grades what the boxes say (the palette vocabulary). 1.2: answers read as people
# write them (issue 30: shown working evaluated, notes and hedges around the answer, counts per node or GPU,
# premises charged once), and a follow-up's band follows the variant where it names the quantity it follows.
GRADER_VERSION = "1.2.0"
SENSITIVITY_TOP = 3
ARITHMETIC_DEPTH = 1  # how many unwritten steps a message opens up
UNASKED_CHECK = ("relative", 0.05)
_LONG_TIME = re.compile(
    r"(?<![A-Za-z])(?:(?P<minute>min|mins|minute|minutes)|(?P<hour>h|hr|hrs|hour|hours)"
    r"|(?P<day>d|day|days)|(?P<week>wk|week|weeks)|(?P<month>mo|month|months)|(?P<year>yr|year|years))"
    r"(?![A-Za-z])"
)
# A longer unit holds the shorter ones: a month's seconds hold its days, hours and minutes as well.
_TIME_LEVEL = {"minute": 1, "hour": 2, "day": 3, "week": 4, "month": 5, "year": 6}
# The longest time unit a slip by each factor needs in the chain: 60 minutes, 3,600 hours, 24 days, 7 weeks,
# 30 months (a day's figure on a monthly line), 12 and 365 years.
_TIME_LEVEL_NEEDED = {60.0: 1, 3600.0: 2, 24.0: 3, 86400.0: 3, 7.0: 4, 30.0: 5, 12.0: 6, 365.0: 6}
_SUM = re.compile(r"[\w)]\s*(?<![0-9.][eE])[+-]")
_FAMILY_RANK = {"metric": 0, "binary": 1, "bits": 2}
_GRADING_FIELDS = ("slug", "model", "asked", "design", "plan")
_PREPARED_CACHE_SIZE = 128
MAX_SHARE = 2.0  # a plain line up to this (200%) may be written as a percentage: a share, a load, overcommit
MIN_TERM_FACTOR = 8.0  # a factor hidden in one term: bits, a thousand, minutes (not KB versus KiB)
MONTH_DAYS = 30  # the bank's month (units.py)
CALENDAR_MONTH_DAYS = (31, 28, 29)
BASE_UNIT_PREFIX = 1e6  # a bare number may be in the base unit on a line with this large a prefix or more
MIN_TERM_EFFECT = 2.0  # ... that moves the line twice or more (a slip of a third is no hidden factor)
MAX_TERM_EFFECT_ORDERS = 3.5  # ... and by no more than a few thousandfold
PRECISE_BAND = 0.3  # ... on a line checked this closely (the fit itself within 10%: v.factor_band)
PRECISE_COUNT = 20
METHOD_BAND = 0.02  # a slip of method is named only this close (a term left out, a ratio upside down)
_PREFIXED_BYTES = re.compile(r"(?<![A-Za-z])(?P<prefix>[kKMGT])(?P<binary>i)?B(?![A-Za-z])")
_PREFIX_LEVEL = {"K": 1, "M": 2, "G": 3, "T": 4}
_TIE = 1e-6  # log distances this close fit alike (rounding)
_TERM_SCALE_SLACK = 1.3  # how far the two-probe estimate of a term's scale may be from a factor


# The question, prepared once per distinct content.


@dataclass(frozen=True, slots=True)
class _Line:
    """An asked line with everything its check needs, computed once per question."""

    name: str
    label: str
    phase: str
    weight: float
    check: str
    tolerance: float | None
    unit: str
    is_input: bool
    position: int
    exact_prefix: bool


@dataclass(frozen=True, slots=True)
class _InputRange:
    low: float  # base units, as written
    high: float
    low_accepted: float  # widened by the line's tolerance (see _accepted_range)
    high_accepted: float
    source: str
    low_text: str
    high_text: str
    in_range: str  # the message for a value inside the range
    fixed: bool  # the question fixes the value (a range of one value)


class _Prepared:
    """A question ready to grade: compiled model, asked lines, ranges, templates, reference design."""

    def __init__(self, spec: QuestionSpec, fingerprint: str):
        model = spec.model.reference
        self.spec = spec
        self.slug = spec.slug
        self.fingerprint = fingerprint
        self.model: ReferenceModel = model
        self.units: dict[str, Unit] = dict(model.units)
        self.factor = {name: unit.factor for name, unit in self.units.items()}
        self.labels = {name: quantity.label for name, quantity in model.quantities.items()}
        self.input_names = model.input_names
        self.derived_names = model.derived_names
        # A line that is an earlier line again in another unit (the same formula: a burst in GB/s and "the
        # same burst in bits"): the earlier line's figure as the candidate wrote it is this one's premise.
        first_of: dict[tuple[str, Dims], str] = {}
        self.twins: dict[str, str] = {}
        for name in model.derived_names:
            key = (" ".join(model.formulas[name].source.split()), self.units[name].dims)
            self.twins[name] = first_of.setdefault(key, name)
        self.twins = {name: twin for name, twin in self.twins.items() if twin != name}
        self.evaluators: dict[str, Evaluator] = {
            name: model.formulas[name].evaluator for name in model.derived_names
        }
        self.deps: dict[str, frozenset[str]] = {
            name: model.formulas[name].names for name in model.derived_names
        }
        self.upstream: dict[str, frozenset[str]] = {name: model.upstream(name) for name in model.quantities}
        self.long_time = {  # the longest time unit in the chain (or the line): 1 minutes, 2 hours, 3 days
            name: max(
                (
                    _TIME_LEVEL[match.lastgroup or ""]
                    for q in (name, *model.upstream(name))
                    for match in _LONG_TIME.finditer(self.units[q].text)
                ),
                default=0,
            )
            for name in model.quantities
        }
        self.sums = frozenset(  # formulas that add or subtract (a minus sign after an operand)
            name for name in model.derived_names if _SUM.search(model.formulas[name].source)
        )
        self.templates: dict[str, ArithmeticTemplate] = {
            name: arithmetic_template(model.formulas[name].source, model.formulas[name].names)
            for name in model.derived_names
        }
        self.lines = tuple(
            _Line(
                asked.name,
                model.quantities[asked.name].label,
                asked.phase,
                float(asked.weight),
                asked.check,
                asked.tolerance,
                model.quantities[asked.name].unit,
                model.quantities[asked.name].is_input,
                position,
                asked.exact_prefix,
            )
            for position, asked in enumerate(spec.asked)
        )
        self.asked = {line.name: line for line in self.lines}
        self.unit_factors = {
            name: v.unit_factors(
                self.units[name].dims,
                tuple(self.units[dep].dims for dep in sorted(self.upstream[name])),
                timed=self.long_time[name] > 0,
            )
            for name in model.quantities
        }
        self.bits = {name: _in_bits(unit.text) for name, unit in self.units.items()}
        self.has_bytes = {  # bits versus bytes on the whole line only where the line itself is in bytes
            name: any(symbol == "B" for symbol, _ in self.units[name].dims.exponents)
            for name in model.quantities
        }
        self.binary = {  # a KB-versus-KiB note only where the line is in bytes, not bits (no Gib/s)
            name: self.has_bytes[name] and not self.bits[name] for name in model.quantities
        }
        self.byte_rate = {  # bytes per unit of time: a link or a disk, which may be quoted in bits
            name: self.has_bytes[name] and dict(self.units[name].dims.exponents).get("s", 0) < 0
            for name in model.quantities
        }
        self.bits_met = {  # where bits versus bytes can happen: a rate in bytes (links, disks are quoted in
            # bits), or bits in the quantity or its chain; a size worked from sizes meets no bits (a factor of
            # 8 in a KV cache is a count: heads, layers, GPUs)
            name: any(self.byte_rate[q] or self.bits[q] for q in (name, *self.upstream[name]))
            for name in model.quantities
        }
        self.is_count = {  # a count of things (GPUs, links, nodes), not a plain number
            name: unit.dims.physical.is_dimensionless and not unit.dims.counts.is_dimensionless
            for name, unit in self.units.items()
        }
        # One decision, one premise: a GPU's spec sheet (memory, bandwidth, FLOPs per GPU) is one choice, an
        # H200 for an H100 charged once; any other assumption is a decision of its own.
        self.decision = {
            name: "GPU"
            if dict(self.units[name].dims.exponents).get("GPU") == -1
            and not self.units[name].dims.physical.is_dimensionless
            else name
            for name in model.input_names
        }
        self.line_phases = {line.name: line.phase for line in self.lines}
        self.ranges = {name: self._range(name) for name in model.input_names}
        per_replica = model.quantities.get("gpus_per_replica")
        self.alike = alike_counts(  # what one count is called by another name in this question
            None if per_replica is None or per_replica.value is None else float(per_replica.value)
        )
        self.zero_meant = {  # "none" is 0 for an assumption whose range holds 0, and missing for another
            name: bounds.low <= 0 <= bounds.high for name, bounds in self.ranges.items()
        }
        # A design's limit that may be absent (its range reaches unbounded): "none" there is no limit.
        self.no_limit = frozenset(name for name, bounds in self.ranges.items() if bounds.high == math.inf)
        self.plan = tuple((phase.name, float(phase.minutes)) for phase in spec.plan)
        self.plan_minutes = dict(self.plan)
        nodes = tuple(
            ReferenceBox(
                node.id, node.kind, node.label, *written_at_defaults(model, [node.job, node.failure])
            )
            for node in spec.design.nodes
        )
        self.design = ReferenceDesign(
            tuple(node for node in nodes if node.kind != CLIENT_KIND),
            tuple(kind for kind in spec.design.path if kind != CLIENT_KIND),
        )

    def _range(self, name: str) -> _InputRange:
        quantity = self.model.quantities[name]
        low, high = self.model.range_base(name)
        line = self.asked.get(name)
        check, tolerance = (line.check, line.tolerance) if line else UNASKED_CHECK
        low_accepted, high_accepted = _accepted_range(low, high, check, tolerance)
        unit = quantity.unit
        shown_low, shown_high = quantity.range or (0.0, 0.0)
        low_text, high_text = format_number(shown_low), format_quantity(shown_high, unit)
        return _InputRange(
            low,
            high,
            low_accepted,
            high_accepted,
            quantity.source,
            low_text,
            high_text,
            v.in_range_message(low_text, high_text, quantity.source, fixed=low == high),
            low == high,
        )

    def shown(self, name: str, base: float) -> str:
        """A base-unit value of `name` as people read it, in the question's unit."""
        return format_quantity(float(base) / self.factor[name], self.units[name].text)

    @functools.cached_property
    def shown_units(self) -> dict[str, str]:
        return {name: quantity.unit for name, quantity in self.model.quantities.items()}

    def curveball_sheet(self, curveball: Curveball) -> tuple[dict[str, Any], set[str]]:
        """The sheet a curveball is graded on (kept, so the grader's cache knows it) and what it moves."""
        sheets: dict[str, tuple[dict[str, Any], set[str]]] = self.__dict__.setdefault("_curveball_sheets", {})
        if curveball.id not in sheets:
            moved = set(curveball.set) | {
                name for name in self.model.quantities if set(curveball.set) & self.upstream[name]
            }
            sheets[curveball.id] = (depth.curveball_sheet(spec_to_dict(self.spec), curveball, moved), moved)
        return sheets[curveball.id]


def _in_bits(unit_text: str) -> bool:
    return any(word in BIT_UNIT_NAMES for word in re.findall(r"[A-Za-z]+", unit_text))


def _accepted_range(low: float, high: float, check: str, tolerance: float | None) -> tuple[float, float]:
    """An input's range widened for rounding: by the relative tolerance, to whole numbers for counts, by the
    factor for order-of-magnitude lines."""
    if check == "count":
        return math.floor(low + 1e-9), math.ceil(high - 1e-9)
    if check == "magnitude":
        factor = tolerance or 3.0
        return (low / factor if low > 0 else low * factor), (high * factor if high > 0 else high / factor)
    band = 0.05 if tolerance is None else tolerance
    return low - band * abs(low), high + band * abs(high)


_SPEC_CACHE: OrderedDict[int, tuple[QuestionSpec, _Prepared]] = OrderedDict()
_DICT_CACHE: OrderedDict[str, _Prepared] = OrderedDict()
# Question dicts already seen, by identity: a stored question version is never changed in place.
_SEEN_DICTS: OrderedDict[int, tuple[Mapping[str, Any], _Prepared]] = OrderedDict()


def _prepared(question: QuestionSpec | Mapping[str, Any]) -> _Prepared:
    if isinstance(question, QuestionSpec):
        hit = _SPEC_CACHE.get(id(question))
        if hit is not None and hit[0] is question:
            return hit[1]
        prepared = _Prepared(question, _fingerprint(spec_to_dict(question)))
        _SPEC_CACHE[id(question)] = (
            question,
            prepared,
        )  # the strong reference keeps the id from being reused
        if len(_SPEC_CACHE) > _PREPARED_CACHE_SIZE:
            _SPEC_CACHE.popitem(last=False)
        return prepared
    if not isinstance(question, Mapping):
        raise TypeError("question must be a QuestionSpec or the dict spec_to_dict makes of one")
    seen = _SEEN_DICTS.get(id(question))
    if seen is not None and seen[0] is question:
        return seen[1]
    key = json.dumps([question.get(field) for field in _GRADING_FIELDS], default=str)
    cached = _DICT_CACHE.get(key)
    if cached is None:
        slug = question.get("slug")
        spec = parse_question(dict(question), source=slug if isinstance(slug, str) else "")
        cached = _DICT_CACHE[key] = _Prepared(spec, _fingerprint(spec_to_dict(spec)))
        if len(_DICT_CACHE) > _PREPARED_CACHE_SIZE:
            _DICT_CACHE.popitem(last=False)
    _SEEN_DICTS[id(question)] = (question, cached)  # the strong reference keeps the id from being reused
    if len(_SEEN_DICTS) > _PREPARED_CACHE_SIZE:
        _SEEN_DICTS.popitem(last=False)
    return cached


def _fingerprint(data: Mapping[str, Any]) -> str:
    """A short hash of what grading reads of a question (model, asked lines, design, plan)."""
    canonical = json.dumps([data.get(field) for field in _GRADING_FIELDS], sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Reference:
    values: dict[str, np.float64]
    shown: dict[str, str]
    lines: dict[str, dict[str, Any]]
    sensitivity: list[dict[str, Any]]
    variant: dict[str, float | None] | None


@functools.lru_cache(maxsize=1024)
def _reference(prepared: _Prepared, overrides: tuple[tuple[str, float], ...]) -> _Reference:
    model = prepared.model
    given = dict(overrides)
    for name in given:
        if name not in model.input_names:
            raise ModelError([(name, "overrides must name inputs of the model")])
    values = {name: np.float64(value) for name, value in model.evaluate(given).items()}
    shown = {line.name: prepared.shown(line.name, values[line.name]) for line in prepared.lines}
    sensitivity: list[dict[str, Any]] = []
    if model.headline:
        try:
            elasticities = model.sensitivity(at=given)
        except ModelError:
            elasticities = {}
        for name, elasticity in elasticities.items():
            low, high = model.range_base(name)
            if (
                elasticity != 0 and low != high and len(sensitivity) < SENSITIVITY_TOP
            ):  # fixed inputs are not choices
                sensitivity.append(
                    {"name": name, "label": prepared.labels[name], "elasticity": round(elasticity, 3)}
                )
    variant = {name: _rounded(value / prepared.factor[name]) for name, value in sorted(given.items())} or None
    lines = {
        line.name: _static_line(prepared, line, float(values[line.name]), shown[line.name])
        for line in prepared.lines
    }
    return _Reference(values, shown, lines, sensitivity, variant)


# Reading the candidate's numbers.


@dataclass(frozen=True, slots=True)
class _Reading:
    text: str
    value: np.float64 | None  # base units; None when unusable
    failure: str  # "" | v.UNPARSED | v.UNIT_ERROR (wrong dimension)
    message: str
    note: str
    as_line: np.float64 | None = None  # a wrong-dimension text's number in the line's unit, as they used it
    as_typed: float | None = None  # a text in another unit of the line's dimension: its number in the line's
    per: str = ""  # a "per GPU" the text names and the line does not (quantity_text.LineReading.per)
    unit_written: bool = True  # False for a bare number, read in the line's unit
    spread: tuple[float, float] | None = None  # a range's ends over its midpoint: both must pass
    per_count: tuple[str, np.float64] | None = (
        None  # converted from per another count: it, the value as typed
    )


_FAILURE_VERDICTS = {"unparsed": v.UNPARSED, "dimension": v.UNIT_ERROR}


def _read(
    text: str,
    unit: Unit,
    label: str,
    zero: bool | None,
    alike: frozenset[tuple[str, str]],
    no_limit: bool = False,
    ratios: frozenset[CountRatio] = frozenset(),
) -> _Reading | None:
    """The reading of one line's text, or None for an explicit non-answer ("idk", "N/A")."""
    reading = read_on_line(text, unit, label, zero, alike, no_limit=no_limit, ratios=ratios)
    if isinstance(reading, ParseFailure):
        if reading.kind == "missing":
            return None
        message = reading.message + ("." if reading.kind == "dimension" else "")
        as_line = None if reading.as_line_unit is None else np.float64(reading.as_line_unit)
        return _Reading(text, None, _FAILURE_VERDICTS[reading.kind], message, "", as_line)
    # Values are numpy floats so that a division by zero in a formula gives inf instead of raising.
    value = np.float64(reading.value)
    return _Reading(
        text,
        value,
        "",
        "",
        reading.note,
        as_typed=reading.as_typed,
        per=reading.per,
        unit_written=reading.unit_written,
        spread=reading.spread,
        per_count=None
        if reading.per_count is None
        else (reading.per_count[0], np.float64(reading.per_count[1])),
    )


def _ratios(prepared: _Prepared, reference: _Reference) -> frozenset[CountRatio]:
    """How many of one count make another among the question's inputs (GPUs per node), as the sheet's
    read-back reads them (quantity_text.count_ratios)."""
    return count_ratios(
        (prepared.units[name].text, float(reference.values[name]) / prepared.factor[name])
        for name in prepared.input_names
    )


# Grading.


@dataclass(slots=True)
class _Outcome:
    verdict: str
    message: str
    implied: float | None = None  # base units
    factor: float | None = None
    driver: str | None = None
    premise: tuple[str, float] | None = None  # a term off by a unit factor: the term and the value used


class _Run:
    """One grading: the two worlds and the verdicts, filled in the model's topological order."""

    def __init__(
        self,
        prepared: _Prepared,
        reference: _Reference,
        readings: Mapping[str, _Reading],
        used: Mapping[str, tuple[float, v.UnitFactor]] | None = None,
        premises: Mapping[str, float] | None = None,
        kept: Mapping[str, _Outcome] | None = None,
    ):
        self.p = prepared
        self.used = used or {}  # assumptions their later lines show they used as typed: value, factor
        self.premises = premises or {}  # untyped assumptions a line shows they used (a link read as GB/s)
        self.kept = kept or {}  # the lines that showed those premises keep their verdict
        self.ref = reference.values
        self.readings = readings
        self.stated: dict[str, Any] = dict(reference.values)
        self.corrected: dict[str, Any] = dict(reference.values)
        self.changed: set[str] = set()  # names whose stated or corrected value differs from the reference
        self.diverged: set[str] = set()  # names whose stated and corrected values differ
        self.status: dict[str, str] = {}  # given names: a verdict (for unasked ones too)
        self.outcomes: dict[str, _Outcome] = {}
        self.implied: dict[str, float | None] = {}
        self.charged: dict[str, str] = {}  # drivers already marked far from the reference -> the line's label
        self.matched_stated: dict[str, bool] = {}  # derived values they got right: in the stated reading?
        self.notes: dict[
            str, str
        ] = {}  # a reading's note as the grading changed it (a per-GPU figure converted)

    def run(self) -> None:
        with np.errstate(all="ignore"):
            for name in self.p.input_names:
                self._input(name)
            for name in self.p.derived_names:
                self._derived(name)

    def _value(self, name: str) -> float | None:
        reading = self.readings.get(name)
        return None if reading is None else reading.value

    # Inputs: a stated assumption is checked against its range.

    def _input(self, name: str) -> None:
        reading = self.readings.get(name)
        asked = name in self.p.asked
        if reading is None and name in self.premises:
            self.stated[name] = self.corrected[name] = np.float64(self.premises[name])
            self.changed.add(name)
        if reading is None:
            if asked:
                self.outcomes[name] = _Outcome(v.MISSING, v.missing_message(self._reference_shown(name)))
            return
        if reading.value is None:
            self.status[name] = reading.failure
            if reading.as_line is not None:  # later lines may use the number as typed: charged once, here
                self.stated[name] = reading.as_line
                self.changed.add(name)
                self.diverged.add(name)
            if asked:
                self.outcomes[name] = _Outcome(reading.failure, reading.message)
            return
        value = reading.value
        bounds = self.p.ranges[name]
        if name in self.used:
            self._used_as_typed(name, reading, asked)
            return
        self.stated[name] = self.corrected[name] = value
        self.changed.add(name)
        ends = [value * end for end in reading.spread] if reading.spread else [value]
        if all(bounds.low_accepted <= end <= bounds.high_accepted for end in ends):
            if self._contradicts_stated(name, value):
                self.status[name] = v.FAR_FROM_REFERENCE  # charged here if asked, else on a later line
                if asked:
                    message = v.stated_far_message(
                        reading.text.strip(), self._reference_shown(name), bounds.source
                    )
                    self.outcomes[name] = _Outcome(v.FAR_FROM_REFERENCE, message)
                return
            self.status[name] = v.CORRECT
            if asked and reading.per and not self._per_harmless(name, reading.per):
                # "100 Gbps per GPU" for the one link between servers: it claims that much for each GPU.
                self.status[name] = v.UNIT_ERROR
                message = v.input_wrong_per_message(
                    reading.text.strip(), _in_sentence(self.p.labels[name]), reading.per
                )
                self.outcomes[name] = _Outcome(v.UNIT_ERROR, message)
                return
            if asked:
                message = self._binary_note(name, bounds.in_range, value, self.ref[name])
                self.outcomes[name] = _Outcome(v.CORRECT, message)
            return
        slip = self._input_unit_slip(name, float(value), bounds, reading.text, reading.as_typed)
        given = reading.text.strip()
        if slip is not None:
            corrected, factor, too_large, exact = slip
            self.corrected[name] = np.float64(corrected)  # later lines may use the value they meant
            self.diverged.add(name)
            if exact:
                self.status[name] = v.UNIT_ERROR
                if asked:
                    message = v.input_unit_factor_message(
                        given,
                        self.p.shown(name, corrected),
                        factor,
                        too_large,
                        v.format_factor(factor.factor),
                        bounds.low_text,
                        bounds.high_text,
                        fixed=bounds.fixed,
                    )
                    self.outcomes[name] = _Outcome(v.UNIT_ERROR, message, factor=factor.factor)
                return
        self.status[name] = v.OUT_OF_RANGE
        if asked:
            reference = float(self.ref[name])
            exponent = (
                v.power_of_ten(float(value) / reference) if reference and math.isfinite(reference) else 0
            )
            hint = "Check the power of ten." if exponent else ""
            if reading.spread is not None:
                range_ends = self._range_ends(name, float(value), reading.spread)
                outside = v.range_outside_note(range_ends, bounds.low_accepted, bounds.high_accepted)
                hint = " ".join(part for part in (outside, hint) if part)
            message = v.out_of_range_message(
                given,
                bounds.low_text,
                bounds.high_text,
                bounds.source,
                hint,
                fixed=bounds.fixed,
                label=_in_sentence(self.p.labels[name]),
            )
            self.outcomes[name] = _Outcome(v.OUT_OF_RANGE, message)

    def _contradicts_stated(self, name: str, value: float) -> bool:
        """An input the question states (`stated: true`) typed as another value inside its range."""
        if not self.p.model.quantities[name].stated:
            return False
        line = self.p.asked.get(name)
        check, tolerance = (line.check, line.tolerance) if line else UNASKED_CHECK
        if v.within(check, tolerance, float(value), float(self.ref[name])):
            return False
        # "2 GiB per second" for the design's 2 GB/s: the same number, the other prefix, the same premise.
        reference = float(self.ref[name])
        return not reference or self._binary_factor(name, float(value), reference) is None

    def _used_as_typed(self, name: str, reading: _Reading, asked: bool) -> None:
        """An assumption whose unit slip lands inside its range, but whose later lines use the number as
        typed in the line's unit ("4 Gb/s", the cold start from 4 GB/s): charged here, used as typed."""
        used, factor = self.used[name]
        assert reading.value is not None  # _input returned earlier for a reading without a value
        self.stated[name] = self.corrected[name] = np.float64(used)
        self.changed.add(name)
        self.status[name] = v.UNIT_ERROR
        if asked:
            message = v.used_as_typed_message(
                reading.text.strip(), self.p.shown(name, reading.value), self.p.shown(name, used), factor
            )
            self.outcomes[name] = _Outcome(v.UNIT_ERROR, message, factor=factor.factor)

    def _input_unit_slip(
        self, name: str, value: float, bounds: _InputRange, text: str, as_typed: float | None
    ) -> tuple[float, v.UnitFactor, bool, bool] | None:
        """The unit factor that brings a stated value back inside its range, for a unit people write on this
        line (a duration 60x too small is in minutes; 60x too large is no unit) or a prefix they typed:
        a real factor first, then metric prefixes (binary ones first when they typed KiB, MiB...), then bits,
        then the rest, the closest to the reference among equals. The last item says whether the factor is
        the real one (the value over the reference within EXACT_FACTOR_BAND of it): only then is it named.
        The unit meant is the corrected value over the number they typed: "100 GB/s" for a link fixed at
        100 Gb/s meant Gb/s, a unit people write, though its number read bare would be no slip."""
        reference = float(self.ref[name])
        unit = self.p.units[name]
        typed_number = (value if as_typed is None else as_typed) / unit.factor
        if not typed_number or not math.isfinite(reference):  # no unit slips from a limit that is not there
            return None
        typed_binary = "iB" in text
        typed_prefix = v.typed_prefix(text)
        best = None
        for factor in self.p.unit_factors[name]:
            rank = _FAMILY_RANK.get(factor.family, 3)
            if typed_binary and factor.family in ("metric", "binary"):
                rank = 1 - rank
            for corrected, too_large in ((value / factor.factor, True), (value * factor.factor, False)):
                if not bounds.low_accepted <= corrected <= bounds.high_accepted:
                    continue
                size = corrected / typed_number
                # A dropped scale word only on a number of one or more ("20" for 20k); a percentage only
                # for a share.
                scaled = abs(typed_number) >= 1
                if factor.family == "percent" and bounds.high > 1:
                    continue
                if factor.family == "bits" and not (self.p.bits_met[name] or _in_bits(text)):
                    continue  # a size worked from sizes: 8x is a count (heads, GPUs), not bits
                if not (
                    is_written_size(unit.dims, size, scaled=scaled)
                    or (typed_prefix and factor.family == "metric")
                ):
                    continue
                distance = abs(math.log(corrected / reference)) if corrected > 0 and reference > 0 else 0.0
                exact = corrected > 0 and reference > 0 and distance <= math.log1p(v.EXACT_FACTOR_BAND)
                if best is None or (not exact, rank, distance) < best[0]:
                    best = ((not exact, rank, distance), corrected, factor, too_large, exact)
        return None if best is None else best[1:]

    # Derived quantities: checked against the formula over either world.

    def _derived(self, name: str) -> None:
        self._derived_line(name)
        kept = self.kept.get(name)
        if kept is not None and name in self.outcomes:
            self.outcomes[name] = kept
            self.status[name] = kept.verdict

    def _derived_line(self, name: str) -> None:
        deps = self.p.deps[name]
        if deps.isdisjoint(self.changed):
            implied_stated = implied_corrected = self.ref[name]
        else:
            evaluator = self.p.evaluators[name]
            # scalars in, a scalar out (the evaluators are typed for arrays as well)
            implied_stated = cast(np.float64, evaluator(self.stated))
            implied_corrected = (
                implied_stated
                if deps.isdisjoint(self.diverged)
                else cast(np.float64, evaluator(self.corrected))
            )
        twin = self.p.twins.get(name)
        if twin is not None and twin in self.readings and self.readings[twin].value is not None:
            # "13.3 Gb/s" after "1.67 GB/s" for the same burst: their figure again, charged once (issue 30).
            implied_stated = self.stated[twin]
        reading = self.readings.get(name)
        line = self.p.asked.get(name)
        if reading is None or reading.value is None:
            self._not_given(name, reading, line, implied_stated, implied_corrected)
            return
        value = reading.value
        check, tolerance = (line.check, line.tolerance) if line is not None else UNASKED_CHECK
        implied_both = (implied_stated, implied_corrected)
        read_again = self._bare_in_base_units(name, reading, check, tolerance, implied_both)
        read_again = read_again or self._calendar_month(name, reading, check, tolerance, implied_both)
        if read_again is not None:
            value, self.notes[name] = read_again
        # A "per GPU" the line does not have: times the count of them in the chain when it has one; a figure
        # the qualifier does not fit (the whole labelled per GPU, or per node with no nodes in the chain) is
        # the right working with the wrong unit, charged here; later lines use the figure meant.
        wrong_per: tuple[str, Any] | None = None
        if reading.per_count is not None:
            # "3.9 GB per node" for 3.9 GB a GPU: the figure right as written, its qualifier claiming 8x.
            per, unconverted = reading.per_count
            if not any(
                math.isfinite(implied) and _within(check, tolerance, value, implied, reading)
                for implied in (implied_stated, implied_corrected)
            ) and any(
                math.isfinite(implied) and _within(check, tolerance, unconverted, implied, reading)
                for implied in (implied_stated, implied_corrected)
            ):
                wrong_per, value = (per, value), unconverted
        if reading.per:
            fits_written = any(
                math.isfinite(implied) and _within(check, tolerance, value, implied, reading)
                for implied in (implied_stated, implied_corrected)
            )
            converted = self._per_converted(name, reading)
            if converted is not None:
                fits_converted = any(
                    math.isfinite(implied) and _within(check, tolerance, converted[0], implied, reading)
                    for implied in (implied_stated, implied_corrected)
                )
                if fits_converted or not fits_written:
                    value, self.notes[name] = converted
                else:
                    wrong_per = (reading.per, converted[0])
            elif fits_written and not self._per_in_chain(name, reading.per):
                wrong_per = (reading.per, None)
        stated_ok = not math.isnan(implied_stated) and _within(
            check, tolerance, value, implied_stated, reading
        )
        corrected_ok = (
            implied_corrected is not implied_stated
            and not math.isnan(implied_corrected)
            and _within(check, tolerance, value, implied_corrected, reading)
        )
        strict = None
        if not (stated_ok or corrected_ok) and line is not None and not line.exact_prefix:
            # Off by KB versus KiB alone is right, with a note giving the strict figure, which later lines
            # may use as well as the figure written.
            stated_ok = self._binary_only(name, value, implied_stated)
            corrected_ok = not stated_ok and self._binary_only(name, value, implied_corrected)
            strict = implied_stated if stated_ok else (implied_corrected if corrected_ok else None)
        if stated_ok and corrected_ok:  # both readings fit: keep the closer, the corrected one on a tie
            stated_ok = _distance(value, implied_stated) < _distance(value, implied_corrected)
            corrected_ok = not stated_ok
        self.stated[name] = value
        self.changed.add(name)
        if stated_ok or corrected_ok:
            self.corrected[name] = value if strict is None else strict
            if strict is None:
                self.diverged.discard(name)
            else:
                self.diverged.add(name)
            self.status[name] = v.CORRECT
            self.matched_stated[name] = stated_ok
            if line is not None:
                implied = implied_stated if stated_ok else implied_corrected
                self.implied[name] = float(implied)
                self.outcomes[name] = self._consistent(line, value, stated_ok, implied)
                if wrong_per is not None:
                    self.status[name] = v.UNIT_ERROR
                    self.outcomes[name] = self._wrong_per(name, wrong_per, stated_ok, float(implied))
            return
        self.corrected[name] = implied_corrected
        self.diverged.add(name)
        self.status[name] = v.ARITHMETIC_SLIP
        if line is not None:
            self.implied[name] = _finite(implied_stated)
            outcome = self._wrong(name, value, implied_stated, implied_corrected)
            self.status[name] = outcome.verdict
            self.outcomes[name] = outcome

    def _per_converted(self, name: str, reading: _Reading) -> tuple[Any, str] | None:
        """A per-GPU (per node...) figure on a line for all of them, times the count of them in the line's
        own chain when it has exactly one ("1.15 GB/s per GPU" on a replica's line, × 8 GPUs per replica),
        with the note saying so; None when the chain counts none or several. Used where it fits."""
        named = self._per_names(reading.per)
        counts = [
            quantity
            for quantity in sorted(self.p.upstream[name])
            if self.p.units[quantity].dims.physical.is_dimensionless
            and any(dict(self.p.units[quantity].dims.exponents).get(per) == 1 for per in named)
        ]
        if len(counts) != 1 or not _finite(self.stated[counts[0]]):
            return None
        count = counts[0]
        many = self.p.shown(count, self.stated[count])
        note = reading.note.replace(
            not_converted(self.p.units[name].text),
            f"; this line is for all of them: × {many} (your {_in_sentence(self.p.labels[count])})",
        )
        return reading.value * self.stated[count], note

    def _bare_in_base_units(
        self, name: str, reading: _Reading, check: str, tolerance: float | None, implied: tuple[Any, Any]
    ) -> tuple[np.float64, str] | None:
        """A bare number on a line with a large prefix (PFLOP, GB/s) that is right in the unit without it:
        "1.44e17" on a PFLOP line is 1.44e17 FLOP. Only from a millionfold prefix up, where no slip of a
        prefix or two lands by chance (a bare 0.2 on a ms line stays 0.2 ms)."""
        factor = self.p.factor[name]
        if (
            reading.value is None
            or reading.unit_written
            or factor < BASE_UNIT_PREFIX
            or self.p.units[name].dims.counts.exponents
        ):
            return None
        as_base = reading.value / factor
        if any(
            math.isfinite(each) and v.within(check, tolerance, float(reading.value), each) for each in implied
        ):
            return None
        if not any(
            math.isfinite(each) and v.within(check, tolerance, float(as_base), each) for each in implied
        ):
            return None
        base = format_unit(str(self.p.units[name].dims))
        note = f"read as {format_number(float(as_base))} {base}, the line's unit without its prefix"
        return np.float64(as_base), _joined_note(reading.note, note)

    def _calendar_month(
        self, name: str, reading: _Reading, check: str, tolerance: float | None, implied: tuple[Any, Any]
    ) -> tuple[np.float64, str] | None:
        """A monthly line worked with a calendar month (28 to 31 days) where the bank's month is 30 days:
        right, read as the 30-day figure, with a note (3,047,424 GPU-hours for 31 days is 2,949,120)."""
        if "month" not in self.p.units[name].text or not reading.value:
            return None
        if any(
            _finite(each) is not None and v.within(check, tolerance, float(reading.value), each)
            for each in implied
        ):
            return None
        for days in CALENDAR_MONTH_DAYS:
            as_thirty = reading.value * MONTH_DAYS / days
            if any(
                _finite(each) is not None and v.within(check, tolerance, float(as_thirty), each)
                for each in implied
            ):
                note = f"a {days}-day month: read as {self.p.shown(name, as_thirty)} for the bank's 30 days"
                return np.float64(as_thirty), _joined_note(reading.note, note)
        return None

    def _per_in_chain(self, name: str, per: str) -> bool:
        """Whether the line's chain is itself per one `per` (a GB/GPU term, or a label "HBM per GPU"):
        then "427k tokens per GPU" on a one-GPU replica's KV room says what the line is."""
        named = self._per_names(per) | set(COUNT_EQUIVALENTS.get(per, {}))
        if len(self._per_names(per)) > 1:
            return True  # per node where a replica is one node: a replica's figure, as the line is
        # The line's own label is of one of them ("KV cache of one conversation", "Longest prompt", "HBM left
        # on a replica"): "9.8 GB per conversation" repeats it; so does a label up the chain ("Tokens in a
        # conversation": its recompute "1.4 s per conversation"). Plural nouns ("the eight GPUs") are totals.
        if label_counts(self.p.labels[name], singular_nouns=True) & named:
            return True
        return any(
            dict(self.p.units[quantity].dims.exponents).get(per, 0) < 0
            or label_counts(self.p.labels[quantity]) & named
            for quantity in self.p.upstream[name]
        )

    def premise_outcome(self, name: str, found: _Outcome) -> _Outcome | None:
        """The unit error for line `name` of the premise another line's outcome `found` showed (a term of
        theirs a unit factor off), said with this line's own arithmetic."""
        if found.premise is None or found.factor is None or name not in self.outcomes:
            return None
        term, moved = found.premise
        factor = next((each for each in self.p.unit_factors[term] if each.factor == found.factor), None)
        implied = self.implied.get(name)
        if factor is None or implied is None:
            return None
        written = self.stated[term]
        message = v.term_factor_message(
            self._arithmetic(name, self.stated, implied),
            self.readings[name].text.strip(),
            _in_sentence(self.p.labels[term]),
            self.p.shown(term, written),
            self.p.shown(term, moved),
            factor,
            abs(moved) > abs(written),
            v.format_factor(factor.factor),
        )
        return _Outcome(v.UNIT_ERROR, message, implied, factor=factor.factor, premise=found.premise)

    def _per_harmless(self, name: str, per: str) -> bool:
        """Whether "per GPU" (per `per`) on input `name` says what the line already is: its label or chain is
        per one of them, or the question's own unit holds one of them (one GPU per instance)."""
        if self._per_in_chain(name, per):
            return True
        one = Dims.of(((per, 1),))
        return any(
            self.p.units[other].dims == one and math.isclose(float(self.ref[other]), 1)
            for other in self.p.input_names
        )

    def _per_names(self, per: str) -> frozenset[str]:
        """`per` and the count this question calls the same thing (node and replica, `alike_counts`)."""
        return frozenset({per, *(other for one, other in self.p.alike if one == per)})

    def _wrong_per(self, name: str, wrong_per: tuple[str, Any], stated: bool, implied: float) -> _Outcome:
        per, converted = wrong_per
        world = self.stated if stated else self.corrected
        arithmetic = self._arithmetic(name, world, implied)
        given = self.readings[name].text.strip()
        as_total = None if converted is None else self.p.shown(name, converted)
        if self.readings[name].per_count is not None and as_total is not None:
            return _Outcome(v.UNIT_ERROR, v.other_per_message(arithmetic, given, per, as_total), implied)
        message = v.wrong_per_message(arithmetic, given, per, as_total)
        return _Outcome(v.UNIT_ERROR, message, implied)

    def _not_given(
        self,
        name: str,
        reading: _Reading | None,
        line: _Line | None,
        implied_stated: Any,
        implied_corrected: Any,
    ) -> None:
        self._carry(name, implied_stated, implied_corrected)
        if reading is not None and reading.as_line is not None:
            # A wrong-dimension value used as typed by later lines: they are checked against it too.
            self.stated[name] = reading.as_line
            self.changed.add(name)
            self.diverged.add(name)
        if reading is not None:
            self.status[name] = reading.failure
        if line is None:
            return
        self.implied[name] = _finite(implied_stated)
        if reading is None:
            self.outcomes[name] = self._missing(name, implied_stated)
        else:
            self.outcomes[name] = _Outcome(reading.failure, reading.message, _finite(implied_stated))

    def _carry(self, name: str, implied_stated: Any, implied_corrected: Any) -> None:
        self.stated[name] = implied_stated
        self.corrected[name] = implied_corrected
        if implied_stated is not self.ref[name] or implied_corrected is not self.ref[name]:
            self.changed.add(name)
        if implied_corrected is not implied_stated:
            self.diverged.add(name)

    def _missing(self, name: str, implied: Any) -> _Outcome:
        reference = self._reference_shown(name)
        shown = self.p.shown(name, implied) if _finite(implied) is not None else None
        return _Outcome(v.MISSING, v.missing_message(reference, shown), _finite(implied))

    def _reference_shown(self, name: str) -> str:
        return self.p.shown(name, self.ref[name])

    def _arithmetic(self, name: str, world: Mapping[str, Any], result: float) -> str:
        """The formula with their numbers, "2 × 80 × 8 × 128 × 2 B = 320 KiB/tok"; a step they did not write
        down is opened up one level, so a headroom factor inside it still shows."""
        shown = self.p.shown(name, result)
        rendered = self._render(name, world, ARITHMETIC_DEPTH).strip()
        if rendered != shown:
            return f"{rendered} = {shown}"
        deps = sorted(self.p.deps[name])  # "70 s = 70 s" says nothing: name what the line repeats
        if len(deps) == 1:
            return f"This line is your {_in_sentence(self.p.labels[deps[0]])}, {shown}"
        return f"It comes to {shown}"

    def _render(self, name: str, world: Mapping[str, Any], depth: int) -> str:
        parts = self.p.templates[name].parts
        pieces = []
        for index, part in enumerate(parts):
            if index % 2 == 0:
                pieces.append(part)
            elif depth > 0 and part in self.p.templates and self._value(part) is None:
                inner = self._render(part, world, depth - 1)
                alone = parts[index - 1].endswith("(") and parts[index + 1].startswith(")")
                bare = alone or " " not in inner.strip() or _one_call(inner)
                pieces.append(operand(inner, parts[index - 1], parts[index + 1]) if bare else f"({inner})")
            else:
                value = world[part]
                shown = self.p.shown(part, value) if math.isfinite(value) else _beyond_a_float(value)
                pieces.append(operand(shown, parts[index - 1], parts[index + 1]))
        return "".join(pieces)

    def _wrong(self, name: str, value: float, implied_stated: Any, implied_corrected: Any) -> _Outcome:
        line = self.p.asked[name]
        given = self.readings[name].text.strip()
        factors = self.p.unit_factors[name]
        band = v.factor_band(line.check, line.tolerance)
        accepted = v.accepted_factor(line.check, line.tolerance)
        worlds_used = [
            (float(implied), world)
            for implied, world in ((implied_stated, self.stated), (implied_corrected, self.corrected))
            if _finite(implied) is not None and not (world is self.corrected and implied is implied_stated)
        ]
        # A wrong method is a slip whatever factor it makes: the line inverted, or a term of it left out.
        for implied, world in worlds_used:
            method = self._wrong_method(name, world, value, implied)
            if method is not None:
                return method
        terms = [self._term_factor(name, world, value, implied, band) for implied, world in worlds_used]
        term = min((found for found in terms if found is not None), key=lambda found: found[0], default=None)
        for implied, world in worlds_used:
            if implied == 0:
                continue
            match = v.match_unit_factor(value / implied, factors, band, accepted)
            if match is not None and not self._time_slip_plausible(name, *match):
                match = None
            chain = [float(self.ref[quantity]) for quantity in self.p.upstream[name]]
            if match is not None and _working_explains_result(self.readings[name].text, match[0], chain):
                match = None  # their own working gives the result as written: the factor is in its terms
            if match is not None and match[0].family == "percent" and abs(implied) > MAX_SHARE:
                # 1,661 for 16.6 heap compares is no percentage: 1,660% of nothing; "12.3%" for a ratio of
                # 12.3 is one, as typed, as "0.8%" for 0.8 is (issue 30).
                match = match if _percent_typed(self.readings[name].text) else None
            if match is not None:
                factor, too_large = match
                whole = abs(abs(math.log(value / implied)) - math.log(factor.factor))
                if term is not None and term[0] < whole - _TIE:
                    # One term off by a factor fits closer than the whole line; a term that fits as well
                    # (a factor of a product inside a sum's line: 1 TB / (30 min - 60 s)) is the whole line.
                    return term[1]
                arithmetic = self._arithmetic(name, world, float(implied))
                counted = self._count_in_chain(name, world, factor.factor, value / float(implied), band)
                if counted is not None and "bits" not in self.readings[name].note:
                    # 8 GPUs or 8 links in their own chain, taken as one: an arithmetic slip, not a unit
                    message = v.one_instead_of_message(
                        arithmetic, given, v.format_factor(factor.factor), too_large, counted
                    )
                    return _Outcome(v.ARITHMETIC_SLIP, message, float(implied))
                if not self._bits_plausible(name, world, factor, value / float(implied), band):
                    continue  # 8x, but not bits: a slip, said as one
                message = v.unit_factor_message(
                    arithmetic, given, factor, too_large, v.format_factor(factor.factor)
                )
                premise = self._link_as_bytes(name, world, factor, value / float(implied), band)
                return _Outcome(v.UNIT_ERROR, message, float(implied), factor=factor.factor, premise=premise)
        if term is not None:
            return term[1]
        worlds = [
            (_distance(value, float(implied)), float(implied), world)
            for implied, world in ((implied_stated, self.stated), (implied_corrected, self.corrected))
            if _finite(implied) is not None
        ]
        if not worlds:
            if v.within(line.check, line.tolerance, value, self.ref[name]):
                return _Outcome(v.CORRECT, v.CORRECT_MESSAGE)
            return _Outcome(v.ARITHMETIC_SLIP, v.no_value_message(self._reference_shown(name)))
        _, implied, world = min(worlds, key=lambda item: item[0])  # the reading closest to what they wrote
        arithmetic = self._arithmetic(name, world, implied)
        spread = self.readings[name].spread
        if spread is not None:  # a range: which of its ends miss, not its midpoint
            ends = self._range_ends(name, value, spread)
            message = v.range_slip_message(arithmetic, given, ends, implied, line.check, line.tolerance)
            return _Outcome(v.ARITHMETIC_SLIP, message, implied)
        message = v.slip_message(arithmetic, given, value, implied, line.check)
        return _Outcome(v.ARITHMETIC_SLIP, message, implied)

    def _range_ends(
        self, name: str, value: float, spread: tuple[float, float]
    ) -> tuple[tuple[str, float], tuple[str, float]]:
        """A range's two ends, each as shown in the line's unit and as a base-unit value."""
        low, high = (float(value) * end for end in spread)
        return (self.p.shown(name, low), low), (self.p.shown(name, high), high)

    def _wrong_method(
        self, name: str, world: dict[str, Any], value: float, implied: float
    ) -> _Outcome | None:
        """An arithmetic slip of method: a plain ratio written upside down (61 for 1/61), or the line with one
        term of its sum left out (the generation time alone for a step of generation and thinking)."""
        line = self.p.asked[name]
        given = self.readings[name].text.strip()
        arithmetic = self._arithmetic(name, world, implied)
        if line.check == "magnitude" or not value:
            return None  # within 3x, an inversion or a term left out could be anything
        band = math.log1p(METHOD_BAND)

        def fits(candidate: float) -> bool:
            return (
                math.isfinite(candidate)
                and candidate * value > 0
                and abs(math.log(value / candidate)) <= band
            )

        plain = self.p.units[name].dims.is_dimensionless
        if plain and implied and abs(math.log(abs(implied))) > math.log(2) and fits(1 / implied):
            return _Outcome(v.ARITHMETIC_SLIP, v.inverted_message(arithmetic, given), implied)
        for term in self._terms(name):
            if not _finite(world[term]):
                continue
            left_out = self._with_term(name, term, 0.0, world)
            if fits(left_out):
                message = v.left_out_message(
                    arithmetic, given, _in_sentence(self.p.labels[term]), self.p.shown(term, world[term])
                )
                return _Outcome(v.ARITHMETIC_SLIP, message, implied)
        return None

    def _time_slip_plausible(self, name: str, factor: v.UnitFactor, too_large: bool) -> bool:
        """A slip by 60, 3,600, 24... needs minutes, hours or days somewhere: in a unit people write for the
        line itself (a duration 60x too small is minutes) or in the units of its chain (a rate per minute):
        60 needs minutes or longer, 3,600 hours or longer, 24 and 86,400 days (weeks, months, years). A scan
        of 100,000 jobs at 10 us each, written as 60 for 1 s, is 60x too high, not minutes; 24x a slack of
        minutes is no hours versus days."""
        if factor.family != "time":
            return True
        unit = self.p.units[name]
        size = unit.factor * factor.factor if not too_large else unit.factor / factor.factor
        needed = _TIME_LEVEL_NEEDED.get(factor.factor, 1)
        if needed <= _TIME_LEVEL["hour"]:
            return True  # 60 and 3,600: a seconds-minutes-hours slip on the right working, wherever time is
        return (
            is_written_size(unit.dims, size, scaled=False)
            or self.p.long_time[name] >= needed
            or _time_level(self.readings[name].text) >= needed  # "98,304 GPU-h/month" for a day's figure
        )

    def _bits_plausible(
        self, name: str, world: Mapping[str, Any], factor: v.UnitFactor, ratio: float, band: float
    ) -> bool:
        """A slip by 8 (8,000...) on the whole line is bits versus bytes only when they wrote bits, or nothing
        counted in their own chain is 8 (8 GPUs, 8 links) and either the line is itself in bytes or a rate
        in bytes in its chain, taken that factor off, moves the whole line by it (a link in bits slows a
        transfer eightfold; inside a sum it moves one term; a count of sizes over sizes has no link)."""
        if factor.family != "bits" or "bits" in self.readings[name].note:
            return True
        if _working_in_bytes_only(self.readings[name].text):
            return False  # "9.83 GB / 3.2 GB/s = 3.1 s": their own working is in bytes; the 8 is elsewhere
        if any(
            self.p.is_count[quantity] and math.isclose(float(world[quantity]) / self.p.factor[quantity], 8)
            for quantity in self.p.upstream[name]
        ):
            return False
        if self.p.has_bytes[name] and self.p.bits_met[name]:
            return True
        reference = float(self.ref[name])
        for quantity in sorted(self.p.upstream[name]):
            if not self.p.byte_rate[quantity] or not reference:
                continue
            for scale in (factor.factor, 1 / factor.factor):
                moved = float(self._evaluate_with(name, quantity, self.ref[quantity] * scale))
                if moved / reference > 0 and abs(math.log(moved / reference / ratio)) <= math.log1p(band):
                    return True
        return False

    def _link_as_bytes(
        self, name: str, world: Mapping[str, Any], factor: v.UnitFactor, ratio: float, band: float
    ) -> tuple[str, float] | None:
        """A whole line off by 8 (bits versus bytes) that is exactly one untyped link in bits up its chain
        read as bytes ("5 TB / 100 Gb/s" worked as 50 s): that reading of the link, as a premise the later
        lines over the same link may follow (issue 30: a premise evidently used, not typed); else None."""
        if factor.family != "bits":
            return None
        found = []
        for quantity in sorted(self.p.upstream[name]):
            if quantity in self.readings or not self.p.bits[quantity] or not self.p.byte_rate[quantity]:
                continue
            written = float(world[quantity])
            for scale in (factor.factor, 1 / factor.factor):
                moved = float(self._evaluate_with(name, quantity, written * scale, world))
                implied = float(self._evaluate_with(name, quantity, written, world))
                if (
                    implied
                    and moved / implied > 0
                    and abs(math.log(moved / implied / ratio)) <= math.log1p(band)
                ):
                    found.append((quantity, written * scale))
        return found[0] if len(found) == 1 else None

    def _terms(self, name: str) -> list[str]:
        """The quantities in a sum that a line's arithmetic shows: its inputs when its formula adds or
        subtracts, and those of an unwritten step that does, one level down (as `_arithmetic` opens it). In
        a pure product a factor in one term is a factor of the whole line, already looked for."""
        sums = self.p.sums
        terms = list(self.p.deps[name]) if name in sums else []
        for dep in sorted(self.p.deps[name]):
            if dep in self.p.deps and self._value(dep) is None and (dep in sums or name in sums):
                terms.extend(inner for inner in sorted(self.p.deps[dep]) if inner not in terms)
        return sorted(terms)

    def _term_factor(
        self, name: str, world: dict[str, Any], value: float, implied: float, band: float
    ) -> tuple[float, _Outcome] | None:
        """A unit factor hidden in one term of a sum: the line is what their own numbers give with one term
        taken a unit factor too large or too small (a weight load in bits inside a cold start). Only a
        term that moves the line twofold or more counts, so a small slip is not read as one; an
        assumption's factor must be that of a unit people write for it (as for an assumption's own line).
        The closest fit wins, metric prefixes and bits before the rest; returned with its distance."""
        line = self.p.asked[name]
        if not value or not implied or (value > 0) != (implied > 0) or not _precise(line, implied):
            return None
        if abs(math.log10(abs(value)) - math.log10(abs(implied))) > MAX_TERM_EFFECT_ORDERS:
            return None  # a line a millionfold off is an absurd magnitude, not one term in the wrong unit
        best: tuple[tuple[int, float, bool], str, float, float, v.UnitFactor, bool] | None = None
        for term in self._terms(name):
            written = float(world[term])
            if not math.isfinite(written) or not written:
                continue
            needed = self._term_scale(name, term, written, world, value, implied)
            if needed is None:
                continue
            unit = self.p.units[term]
            typed = self.readings.get(term)
            for factor in self.p.unit_factors[term]:
                if factor.factor < MIN_TERM_FACTOR or (
                    factor.family == "percent" and abs(written) > MAX_SHARE
                ):
                    continue
                if factor.family == "bits" and not self.p.bits_met[term]:
                    continue
                if abs(abs(math.log(needed)) - math.log(factor.factor)) > math.log(_TERM_SCALE_SLACK):
                    continue
                for too_large in (needed > 1,):
                    if term in self.p.ranges:  # their number read in a unit of this size
                        size = unit.factor * factor.factor if too_large else unit.factor / factor.factor
                        if not is_written_size(unit.dims, size, scaled=abs(written) / unit.factor >= 1):
                            continue
                    moved_term = written * factor.factor if too_large else written / factor.factor
                    if typed is not None and typed.value is not None and not _typed_as(typed, moved_term):
                        continue  # the term is on their sheet as they used it: a slip elsewhere, not a unit
                    moved = self._with_term(name, term, moved_term, world)
                    if not math.isfinite(moved) or not moved or (moved > 0) != (value > 0):
                        continue
                    if abs(math.log(moved / implied)) < math.log(MIN_TERM_EFFECT):
                        continue
                    distance = abs(math.log(value / moved))
                    if distance > math.log1p(band) or not v.within(line.check, line.tolerance, value, moved):
                        continue
                    left_out = self._with_term(name, term, 0.0, world) if not too_large else math.inf
                    if math.isfinite(left_out) and v.within(line.check, line.tolerance, value, left_out):
                        continue  # as well fitted by leaving the term out: a forgotten term, not a unit
                    # An assumption before an unwritten step it feeds, where both fit alike.
                    key = (_FAMILY_RANK.get(factor.family, 3), round(distance, 6), term not in self.p.ranges)
                    if best is None or key < best[0]:
                        best = (key, term, written, moved_term, factor, too_large)
        if best is None:
            return None
        _, term, written, moved_term, factor, too_large = best
        message = v.term_factor_message(
            self._arithmetic(name, world, implied),
            self.readings[name].text.strip(),
            _in_sentence(self.p.labels[term]),
            self.p.shown(term, written),
            self.p.shown(term, moved_term),
            factor,
            too_large,
            v.format_factor(factor.factor),
        )
        outcome = _Outcome(v.UNIT_ERROR, message, implied, factor=factor.factor, premise=(term, moved_term))
        return best[0][1], outcome

    def _term_scale(
        self, name: str, term: str, written: float, world: dict[str, Any], value: float, implied: float
    ) -> float | None:
        """The scale k of `term` that would give `value`, if the line is the rest plus c * term^p: two
        probes (term x2, x4) give p and c, so each unit factor is then checked once, not evaluated."""
        once = self._with_term(name, term, 2 * written, world) - implied
        twice = self._with_term(name, term, 4 * written, world) - implied - once
        if not (math.isfinite(once) and math.isfinite(twice)) or once == 0 or twice / once <= 0:
            return None
        power_of_two = twice / once  # 2^p
        if abs(power_of_two - 1) < 1e-9:
            return None
        share = once / (power_of_two - 1)  # c * term^p
        scaled = 1 + (value - implied) / share  # k^p
        if not scaled > 0:
            return None
        log_scale = math.log(scaled) * math.log(2) / math.log(power_of_two)
        if not abs(log_scale) < 700:  # e^±700: beyond every unit factor, and exp would overflow or give 0
            return None
        return math.exp(log_scale)

    def _with_term(self, name: str, term: str, moved: float, world: dict[str, Any]) -> float:
        """`name` recomputed from `world` with `term` (one of `_terms(name)`) at `moved`; `world` is
        changed only for the call (this runs for every term and factor of a wrong line)."""
        deps = self.p.deps[name]
        steps = [] if term in deps else [dep for dep in sorted(deps) if term in self.p.deps.get(dep, ())]
        saved = {key: world[key] for key in (term, *steps)}
        try:
            world[term] = moved
            for step in steps:
                world[step] = self.p.evaluators[step](world)
            return float(self.p.evaluators[name](world))
        finally:
            world.update(saved)

    # Far from the reference: which of their numbers drives it, and was it marked already?

    def _count_in_chain(
        self, name: str, world: Mapping[str, Any], factor: float, ratio: float, band: float
    ) -> str | None:
        """The label of a count in the chain of `name` whose value is `factor` (8 GPUs per node, 8 links)
        and which, taken as 1, moves the line by `ratio` (what they wrote over what it should be); None if
        there is none."""
        upstream = sorted(self.p.upstream[name])
        if any(self.p.bits[quantity] for quantity in upstream):
            return None  # a link in Gb/s in the chain: bits versus bytes is the likelier slip
        for quantity in upstream:
            if not self.p.is_count[quantity]:
                continue  # only a count of things (GPUs, links, nodes), not a plain number
            if not math.isclose(float(world[quantity]) / self.p.factor[quantity], factor, rel_tol=1e-9):
                continue
            moved = float(self._evaluate_with(name, quantity, self.p.factor[quantity]))
            reference = float(self.ref[name])
            if (
                reference
                and moved / reference > 0
                and abs(math.log(moved / reference / ratio)) <= math.log1p(band)
            ):
                return _in_sentence(self.p.labels[quantity])
        return None

    def _binary_only(self, name: str, value: float, implied: Any) -> bool:
        if not self.p.binary[name] or _finite(implied) is None or not implied:
            return False
        return self._binary_factor(name, float(value), float(implied)) is not None

    def _binary_factor(self, name: str, value: float, expected: float) -> v.UnitFactor | None:
        """The KB-versus-KiB factor between `value` and `expected`: exact, or the same number rounded as the
        line allows with the other prefix than the line's ("9.8 GiB" where the line says 9.83 GB)."""
        exact = v.binary_prefix_slip(value / expected)
        if exact is not None:
            return exact
        reading = self.readings.get(name)
        written = None if reading is None else _PREFIXED_BYTES.search(stated_answer(reading.text))
        if written is None or bool(written["binary"]) == ("iB" in self.p.units[name].text):
            return None
        factor = 1.024 ** _PREFIX_LEVEL[written["prefix"].upper()]
        meant = value / factor if written["binary"] else value * factor
        line = self.p.asked.get(name)
        check, tolerance = (line.check, line.tolerance) if line is not None else UNASKED_CHECK
        if check == "count" or reading is None or not _within(check, tolerance, meant, expected, reading):
            return None
        return v.binary_prefix_slip(factor)

    def _binary_note(self, name: str, message: str, value: float, expected: Any) -> str:
        """`message`, with a note when the value is off by a KB-versus-KiB factor (inside the tolerance)."""
        if not self.p.binary[name] or not expected:
            return message
        factor = self._binary_factor(name, float(value), float(expected))
        if factor is None:
            return message
        return v.binary_prefix_note(
            message,
            self.readings[name].text.strip(),
            self.p.shown(name, value),
            self.p.shown(name, expected),
            factor,
        )

    def _consistent(self, line: _Line, value: float, stated: bool, implied: Any) -> _Outcome:
        """A line that matches their own numbers: correct, unless it is far from the reference because of a
        value no line was marked down for (then far_from_reference, once per such value)."""
        name = line.name
        if math.isinf(value):  # "unbounded" where their numbers give no finite value
            return _Outcome(v.CORRECT, v.UNBOUNDED_MESSAGE)
        correct = self._binary_note(name, v.CORRECT_MESSAGE, value, implied)
        reference = float(self.ref[name])
        if v.within(line.check, line.tolerance, value, reference) or (
            reference and self._binary_factor(name, value, reference) is not None
        ):
            return _Outcome(v.CORRECT, correct)
        found = self._driver(name, stated)
        if found is None:
            return _Outcome(v.CORRECT, correct)
        driver, used = found
        reading = self.readings[driver]
        # What they wrote, or the value used with its unit ("141" on a GB/GPU line is "141 GB/GPU").
        as_written = used == reading.value and reading.unit_written
        driver_given = reading.text.strip() if as_written else self.p.shown(driver, used)
        label = _in_sentence(self.p.labels[driver])
        if self.status.get(driver, v.CORRECT) == v.CORRECT:
            where = "is inside its plausible range"
            return _Outcome(v.CORRECT, v.follows_message(label, driver_given, where), driver=driver)
        if driver in self.p.asked:
            where = "is marked on its own line"
            return _Outcome(v.CORRECT, v.follows_message(label, driver_given, where), driver=driver)
        decision = self.p.decision.get(driver, driver)
        if decision in self.charged:
            where = f"is already marked on the {self.charged[decision]} line"
            return _Outcome(v.CORRECT, v.follows_message(label, driver_given, where), driver=driver)
        self.charged[decision] = _in_sentence(line.label)
        message = v.far_message(
            self.p.shown(name, value),
            self._reference_shown(name),
            label,
            driver_given,
            self._reference_shown(driver),
        )
        bounds = self.p.ranges.get(driver)
        if bounds is not None and bounds.fixed:
            message = v.fixed_far_message(message, bounds.high_text, bounds.source)
        return _Outcome(v.FAR_FROM_REFERENCE, message, driver=driver)

    def _origins(self, name: str, stated: bool) -> dict[str, Any]:
        """The given values a difference in `name` can start from, with the value each had in the reading
        that was used: their assumptions, and (in the stated reading) their slips. Walking up from `name`,
        a derived value they got right is passed through in the reading it matched."""
        origins: dict[str, Any] = {}
        stack = [(dep, stated) for dep in self.p.deps[name]]
        seen: set[tuple[str, bool]] = set()
        while stack:
            quantity, reading_stated = stack.pop()
            if (quantity, reading_stated) in seen:
                continue
            seen.add((quantity, reading_stated))
            world = self.stated if reading_stated else self.corrected
            given = self._value(quantity) is not None
            if quantity in self.p.ranges:
                if given:
                    origins[quantity] = world[quantity]
                continue
            if given and self.status.get(quantity) == v.CORRECT:
                reading_stated = self.matched_stated[quantity]
            elif given and reading_stated:
                origins[quantity] = world[quantity]  # a slip, used as written
                continue
            stack.extend((dep, reading_stated) for dep in self.p.deps[quantity])
        return origins

    def _driver(self, name: str, stated: bool) -> tuple[str, Any] | None:
        """The given value (and the value used) that moves `name` furthest from the reference on its own."""
        reference = float(self.ref[name])
        best: tuple[float, str, Any] | None = None
        for origin, value in sorted(self._origins(name, stated).items()):
            if value == self.ref[origin]:
                continue
            moved = float(self._evaluate_with(name, origin, value))
            if reference > 0 and moved > 0:
                effect = abs(math.log(moved / reference))
            else:
                effect = abs(moved - reference) / abs(reference) if reference else abs(moved)
            if not math.isfinite(effect):
                effect = math.inf
            if best is None or effect > best[0]:
                best = (effect, origin, value)
        return None if best is None or best[0] == 0 else (best[1], best[2])

    def _evaluate_with(
        self, target: str, origin: str, value: Any, world: Mapping[str, Any] | None = None
    ) -> Any:
        """`target` recomputed with `origin` at `value`, everything else as in `world` (the reference)."""
        env = dict(self.ref if world is None else world)
        env[origin] = value
        moved = {origin}
        needed = self.p.upstream[target]
        for name in self.p.derived_names:
            if name == origin or (name != target and name not in needed):
                continue
            if self.p.deps[name] & moved:
                env[name] = self.p.evaluators[name](env)
                moved.add(name)
            if name == target:
                break
        return env[target]


_CALL = re.compile(r"[A-Za-z_]\w*\(")


def _time_level(text: str) -> int:
    """The longest time unit a text names (1 minutes ... 6 years; 0 none): "$864/mo" names months."""
    return max((_TIME_LEVEL[match.lastgroup or ""] for match in _LONG_TIME.finditer(text)), default=0)


def _percent_typed(text: str) -> bool:
    return "%" in text or re.search(r"(?i)(?<![A-Za-z])(?:percent|pct)(?![A-Za-z])", text) is not None


def _typed_as(reading: _Reading, value: float) -> bool:
    """Whether a line they typed in another unit ("78.6 Gb") has, read in its line's unit, the number
    `value`: the figure then used as typed (78.6 GB), a unit slip their own sheet shows."""
    return reading.as_typed is not None and math.isclose(reading.as_typed, value, rel_tol=1e-6)


def _one_call(text: str) -> bool:
    """Whether `text` is one function call, "min(629 req, 325 req)", which needs no parentheses of its own."""
    start = _CALL.match(text)
    if not start:
        return False
    depth = 0
    for position in range(start.end() - 1, len(text)):
        depth += {"(": 1, ")": -1}.get(text[position], 0)
        if depth == 0:
            return position == len(text) - 1
    return False


def _precise(line: _Line, implied: float) -> bool:
    """Whether a line is checked closely enough to name a factor hidden in one of its terms: a relative
    band of 10% or less, or a count of 20 or more (an estimate within 3x could land anywhere)."""
    if line.check == "count":
        return abs(implied) >= PRECISE_COUNT
    return line.check == "relative" and (0.05 if line.tolerance is None else line.tolerance) <= PRECISE_BAND


def _in_sentence(label: str) -> str:
    """A label inside a sentence: "Free HBM for KV" -> "free HBM for KV"; "KV cache" and "LoRA rank" stay
    (a first word with capitals after its first letter is a name)."""
    first = label.split(" ", 1)[0]
    plain = first[:1].isupper() and (len(first) == 1 or (first[1].islower() and first[1:].islower()))
    return label[0].lower() + label[1:] if plain else label


def _beyond_a_float(value: float) -> str:
    """A step of their numbers that overflowed (a negative KV size over a huge chunk time), not as ∞."""
    if math.isnan(value):
        return "(an undefined value)"
    return "(more than 1e308)" if value > 0 else "(less than -1e308)"


def _joined_note(*notes: str) -> str:
    return "; ".join(note for note in notes if note)


def _within(check: str, tolerance: float | None, value: float, implied: float, reading: _Reading) -> bool:
    """`v.within` for a reading; a range ("2-2.5 s") passes only when both its ends do; "unbounded" only
    where their numbers give no finite value (a queue at a utilisation of 1 or more)."""
    if math.isinf(value) or math.isinf(implied):
        return value == implied
    if reading.spread is None:
        return v.within(check, tolerance, value, implied)
    return all(v.within(check, tolerance, value * end, implied) for end in reading.spread)


def _distance(given: float, implied: float) -> float:
    if given > 0 and implied > 0:
        return abs(math.log(given) - math.log(implied))  # given / implied can underflow to 0 (1e-300 / 1e30)
    return math.inf if given != implied else 0.0


def _finite(value: Any) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None


def _rounded(value: float | None, digits: int = 6) -> float | None:
    """A float with `digits` significant figures, so reports compare byte for byte."""
    if value is None:
        return None
    number = float(value)
    if not math.isfinite(number):
        return None
    return float(f"{number:.{digits}g}")


def _palette_index(palette: PaletteIndex | Mapping[str, Any] | str | Path | None) -> PaletteIndex:
    if palette is None:
        return load_index(DEFAULT_PALETTE_PATH)
    if isinstance(palette, PaletteIndex):
        return palette
    if isinstance(palette, str | Path):
        return load_index(Path(palette))
    return build_index(palette)


def grade(
    question: QuestionSpec | Mapping[str, Any],
    submission: Mapping[str, Any] | Submission | object,
    *,
    overrides: Mapping[str, float] | None = None,
    palette: PaletteIndex | Mapping[str, Any] | str | Path | None = None,
    version: int | str | None = None,
) -> dict[str, Any]:
    """Grade `submission` against `question` and return the report (JSON-ready, deterministic).

    `question`: a QuestionSpec, or the dict `spec_to_dict` makes of one (what a QuestionVersion stores).
    `submission`: `{"numbers": {NAME: text}, "design": {"nodes", "edges"}, "events": [...]}` as received (any
    JSON value); raises grading.core.submission.SubmissionError naming the field when it is malformed.
    `overrides`: input name -> base-unit value for a variant round; the reference follows the variant.
    `palette`: a PaletteIndex, a palette dict (kind -> component) or a palette file (default: the bank's).
    `version`: the question version number, recorded in the report.

    What grading needs of a question is compiled once and cached: by identity for a QuestionSpec or a dict
    seen before (so do not change a question dict in place after grading it), by content for a new dict.
    """
    checked = submission if isinstance(submission, Submission) else read_submission(submission)
    prepared = _prepared(question)
    key = tuple(sorted((name, float(value)) for name, value in (overrides or {}).items()))
    reference = _reference(prepared, key)
    readings: dict[str, _Reading] = {}
    unknown: list[str] = []
    ratios = _ratios(prepared, reference)
    for name, text in checked.numbers.items():
        unit = prepared.units.get(name)
        if unit is None:
            unknown.append(name)
        elif text.strip():
            reading = _read(
                text,
                unit,
                prepared.labels[name],
                prepared.zero_meant.get(name),
                prepared.alike,
                name in prepared.no_limit,
                ratios,
            )
            if reading is not None:
                readings[name] = reading
    run = _with_values_used(prepared, reference, readings)
    lines = [_line_report(prepared, reference, run, line) for line in prepared.lines]
    design = None
    if checked.boxes is not None and (prepared.design.boxes or prepared.design.path):
        design = check_design(prepared.design, checked.boxes, checked.arrows, _palette_index(palette))
    scores = scoring.line_scores((line["phase"], line["weight"], line["credit"]) for line in lines)
    if design is not None:
        scores[scoring.SHAPE_PHASE] = scoring.shape_score(design["coverage"], design["path_ok"])
    depth_report = None
    if checked.depth is not None and (prepared.spec.curveballs or prepared.spec.decisions):
        depth_report = _depth_report(prepared, checked, lines, dict(key), palette)
        if depth_report["score"] is not None:
            scores[depth.DEPTH_PHASE] = depth_report["score"]
    overall = scoring.overall_score(scores, prepared.plan_minutes)
    pacing = None
    if checked.events is not None:
        events = [(event.t, event.phase, event.field) for event in checked.events]
        pacing = scoring.pacing(prepared.plan, events, prepared.line_phases)
    report = _report(prepared, reference, lines, design, scores, overall, pacing, sorted(unknown), version)
    if depth_report is not None:
        report["depth"] = depth_report
    return report


def _depth_report(
    prepared: _Prepared,
    checked: Submission,
    main_lines: list[dict[str, Any]],
    overrides: dict[str, float],
    palette: PaletteIndex | Mapping[str, Any] | str | Path | None,
) -> dict[str, Any]:
    """The depth phase: each curveball graded on its own sheet (grading.core.depth.curveball_sheet) with the
    change as overrides, its consequences checked on the design, and each decision scored."""
    answers = checked.depth
    assert answers is not None
    index = _palette_index(palette)
    boxes = checked.boxes or ()
    kinds = box_kinds(prepared.design, boxes, index)
    before = {line["name"]: line for line in main_lines}
    curveballs = []
    not_offered = []
    for curveball in prepared.spec.curveballs:
        if answers.offered is not None and curveball.id not in answers.offered:
            not_offered.append({"id": curveball.id, "title": curveball.title})
            continue
        sheet, moved = prepared.curveball_sheet(curveball)
        answer = answers.curveballs.get(curveball.id, CurveballAnswer({}, {}))
        own = {line.name for line in curveball.asked}
        numbers = {
            name: text for name, text in checked.numbers.items() if name not in moved and name not in own
        }
        numbers.update({name: text for name, text in answer.numbers.items() if name in own})
        changed = {
            name: float(prepared.model.base_value(name, value)) for name, value in curveball.set.items()
        }
        graded = grade(sheet, {"numbers": numbers}, overrides={**overrides, **changed}, palette=index)
        lines = []
        for line in graded["lines"]:
            if line["name"] in own:
                carried = depth.scaled_carry(line, before.get(line["name"]))
                lines.append({**line, **carried, "carried": True} if carried else {**line, "carried": False})
        consequences = [
            {
                "kind": item.kind,
                "kind_name": index.name(item.kind),
                "names": item.names,
                "says": item.says,
                **check_consequence(item.kind, item.names, boxes, kinds, answer.notes, index),
            }
            for item in curveball.design
        ]
        lines_credit = depth.lines_credit(lines)
        credit = depth.curveball_credit(lines_credit, consequences)
        curveballs.append(
            {
                "id": curveball.id,
                "title": curveball.title,
                "says": depth.curveball_says(curveball, prepared.shown_units),
                "set": dict(curveball.set),
                "scenario": curveball.scenario,
                "answered": any(text.strip() for text in answer.numbers.values()),
                "lines": lines,
                "design": consequences,
                "lines_credit": round(lines_credit, 4),
                "lines_score": round(100 * lines_credit, 1),
                "design_met": sum(1 for item in consequences if item["met"]),
                "design_total": len(consequences),
                "credit": round(credit, 4),
                "score": round(100 * credit, 1),
            }
        )
    scales = _band_scales(prepared.model, prepared.spec.decisions, overrides)
    decisions = [
        depth.decision_report(
            item,
            answers.follow_ups.get(item.id, DecisionAnswer((), "")).order,
            answers.follow_ups.get(item.id, DecisionAnswer((), "")).number,
            scales.get(item.id, 1.0),
        )
        for item in prepared.spec.decisions
    ]
    score = depth.depth_score([item["credit"] for item in (*curveballs, *decisions)])
    return {
        "curveballs": curveballs,
        "follow_ups": decisions,
        "not_offered": not_offered,
        "items": len(curveballs) + len(decisions),
        "lines_share": depth.CURVEBALL_LINES_SHARE,
        "design_share": round(1 - depth.CURVEBALL_LINES_SHARE, 4),
        "order_share": round(1 - depth.DECISION_NUMBER_SHARE, 4),
        "number_share": depth.DECISION_NUMBER_SHARE,
        "score": None if score is None else round(score, 1),
    }


def _band_scales(
    model: ReferenceModel, decisions: Iterable[FollowUp], overrides: Mapping[str, float]
) -> dict[str, float]:
    """How each decision's band moves in a variant round (by id): its `follows` quantity at the round's values
    over its value at the defaults, the model evaluated once at each. Left out (1) without a variant, without
    `follows`, or where the ratio is undefined."""
    followed = {item.id: item.number.follows for item in decisions if item.number and item.number.follows}
    if not followed or not overrides:
        return {}
    try:
        defaults, moved = model.evaluate(), model.evaluate(dict(overrides))
    except ModelError:
        return {}
    scales = {}
    for decision_id, name in followed.items():
        default, value = float(defaults[name]), float(moved[name])
        defined = math.isfinite(default) and math.isfinite(value) and default and value / default > 0
        if defined and not math.isclose(value, default, rel_tol=1e-9):
            scales[decision_id] = value / default
    return scales


WORKING_AGREES = 1.05  # shown working and its stated result within 5%: a rounding, not a slip
TERM_AGREES = 0.02  # a term of shown working read as a reference value off by a unit factor
_BARE_TERM = re.compile(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\d.,])")
_BIT_UNIT = re.compile(r"(?<![A-Za-z])[kKMGTP]?(?:b|bits?)(?:ps|/s)?(?![A-Za-z])")
_BYTE_UNIT = re.compile(r"(?<![A-Za-z])[kKMGTP]?i?B(?![A-Za-z])")


def _working_explains_result(text: str, factor: v.UnitFactor, references: Iterable[float]) -> bool:
    """Whether the working shown before the result computes that result in its own units ("9.8 GB / 0.4
    GB/s = 25 s" is 24.5 s) with no term that shows the slip: the factor itself ("0.27 × 100 = 27"), or a
    term that is one of the chain's `references` off by it ("25 Gb/s" for 25 GB/s). Then a whole line off by
    a unit factor is off in its terms, not in the unit of its result."""
    answer = stated_answer(text)
    terms = working_terms(text)
    shown = None if terms is None else terms_value(*terms)
    result = parse_quantity(answer)
    if shown is None or terms is None or not isinstance(result, ParsedQuantity):
        return False
    if (
        shown <= 0
        or result.base_value <= 0
        or abs(math.log(shown / result.base_value)) > math.log(WORKING_AGREES)
    ):
        return False
    working = text[: len(text) - len(answer)]
    bare = [float(number.replace(",", "")) for number in _BARE_TERM.findall(working)]
    slipped = [reference * scale for reference in references for scale in (factor.factor, 1 / factor.factor)]
    return not any(
        math.isclose(term, factor.factor) or math.isclose(term * factor.factor, 1) for term in bare
    ) and not any(math.isclose(term, moved, rel_tol=TERM_AGREES) for term in terms[0] for moved in slipped)


def _working_in_bytes_only(text: str) -> bool:
    """Whether `text` shows working before its result ("9.83 GB / 3.2 GB/s = 3.1 s") that names bytes and
    no bits: then a factor of 8 is not bits read as bytes."""
    answer = stated_answer(text)
    if answer == text:
        return False
    working = text[: len(text) - len(answer)]
    return bool(_BYTE_UNIT.search(working)) and not _BIT_UNIT.search(working)


def _with_values_used(prepared: _Prepared, reference: _Reference, readings: Mapping[str, _Reading]) -> _Run:
    """The grading run, where an assumption typed in another unit reads inside its range but the lines
    computed from it show they used the number as typed in the line's unit: then the assumption is charged
    and those lines are checked against what they used, when that leaves fewer of them wrong."""
    run = _Run(prepared, reference, readings)
    run.run()
    used: dict[str, tuple[float, v.UnitFactor]] = {}
    for name in prepared.input_names:
        reading = readings.get(name)
        if (
            reading is None
            or reading.as_typed is None
            or reading.value is None
            or run.status.get(name) != v.CORRECT
        ):
            continue
        bounds = prepared.ranges[name]
        factor = v.exact_unit_factor(reading.as_typed / float(reading.value), prepared.unit_factors[name])
        if factor is None or not bounds.low_accepted <= reading.as_typed <= bounds.high_accepted:
            continue
        later = [
            line.name
            for line in prepared.lines
            if not line.is_input and name in prepared.upstream[line.name] and line.name in readings
        ]
        wrong_before = sum(run.outcomes[line].verdict != v.CORRECT for line in later)
        if not wrong_before:
            continue
        trial = _Run(prepared, reference, readings, {**used, name: (reading.as_typed, factor)})
        trial.run()
        if sum(trial.outcomes[line].verdict != v.CORRECT for line in later) < wrong_before:
            used[name] = (reading.as_typed, factor)
            run = trial
    return _with_premises_used(prepared, reference, readings, run)


def _with_premises_used(
    prepared: _Prepared, reference: _Reference, readings: Mapping[str, _Reading], run: _Run
) -> _Run:
    """The grading run where a line showed an assumption they did not type taken a unit factor off (a link
    read as 100 GB/s inside the all-reduce time): that line is charged, and the later lines computed from the
    same assumption are checked against the value they used, when that leaves fewer of them wrong."""
    for name, outcome in list(run.outcomes.items()):
        if outcome.premise is None or outcome.premise[0] in readings or outcome.premise[0] in run.premises:
            continue
        term, used = outcome.premise
        if term not in prepared.input_names:
            continue
        later = [
            line.name
            for line in prepared.lines
            if not line.is_input
            and line.name != name
            and term in prepared.upstream[line.name]
            and line.name in readings
        ]
        wrong_before = sum(run.outcomes[line].verdict != v.CORRECT for line in later)
        if not wrong_before:
            continue
        trial = _Run(
            prepared,
            reference,
            readings,
            run.used,
            {**run.premises, term: used},
            {**run.kept, name: outcome},
        )
        trial.run()
        if sum(trial.outcomes[line].verdict != v.CORRECT for line in later) >= wrong_before:
            continue
        # The premise is charged on the first asked line it explains, not on a later one that found it.
        explained = [
            line
            for line in later
            if run.outcomes[line].verdict != v.CORRECT and trial.outcomes[line].verdict == v.CORRECT
        ]
        position = {line.name: line.position for line in prepared.lines}
        first = min([name, *explained], key=lambda line: position.get(line, math.inf))
        if first != name:
            charge = run.premise_outcome(first, outcome)
            if charge is not None:
                moved = _Run(
                    prepared, reference, readings, run.used, trial.premises, {**run.kept, first: charge}
                )
                moved.run()
                both = [name, *later]
                if sum(moved.outcomes[line].verdict != v.CORRECT for line in both) <= sum(
                    trial.outcomes[line].verdict != v.CORRECT for line in both
                ):
                    trial = moved
        run = trial
    return run


def _line_report(prepared: _Prepared, reference: _Reference, run: _Run, line: _Line) -> dict[str, Any]:
    name = line.name
    outcome = run.outcomes[name]
    reading = run.readings.get(name)
    factor = prepared.factor[name]
    given = None if reading is None else reading.value
    if given is not None and name in run.notes:  # read again by the grading (per GPU, the base unit)
        given = run.stated[name]
    implied = (
        None if line.is_input else (outcome.implied if outcome.implied is not None else run.implied.get(name))
    )
    label, share = v.LABELS[outcome.verdict], 1.0
    message = outcome.message
    if outcome.verdict == v.CORRECT and given is not None:
        label, share = _pass_band(prepared, line, float(given), implied, reference.values[name])
        if share < 1 and message == v.CORRECT_MESSAGE:
            basis = implied if implied is not None else reference.values[name]
            message = _loose_pass_message(prepared, line, float(given), basis, share)
    return {
        **reference.lines[name],
        "verdict": outcome.verdict,
        "verdict_label": label,
        "band": v.band_text(line.check, line.tolerance),
        "tone": v.TONES[outcome.verdict],
        "credit": scoring.LINE_CREDIT[outcome.verdict] * share,
        "message": message
        + _implausible(outcome.verdict, given, reference.values[name])
        + _unread_premises(prepared, run, line),
        "note": run.notes.get(name, reading.note) if reading is not None else "",
        "given_text": reading.text if reading is not None else "",
        "given": None if given is None else _rounded(given / factor),
        "implied": None if implied is None else _rounded(implied / factor),
        "implied_shown": prepared.shown(name, implied) if implied is not None else "",
        "factor": outcome.factor,
        "driver": outcome.driver,
    }


def _unread_premises(prepared: _Prepared, run: _Run, line: _Line) -> str:
    """Where a line is worked from a number they typed that could not be read, the report says so: the line
    was checked against the reference value in its place."""
    if line.is_input:
        return ""
    unread: list[str] = []
    seen: set[str] = set()
    stack = list(prepared.deps[line.name])
    while stack:  # up the chain, stopping at a number they typed that was read
        quantity = stack.pop()
        if quantity in seen:
            continue
        seen.add(quantity)
        reading = run.readings.get(quantity)
        if reading is not None and reading.value is None and reading.as_line is None:
            unread.append(quantity)
        elif reading is None:
            stack.extend(prepared.deps.get(quantity, ()))
    unread.sort(key=lambda name: prepared.labels[name])
    assumed = [_in_sentence(prepared.labels[name]) for name in unread if name in prepared.ranges]
    worked = [_in_sentence(prepared.labels[name]) for name in unread if name not in prepared.ranges]
    return v.unread_premises_message(assumed, worked)


def _implausible(verdict: str, given: float | None, reference: float) -> str:
    """A plausibility warning for a wrong value nine or more orders of magnitude from the reference."""
    if verdict == v.CORRECT or not given or not reference or not math.isfinite(given):
        return ""
    if not math.isfinite(reference):  # no limit: no order of magnitude to be far from
        return ""
    orders = abs(math.log10(abs(float(given))) - math.log10(abs(float(reference))))  # the ratio can underflow
    return v.implausible_note(orders) if orders >= v.IMPLAUSIBLE_ORDERS else ""


def _pass_band(
    prepared: _Prepared, line: _Line, given: float, implied: float | None, reference: float
) -> tuple[str, float]:
    """How a correct line passed: an input inside its range (or the value the question fixes), a derived
    line in its band around what their own numbers imply."""
    if line.is_input:
        bounds = prepared.ranges[line.name]
        return (
            "Correct (the question fixes it)" if bounds.low == bounds.high else "Correct (inside its range)"
        ), 1.0
    if math.isinf(given):
        return "Correct (no limit)", 1.0
    return v.pass_band(line.check, line.tolerance, given, implied if implied is not None else reference)


def _loose_pass_message(prepared: _Prepared, line: _Line, given: float, basis: float, share: float) -> str:
    """Why a pass in the loose band earns part of the credit: "0.592 is a factor of 2.2 above 0.269: within
    3×, not within 10%, so 60% of the line's credit"."""
    ratio = abs(given / basis) if basis else math.inf
    factor = format_number(ratio if ratio >= 1 else 1 / ratio)
    side = "above" if ratio >= 1 else "below"
    given_shown, basis_shown = prepared.shown(line.name, given), prepared.shown(line.name, basis)
    return (
        f"{given_shown} is a factor of {factor} {side} {basis_shown}: within "
        f"{v.band_text(line.check, line.tolerance).removeprefix('within ')}, not within "
        f"{v.band_text('relative', v.INNER_BAND).removeprefix('within ')}, so {format_percent(share)} of the "
        "line's credit."
    )


def _static_line(
    prepared: _Prepared, line: _Line, reference_value: float, reference_shown: str
) -> dict[str, Any]:
    """The parts of a line's report that do not depend on the submission."""
    quantity = prepared.model.quantities[line.name]
    return {
        "name": line.name,
        "label": line.label,
        "phase": line.phase,
        "weight": line.weight,
        "check": line.check,
        "tolerance": line.tolerance,
        "unit": line.unit,
        "kind": "input" if line.is_input else "derived",
        "reference": _rounded(reference_value / prepared.factor[line.name]),
        "reference_shown": reference_shown,
        "range": [_json_limit(bound) for bound in quantity.range] if quantity.range else None,
        "source": quantity.source,
    }


def _json_limit(value: float) -> float | str:
    """A range's bound for a report (JSON): no limit is "unbounded", as the question file writes it."""
    return "unbounded" if value == math.inf else value


def _report(
    prepared: _Prepared,
    reference: _Reference,
    lines: list[dict[str, Any]],
    design: dict[str, Any] | None,
    scores: dict[str, float],
    overall: float | None,
    pacing: list[dict[str, Any]] | None,
    unknown: list[str],
    version: int | str | None,
) -> dict[str, Any]:
    phase_scores: dict[str, float | None] = {
        phase: round(score, 1) for phase, score in sorted(scores.items())
    }
    for phase in ("numbers", "arithmetic", "shape"):
        phase_scores.setdefault(phase, None)
    phase_scores["overall"] = None if overall is None else round(overall, 1)
    if design is not None:
        design = dict(design, coverage=round(design["coverage"], 4))
        design["components"] = [dict(item, credit=round(item["credit"], 4)) for item in design["components"]]
    if pacing is not None:
        pacing = [
            dict(
                row,
                spent_s=round(row["spent_s"], 1),
                first_s=_rounded(row["first_s"]),
                last_s=_rounded(row["last_s"]),
            )
            for row in pacing
        ]
    return {
        "grader_version": GRADER_VERSION,
        "question": {"slug": prepared.slug, "version": version, "fingerprint": prepared.fingerprint},
        "variant": reference.variant,
        "lines": lines,
        "unknown_numbers": unknown,
        "design": design,
        "sensitivity": reference.sensitivity,
        "scores": phase_scores,
        "score_weights": {phase: prepared.plan_minutes.get(phase, 0.0) for phase in sorted(scores)},
        "pacing": pacing,
    }
