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
import itertools
from collections.abc import Callable, Mapping

from joblint.knowledge import retries

_MAX_DEPTH = 20
_GROWING = (ast.Pow, ast.LShift)
_KEEPS_LEFT = (ast.Sub, ast.Div, ast.FloorDiv)
# The calls a loop counts attempts over.
_COUNTING = frozenset({"range"})


class GrowthReader:
    """Reads return values of one function: `locals` are its names assigned
    once (to their value), `callee` qualifies a call's callable (None for a
    name no import binds)."""

    def __init__(
        self, locals: Mapping[str, ast.expr], callee: Callable[[ast.expr], str | None]
    ) -> None:
        self.locals = locals
        self.callee = callee

    def deterministic(self, value: ast.expr) -> bool:
        """Whether `value` surely has no random part."""
        return self._deterministic(value, 0)

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

    def called(self, func: ast.expr) -> str:
        """A call's callable, qualified (a builtin by its bare name)."""
        return self._called(func)

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


def growing_list(
    value: ast.expr, body: Mapping[type[ast.AST], list[ast.AST]], reader: GrowthReader
) -> bool:
    """A list of waits growing with their position and with no random part:
    a literal of growing numbers, a comprehension over a counter whose item
    grows with it, or a local list (assigned once) that loops over `range`
    append such items to and nothing else changes (`body`: the function's
    own nodes, by kind)."""
    if isinstance(value, ast.List | ast.Tuple):
        numbers = [_number(e) for e in value.elts]
        return all(n is not None for n in numbers) and _growing([n or 0.0 for n in numbers])
    if isinstance(value, ast.ListComp) and len(value.generators) == 1:
        loop = value.generators[0]
        counter = _counter(loop.target, loop.iter, reader)
        return counter is not None and not loop.ifs and _item_grows(value.elt, counter, reader)
    if isinstance(value, ast.Name) and isinstance(reader.locals.get(value.id), ast.List):
        return _appended_growing(value.id, body, reader)
    return False


def _appended_growing(
    name: str, body: Mapping[type[ast.AST], list[ast.AST]], reader: GrowthReader
) -> bool:
    """Every use of the list `name` changing it is an `append` in a loop over
    `range` of an item growing with the loop's counter, and there is one;
    its first items have no random part."""
    start = reader.locals[name]
    if not _plain_items(start, reader):
        return False
    appended: set[int] = set()
    for loop in body.get(ast.For, ()):
        assert isinstance(loop, ast.For)
        counter = _counter(loop.target, loop.iter, reader)
        if counter is None:
            continue
        for statement in loop.body:
            call = statement.value if isinstance(statement, ast.Expr) else None
            if (
                isinstance(call, ast.Call)
                and _is_method_of(call.func, name, "append")
                and len(call.args) == 1
                and not call.keywords
                and _item_grows(call.args[0], counter, reader)
            ):
                appended.add(id(call.func))
    if not appended:
        return False
    # Any other method called on it (`extend`, `insert`, another `append`)
    # may add what the loops don't.
    for node in body.get(ast.Attribute, ()):
        assert isinstance(node, ast.Attribute)
        used = isinstance(node.value, ast.Name) and node.value.id == name
        if used and id(node) not in appended:
            return False
    return True


def _plain_items(start: ast.expr, reader: GrowthReader) -> bool:
    assert isinstance(start, ast.List)
    return all(not isinstance(e, ast.Starred) and reader.deterministic(e) for e in start.elts)


def _is_method_of(func: ast.expr, name: str, method: str) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and func.attr == method
        and isinstance(func.value, ast.Name)
        and func.value.id == name
    )


def _counter(target: ast.expr, iterable: ast.expr, reader: GrowthReader) -> str | None:
    """The loop's counter: its target name over `range(...)`."""
    if not isinstance(target, ast.Name) or not isinstance(iterable, ast.Call):
        return None
    return target.id if reader.called(iterable.func) in _COUNTING else None


def _item_grows(item: ast.expr, counter: str, reader: GrowthReader) -> bool:
    return reader.growing_parameters(item, {counter: 0}) == {counter}


def _number(node: ast.expr) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return None if isinstance(node.value, bool) else float(node.value)
    return None


def _growing(values: list[float]) -> bool:
    """At least two waits, never shrinking, the last above the first."""
    if len(values) < 2:
        return False
    steady = all(b >= a for a, b in itertools.pairwise(values))
    return steady and values[-1] > values[0]
