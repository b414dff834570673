"""Is this Redis `SET NX` a lock, and is this call a test of an error?

`set(key, v, nx=True)` and `setnx(key, v)` are also plain Redis commands: a
counter seeded once, a dedup marker, a client's own tests. The JL4 rules take
one for a lock only with evidence of it:
- the key is not a string literal (a name, an f-string with holes, a call...),
  or its text names a lock (`locks.LOCK_KEY_WORDS`);
- the same key is deleted, expired or released by a script later in the
  function;
- the result gates the work: tested by an `if`/`while`/conditional
  expression, returned, or assigned to a name that is then tested or returned.
A cache's `add()` (`any_key_is_evidence` off) needs more than a key that is
no literal; a hash's `hsetnx(name, field, v)` follows the name, with a lock
word in the field counting too. The set of a check-then-set
(`check_then_set_evidence`) is a lock's only when the key names one, or is
deleted after the set, or the function taking it is a try-lock: its name
names a lock and it answers whether it took it (`return True` and `return
False`), as `acquire_report_lock()` does.
A result that is asserted instead (`assert r.set(...)`, `self.assertTrue(...)`,
or a name bound to it asserted later) makes the call a test of SET NX itself:
a delete after it is the test's clean-up. A key that is a module constant of
another file is settled by the project step (a `LockKey` requirement), where
that file's constants are known.

The shape is Redis's only where a Redis client library is in reach (the
receiver is a client, or the module, or a project module it imports,
imports one): `store.set(key, v, nx=True)` on a project's own store is not.

Calls in the block of `pytest.raises(...)` / `self.assertRaises(...)`, or in
their arguments, test that an error is raised: no lock is taken there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from joblint.analysis.constants import to_expr
from joblint.analysis.context import FileContext
from joblint.analysis.literals import string_value
from joblint.analysis.names import BindingKind, Resolver, unwrap
from joblint.analysis.sql import lookup_for
from joblint.analysis.walk import children, walk
from joblint.knowledge import locks
from joblint.requirements import LockKey, ReachesLibrary, Requirement
from joblint.rules.locks._facts.lock_calls import key_lock_arguments
from joblint.rules.locks._facts.redis_clients import (
    client_kind,
    key_code,
    method_name,
    positional,
    receiver,
    response_cache,
)

_MAX_FOLLOW = 6
_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


@dataclass(frozen=True, slots=True)
class LockEvidence:
    """`is_lock`: the SET NX is a lock, provided every requirement holds;
    `released`: the key is deleted after it (the work done, the lock freed)."""

    is_lock: bool
    requires: tuple[Requirement, ...] = ()
    released: bool = False


_LOCK = LockEvidence(True)
_NOT_A_LOCK = LockEvidence(False)


def lock_evidence(
    call: cst.Call,
    context: FileContext,
    *,
    result_read: bool,
    command: locks.KeyLockCommand | None = None,
) -> LockEvidence:
    """Whether a `set(key, v, nx=True)` / `setnx(key, v)` is a lock.
    `result_read`: False for a bare statement (its result can't gate anything);
    `command`: what the call is read as (how many arguments name the key, and
    whether any key that is no literal is evidence)."""
    found = _key_evidence(call, context, result_read, command)
    if not found.is_lock:
        return found
    return LockEvidence(True, found.requires + _redis_in_reach(call, context))


def check_then_set_evidence(
    call: cst.Call, key: cst.BaseExpression, context: FileContext
) -> LockEvidence:
    """Whether the set of a check-then-set (`if not r.get(key): r.set(key, v)`)
    takes a lock: the key names one (its text, or the value of the constant it
    is), or the key is deleted after the set (the work done, the lock freed),
    or the function is a try-lock (`_try_lock_function`). A key that merely
    isn't a literal says nothing here: a cache fill looks the same. Nor does
    a delete of the key in another function of the module: a cache's
    invalidation deletes a debounce marker's key just as a release does."""
    resolver = context.resolver
    if _released_later(call, key, context, expiry_counts=False):
        return LockEvidence(True, _redis_in_reach(call, context), released=True)
    if _names_lock(key, resolver) or _try_lock_function(context.frame.node):
        return LockEvidence(True, _redis_in_reach(call, context))
    constant = _key_constant(key, resolver)
    if isinstance(constant, _Constant):
        requires = (LockKey(constant.qualname),)
        return LockEvidence(True, requires + _redis_in_reach(call, context))
    return _NOT_A_LOCK


def _try_lock_function(node: cst.CSTNode) -> bool:
    """A function whose name names a lock and that answers whether it took
    it: among its own returns, `return True` and `return False`."""
    if not isinstance(node, cst.FunctionDef) or not locks.names_a_lock(node.name.value):
        return False
    answers = {
        value.value
        for returned in _own_returns(node)
        if isinstance(value := returned.value, cst.Name) and value.value in ("True", "False")
    }
    return answers == {"True", "False"}


def _own_returns(function: cst.FunctionDef) -> Iterator[cst.Return]:
    """The function's returns, not those of functions, classes or lambdas in it."""
    stack = list(children(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, cst.Return):
            yield node
        stack.extend(children(node))


def _redis_in_reach(call: cst.Call, context: FileContext) -> tuple[Requirement, ...]:
    """A library-specific shape needs the library: the receiver is a Redis
    client or a shared cache known by its name, or a Redis module is
    imported here (or, for the project step to say, by a project module this
    one imports)."""
    target = receiver(call)
    if target is not None and client_kind(target, lookup_for(context)) is not None:
        return ()
    if target is not None and response_cache(target, context.resolver) is not None:
        return ()
    if context.resolver.imports_any(locks.REDIS_MODULES):
        return ()
    module = context.resolver.module
    return (ReachesLibrary(module, locks.REDIS_MODULES),)


def _key_evidence(
    call: cst.Call,
    context: FileContext,
    result_read: bool,
    command: locks.KeyLockCommand | None,
) -> LockEvidence:
    args = key_lock_arguments(call, command) if command is not None else positional(call)
    if not args:
        return _LOCK
    key = args[0]
    resolver = context.resolver
    if _counted(call, key, context) and not _names_lock(key, resolver):
        return _NOT_A_LOCK  # `add(key, 1)` then `incr(key)`: a counter's seed
    # The other parts of the key (a hash's field) count only by their words.
    others = args[1 : command.key_arguments] if command is not None else []
    if any(_names_lock(part, resolver) for part in others):
        return _LOCK
    constant = _key_constant(key, resolver)
    if constant is None:
        if command is None or command.any_key_is_evidence or _names_lock(key, resolver):
            return _LOCK
        constant = _Plain()  # a key that is no literal and names no lock
    use = _result_use(call, context)
    # An asserted result is a test of SET NX itself: the delete after it is the
    # test's clean-up, not a release.
    if not use.asserted and (_released_later(call, key, context) or (result_read and use.gates)):
        return _LOCK
    if isinstance(constant, _Plain):
        return _NOT_A_LOCK
    return LockEvidence(True, (LockKey(constant.qualname),))


# --- the key ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Plain:
    """A string-literal key that names no lock."""


@dataclass(frozen=True, slots=True)
class _Constant:
    """A module constant: its value may be in another file."""

    qualname: str


def _names_lock(key: cst.BaseExpression, resolver: Resolver, depth: int = 0) -> bool:
    """The key's text, the text of the expression a local name is bound to
    (`key = f"sync-lock:{pk}"`), or the string it statically is, names a lock."""
    if locks.names_a_lock(key_code(key)):
        return True
    node = unwrap(key)
    if isinstance(node, cst.Name) and depth < _MAX_FOLLOW:
        binding = resolver.lookup(node.value)
        if (
            binding is not None
            and not binding.qualname
            and binding.kind is not BindingKind.IMPORT
            and binding.unpack_index is None
            and not binding.iterated
            and isinstance(binding.expr, cst.BaseExpression)
            and _names_lock(binding.expr, resolver, depth + 1)
        ):
            return True
    value = _static_key(key, resolver, 0)
    return isinstance(value, str) and locks.names_a_lock(value)


def _key_constant(key: cst.BaseExpression, resolver: Resolver) -> _Plain | _Constant | None:
    """What a key may be without naming a lock; None when it is evidence of one
    (not a string literal, or its text or value names a lock)."""
    if locks.names_a_lock(key_code(key)):
        return None
    value = _static_key(key, resolver, 0)
    if value is None:
        return None
    if isinstance(value, str):
        return None if locks.names_a_lock(value) else _Plain()
    return _Constant(value[1])


def _static_key(
    node: cst.BaseExpression, resolver: Resolver, depth: int
) -> str | tuple[str, str] | None:
    """The key's string when it is a literal (or a local name bound to one),
    ("ref", qualname) for a module constant, None for anything else."""
    node = unwrap(node)
    if depth > _MAX_FOLLOW:
        return None
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
        return value.decode("latin-1") if isinstance(value, bytes) else value
    if isinstance(node, cst.FormattedString):
        texts = [p for p in node.parts if isinstance(p, cst.FormattedStringText)]
        return "".join(p.value for p in texts) if len(texts) == len(node.parts) else None
    if isinstance(node, cst.ConcatenatedString):
        left = _static_key(node.left, resolver, depth + 1)
        right = _static_key(node.right, resolver, depth + 1)
        return left + right if isinstance(left, str) and isinstance(right, str) else None
    if isinstance(node, cst.Name):
        binding = resolver.lookup(node.value)
        if binding is not None and not binding.qualname and binding.kind is not BindingKind.IMPORT:
            plain = binding.unpack_index is None and not binding.iterated
            if plain and isinstance(binding.expr, cst.BaseExpression):
                return _static_key(binding.expr, resolver, depth + 1)
            return None
    expr = to_expr(node, resolver)
    if expr is None:
        return None
    if expr[0] == "str" and isinstance(expr[1], str):
        return expr[1]
    if expr[0] == "ref" and isinstance(expr[1], str):
        return ("ref", expr[1])
    return None


# --- released or expired later --------------------------------------------------------


def _released_later(
    call: cst.Call, key: cst.BaseExpression, context: FileContext, *, expiry_counts: bool = True
) -> bool:
    """The same key (by its source text) is deleted, expired (where
    `expiry_counts`) or passed to a release script after `call`, in the
    function that makes it."""
    wanted = key_code(key)
    state = {"after": False, "found": False}

    def enter(node: cst.CSTNode) -> None:
        if node is call:
            state["after"] = True
        elif state["after"] and not state["found"] and isinstance(node, cst.Call):
            state["found"] = _releases(node, wanted, expiry_counts)

    walk(context.frame.node, enter, lambda node: None)
    return state["found"]


def _counted(call: cst.Call, key: cst.BaseExpression, context: FileContext) -> bool:
    """The same key (by its source text) is counted on (`incr`, `decr`)
    anywhere in the function that sets it."""
    wanted = key_code(key)
    state = {"found": False}

    def enter(node: cst.CSTNode) -> None:
        if not state["found"] and isinstance(node, cst.Call) and node is not call:
            args = positional(node)
            if method_name(node) in locks.COUNT_METHODS and args:
                state["found"] = key_code(args[0]) == wanted

    walk(context.frame.node, enter, lambda node: None)
    return state["found"]


def _releases(node: cst.Call, key: str, expiry_counts: bool) -> bool:
    method = method_name(node)
    args = positional(node)
    if method in locks.DELETE_METHODS or method in locks.SCRIPT_METHODS:
        return any(key_code(arg) == key for arg in args)
    first = method in locks.FIELD_DELETE_METHODS or (
        expiry_counts and method in locks.EXPIRE_METHODS
    )
    return first and bool(args) and key_code(args[0]) == key


# --- what the result is used for ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ResultUse:
    gates: bool  # tested by a condition, or returned
    asserted: bool  # checked by `assert` or an `assert*(...)` call


def _result_use(call: cst.Call, context: FileContext) -> _ResultUse:
    """How the result of `call` is read: in its own statement, or through a
    name bound to it there and read later in the function."""
    statement = context.statement
    if statement is None:
        return _ResultUse(gates=False, asserted=False)
    own = _own_expressions(statement)
    if own is None:
        return _ResultUse(gates=False, asserted=False)
    gates = any(_inside(test, call) for test in _tests(statement, own))
    asserted = any(_inside(checked, call) for checked in _assertions(own))
    names = _walrus_names(own, call)
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            returned = isinstance(small, cst.Return) and small.value is not None
            gates = gates or (returned and _inside(small, call))
            names |= _assigned_names(small, call)
    if names and not (gates or asserted):
        later = _reads_later(statement, names, context)
        gates, asserted = later.gates, later.asserted
    return _ResultUse(gates, asserted)


def _own_expressions(statement: cst.CSTNode) -> cst.CSTNode | None:
    """The part of a statement evaluated where the statement stands: the test
    of an if/while, a whole simple statement; None for other compounds."""
    if isinstance(statement, cst.If | cst.While):
        return statement.test
    if isinstance(statement, cst.SimpleStatementLine):
        return statement
    return None


def _tests(statement: cst.CSTNode, own: cst.CSTNode) -> list[cst.BaseExpression]:
    """Conditions read where the statement stands: an if/while test, the
    conditional expressions in it."""
    tests: list[cst.BaseExpression] = []
    if isinstance(statement, cst.If | cst.While):
        tests.append(statement.test)

    def enter(node: cst.CSTNode) -> None:
        if isinstance(node, cst.IfExp):
            tests.append(node.test)

    walk(own, enter, lambda node: None)
    return tests


def _assertions(root: cst.CSTNode) -> list[cst.CSTNode]:
    """What `assert` statements and `assert*(...)` calls in `root` check."""
    checked: list[cst.CSTNode] = []

    def enter(node: cst.CSTNode) -> None:
        if isinstance(node, cst.Assert):
            checked.append(node.test)
        elif isinstance(node, cst.Call) and _is_assertion_call(node):
            checked.extend(arg.value for arg in node.args)

    walk(root, enter, lambda node: None)
    return checked


def _is_assertion_call(node: cst.Call) -> bool:
    func = node.func
    if isinstance(func, cst.Attribute):
        return func.attr.value.startswith(locks.ASSERTION_PREFIX)
    return isinstance(func, cst.Name) and func.value.startswith(locks.ASSERTION_PREFIX)


def _assigned_names(small: cst.BaseSmallStatement, call: cst.Call) -> set[str]:
    """`won = r.set(...)`, `won: bool = bool(r.set(...))`: the names bound to the result."""
    if isinstance(small, cst.Assign) and _inside(small.value, call):
        return {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
    if (
        isinstance(small, cst.AnnAssign)
        and small.value is not None
        and _inside(small.value, call)
        and isinstance(small.target, cst.Name)
    ):
        return {small.target.value}
    return set()


def _walrus_names(own: cst.CSTNode, call: cst.Call) -> set[str]:
    """`if (won := r.set(...)) ...`: names bound to the result inside the statement."""
    found: set[str] = set()

    def enter(node: cst.CSTNode) -> None:
        if (
            isinstance(node, cst.NamedExpr)
            and isinstance(node.target, cst.Name)
            and _inside(node.value, call)
        ):
            found.add(node.target.value)

    walk(own, enter, lambda node: None)
    return found


def _reads_later(statement: cst.CSTNode, names: set[str], context: FileContext) -> _ResultUse:
    """Whether one of `names` is read, after `statement`, by a condition or a
    return (gates), or by an assertion (asserted), whichever comes first."""
    state = {"after": False, "gates": False, "asserted": False}

    def enter(node: cst.CSTNode) -> None:
        if node is statement:
            state["after"] = True
            return
        if not state["after"] or state["gates"] or state["asserted"]:
            return
        if isinstance(node, cst.If | cst.While | cst.IfExp):
            state["gates"] = _reads(node.test, names)
        elif isinstance(node, cst.Return) and node.value is not None:
            state["gates"] = _reads(node.value, names)
        elif isinstance(node, cst.Assert):
            state["asserted"] = _reads(node.test, names)
        elif isinstance(node, cst.Call) and _is_assertion_call(node):
            state["asserted"] = any(_reads(arg.value, names) for arg in node.args)

    walk(context.frame.node, enter, lambda node: None)
    return _ResultUse(state["gates"], state["asserted"])


def _reads(node: cst.CSTNode, names: set[str]) -> bool:
    found = {"yes": False}

    def enter(inner: cst.CSTNode) -> None:
        if isinstance(inner, cst.Name) and inner.value in names:
            found["yes"] = True

    walk(node, enter, lambda inner: None)
    return found["yes"]


def _inside(root: cst.CSTNode, target: cst.CSTNode) -> bool:
    found = {"yes": False}

    def enter(node: cst.CSTNode) -> None:
        if node is target:
            found["yes"] = True

    walk(root, enter, lambda node: None)
    return found["yes"]


# --- tests of an error ----------------------------------------------------------------


def expects_error(call: cst.Call, context: FileContext) -> bool:
    """`call` runs in the block of `with pytest.raises(...)` / `self.assertRaises(...)`
    (or in the arguments of such a call)."""
    for enclosing in context.statements:
        if isinstance(enclosing, cst.With) and any(
            _is_error_test(item.item, context.resolver) for item in enclosing.items
        ):
            return True
    statement = context.statement
    if statement is None:
        return False
    found = {"yes": False}

    def enter(node: cst.CSTNode) -> None:
        if (
            not found["yes"]
            and isinstance(node, cst.Call)
            and node is not call
            and _is_error_test(node, context.resolver)
        ):
            found["yes"] = any(_inside(arg.value, call) for arg in node.args)

    walk(statement, enter, lambda node: None)
    return found["yes"]


def _is_error_test(node: cst.BaseExpression, resolver: Resolver) -> bool:
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value in ("self", "cls")
    ):
        return func.attr.value in locks.ERROR_TEST_METHODS
    return resolver.qualified_name(func) in locks.ERROR_TEST_FUNCTIONS
