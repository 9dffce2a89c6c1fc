"""Formulas of the reference models: an allow-listed arithmetic language, compiled once into numpy closures.

Allowed: finite numbers, `unbounded`, names, unary `-`/`+`, binary `+ - * /`, `**` with a literal exponent
(|e| <= 10), parentheses, and calls to min, max, ceil, floor, round, sqrt, log, log2, log10, exp, abs,
div_or_unbounded, and Erlang C's erlang_c(servers, utilisation) (the probability of waiting),
erlang_c_rho_quantile(servers, service_time, wait_budget, quantile) and erlang_c_rho_mean(servers,
service_time, wait_budget) (the highest utilisation whose quantile or mean wait fits the budget;
grading/core/erlang.py). Nothing is ever passed to eval, exec or compile: the source goes through cheap text
checks, then `ast.parse`, then an allow-list walk. Evaluation is vectorised: every name may be a float or a
numpy array, and the result broadcasts.

No limit is a value (issue 30): the literal `unbounded` is +inf, in any unit (a design's queue with no bound,
a wait with no limit), and `div_or_unbounded(x, headroom)` is x / headroom where the headroom is positive
and unbounded where it is not (a queue's wait at a utilisation of 1 or more: 1 - rho is no headroom). The
arithmetic is IEEE's where it has a meaning: min(unbounded, x) = x, max(unbounded, x) = unbounded,
unbounded + x = unbounded x (positive x) = unbounded, x / unbounded = 0, ceil(unbounded) = unbounded. Where
it has none (unbounded - unbounded, 0 x unbounded, x - unbounded: NaN or -inf) the value is an error, and so
is an infinity no unbounded value explains (a division by zero, an overflow): `may_be_unbounded` says
whether a formula can give one, and `unbounded_allowed` which of its results are.
"""

from __future__ import annotations

import ast
import functools
import keyword
import math
import operator
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from grading.core.erlang import erlang_c, erlang_c_rho_mean, erlang_c_rho_quantile
from grading.core.units import DIMENSIONLESS, Dims, compatible, format_dims, parse_unit

MAX_SOURCE_CHARS = 500
MAX_NODES = 200
MAX_PAREN_DEPTH = 32
MAX_EXPONENT = 10

Value = float | np.ndarray
Env = Mapping[str, Value]
Evaluator = Callable[[Env], Value]


UNBOUNDED = "unbounded"  # the literal of the no-limit value


class FormulaError(ValueError):
    """A formula that is not allowed, does not parse, has inconsistent units, or gives a non-finite value."""


def _div_or_unbounded(x: Value, headroom: Value) -> Value:
    """x / headroom where the headroom is positive; +inf (no finite value) where it is 0 or less."""
    with np.errstate(all="ignore"):
        return np.where(np.asarray(headroom) > 0, np.divide(x, headroom), np.inf)


def _round_half_away(x: Value) -> Value:
    # Python's and numpy's round go to the even neighbour (round(2.5) == 2); a count rounds 2.5 up.
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


@dataclass(frozen=True)
class _Function:
    name: str
    min_args: int
    max_args: int | None
    apply: Callable[..., Value]
    unit_rule: (
        str  # "same": keeps the unit; "sqrt": halves exponents; "plain": needs a plain number; "match";
    )
    # "typed": each argument has the kind in `arguments` and the result is a plain number; "divide": the
    # first argument's unit over the second's
    arguments: tuple[str, ...] = ()  # "plain" (a plain number or a count) or "time", one per argument


FUNCTIONS: dict[str, _Function] = {
    function.name: function
    for function in (
        _Function("min", 2, None, lambda *xs: functools.reduce(np.minimum, xs), "match"),
        _Function("max", 2, None, lambda *xs: functools.reduce(np.maximum, xs), "match"),
        _Function("ceil", 1, 1, np.ceil, "same"),
        _Function("floor", 1, 1, np.floor, "same"),
        _Function("round", 1, 1, _round_half_away, "same"),
        _Function("abs", 1, 1, np.abs, "same"),
        _Function("sqrt", 1, 1, np.sqrt, "sqrt"),
        _Function("log", 1, 1, np.log, "plain"),
        _Function("log2", 1, 1, np.log2, "plain"),
        _Function("log10", 1, 1, np.log10, "plain"),
        _Function("exp", 1, 1, np.exp, "plain"),
        _Function("erlang_c", 2, 2, erlang_c, "typed", ("plain", "plain")),
        _Function(
            "erlang_c_rho_quantile", 4, 4, erlang_c_rho_quantile, "typed", ("plain", "time", "time", "plain")
        ),
        _Function("erlang_c_rho_mean", 3, 3, erlang_c_rho_mean, "typed", ("plain", "time", "time")),
        _Function("div_or_unbounded", 2, 2, _div_or_unbounded, "divide"),
    )
}
FUNCTION_NAMES = frozenset(FUNCTIONS)

