"""The reference model of a question: named inputs (assumptions) and derived quantities (formulas), checked
once and evaluated with numpy in base units.

`read_model(block)` turns the `model:` block of a question file into a `ModelSpec`, collecting every problem
with the quantity it belongs to. `ReferenceModel(spec)` compiles it: topological order, formulas, unit
factors. After that, `evaluate` is a loop of numpy closures, as fast for 10,000 samples as for one.
"""

from __future__ import annotations

import difflib
import functools
import heapq
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

import numpy as np

from grading.core.formula import UNBOUNDED, Formula, FormulaError, Value, is_valid_name, parse_formula
from grading.core.quantity_text import ParseFailure, read_value
from grading.core.units import Dims, Unit, UnitError, compatible, format_dims, from_base, parse_unit

Problem = tuple[str, str]

_INPUT_FIELDS = frozenset({"name", "label", "value", "unit", "range", "source", "variable", "stated", "note"})
_DERIVED_FIELDS = frozenset({"name", "label", "formula", "unit", "note"})
_MODEL_FIELDS = frozenset({"headline", "quantities"})
LOG_UNIFORM_SPAN = 10.0
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class ModelError(ValueError):
    """One or more problems, each `(field, message)` where field is usually a quantity name."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(f"{field}: {message}" for field, message in self.problems))


@dataclass(frozen=True)
class Quantity:
    """One quantity of a model: an input when it has `value`, a derived quantity when it has `formula`.

    `value` and `range` are in `unit` (the display unit), as written in the question file.
    """

    name: str
    label: str
    unit: str
    value: float | None = None
    range: tuple[float, float] | None = None
    source: str = ""
    variable: bool = False
    formula: str | None = None
    note: str = ""
    stated: bool = False  # the prompt or the design states `value`: another value in `range` contradicts it

    @property
    def is_input(self) -> bool:
        """True for an assumption with a default value; False for a derived quantity."""
        return self.formula is None

    @property
    def input_value(self) -> float:
        """An input's value (ValueError for a derived quantity, which has none)."""
        if self.value is None:
            raise ValueError(f"{self.name} is a derived quantity: it has no value")
        return self.value


@dataclass(frozen=True)
class ModelSpec:
    """The `model:` block: quantities in file order and the headline result."""

    quantities: tuple[Quantity, ...]
    headline: str | None = None

    def quantity(self, name: str) -> Quantity:
        """The quantity called `name` (KeyError if none)."""
        for quantity in self.quantities:
            if quantity.name == name:
                return quantity
        raise KeyError(name)

    @functools.cached_property
    def reference(self) -> ReferenceModel:
        """The compiled model (built on first use, then kept)."""
        return ReferenceModel(self)


