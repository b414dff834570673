"""Static values, second step: evaluate the expressions `joblint.analysis.constants`
made of a file's CST, with every file's module constants at hand.

No LibCST here: the whole-project step evaluates cached facts, in runs that
parse nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Expr = tuple[Any, ...]
Value = float | str | dict[str, Any]

UNIT_SECONDS = {
    "weeks": 604800.0,
    "days": 86400.0,
    "hours": 3600.0,
    "minutes": 60.0,
    "seconds": 1.0,
    "milliseconds": 0.001,
    "microseconds": 0.000001,
}
MAX_DEPTH = 8


def evaluate(expr: Expr | None, constants: Mapping[str, Expr], depth: int = 0) -> Value | None:
    """The value of `expr`; module constants come from `constants` (qualname -> expr)."""
    if expr is None or depth > MAX_DEPTH * 4:
        return None
    kind = expr[0]
    if kind in ("num", "str"):
        return expr[1]  # type: ignore[no-any-return]
    if kind == "dict":
        return {key: evaluate(value, constants, depth + 1) for key, value in expr[1]}
    if kind == "ref":
        return evaluate(constants.get(expr[1]), constants, depth + 1)
    if kind == "item":  # ("item", key, mapping expr): one entry of a static dict
        mapping = evaluate(expr[2], constants, depth + 1)
        return mapping.get(expr[1]) if isinstance(mapping, dict) else None
    if kind == "cat":  # a string built of parts: known when every part is
        texts = [text_of(evaluate(part, constants, depth + 1)) for part in expr[1:]]
        return "".join(t for t in texts if t is not None) if None not in texts else None
    if kind == "cond":  # `a if test else b`: known when the arms agree or the test is static
        decided = truth(evaluate(expr[1], constants, depth + 1))
        if decided is not None:
            return evaluate(expr[2] if decided else expr[3], constants, depth + 1)
        body = evaluate(expr[2], constants, depth + 1)
        return (
            body if body is not None and body == evaluate(expr[3], constants, depth + 1) else None
        )
    if kind == "op" and expr[1] == "+":
        left = evaluate(expr[2], constants, depth + 1)
        right = evaluate(expr[3], constants, depth + 1)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        return _arithmetic("+", left, right)
    return _test(expr, constants, depth)


def _test(expr: Expr, constants: Mapping[str, Expr], depth: int) -> Value | None:
    """`len(x)`, `not x` and a comparison, as numbers (a test's 1.0 or 0.0)."""
    kind = expr[0]
    if kind == "len":
        inner = evaluate(expr[1], constants, depth + 1)
        return float(len(inner)) if isinstance(inner, str | dict) else None
    if kind == "not":
        decided = truth(evaluate(expr[1], constants, depth + 1))
        return None if decided is None else float(not decided)
    if kind == "cmp":
        return _compare(
            expr[1],
            evaluate(expr[2], constants, depth + 1),
            evaluate(expr[3], constants, depth + 1),
        )
    return _evaluate_number(expr, constants, depth)


def text_of(value: Value | None) -> str | None:
    """A value as it reads inside a built string (`3600`, not `3600.0`)."""
    if isinstance(value, str):
        return value
    if isinstance(value, float | int) and not isinstance(value, bool):
        return str(int(value)) if float(value).is_integer() else str(value)
    return None


def truth(value: Value | None) -> bool | None:
    """Whether a known value is true, as Python tests it; None when unknown."""
    if value is None:
        return None
    return bool(value)


def _compare(op: str, left: Value | None, right: Value | None) -> float | None:
    if left is None or right is None:
        return None
    if op in ("==", "!="):
        a: Value | float | None = _as_number(left) if not isinstance(right, str) else left
        b: Value | float | None = _as_number(right) if not isinstance(left, str) else right
        if a is None or b is None:
            return None
        return float((a == b) == (op == "=="))
    x, y = _as_number(left), _as_number(right)
    if x is None or y is None or isinstance(left, str) or isinstance(right, str):
        return None
    found = {">": x > y, ">=": x >= y, "<": x < y, "<=": x <= y}.get(op)
    return None if found is None else float(found)


def _evaluate_number(expr: Expr, constants: Mapping[str, Expr], depth: int) -> float | None:
    kind = expr[0]
    if kind == "neg":
        inner = _as_number(evaluate(expr[1], constants, depth + 1))
        return -inner if inner is not None else None
    if kind in ("num_of", "eta"):
        return _as_number(evaluate(expr[1], constants, depth + 1))
    if kind == "td":
        total = 0.0
        for unit, value in expr[1]:
            number = _as_number(evaluate(value, constants, depth + 1))
            if number is None:
                return None
            total += number * UNIT_SECONDS[unit]
        return total
    if kind == "op":
        return _arithmetic(
            expr[1],
            evaluate(expr[2], constants, depth + 1),
            evaluate(expr[3], constants, depth + 1),
        )
    return None


def _as_number(value: Value | None) -> float | None:
    if isinstance(value, float | int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())  # SQS attributes are strings: "3600"
        except ValueError:
            return None
    return None


_MAX_EXPONENT = 64
_MAX_BASE = 1e6


def _arithmetic(op: str, left: Value | None, right: Value | None) -> float | None:
    a, b = _as_number(left), _as_number(right)
    if a is None or b is None:
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "**":
        return _power(a, b)
    if b == 0:
        return None
    return a / b if op == "/" else float(a // b)


def _power(base: float, exponent: float) -> float | None:
    """`60 * (10**2)`; a power too large to be a duration, or one that is not
    a real number (`0 ** -1`, `(-8) ** 0.5`), is no number here."""
    if abs(exponent) > _MAX_EXPONENT or abs(base) > _MAX_BASE:
        return None
    if (base == 0 and exponent < 0) or (base < 0 and not exponent.is_integer()):
        return None
    return float(base**exponent)


def as_seconds(expr: Expr | None, constants: Mapping[str, Expr]) -> float | None:
    return _as_number(evaluate(expr, constants))


def environment_variables(expr: Expr | None, depth: int = 0) -> set[str]:
    """The environment variables `expr` reads (`("env", "X", ...)` anywhere in it)."""
    if expr is None or depth > MAX_DEPTH * 4:
        return set()
    if expr[0] == "env":
        return {name for name in expr[1:] if isinstance(name, str)}
    found: set[str] = set()
    for part in expr[1:]:
        if isinstance(part, tuple) and part and isinstance(part[0], str):
            found |= environment_variables(part, depth + 1)
        elif isinstance(part, tuple):  # a dict's items: (key, expr) pairs
            for item in part:
                if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], tuple):
                    found |= environment_variables(item[1], depth + 1)
    return found