_BINARY_OPERATORS: dict[type[ast.operator], Callable[[Value, Value], Value]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_OPERATOR_HINTS: dict[type[ast.operator], str] = {
    ast.FloorDiv: "'//' is not allowed; write floor(a / b)",
    ast.Mod: "'%' is not allowed",
    ast.MatMult: "'@' is not allowed",
    ast.BitXor: "'^' is not allowed; write ** for powers",
    ast.BitAnd: "'&' is not allowed",
    ast.BitOr: "'|' is not allowed",
    ast.LShift: "'<<' is not allowed",
    ast.RShift: "'>>' is not allowed",
}
# Characters a formula may contain; anything else is refused before parsing, with a hint for the usual ones.
_ALLOWED_CHARACTERS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ .+-*/(),\t\n\r"
)
_CHARACTER_HINTS = {
    "'": "strings are not allowed",
    '"': "strings are not allowed",
    "[": "lists and subscripts are not allowed",
    "]": "lists and subscripts are not allowed",
    "{": "dicts and sets are not allowed",
    "}": "dicts and sets are not allowed",
    "=": "comparisons and assignments are not allowed",
    "<": "comparisons are not allowed",
    ">": "comparisons are not allowed",
    "!": "comparisons are not allowed",
    ":": "lambdas, slices and dicts are not allowed",
    "^": "'^' is not allowed; write ** for powers",
    "%": "'%' is not allowed",
    ";": "only one expression is allowed",
    "@": "'@' is not allowed",
}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Formula:
    """A checked, compiled formula. `names` are the quantities it reads."""

    source: str
    names: frozenset[str]
    tree: ast.expr = field(repr=False, compare=False)
    evaluator: Evaluator = field(repr=False, compare=False)
    may_be_unbounded: bool = False  # reads the literal `unbounded` or calls div_or_unbounded

    def unbounded_allowed(self, result: Value, env: Env) -> np.ndarray | bool:
        """Where a +inf result is the no-limit value: everywhere for a formula that makes one, else where a
        name it reads is unbounded (the value carried through). NaN and -inf never are."""
        allowed: np.ndarray | bool = np.isposinf(result)
        if self.may_be_unbounded:
            return allowed
        carried = np.zeros(np.shape(result), dtype=bool)
        for name in self.names:
            carried = carried | np.isposinf(env[name])
        return allowed & carried

    def evaluate(self, env: Env) -> Value:
        """The value for `env` (name -> float or array); raises FormulaError if a name is missing or the
        result is not finite."""
        missing = self.names - env.keys()
        if missing:
            raise FormulaError(f"no value for {', '.join(sorted(missing))}")
        prepared = {name: np.asarray(env[name], dtype=float) for name in self.names}
        with np.errstate(all="ignore"):
            result = self.evaluator(prepared)
        if not np.all(np.isfinite(result)) and not np.all(
            np.isfinite(result) | self.unbounded_allowed(result, prepared)
        ):
            raise FormulaError(f"{self.source!r} gives a non-finite value (division by zero or overflow?)")
        return result[()] if isinstance(result, np.ndarray) and result.ndim == 0 else result

    def dims(self, dims_of: Mapping[str, Dims]) -> Dims:
        """The dimensions of the result given the dimensions of the names; raises FormulaError on a unit
        mismatch (adding bytes to seconds, log of a size, ...)."""
        return _infer_dims(self.tree, dims_of)


@functools.lru_cache(maxsize=4096)
def parse_formula(source: str) -> Formula:
    """Check and compile `source`; raises FormulaError with a clear message for anything not allowed."""
    tree = _parse_checked(source)
    evaluator, _ = _compile(tree)
    read = frozenset(node.id for node in ast.walk(tree) if isinstance(node, ast.Name)) - FUNCTION_NAMES
    names = read - {UNBOUNDED}
    makes_unbounded = UNBOUNDED in read or any(
        isinstance(node, ast.Call) and getattr(node.func, "id", "") == "div_or_unbounded"
        for node in ast.walk(tree)
    )
    return Formula(source, names, tree, evaluator, makes_unbounded)


