"""Retry policies written as plain loops: a sleep in a loop that catches an
exception and goes on (its wait), and a `while True:` loop that retries a
failure (its bound). Library names come from the library modules, merged in
`joblint.knowledge.retries` (sleeps, clocks, conflict exceptions)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from joblint.analysis.expressions import (
    Loop,
    ScopeValues,
    always_leaves,
    literal_number,
    loop_counters,
    names_test,
    retries_on_exception,
    scope_nodes,
    self_growing_names,
)
from joblint.analysis.names import Resolver, dotted_parts, dotted_text
from joblint.analysis.retry_options import keyword, positional
from joblint.analysis.walk import children
from joblint.knowledge import retries
from joblint.libraries.retry_api import Bound
from joblint.rules.retries._facts.retry_facts import BoundSetting, Delay, HelperSite, computed_term

# --- the wait: a sleep in a retry loop ----------


def sleep_delays(
    call: cst.Call,
    sleep_keyword: str,
    loops: Sequence[Loop],
    scope: cst.FunctionDef | cst.Module,
    resolver: Resolver,
    values: ScopeValues,
    helper: HelperSite | None = None,
) -> tuple[Delay, ...]:
    """The wait of a sleep in the innermost of `loops` (those of its function)
    when that loop retries on an exception; the attempt counter is a loop
    counter, or a name the loops multiply each pass (`delay *= 2`)."""
    if not loops or not retries_on_exception(loops[-1]):
        return ()
    args = positional(call)
    delay = args[0] if args else keyword(call, sleep_keyword)
    if delay is None:
        return ()
    counters: set[str] = set()
    growing: dict[str, cst.CSTNode] = {}
    for loop in loops:
        counters |= loop_counters(loop, resolver)
        growing.update(self_growing_names(loop, resolver))
    if not counters and not growing:
        return ()
    analysis = values.analysis(resolver, scope, names_test(counters), growing)
    term = computed_term(delay.value, analysis, retries.SLEEP_LOOP, helper=helper)
    return (Delay((term,)),)


# --- the bound: a `while True:` retry loop ----------

_EXITS = (cst.Break, cst.Return, cst.Raise)
# Walking a loop body stops at nested loops and scopes.
_STOP = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)
_MAX_NAME_HOPS = 4


def always_true(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Name):
        return node.value == "True"
    number = literal_number(node)
    return number is not None and number != 0


@dataclass(frozen=True, slots=True)
class WhileLoop:
    """A `while True:` loop in a scope, read for what ends its retries."""

    loop: cst.While
    resolver: Resolver
    values: ScopeValues
    scope: cst.FunctionDef | cst.Module

    def bounds(self) -> tuple[BoundSetting, ...]:
        """Nothing for a loop that doesn't retry a failure with a sleep (a
        service loop, a loop that retries only on a conflict); else what gives
        up: something joblint can't evaluate, a deadline, or nothing."""
        loop = self.loop
        tries = [n for n in _loop_nodes(loop.body) if isinstance(n, cst.Try) and n.handlers]
        retrying = [t for t in tries if _leaves_on_success(t) and self._retries_failure(t)]
        if not retrying:
            return ()
        inside = {id(n) for t in retrying for n in _loop_nodes(t.body, include_root=True)}
        for t in retrying:
            if t.orelse is not None:
                inside |= {id(n) for n in _loop_nodes(t.orelse, include_root=True)}
        outside = [n for n in _loop_nodes(loop.body) if id(n) not in inside]
        says = retries.WHILE_TRUE_LOOP
        if any(isinstance(n, _EXITS) for n in outside):
            return (BoundSetting(loop, Bound.UNKNOWN, says),)  # something gives up
        deadline = self._deadline()
        if deadline is not None:
            return (BoundSetting(loop, Bound.DEADLINE, says, deadline),)
        if not any(isinstance(n, cst.Call) and self._is_sleep(n) for n in outside):
            return ()
        return (BoundSetting(loop, Bound.NONE, says),)

    def _is_sleep(self, node: cst.Call) -> bool:
        return self.resolver.qualified_name(node.func) in retries.SLEEP_FUNCTIONS

    # --- conflicts: retried on purpose, not failures ----------

    def _retries_failure(self, node: cst.Try) -> bool:
        """A handler that lets the loop go on catches a failure, not only a
        conflict (a Redis WatchError, an optimistic-lock error, or a unique-key
        collision when each pass tries a new value)."""
        looping = [h for h in node.handlers if not always_leaves(h.body)]
        return any(not self._catches_conflict(h, node) for h in looping)

    def _catches_conflict(self, handler: cst.ExceptHandler, node: cst.Try) -> bool:
        if handler.type is None:
            return False
        names = [self.resolver.qualified_name(t) for t in _exception_types(handler.type)]
        if not names or any(
            n not in retries.CONFLICT_EXCEPTIONS and n not in retries.COLLISION_EXCEPTIONS
            for n in names
        ):
            return False
        collides = any(n in retries.COLLISION_EXCEPTIONS for n in names)
        return not collides or self._tries_new_value(node)

    def _tries_new_value(self, node: cst.Try) -> bool:
        """Each pass tries another value: the loop assigns, outside the `try`
        body, something that body reads (`code = new_code()` before it, `n += 1`
        in the handler), or the body draws a fresh one (`uuid4()`, `secrets...`)."""
        body = {id(n) for n in _loop_nodes(node.body, include_root=True)}
        assigned = {
            name
            for n in _loop_nodes(self.loop.body)
            if id(n) not in body
            for name in _assigned_names(n)
        }
        for n in _loop_nodes(node.body):
            if isinstance(n, cst.Name | cst.Attribute) and dotted_text(n) in assigned:
                return True
            if isinstance(n, cst.Call) and self._draws_fresh_value(n):
                return True
        return False

    def _draws_fresh_value(self, call: cst.Call) -> bool:
        name = self.resolver.qualified_name(call.func)
        if name is not None and any(
            name == m or name.startswith(f"{m}.") for m in retries.FRESH_VALUE_MODULES
        ):
            return True
        parts = dotted_parts(call.func)
        last = parts[-1].lower() if parts else ""
        return any(hint in last for hint in retries.FRESH_VALUE_HINTS)

    # --- deadlines ----------

    def _deadline(self) -> cst.BaseExpression | None:
        """The test of an `if` that compares a wall-clock reading and then gives
        up (`if time.monotonic() - start > limit: raise`), anywhere in the loop."""
        for node in _loop_nodes(self.loop.body):
            if not isinstance(node, cst.If):
                continue
            gives_up = any(isinstance(n, _EXITS) for n in _loop_nodes(node))
            if gives_up and self._reads_clock(node.test, 0):
                return node.test
        return None

    def _reads_clock(self, expr: cst.CSTNode, depth: int) -> bool:
        """The expression reads the clock, directly or through names assigned
        from a reading (`elapsed = time.monotonic() - start`)."""
        if depth > _MAX_NAME_HOPS:
            return False
        for node in scope_nodes(expr, include_root=True):
            if isinstance(node, cst.Call):
                if self.resolver.qualified_name(node.func) in retries.CLOCK_FUNCTIONS:
                    return True
            elif isinstance(node, cst.Name) and any(
                isinstance(value, cst.CSTNode) and self._reads_clock(value, depth + 1)
                for value in self._assigned(node.value)
            ):
                return True
        return False

    def _assigned(self, name: str) -> list[cst.CSTNode]:
        """The values assigned to `name` in the function around the loop."""
        values = self.values.of(self.scope).values.get(name, ())
        return [v.value if isinstance(v, cst.AugAssign) else v for v in values]


