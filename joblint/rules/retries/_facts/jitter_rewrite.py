"""How a computed exponential delay becomes a full-jitter call: the shape of
`min(cap, base * factor ** attempt)` read from the code, as the arguments of
`joblint_runtime.backoff.full_jitter(attempt, base=..., factor=..., cap=...)`.
The attempt counter is the library's (`<task>.request.retries`): the caller
says which nodes are it."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from joblint.analysis.expressions import AttemptTest, literal_number
from joblint.analysis.names import dotted_text
from joblint.analysis.walk import children


@dataclass(frozen=True, slots=True)
class BackoffShape:
    """`min(cap, base * factor ** attempt)`, as read from a computed delay."""

    retries: cst.BaseExpression  # the attempt counter as written (`self.request.retries`)
    base: cst.BaseExpression
    factor: float
    cap: cst.BaseExpression

    def arguments(self) -> list[cst.Arg]:
        args = [cst.Arg(self.retries, comma=_COMMA)]
        keywords = [("base", self.base)]
        if self.factor != _FULL_JITTER_FACTOR:
            keywords.append(("factor", _number(self.factor)))
        keywords.append(("cap", self.cap))
        for index, (name, value) in enumerate(keywords):
            comma = _COMMA if index < len(keywords) - 1 else cst.MaybeSentinel.DEFAULT
            args.append(cst.Arg(value, keyword=cst.Name(name), equal=_EQUAL, comma=comma))
        return args

    def describe(self) -> str:
        return _EMPTY.code_for_node(cst.Call(cst.Name("full_jitter"), self.arguments()))


_FULL_JITTER_FACTOR = 2.0  # joblint_runtime.backoff.DEFAULT_FACTOR
_DEFAULT_CAP = 600  # joblint_runtime.backoff.DEFAULT_CAP: the reference policy's ten minutes
_EMPTY = cst.Module(body=[])
_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
)
_CONVERSIONS = frozenset({"int", "float"})


def backoff_shape(expr: cst.BaseExpression, is_attempt: AttemptTest) -> BackoffShape | None:
    """Read `[min(C, ]K * F ** (R + k)[)]` (also `F ** R * K`, `pow(F, R)`,
    `K << R`, wrapped in `int()`/`float()`) where R is the attempt counter,
    F a number > 1 and K, C numbers or dotted names. Without a cap, the cap is
    full_jitter's default (600 s) when the base is a number no larger. None for
    anything else (linear growth, other shapes): no fix then."""
    expr = _strip(expr)
    cap: cst.BaseExpression | None = None
    if _is_call_of(expr, "min") and isinstance(expr, cst.Call) and len(expr.args) == 2:
        first, second = (_strip(a.value) for a in expr.args)
        if any(a.star or a.keyword for a in expr.args):
            return None
        growth, cap = (first, second) if _mentions(first, is_attempt) else (second, first)
        if not _is_constant(cap, is_attempt):
            return None
        expr = growth
    found = _growth(expr, is_attempt)
    if found is None:
        return None
    retries, base, factor = found
    if cap is None:
        number = literal_number(base)
        if number is None or number > _DEFAULT_CAP:
            return None
        cap = cst.Integer(str(_DEFAULT_CAP))
    return BackoffShape(retries, base, factor, cap)


def _growth(
    expr: cst.BaseExpression, is_attempt: AttemptTest
) -> tuple[cst.BaseExpression, cst.BaseExpression, float] | None:
    """(retries, base, factor) of `K * P`, `P * K`, `P` or `K << R`."""
    expr = _strip(expr)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.LeftShift):
        # K << R is K * 2 ** R
        constant, shifted = _strip(expr.left), _retries(expr.right, is_attempt)
        if shifted is None or not _is_constant(constant, is_attempt):
            return None
        base = _scaled(constant, _FULL_JITTER_FACTOR, shifted[1])
        return None if base is None else (shifted[0], base, _FULL_JITTER_FACTOR)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        for power, constant in ((expr.right, expr.left), (expr.left, expr.right)):
            found = _power(power, is_attempt)
            if found is not None and _is_constant(_strip(constant), is_attempt):
                retries, factor, offset = found
                base = _scaled(_strip(constant), factor, offset)
                return None if base is None else (retries, base, factor)
        return None
    found = _power(expr, is_attempt)
    if found is None:
        return None
    retries, factor, offset = found
    base = _scaled(cst.Integer("1"), factor, offset)
    return None if base is None else (retries, base, factor)


def _power(
    expr: cst.BaseExpression, is_attempt: AttemptTest
) -> tuple[cst.BaseExpression, float, int] | None:
    """(retries, factor, offset) of `F ** (R + k)` or `pow(F, R + k)`."""
    expr = _strip(expr)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Power):
        factor, exponent = expr.left, expr.right
    elif _is_call_of(expr, "pow") and isinstance(expr, cst.Call) and len(expr.args) == 2:
        if any(a.star or a.keyword for a in expr.args):
            return None
        factor, exponent = expr.args[0].value, expr.args[1].value
    else:
        return None
    number = literal_number(_strip(factor))
    found = _retries(exponent, is_attempt)
    if number is None or number <= 1 or found is None:
        return None
    return found[0], number, found[1]


def _retries(
    expr: cst.BaseExpression, is_attempt: AttemptTest
) -> tuple[cst.BaseExpression, int] | None:
    """`R` or `R + k` / `k + R` with a literal integer k >= 0 (R: the attempt counter)."""
    expr = _strip(expr)
    if is_attempt(expr):
        return expr, 0
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        for count, offset in ((expr.left, expr.right), (expr.right, expr.left)):
            number = literal_number(_strip(offset))
            count = _strip(count)
            whole = number is not None and number == int(number) and 0 <= number <= _MAX_OFFSET
            if is_attempt(count) and whole and number is not None:
                return count, int(number)
    return None


_MAX_OFFSET = 8


def _scaled(base: cst.BaseExpression, factor: float, offset: int) -> cst.BaseExpression | None:
    """`base * factor ** offset` as one number (or `base` itself when offset is 0)."""
    if offset == 0:
        return base
    number = literal_number(base)
    return None if number is None else _number(number * factor**offset)


def _number(value: float) -> cst.BaseExpression:
    if value == int(value):
        return cst.Integer(str(int(value)))
    return cst.Float(repr(value))


def _strip(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Without parentheses and `int(...)`/`float(...)` (a float countdown is fine)."""
    while True:
        if expr.lpar:
            expr = expr.with_changes(lpar=(), rpar=())
            continue
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value in _CONVERSIONS
            and len(expr.args) == 1
            and not expr.args[0].star
            and expr.args[0].keyword is None
        ):
            expr = expr.args[0].value
            continue
        return expr


def _is_call_of(expr: cst.BaseExpression, name: str) -> bool:
    func = expr.func if isinstance(expr, cst.Call) else None
    return isinstance(func, cst.Name) and func.value == name


def _is_constant(expr: cst.BaseExpression, is_attempt: AttemptTest) -> bool:
    """A positive number, or a dotted name (`BASE`, `settings.MAX_WAIT`)."""
    number = literal_number(expr)
    if number is not None:
        return number > 0
    return dotted_text(expr) is not None and not _mentions(expr, is_attempt)


def _mentions(expr: cst.BaseExpression, is_attempt: AttemptTest) -> bool:
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BaseExpression) and is_attempt(node):
            return True
        stack.extend(children(node))
    return False