def _parse_checked(source: object) -> ast.expr:
    if not isinstance(source, str):
        raise FormulaError(f"a formula must be text, not {type(source).__name__}")
    if not source.strip():
        raise FormulaError("the formula is empty")
    if len(source) > MAX_SOURCE_CHARS:
        raise FormulaError(f"the formula is {len(source)} characters long; the limit is {MAX_SOURCE_CHARS}")
    _check_characters(source)
    _check_parentheses(source)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. SyntaxWarning for "1if"; we refuse those anyway
            tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as error:
        where = f" at column {error.offset}" if error.offset else ""
        raise FormulaError(f"cannot read the formula{where}: {error.msg}") from None
    except (ValueError, MemoryError, RecursionError) as error:
        raise FormulaError(f"cannot read the formula: {error}") from None
    _check_tree(tree.body)
    return tree.body


def _check_characters(source: str) -> None:
    for character in source:
        if character not in _ALLOWED_CHARACTERS:
            hint = _CHARACTER_HINTS.get(character, "only names, numbers, + - * / ** ( ) , are allowed")
            raise FormulaError(f"character {character!r} is not allowed: {hint}")


def _check_parentheses(source: str) -> None:
    # Checked on the text, before ast.parse: very deep nesting can exhaust the parser itself.
    depth = 0
    for character in source:
        if character == "(":
            depth += 1
            if depth > MAX_PAREN_DEPTH:
                raise FormulaError(f"parentheses nest more than {MAX_PAREN_DEPTH} deep")
        elif character == ")":
            depth -= 1
            if depth < 0:
                raise FormulaError("a ')' has no matching '('")
    if depth:
        raise FormulaError("a '(' is never closed")


def _check_tree(root: ast.expr) -> None:
    count = 0
    pending: list[ast.AST] = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.expr):
            count += 1
            if count > MAX_NODES:
                raise FormulaError(f"the formula has more than {MAX_NODES} parts; split it into quantities")
        _check_node(node)
        # A call's function name is checked by _check_call; walking into it would refuse `max` as a bare name.
        pending.extend(node.args if isinstance(node, ast.Call) else ast.iter_child_nodes(node))


def _check_node(node: ast.AST) -> None:
    match node:
        case ast.Constant(value=value):
            _check_number(value)
        case ast.Name(id=name):
            if name.startswith("__"):
                raise FormulaError(f"name {name!r} is not allowed (no dunders)")
            if name in FUNCTIONS:
                raise FormulaError(f"{name} is a function; call it as {name}(...)")
        case ast.BinOp(op=op, right=right):
            if isinstance(op, ast.Pow):
                _check_exponent(right)
            elif type(op) not in _BINARY_OPERATORS:
                raise FormulaError(_OPERATOR_HINTS.get(type(op), "this operator is not allowed"))
        case ast.UnaryOp(op=op):
            if not isinstance(op, ast.USub | ast.UAdd):
                raise FormulaError("only unary - and + are allowed ('not' and '~' are not)")
        case ast.Call():
            _check_call(node)
        case ast.operator() | ast.unaryop() | ast.Load():
            pass
        case ast.Attribute():
            raise FormulaError("attribute access (a.b) is not allowed")
        case ast.Subscript():
            raise FormulaError("subscripts are not allowed")
        case ast.BoolOp():
            raise FormulaError("'and' / 'or' are not allowed")
        case ast.Compare():
            raise FormulaError("comparisons are not allowed")
        case ast.IfExp():
            raise FormulaError("'if ... else' is not allowed; use min() or max()")
        case ast.Lambda():
            raise FormulaError("lambdas are not allowed")
        case ast.Tuple():
            raise FormulaError("a formula is one expression, not a tuple")
        case ast.Starred():
            raise FormulaError("unpacking (*x) is not allowed")
        case _:
            raise FormulaError(f"{type(node).__name__} is not allowed in a formula")


