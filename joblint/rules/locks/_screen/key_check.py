"""JL405's AST check: a key checked, then set, that the rule may take for a lock.

The rule (`joblint.rules.locks.non_atomic_lock_acquire`) reports the set of a
check-then-set only with lock evidence, and most reads followed by a set of
the same key are cache fills (`v = cache.get(key)` ... `cache.set(key, v)`).
This check asks, on Python's AST, what the rule asks, each part as much or
more: a read of a key (`get`, `exists`, `has_key`, a response cache's
lookup) and a later set of the same key on the same receiver in the same
function (or class or module body), keys and receivers compared by their
text; then either

- a release of the key (a delete or script naming it, `hdel` of it) after
  the set, in the function that sets it; or
- a marker or a token as the value (a constant, or text with a token word)
  and a key that may name a lock (`_Names.may_name_lock`) or a set in a
  try-lock function (its name names a lock, it returns True and False).

It may say yes where the rule finds nothing, never no where it would report.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from joblint.index.nodes import child_nodes
from joblint.knowledge import locks
from joblint.knowledge.confirm import confirm_step

_READS = locks.GET_METHODS | locks.EXISTS_METHODS | locks.RESPONSE_LOOKUP_METHODS
_SETS = locks.SET_METHODS
_RELEASES = locks.DELETE_METHODS | locks.SCRIPT_METHODS
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# What the rule pairs a read with a set inside of (it never enters a nested
# function or class; a lambda's body is read as part of the function around it).
_SCOPES = (*_FUNCTIONS, ast.ClassDef)
# How far the rule follows a name to what it is bound to.
_MAX_FOLLOW = 6


@dataclass(frozen=True, slots=True)
class _Call:
    call: ast.Call
    method: str
    scope: ast.AST
    # The function whose body holds the call (the module outside any).
    frame: ast.AST
    receiver: str
    key: ast.expr
    key_text: str

    @property
    def where(self) -> tuple[int, int]:
        return (self.call.lineno, self.call.col_offset)


@confirm_step("key-checked-then-set")
def key_checked_then_set(tree: ast.Module, lowered: bytes) -> bool:
    """JL405: a read and a later set of the same key that the rule may take
    for a lock (see the module's docstring)."""
    reads: list[_Call] = []
    sets: list[_Call] = []
    for found in _store_calls(tree):
        (reads if found.method in _READS else sets).append(found)
    if not reads or not sets:
        return False
    names: _Names | None = None
    for written in sets:
        if not any(_checks(read, written) for read in reads):
            continue
        if _released_after(written):
            return True
        if not _marks(written):
            continue
        if _try_lock(written.frame):
            return True
        names = names or _Names(tree)
        if names.may_name_lock(written.key, 0):
            return True
    return False


def _store_calls(tree: ast.Module) -> Iterator[_Call]:
    """The reads (one positional at least) and sets (two at least) of a key,
    with the scope and function around each."""
    stack: list[tuple[ast.AST, ast.AST, ast.AST]] = [(tree, tree, tree)]
    while stack:
        node, scope, frame = stack.pop()
        for child in child_nodes(node):
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                method = child.func.attr
                wanted = 1 if method in _READS else 2 if method in _SETS else 0
                args = _positional(child)
                if wanted and len(args) >= wanted:
                    receiver = ast.dump(child.func.value)
                    key = args[0]
                    yield _Call(child, method, scope, frame, receiver, key, ast.dump(key))
            inner = child if isinstance(child, _SCOPES) else scope
            stack.append((child, inner, child if isinstance(child, _FUNCTIONS) else frame))


def _positional(call: ast.Call) -> list[ast.expr]:
    return [arg for arg in call.args if not isinstance(arg, ast.Starred)]


def _checks(read: _Call, written: _Call) -> bool:
    """The read may be the check of the set: the same scope, receiver and key, before it."""
    return (
        read.scope is written.scope
        and read.receiver == written.receiver
        and read.key_text == written.key_text
        and read.where < written.where
    )


def _released_after(written: _Call) -> bool:
    """The key is deleted (or passed to a script, or its hash field deleted)
    at or after the set, in the function that sets it."""
    for node in ast.walk(written.frame):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node is written.call or (node.lineno, node.col_offset) < written.where:
            continue
        method = node.func.attr
        args = _positional(node)
        if method in _RELEASES and any(ast.dump(arg) == written.key_text for arg in args):
            return True
        if method in locks.FIELD_DELETE_METHODS and args and ast.dump(args[0]) == written.key_text:
            return True
    return False


def _marks(written: _Call) -> bool:
    """The stored value may be a marker or an owner's token: a constant, or a
    value whose text has a token word."""
    args = _positional(written.call)
    index = 2 if written.method in locks.TTL_FIRST_SET_METHODS else 1
    if len(args) <= index:
        return False
    value = args[index]
    while isinstance(value, ast.Await):
        value = value.value
    return isinstance(value, ast.Constant) or _has_words(value, locks.names_a_token)


def _try_lock(frame: ast.AST) -> bool:
    """A function whose name names a lock and that returns True and False."""
    if not isinstance(frame, _FUNCTIONS) or not locks.names_a_lock(frame.name):
        return False
    answers: set[bool] = set()
    stack: list[ast.AST] = list(frame.body)
    while stack:
        node = stack.pop()
        value = node.value if isinstance(node, ast.Return) else None
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            answers.add(value.value)
        if not isinstance(node, (*_SCOPES, ast.Lambda)):
            stack.extend(child_nodes(node))
    return answers == {True, False}


def _has_words(node: ast.expr, check: Callable[[str], bool]) -> bool:
    """The node's text, or a string in it, has the words `check` looks for
    (`locks.names_a_lock`, `locks.names_a_token`). A node over several lines
    may hold comments, which the rule reads with the text: it counts."""
    if node.end_lineno != node.lineno:
        return True
    if check(ast.unparse(node)):
        return True
    return any(
        isinstance(part, ast.Constant) and isinstance(part.value, str) and check(part.value)
        for part in ast.walk(node)
    )


class _Names:
    """What each name of the file is bound to, as the rule follows a key."""

    def __init__(self, tree: ast.Module) -> None:
        # Names whose value may be a module's or class's constant (the rule
        # then asks the project for its value): bound at module or class
        # level, imported, or declared global.
        self.constants: set[str] = set()
        # Values local names are bound to in functions (None: a parameter, a
        # loop's or an unpacking's target, which the rule doesn't follow).
        self.values: dict[str, list[ast.expr | None]] = {}
        self._read(tree, in_function=False)

    def _read(self, node: ast.AST, in_function: bool) -> None:
        for child in child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                self.constants.update(
                    (alias.asname or alias.name).split(".")[0] for alias in child.names
                )
            elif isinstance(child, ast.Global | ast.Nonlocal):
                self.constants.update(child.names)
            elif isinstance(child, ast.Assign):
                for target in child.targets:
                    self._bind(target, child.value, in_function)
            elif isinstance(child, ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
                self._bind(child.target, child.value, in_function)
            elif isinstance(child, ast.For | ast.AsyncFor | ast.comprehension):
                self._bind(child.target, None, in_function)
            elif isinstance(child, ast.withitem) and child.optional_vars is not None:
                self._bind(child.optional_vars, child.context_expr, in_function)
            elif isinstance(child, ast.arg):
                self._name(child.arg, None, in_function=True)
            elif isinstance(child, (ast.ExceptHandler, *_SCOPES)):
                self._name(_bound_name(child), None, in_function)
            if isinstance(child, ast.ClassDef):
                self._read(child, in_function=False)
            else:
                self._read(child, in_function or isinstance(child, (*_FUNCTIONS, ast.Lambda)))

    def _name(self, name: str, value: ast.expr | None, in_function: bool) -> None:
        if not in_function:
            self.constants.add(name)
        self.values.setdefault(name, []).append(value)

    def _bind(self, target: ast.AST, value: ast.expr | None, in_function: bool) -> None:
        if isinstance(target, ast.Name):
            self._name(target.id, value, in_function)
        elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
            for element in (
                target.elts if isinstance(target, ast.Tuple | ast.List) else [target.value]
            ):
                self._bind(element, None, in_function)

    def may_name_lock(self, key: ast.expr, depth: int) -> bool:
        """The rule may find the key naming a lock: its text (or a string in
        it) has a lock word, or it may be a constant of a module or a class
        (a name bound there or imported, an attribute), or a local name is
        bound to such a key; a call's arguments the same (a settings value
        or an environment read with a default is read as its default)."""
        while isinstance(key, ast.Await):
            key = key.value
        if depth > _MAX_FOLLOW or _has_words(key, locks.names_a_lock):
            return True
        if isinstance(key, ast.Attribute):
            return True
        if isinstance(key, ast.Call):
            parts = [*key.args, *(k.value for k in key.keywords)]
            if isinstance(key.func, ast.Attribute):
                parts.append(key.func.value)
            return any(self.may_name_lock(part, depth + 1) for part in parts)
        if not isinstance(key, ast.Name):
            return False
        values = self.values.get(key.id)
        if key.id in self.constants or values is None:
            return True
        return any(value is not None and self.may_name_lock(value, depth + 1) for value in values)


def _bound_name(
    node: ast.ExceptHandler | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
) -> str:
    """The name a handler (`except E as name`), function or class binds ("" for none)."""
    return node.name or ""