def read_number(value: object) -> int | float | None:
    """A finite number from YAML: ints and floats as they are, numeric strings like "1e6" (YAML 1.1 reads
    those as text) as floats; None for anything else, booleans included."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number: int | float = value
    elif isinstance(value, str):
        try:
            number = float(value.replace("_", ""))
        except ValueError:
            return None
    else:
        return None
    try:
        return number if math.isfinite(number) else None
    except OverflowError:
        return None


def read_limit(value: object) -> float | None:
    """A finite number as `read_number` reads it, or +inf for `unbounded` (a design's limit that is not there,
    issue 30); None for anything else."""
    if isinstance(value, str) and value.strip().lower() == UNBOUNDED:
        return math.inf
    return read_number(value)


def read_model(block: object) -> ModelSpec:
    """Parse and check a `model:` block; raises ModelError listing every problem (field = quantity name)."""
    spec, problems, broken = _read_structure(block)
    if problems:
        raise ModelError(problems + _compile_model(spec, broken)[1])
    spec.__dict__["reference"] = ReferenceModel(
        spec
    )  # fill the cached_property: the check compiled it anyway
    return spec


def _read_structure(block: object) -> tuple[ModelSpec, list[Problem], frozenset[str]]:
    if not isinstance(block, Mapping):
        return ModelSpec(()), [("model", "must be a mapping with 'quantities' (and 'headline')")], frozenset()
    problems: list[Problem] = [(str(key), "unknown field") for key in block if key not in _MODEL_FIELDS]
    headline = block.get("headline")
    if headline is not None and not isinstance(headline, str):
        problems.append(("headline", "must be a quantity name"))
        headline = None
    items = block.get("quantities")
    if not isinstance(items, list) or not items:
        problems.append(("quantities", "must be a non-empty list"))
        items = []
    quantities, broken = [], set()
    for index, item in enumerate(items):
        quantity, item_problems = _read_quantity(item, index)
        problems += item_problems
        if quantity is not None:
            quantities.append(quantity)
        elif isinstance(item, Mapping) and isinstance(item.get("name"), str):
            broken.add(item["name"])
    return ModelSpec(tuple(quantities), headline), problems, frozenset(broken)


def _read_quantity(item: object, index: int) -> tuple[Quantity | None, list[Problem]]:
    if not isinstance(item, Mapping):
        return None, [(f"quantities[{index}]", "must be a mapping")]
    name = item.get("name")
    where = name if isinstance(name, str) and name else f"quantities[{index}]"
    problems: list[Problem] = []
    if not isinstance(name, str) or not name:
        return None, [(where, "needs a name")]
    is_derived = "formula" in item
    allowed = _DERIVED_FIELDS if is_derived else _INPUT_FIELDS
    for key in item:
        if key not in allowed:
            kind = "a derived quantity (with a formula)" if is_derived else "an input"
            problems.append((where, f"{key!r} is not a field of {kind}"))
    label, unit, note = item.get("label"), item.get("unit"), item.get("note", "")
    if not isinstance(label, str) or not label.strip():
        problems.append((where, "needs a label"))
    if not isinstance(unit, str):
        problems.append((where, 'needs a unit ("" for a plain number)'))
    if not isinstance(note, str):
        problems.append((where, "note must be text"))
    if is_derived:
        formula = item.get("formula")
        if not isinstance(formula, str):
            problems.append((where, "formula must be text"))
        if problems:
            return None, problems
        # no problems: label, unit, note and formula are the texts checked above
        assert isinstance(label, str) and isinstance(unit, str) and isinstance(note, str)
        assert isinstance(formula, str)
        return Quantity(name, label, unit, formula=formula, note=note), []
    if "value" not in item:
        problems.append((where, "needs a value (an input) or a formula (a derived quantity)"))
        return None, problems
    value = read_limit(item.get("value"))
    if value is None:
        problems.append((where, f"value must be a finite number or unbounded, not {item.get('value')!r}"))
    bounds = _read_range(item.get("range"))
    if bounds is None:
        problems.append((where, "range must be [low, high], two finite numbers"))
    source = item.get("source")
    if not isinstance(source, str) or not source.strip():
        problems.append((where, "an input needs a source (where the value comes from)"))
    variable = item.get("variable", False)
    if not isinstance(variable, bool):
        problems.append((where, "variable must be true or false"))
    stated = item.get("stated", False)
    if not isinstance(stated, bool):
        problems.append((where, "stated must be true or false"))
    if problems:
        return None, problems
    # no problems: the texts, value and range are the ones checked above
    assert isinstance(label, str) and isinstance(unit, str) and isinstance(note, str)
    assert isinstance(source, str) and value is not None and bounds is not None
    return Quantity(name, label, unit, value, bounds, source, variable, note=note, stated=stated), []


def _read_range(raw: object) -> tuple[float, float] | None:
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        return None
    low, high = read_number(raw[0]), read_limit(raw[1])
    return None if low is None or high is None else (low, high)


@dataclass
class _Compiled:
    units: dict[str, Unit]
    formulas: dict[str, Formula]
    order: tuple[str, ...]
    formula_dims: dict[str, Dims]


def _compile_model(spec: ModelSpec, broken: frozenset[str] = frozenset()) -> tuple[_Compiled, list[Problem]]:
    """Check names, units, ranges, formulas, cycles and unit agreement, collecting every problem. Names in
    `broken` (quantities already reported as malformed) count as known but are not checked further."""
    problems: list[Problem] = []
    by_name: dict[str, Quantity] = {}
    for quantity in spec.quantities:
        if not is_valid_name(quantity.name):
            problems.append((quantity.name, _bad_name_message(quantity.name)))
        elif quantity.name in by_name:
            problems.append((quantity.name, "is defined twice"))
        else:
            by_name[quantity.name] = quantity
    units = _parse_units(by_name.values(), problems)
    for quantity in by_name.values():
        if quantity.is_input:
            problems += _input_problems(quantity, units.get(quantity.name))
        elif quantity.value is not None or quantity.range is not None:
            problems.append((quantity.name, "has both a formula and a value; it must be one or the other"))
    formulas = _parse_formulas(by_name, broken, problems)
    order, cyclic = _topological_order(by_name, formulas)
    for cycle in cyclic:
        problems.append((cycle[0], "formulas form a cycle: " + " → ".join([*cycle, cycle[0]])))
    formula_dims = _check_units(order, formulas, units, broken, problems)
    if spec.headline is not None and spec.headline not in by_name and spec.headline not in broken:
        problems.append(("headline", f"{spec.headline!r} is not a quantity of the model"))
    return _Compiled(units, formulas, order, formula_dims), problems


def _bad_name_message(name: str) -> str:
    if name.startswith("__"):
        return "names may not start with '__'"
    if _IDENTIFIER.match(name):
        return "is a function or keyword name; choose another"
    return "is not a valid name (letters, digits and _, not starting with a digit)"


def _parse_units(quantities: Iterable[Quantity], problems: list[Problem]) -> dict[str, Unit]:
    units = {}
    for quantity in quantities:
        try:
            units[quantity.name] = parse_unit(quantity.unit)
        except UnitError as error:
            problems.append((quantity.name, str(error)))
    return units


def _is_finite_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and read_number(value) is not None


def _is_limit(value: object) -> TypeGuard[int | float]:
    return _is_finite_number(value) or value == math.inf


def _input_problems(quantity: Quantity, unit: Unit | None) -> list[Problem]:
    name, value, bounds = quantity.name, quantity.value, quantity.range
    if not _is_limit(value):
        return [(name, "an input needs a finite value, or unbounded")]
    if bounds is None or len(bounds) != 2 or not _is_finite_number(bounds[0]) or not _is_limit(bounds[1]):
        return [(name, "an input needs a range [low, high] of finite numbers (the high may be unbounded)")]
    low, high = bounds
    if value == math.inf and high != math.inf:
        return [(name, "is unbounded, so its range must reach unbounded: [low, unbounded]")]
    if quantity.variable and high == math.inf:
        return [(name, "is variable, so its range must be finite (a round draws its value from it)")]
    if low > high:
        return [(name, f"range [{low:g}, {high:g}] is upside down")]
    slack = 1e-9 * max(abs(low), abs(high))
    if not low - slack <= value <= high + slack:
        return [(name, f"value {value:g} is outside its range [{low:g}, {high:g}]")]
    if quantity.variable and low == high:
        return [(name, "is variable but its range is a single value")]
    if unit is not None and not all(
        math.isfinite(number * unit.factor) for number in (low, high) if number != math.inf
    ):
        return [(name, f"is too large to hold in base units ({unit.text})")]
    return []


def _parse_formulas(
    by_name: Mapping[str, Quantity], broken: frozenset[str], problems: list[Problem]
) -> dict[str, Formula]:
    formulas = {}
    for quantity in by_name.values():
        if quantity.formula is None:
            continue
        try:
            formula = parse_formula(quantity.formula)
        except FormulaError as error:
            problems.append((quantity.name, _formula_message(error)))
            continue
        unknown = sorted(formula.names - by_name.keys() - broken)
        for name in unknown:
            close = difflib.get_close_matches(name, list(by_name), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append((quantity.name, f"formula uses unknown name {name!r}{hint}"))
        if not unknown:
            formulas[quantity.name] = formula
    return formulas


def _formula_message(error: FormulaError) -> str:
    message = str(error)
    return message if "formula" in message else f"formula: {message}"


def _topological_order(
    by_name: Mapping[str, Quantity], formulas: Mapping[str, Formula]
) -> tuple[tuple[str, ...], list[list[str]]]:
    """Derived quantities in an order where each comes after what it reads (file order breaks ties), and
    the cycles among those that cannot be ordered."""
    position = {name: index for index, name in enumerate(by_name)}
    needs = {name: {dep for dep in formula.names if dep in formulas} for name, formula in formulas.items()}
    readers: dict[str, list[str]] = {name: [] for name in formulas}
    for name, deps in needs.items():
        for dep in deps:
            readers[dep].append(name)
    waiting = {name: len(deps) for name, deps in needs.items()}
    ready = [(position[name], name) for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, name = heapq.heappop(ready)
        order.append(name)
        for reader in readers[name]:
            waiting[reader] -= 1
            if waiting[reader] == 0:
                heapq.heappush(ready, (position[reader], reader))
    stuck = sorted((name for name, count in waiting.items() if count > 0), key=position.__getitem__)
    return tuple(order), _cycles(stuck, needs)


def _cycles(stuck: list[str], needs: Mapping[str, set[str]]) -> list[list[str]]:
    cycles: list[list[str]] = []
    seen: set[str] = set()
    stuck_set = set(stuck)
    for start in stuck:
        if start in seen:
            continue
        path: list[str] = []
        index_in_path: dict[str, int] = {}
        node = start
        # Every stuck node reads another stuck node, so this walk must eventually revisit one.
        while node not in index_in_path and node not in seen:
            index_in_path[node] = len(path)
            path.append(node)
            node = min(needs[node] & stuck_set, key=stuck.index)
        if node in index_in_path:
            cycle = path[index_in_path[node] :]
            first = min(range(len(cycle)), key=lambda i: stuck.index(cycle[i]))
            cycles.append(cycle[first:] + cycle[:first])
        seen.update(path)
    return cycles


def _check_units(
    order: Sequence[str],
    formulas: Mapping[str, Formula],
    units: Mapping[str, Unit],
    broken: frozenset[str],
    problems: list[Problem],
) -> dict[str, Dims]:
    declared = {name: unit.dims for name, unit in units.items()}
    formula_dims: dict[str, Dims] = {}
    unreliable = set(broken)  # quantities whose units are already reported: checking readers would only echo
    for name in order:
        formula = formulas[name]
        if name not in declared or any(dep not in declared or dep in unreliable for dep in formula.names):
            unreliable.add(name)
            continue
        try:
            dims = formula.dims(declared)
        except FormulaError as error:
            problems.append((name, _formula_message(error)))
            unreliable.add(name)
            continue
        formula_dims[name] = dims
        if not compatible(dims, declared[name]):
            given = "a plain number" if dims.is_dimensionless else format_dims(dims)
            problems.append((name, f"formula gives {given}, declared {units[name].text or 'a plain number'}"))
            unreliable.add(name)
    return formula_dims


class ReferenceModel:
    """A checked, compiled model. All values going in and out of `evaluate` are in base units."""

    def __init__(self, spec: ModelSpec):
        compiled, problems = _compile_model(spec)
        if problems:
            raise ModelError(problems)
        self.spec = spec
        self.headline = spec.headline
        self.quantities: dict[str, Quantity] = {quantity.name: quantity for quantity in spec.quantities}
        self.units = compiled.units
        self.formulas = compiled.formulas
        self.formula_dims = compiled.formula_dims
        self.input_names = tuple(name for name, quantity in self.quantities.items() if quantity.is_input)
        self.derived_names = compiled.order
        self.defaults: dict[str, np.float64] = {
            name: np.float64(self.quantities[name].input_value * self.units[name].factor)
            for name in self.input_names
        }
        self._steps = [(name, self.formulas[name].evaluator) for name in self.derived_names]
        self._upstream: dict[str, frozenset[str]] = {name: frozenset() for name in self.input_names}
        for name in self.derived_names:
            names = self.formulas[name].names
            self._upstream[name] = names.union(*(self._upstream[dep] for dep in names))
        try:
            self.evaluate()
        except ModelError as error:
            problems = [(field, f"{message} (at the default inputs)") for field, message in error.problems]
            raise ModelError(problems) from None

    @classmethod
    def from_dict(cls, block: object) -> ReferenceModel:
        """Parse, check and compile a `model:` block (raises ModelError)."""
        return read_model(block).reference

    def evaluate(self, overrides: Mapping[str, Value] | None = None) -> dict[str, Value]:
        """Every quantity in base units. `overrides` (base units, floats or arrays) replace inputs, and may
        replace a derived quantity too (its formula is then skipped, so later quantities use the given value).
        Raises ModelError naming the first quantity that is not finite."""
        values: dict[str, Value] = dict(self.defaults)
        if overrides:
            values.update(self._checked_overrides(overrides))
        with np.errstate(all="ignore"):
            for name, evaluator in self._steps:
                if overrides and name in overrides:
                    continue
                value = evaluator(values)
                if not np.all(np.isfinite(value)) and not np.all(
                    np.isfinite(value) | self.formulas[name].unbounded_allowed(value, values)
                ):
                    raise ModelError([(name, _non_finite_message(value))])
                values[name] = value
        return values

    def may_be_unbounded(self, name: str) -> bool:
        """True when `name` can have the no-limit value: an input whose range reaches unbounded, or a
        formula that makes one or reads such a quantity."""
        quantity = self.quantities[name]
        if quantity.is_input:
            return quantity.range is not None and quantity.range[1] == math.inf
        return self.formulas[name].may_be_unbounded or any(
            self.may_be_unbounded(dep) for dep in self.formulas[name].names
        )

    def _checked_overrides(self, overrides: Mapping[str, Value]) -> dict[str, Value]:
        checked: dict[str, Value] = {}
        for name, value in overrides.items():
            if name not in self.quantities:
                raise ModelError([(name, self._unknown_message(name))])
            array = np.asarray(value, dtype=float)
            if not np.all(np.isfinite(array) | (np.isposinf(array) & self.may_be_unbounded(name))):
                raise ModelError([(name, "the given value is not finite")])
            checked[name] = array if array.ndim else np.float64(array)
        return checked

    def _unknown_message(self, name: str) -> str:
        close = difflib.get_close_matches(name, list(self.quantities), n=1)
        return "is not a quantity of this model" + (f" (did you mean {close[0]!r}?)" if close else "")

    def display_value(self, name: str, base_value: Value) -> Value:
        """A base-unit value of `name` in the unit the question shows it in."""
        return from_base(base_value, self.units[name])

    def base_value(self, name: str, display_value: Value) -> Value:
        """A value of `name` in its display unit, in base units."""
        return display_value * self.units[name].factor

    def dims(self, name: str) -> Dims:
        """The declared dimensions of `name` (from its unit)."""
        return self.units[name].dims

    def range_base(self, name: str) -> tuple[float, float]:
        """The plausible range of input `name`, in base units (the high is +inf where it is unbounded)."""
        low, high = self._input(name).range or (0.0, 0.0)
        factor = self.units[name].factor
        return low * factor, high * factor

    def upstream(self, name: str) -> frozenset[str]:
        """Every quantity `name` depends on, directly or through other formulas."""
        if name not in self.quantities:
            raise ModelError([(name, self._unknown_message(name))])
        return self._upstream[name]

    def _input(self, name: str) -> Quantity:
        quantity = self.quantities.get(name)
        if quantity is None:
            raise ModelError([(name, self._unknown_message(name))])
        if not quantity.is_input:
            raise ModelError([(name, "is derived, not an input")])
        return quantity

    def sample_inputs(
        self, n: int, rng: np.random.Generator, names: Sequence[str] | None = None
    ) -> dict[str, np.ndarray]:
        """`n` draws of each input (default: all) inside its range, in base units: uniform, or log-uniform
        when the range spans more than 10×; an input whose range reaches unbounded keeps its value."""
        samples = {}
        for name in self.input_names if names is None else names:
            self._input(name)
            low, high = self.range_base(name)
            if high == math.inf:
                samples[name] = np.full(n, self.defaults[name])
            elif low == high:
                samples[name] = np.full(n, low)
            elif low > 0 and high / low > LOG_UNIFORM_SPAN:
                samples[name] = np.exp(rng.uniform(np.log(low), np.log(high), n))
            else:
                samples[name] = rng.uniform(low, high, n)
        return samples

    def sensitivity(
        self, target: str | None = None, *, at: Mapping[str, float] | None = None, relative_step: float = 0.01
    ) -> dict[str, float]:
        """Elasticities (d target / target) / (d input / input) of `target` (default: the headline) for each
        input it depends on, largest first, by central differences of ±`relative_step` in one vectorised
        evaluation. `at` overrides the point (base units). An input at 0, or a target at 0, gives 0."""
        target = target or self.headline
        if target is None:
            raise ModelError([("headline", "the model has no headline; name a target")])
        inputs = [  # an unbounded input has no relative step: moving it 1% leaves it unbounded
            name
            for name in self.input_names
            if name in self.upstream(target)
            and math.isfinite(float(self.defaults[name]) if at is None or name not in at else float(at[name]))
        ]
        columns = 2 * len(inputs) + 1  # a +step and a -step column per input, then the unperturbed point
        point: dict[str, Value] = dict(self.defaults)
        point.update(self._checked_overrides(at or {}))
        overrides: dict[str, Value] = {
            name: value for name, value in point.items() if name not in self.defaults
        }
        for index, name in enumerate(inputs):
            column = np.full(columns, float(point[name]))
            column[2 * index] *= 1 + relative_step
            column[2 * index + 1] *= 1 - relative_step
            overrides[name] = column
        overrides.update({name: point[name] for name in self.input_names if name not in inputs})
        result = np.broadcast_to(self.evaluate(overrides)[target], (columns,))
        centre = result[-1]
        elasticities = {}
        for index, name in enumerate(inputs):
            change = result[2 * index] - result[2 * index + 1]
            elasticities[name] = 0.0 if centre == 0 else float(change / (2 * relative_step * centre))
        return dict(sorted(elasticities.items(), key=lambda item: -abs(item[1])))


def _non_finite_message(value: Value) -> str:
    array = np.asarray(value)
    if array.ndim == 0:
        return f"formula gives {float(array)}: division by zero or overflow?"
    bad = int(np.count_nonzero(~np.isfinite(array)))
    return f"formula gives a non-finite value in {bad} of {array.size} samples: division by zero or overflow?"


class _HasModel(Protocol):
    @property
    def model(self) -> ModelSpec: ...


def describe_model(
    spec: ModelSpec | _HasModel, overrides_text: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """Every quantity of a question's model (a QuestionSpec or a ModelSpec) with its value, for the CLI.

    `overrides_text` maps quantity names to text as a person types it ("96", "400 Gb/s", "1.7M tok/s"); a bare
    number is in the quantity's unit. Raises ModelError for an unknown name or unreadable value. Each row:
    name, label, kind ("input" or "derived"), unit, value (in unit), base_value, formula, range, overridden.
    """
    model_spec = spec if isinstance(spec, ModelSpec) else spec.model
    model = model_spec.reference
    overrides: dict[str, float] = {}
    problems: list[Problem] = []
    for name, text in (overrides_text or {}).items():
        if name not in model.quantities:
            problems.append((name, model._unknown_message(name)))
            continue
        value = read_value(text, model.units[name])
        if isinstance(value, ParseFailure):
            problems.append((name, value.message))
        else:
            overrides[name] = value
    if problems:
        raise ModelError(problems)
    values = model.evaluate(overrides)
    rows = []
    for quantity in model_spec.quantities:
        base = float(values[quantity.name])
        rows.append(
            {
                "name": quantity.name,
                "label": quantity.label,
                "kind": "input" if quantity.is_input else "derived",
                "unit": quantity.unit,
                "value": float(model.display_value(quantity.name, base)),
                "base_value": base,
                "formula": quantity.formula,
                "range": list(quantity.range) if quantity.range else None,
                "overridden": quantity.name in overrides,
            }
        )
    return rows