def _check_number(value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FormulaError(f"only plain numbers are allowed, not {value!r}"[:120])
    try:
        finite = math.isfinite(float(value))
    except OverflowError:
        finite = False
    if not finite:
        raise FormulaError("a number in the formula is too large")


def _literal_exponent(node: ast.expr) -> float | None:
    """The value of `2`, `0.5`, `-1`, `+3`; None for anything else."""
    sign = 1.0
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        sign = -sign if isinstance(node.op, ast.USub) else sign
        node = node.operand
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        try:
            return sign * float(node.value)
        except OverflowError:
            return None
    return None


def _check_exponent(node: ast.expr) -> None:
    exponent = _literal_exponent(node)
    if exponent is None:
        raise FormulaError("the exponent of ** must be a plain number (write x**0.5, not x**(1/2))")
    if abs(exponent) > MAX_EXPONENT:
        raise FormulaError(f"exponents are limited to ±{MAX_EXPONENT}")


def _check_call(node: ast.Call) -> None:
    if not isinstance(node.func, ast.Name):
        raise FormulaError("only the functions " + ", ".join(FUNCTIONS) + " can be called")
    name = node.func.id
    function = FUNCTIONS.get(name)
    if function is None:
        raise FormulaError(f"unknown function {name!r}; allowed: {', '.join(FUNCTIONS)}")
    if node.keywords:
        raise FormulaError(f"{name}() takes positional arguments only")
    if any(isinstance(argument, ast.Starred) for argument in node.args):
        raise FormulaError(f"{name}() cannot take unpacked arguments (*x)")
    count = len(node.args)
    if count < function.min_args or (function.max_args is not None and count > function.max_args):
        if function.max_args is None:
            expected = f"at least {function.min_args} arguments"
        else:
            expected = f"{function.min_args} argument" + ("s" if function.min_args != 1 else "")
        raise FormulaError(f"{name}() takes {expected}, got {count}")


# Compilation: each node becomes a closure; subtrees made only of numbers are folded to one constant.


def _compile(node: ast.expr) -> tuple[Evaluator, np.float64 | None]:
    match node:
        case ast.Constant(value=int() | float() as value):  # _check_tree let only numbers through
            return _constant(np.float64(value))
        case ast.Name(id=name) if name == UNBOUNDED:
            infinity = np.float64(np.inf)
            return (lambda env: infinity), None  # never folded: a constant part must be finite
        case ast.Name(id=name):
            return (lambda env: env[name]), None
        case ast.UnaryOp(op=op, operand=operand):
            inner, constant = _compile(operand)
            if isinstance(op, ast.UAdd):
                return inner, constant
            if constant is not None:
                return _constant(-constant)
            return (lambda env: -inner(env)), None
        case ast.BinOp(op=ast.Pow(), left=left):
            base, constant = _compile(left)
            exponent = np.float64(_literal_exponent(node.right))
            if constant is not None:
                return _folded(lambda: np.power(constant, exponent))
            if exponent == 2:
                return (lambda env: _square(base(env))), None
            return (lambda env: np.power(base(env), exponent)), None
        case ast.BinOp(op=op, left=left, right=right):
            apply = _BINARY_OPERATORS[type(op)]
            (left_fn, left_constant), (right_fn, right_constant) = _compile(left), _compile(right)
            if left_constant is not None and right_constant is not None:
                return _folded(lambda: apply(left_constant, right_constant))
            return (lambda env: apply(left_fn(env), right_fn(env))), None
        case ast.Call(func=ast.Name(id=name), args=args):
            function = FUNCTIONS[name].apply
            compiled = [_compile(argument) for argument in args]
            if all(constant is not None for _, constant in compiled):
                return _folded(lambda: function(*(constant for _, constant in compiled)))
            if len(compiled) == 1:
                only = compiled[0][0]
                return (lambda env: function(only(env))), None
            functions = [fn for fn, _ in compiled]
            return (lambda env: function(*(fn(env) for fn in functions))), None
    raise FormulaError(f"{type(node).__name__} is not allowed in a formula")  # unreachable after _check_tree


def _square(x: Value) -> Value:
    return x * x


def _constant(value: np.float64) -> tuple[Evaluator, np.float64]:
    return (lambda env: value), value


def _folded(compute: Callable[[], Value]) -> tuple[Evaluator, np.float64 | None]:
    with np.errstate(all="ignore"):
        value = np.float64(compute())
    if not np.isfinite(value):
        raise FormulaError("a part made only of numbers is not finite (division by zero or overflow)")
    return _constant(value)


# Unit inference.


def _is_zero_literal(node: ast.expr) -> bool:
    # A literal 0 fits any unit, so max(0, a - b) works for bytes as well as for counts; so does `unbounded`.
    return _literal_exponent(node) == 0.0 or (isinstance(node, ast.Name) and node.id == UNBOUNDED)


def _infer_dims(node: ast.expr, dims_of: Mapping[str, Dims]) -> Dims:
    match node:
        case ast.Constant():
            return DIMENSIONLESS
        case ast.Name(id=name) if name == UNBOUNDED:
            return DIMENSIONLESS
        case ast.Name(id=name):
            if name not in dims_of:
                raise FormulaError(f"unknown name {name!r}")
            return dims_of[name]
        case ast.UnaryOp(operand=operand):
            return _infer_dims(operand, dims_of)
        case ast.BinOp(op=ast.Pow(), left=left, right=right):
            return _power_dims(_infer_dims(left, dims_of), _literal_exponent(right) or 0.0)
        case ast.BinOp(op=ast.Mult(), left=left, right=right):
            return _infer_dims(left, dims_of) * _infer_dims(right, dims_of)
        case ast.BinOp(op=ast.Div(), left=left, right=right):
            return _infer_dims(left, dims_of) / _infer_dims(right, dims_of)
        case ast.BinOp(op=op, left=left, right=right):
            verb = "add" if isinstance(op, ast.Add) else "subtract"
            return _matching_dims([left, right], dims_of, lambda a, b: f"cannot {verb} {a} and {b}")
        case ast.Call(func=ast.Name(id=name), args=args):
            return _call_dims(FUNCTIONS[name], args, dims_of)
    raise FormulaError(f"{type(node).__name__} is not allowed in a formula")


def _power_dims(base: Dims, exponent: float) -> Dims:
    if base.is_dimensionless:
        return base
    fraction = Fraction(exponent).limit_denominator(12)
    if abs(float(fraction) - exponent) > 1e-9:
        raise FormulaError(f"cannot raise {format_dims(base)} to the power {exponent:g}")
    return base**fraction


def _matching_dims(
    nodes: list[ast.expr], dims_of: Mapping[str, Dims], message: Callable[[str, str], str]
) -> Dims:
    """The common dims of operands that must be compatible; the one carrying more counts wins."""
    result: Dims | None = None
    for node in nodes:
        if _is_zero_literal(node):
            continue
        dims = _infer_dims(node, dims_of)
        if result is None:
            result = dims
            continue
        if not compatible(result, dims):
            raise FormulaError(message(_describe(result), _describe(dims)))
        if any(exponent < 0 for _, exponent in (result / dims).counts.exponents):
            result = dims
    return result if result is not None else DIMENSIONLESS


def _call_dims(function: _Function, args: list[ast.expr], dims_of: Mapping[str, Dims]) -> Dims:
    if function.unit_rule == "match":
        return _matching_dims(
            args,
            dims_of,
            lambda a, b: f"{function.name}() needs arguments in compatible units, got {a} and {b}",
        )
    if function.unit_rule == "divide":
        return _infer_dims(args[0], dims_of) / _infer_dims(args[1], dims_of)
    if function.unit_rule == "typed":
        for position, (argument, kind) in enumerate(zip(args, function.arguments, strict=True), start=1):
            _check_argument_kind(function.name, position, kind, _infer_dims(argument, dims_of))
        return DIMENSIONLESS
    dims = _infer_dims(args[0], dims_of)
    if function.unit_rule == "sqrt":
        return dims ** Fraction(1, 2)
    if function.unit_rule == "plain":
        if not dims.physical.is_dimensionless:
            raise FormulaError(f"{function.name}() needs a plain number or a count, got {_describe(dims)}")
        return DIMENSIONLESS
    return dims


def _check_argument_kind(function: str, position: int, kind: str, dims: Dims) -> None:
    if kind == "time" and not compatible(dims, _SECONDS):
        raise FormulaError(f"{function}() needs a time as argument {position}, got {_describe(dims)}")
    if kind == "plain" and not dims.physical.is_dimensionless:
        raise FormulaError(
            f"{function}() needs a plain number or a count as argument {position}, got {_describe(dims)}"
        )


_SECONDS = parse_unit("s").dims


def _describe(dims: Dims) -> str:
    return "a plain number" if dims.is_dimensionless else format_dims(dims)


def is_valid_name(name: object) -> bool:
    """True for a name a quantity may have: an identifier, not a keyword or function, no leading dunder."""
    return (
        isinstance(name, str)
        and bool(_NAME.match(name))
        and not keyword.iskeyword(name)
        and name not in FUNCTIONS
        and name != UNBOUNDED
        and not name.startswith("__")
    )
