"""JL402/JL404's AST check: a cache's `add(...)` the rules may read as a lock.

`add(` is an ordinary word: a set's `add` is no lock. The rules read a
cache's conditional set as a lock taken (`cache.add(key, 1)`); this check
says yes where such a call is on a receiver that may be a cache (its text
names one, or it holds a name the file binds to one), as a bare statement
(JL404) or with a literal `None` expiry (JL402).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import cast

from joblint.knowledge import locks
from joblint.knowledge.confirm import confirm_step

_CACHE = "cache"


@confirm_step("cache-add-call")
def cache_add_call(tree: ast.Module, lowered: bytes) -> bool:
    """JL402/JL404: a cache's `add(...)` (`aadd`) the rules may read as a
    lock: a bare statement (JL404), or one giving its expiry as a literal
    `None` (JL402; without one the cache's default timeout applies). On a
    receiver whose text names a cache, or that holds a name the file binds
    to one (imported from a cache's module, assigned from or annotated with
    something naming a cache). Every framework cache object and cache class
    the rules know is named so; a set's `add` never is."""
    calls: list[ast.Call] = []
    bare: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr):
            value = node.value
            while isinstance(value, ast.Await):
                value = value.value
            bare.add(id(value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in locks.RECEIVER_SETNX_METHODS
        ):
            calls.append(node)
    calls = [call for call in calls if id(call) in bare or _may_take_lock(call)]
    if not calls:
        return False
    cachey = _cache_names(tree)
    return any(_names_cache(cast(ast.Attribute, call.func).value, cachey) for call in calls)


def _may_take_lock(call: ast.Call) -> bool:
    """A conditional set whose result is kept, which a rule may still read:
    one on any receiver but a cache's (whose default timeout applies
    unless a literal `None` is given: `cache.add(key, 1, timeout=None)`)."""
    commands = locks.KEY_LOCK_COMMANDS.get(cast(ast.Attribute, call.func).attr, ())
    cache = [c for c in commands if c.receiver is locks.LockReceiver.CACHE]
    if len(cache) != len(commands):
        return True
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return False  # the rules can't tell its expiry either
    return any(_none_expiry(call, command) for command in cache)


def _none_expiry(call: ast.Call, command: locks.KeyLockCommand) -> bool:
    slots = [k.value for k in call.keywords if k.arg in command.expiry_keywords]
    at = command.expiry_position
    if at is not None and len(call.args) > at:
        slots.append(call.args[at])
    return any(isinstance(v, ast.Constant) and v.value is None for v in slots)


def _cache_names(tree: ast.Module) -> set[str]:
    """The names (and attribute names) the file binds to what may be a cache."""
    found: set[str] = set()
    # (targets, value, whether the value is an annotation)
    bindings: list[tuple[list[ast.expr], ast.expr, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = (node.module or "").lower()
            found.update(
                alias.asname or alias.name
                for alias in node.names
                if _CACHE in module or _CACHE in alias.name.lower()
            )
        elif isinstance(node, ast.Import):
            found.update(
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if _CACHE in alias.name.lower()
            )
        elif isinstance(node, ast.Assign):
            bindings.append((node.targets, node.value, False))
        elif isinstance(node, ast.AnnAssign):
            bindings.append(([node.target], node.annotation, True))
            if node.value is not None:
                bindings.append(([node.target], node.value, False))
        elif isinstance(node, ast.arg) and node.annotation is not None:
            bindings.append(([ast.Name(node.arg)], node.annotation, True))
    for targets, value, annotation in bindings:  # after the imports: `c = cache_alias`
        if _names_cache(value, found) if annotation else _may_be_cache(value, found):
            for target in targets:
                found.update(_bound_words(target))
    return found


def _may_be_cache(value: ast.expr, cachey: set[str]) -> bool:
    """A value that may be a cache object: what names one along the value's
    own chain (`caches["x"]`, `get_cache()`, `self.cache`), not what is
    handed to a call (`build(cached)`) nor a value read from a cache
    (`cache.get(key)`)."""
    while True:
        if isinstance(value, ast.Await | ast.Subscript):
            value = value.value
        elif isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr in _CACHE_VALUE_READS:
                return False
            value = func
        else:
            break
    if isinstance(value, ast.BoolOp):
        return any(_may_be_cache(v, cachey) for v in value.values)
    if isinstance(value, ast.IfExp):
        return _may_be_cache(value.body, cachey) or _may_be_cache(value.orelse, cachey)
    return _names_cache(value, cachey)


# A cache's methods returning a stored value (or a count, or whether a key is
# there): what they give is no cache.
_CACHE_VALUE_READS = locks.GET_METHODS | locks.COUNT_METHODS | locks.EXISTS_METHODS


def _bound_words(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Attribute):
        yield target.attr
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _bound_words(element)


def _names_cache(node: ast.expr, cachey: set[str]) -> bool:
    for part in ast.walk(node):
        word = part.id if isinstance(part, ast.Name) else getattr(part, "attr", None)
        if isinstance(word, str) and (_CACHE in word.lower() or word in cachey):
            return True
    return False
