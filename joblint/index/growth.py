"""Whether what a function returns grows with one of its parameters and has
no random part (`def backoff(n): return 2 ** n`), read from its `ast` for the
project model: a caller passing the attempt count there gets a delay that
grows with the attempt (JL301).

"Grows" is what `joblint.analysis.expressions` means for a delay written in
place: `**`, `<<`, `pow`/`math.pow`, or a multiplication by something that
depends on the parameter, also inside `min`/`max`/`int`/`round`; a local
assigned once is read through. Any call that is not such a pure function
(a call into `random`, or into anything else, the project's own functions
included) makes the return not one, and so does a name that says
"jitter"/"random": only what is surely deterministic is a fact.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from joblint.knowledge import retries

_MAX_DEPTH = 20
_GROWING = (ast.Pow, ast.LShift)
_KEEPS_LEFT = (ast.Sub, ast.Div, ast.FloorDiv)


class GrowthReader:
    """Reads return values of one function: `locals` are its names assigned
    once (to their value), `callee` qualifies a call's callable (None for a
    name no import binds)."""

    def __init__(
        self, locals: Mapping[str, ast.expr], callee: Callable[[ast.expr], str | None]
    ) -> None:
        self.locals = locals
        self.callee = callee

    def growing_parameters(self, value: ast.expr, parameters: Mapping[str, int]) -> set[str]:
        """The parameters `value` grows with, when it has no random part
        (none for a value with one, or with a call joblint can't see into)."""
        if not self._deterministic(value, 0):
            return set()
        return {name for name in parameters if self._grows(value, name, 0)}

    # --- grows ----------

    def _grows(self, node: ast.expr, name: str, depth: int) -> bool:
        if depth > _MAX_DEPTH:
            return False
        if isinstance(node, ast.Name) and node.id in self.locals:
            return self._grows(self.locals[node.id], name, depth + 1)
        if isinstance(node, ast.BinOp):
            return self._binary_grows(node, name, depth)
        if isinstance(node, ast.Call):
            called = self._called(node.func)
            if called in retries.POWER_FUNCTIONS:
                return any(self._depends(arg, name, depth + 1) for arg in node.args)
            return called in retries.PURE_FUNCTIONS and any(
                self._grows(arg, name, depth + 1) for arg in node.args
            )
        if isinstance(node, ast.IfExp):
            return self._grows(node.body, name, depth + 1) or self._grows(
                node.orelse, name, depth + 1
            )
        if isinstance(node, ast.UnaryOp):
            return self._grows(node.operand, name, depth + 1)
        return False

    def _binary_grows(self, node: ast.BinOp, name: str, depth: int) -> bool:
        left, right = node.left, node.right
        if isinstance(node.op, _GROWING):
            return self._depends(left, name, depth + 1) or self._depends(right, name, depth + 1)
        if isinstance(node.op, ast.Mult) and (
            (self._depends(left, name, depth + 1) and not _shrinks(right))
            or (self._depends(right, name, depth + 1) and not _shrinks(left))
        ):
            return True
        if isinstance(node.op, ast.Add | ast.Mult):
            return self._grows(left, name, depth + 1) or self._grows(right, name, depth + 1)
        if isinstance(node.op, _KEEPS_LEFT):
            return self._grows(left, name, depth + 1)
        return False

    def _depends(self, node: ast.expr, name: str, depth: int) -> bool:
        if depth > _MAX_DEPTH:
            return False
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                if sub.id == name:
                    return True
                value = self.locals.get(sub.id)
                if value is not None and self._depends(value, name, depth + 1):
                    return True
        return False

    # --- no random part ----------

    def _deterministic(self, node: ast.expr, depth: int) -> bool:
        if depth > _MAX_DEPTH:
            return False
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                called = self._called(sub.func)
                pure = called in retries.PURE_FUNCTIONS or called in retries.POWER_FUNCTIONS
                if not pure and not _in_modules(called, retries.PURE_MODULES):
                    return False
            elif isinstance(sub, ast.Name | ast.Attribute) and _hints_random(sub):
                return False
            elif isinstance(sub, ast.Name):
                value = self.locals.get(sub.id)
                if value is not None and not self._deterministic(value, depth + 1):
                    return False
            elif isinstance(sub, ast.Await | ast.Yield | ast.YieldFrom | ast.NamedExpr):
                return False
        return True

    def _called(self, func: ast.expr) -> str:
        qualname = self.callee(func)
        if qualname is not None:
            return qualname
        # A builtin by its bare name (`min`), as the retry vocabulary names it.
        return func.id if isinstance(func, ast.Name) and func.id not in self.locals else ""


def _shrinks(node: ast.expr) -> bool:
    """A literal factor that can't make a product grow (`delay * 0.5`)."""
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
        and node.value <= 1
    )


def _hints_random(node: ast.Name | ast.Attribute) -> bool:
    name = (node.id if isinstance(node, ast.Name) else node.attr).lower()
    return any(hint in name for hint in retries.RANDOM_NAME_HINTS)


def _in_modules(name: str, modules: tuple[str, ...]) -> bool:
    return any(name.startswith(f"{m}.") for m in modules)


def is_number(node: ast.expr) -> bool:
    """A literal number (`600`, `-1`, `0.5`): a constant return among growing ones."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    )