def _loop_nodes(root: cst.CSTNode, *, include_root: bool = False) -> list[cst.CSTNode]:
    """Nodes of this loop's body, not entering nested loops or scopes."""
    found = []
    stack: list[cst.CSTNode] = [root] if include_root else list(reversed(children(root)))
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, _STOP):
            stack.extend(reversed(children(node)))
    return found


def _exception_types(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.Tuple | cst.List):
        return [e.value for e in node.elements]
    return [node]


def _assigned_names(node: cst.CSTNode) -> list[str]:
    """The names and dotted attributes a statement part binds (`code`, `obj.slug`)."""
    targets: list[cst.BaseExpression] = []
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, cst.AnnAssign | cst.AugAssign | cst.NamedExpr):
        targets = [node.target]
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        targets = [node.asname.name]
    found = []
    for target in targets:
        elements = target.elements if isinstance(target, cst.Tuple | cst.List) else ()
        for expr in [e.value for e in elements] or [target]:
            text = dotted_text(expr)
            if text is not None:
                found.append(text)
    return found


# --- does the `try` leave the loop on success? ----------


@dataclass(slots=True)
class _Pass:
    """What one pass through a `try` body has done so far: called something
    (the guarded call) and bound names (its results)."""

    called: bool = False
    bound: set[str] = field(default_factory=set)

    def absorb(self, node: cst.CSTNode) -> None:
        for sub in scope_nodes(node, include_root=True):
            if isinstance(sub, cst.Call):
                self.called = True
            self.bound.update(_assigned_names(sub))


def _leaves_on_success(node: cst.Try) -> bool:
    """A `break`/`return` follows the guarded call inside the `try` (its body or
    its `else:`): a retry loop. An exit before any call, or one taken on a test
    of nothing the call produced (`if self.stopping: break`), is a shutdown
    signal: the loop is a service loop, not a retry."""
    state = _Pass()
    if _block_exits(node.body, state, ()):
        return True
    return node.orelse is not None and _block_exits(node.orelse.body, state, ())


def _block_exits(
    block: cst.BaseSuite, state: _Pass, guards: tuple[cst.BaseExpression, ...]
) -> bool:
    # In order: each statement sees what the ones before it called and bound.
    return any(_statement_exits(statement, state, guards) for statement in block.body)


def _statement_exits(
    statement: cst.CSTNode, state: _Pass, guards: tuple[cst.BaseExpression, ...]
) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return any(_small_exits(small, state, guards) for small in statement.body)
    if isinstance(statement, cst.BaseSmallStatement):
        return _small_exits(statement, state, guards)
    if isinstance(statement, cst.If):
        state.absorb(statement.test)
        inner = (*guards, statement.test)
        if _block_exits(statement.body, state, inner):
            return True
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            return _statement_exits(orelse, state, inner)
        return orelse is not None and _block_exits(orelse.body, state, inner)
    if isinstance(statement, cst.With):
        for item in statement.items:
            state.absorb(item)
        return _block_exits(statement.body, state, guards)
    if isinstance(statement, cst.Try):
        if _block_exits(statement.body, state, guards):
            return True
        return statement.orelse is not None and _block_exits(statement.orelse.body, state, guards)
    if not isinstance(statement, cst.FunctionDef | cst.ClassDef):
        state.absorb(statement)  # a nested loop: its exits are its own
    return False


def _small_exits(
    small: cst.BaseSmallStatement, state: _Pass, guards: tuple[cst.BaseExpression, ...]
) -> bool:
    if isinstance(small, cst.Return | cst.Break):
        value = small.value if isinstance(small, cst.Return) else None
        if value is not None:
            state.absorb(value)  # `return get(url)`: the call is the exit's own value
        return state.called and all(_mentions(test, state.bound) for test in guards)
    state.absorb(small)
    return False


def _mentions(test: cst.BaseExpression, names: set[str]) -> bool:
    return any(
        isinstance(n, cst.Name | cst.Attribute) and dotted_text(n) in names
        for n in scope_nodes(test, include_root=True)
    )


def loops_of(loops: Sequence[tuple[Loop, cst.CSTNode]], scope: cst.CSTNode) -> Iterator[Loop]:
    """The loops of `loops` (each with the scope it is in) that are in `scope`."""
    return (loop for loop, where in loops if where is scope)
