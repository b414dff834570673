"""JL403 unsafe-lock-release.

Redis lock released with a plain DELETE: may free another worker's lock.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL403` show) and its teaching examples."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import unwrap
from joblint.analysis.walk import walk
from joblint.knowledge import locks
from joblint.knowledge.tokens import Trigger
from joblint.requirements import Requirement
from joblint.rule import LineOf, Rule, Valid, invalid
from joblint.rules.locks._facts.lock_calls import KeyLock, key_lock, read_key, released_keys
from joblint.rules.locks._facts.lock_evidence import expects_error, lock_evidence
from joblint.rules.locks._facts.redis_clients import key_code
from joblint.rules.locks._tokens import NX


@dataclass(slots=True)
class _Acquire:
    order: int
    key: str
    lock: KeyLock
    owner: int  # id of the function it is in
    # What must hold for the SET NX to be a lock (its key a constant of another file).
    requires: tuple[Requirement, ...] = ()


@dataclass(slots=True)
class _Delete:
    order: int
    node: cst.Call
    owner: int
    # Keys deleted without a read-then-compare of that key around the call.
    unchecked: tuple[str, ...]


@dataclass(slots=True)
class _Scope:
    acquires: list[_Acquire] = field(default_factory=list)
    deletes: list[_Delete] = field(default_factory=list)
    # name -> key, for `current = r.get(key)`.
    reads: dict[str, str] = field(default_factory=dict)
    # Keys read by the tests of the enclosing if/while/ternaries.
    checked: list[frozenset[str]] = field(default_factory=list)
    in_class: bool = False


class UnsafeLockRelease(Rule):
    """
    ## What it does
    Finds a Redis lock taken with `set(key, token, nx=True, ...)` and released
    with a plain `delete(key)` of the same key expression in the same function
    (or in another method of the same class, for keys on `self`), without
    checking that the key still holds our token.

    ## Why is this bad?
    Locks expire. When the protected work outlives the TTL, another worker
    takes the lock; our `DELETE` then frees *their* lock, and a third worker
    gets in while the second is still running. The release has to compare the
    stored value with our token and delete only on a match, in one step.

    ## Example
    ```python
    def rebuild(r, token):
        if not r.set("lock:rebuild", token, nx=True, ex=60):
            return
        try:
            rebuild_index()
        finally:
            r.delete("lock:rebuild")
    ```

    ## Use instead
    ```python
    from joblint_runtime.lock import RedisLock

    def rebuild(r):
        with RedisLock(r, "rebuild", ttl=60):
            rebuild_index()
    ```
    `RedisLock.release` runs a compare-and-delete Lua script (on Redis 8.4+
    `DELEX key IFEQ token` does the same).

    ## Fix safety
    No automatic fix: the release needs the token that was stored, which the
    acquiring code must keep.

    ## Known limits
    - A `set(..., nx=True)` acquire is Redis's only where a Redis client is in
      reach (a known client receiver, or `redis`, `django_redis`,
      `django.core.cache`... imported by the module or a project module it
      imports).
    - Keys are compared by their source text (`key`, `f"lock:{name}"`,
      `self.key`): the same key spelled two ways is not matched.
    - A read-then-compare (`if r.get(key) == token: r.delete(key)`, or
      comparing a name assigned from `r.get(key)`) counts as checked: it is
      racy, but the intent is there.
    - Acquire and release in two module-level functions, or in methods of
      different classes, are out of scope.
    - A SET NX whose result is only asserted (`assert r.set(...)`), with a
      literal key that names no lock, is a test of the command: the delete
      after it is the test's clean-up, not a release.
    - Calls in a `with pytest.raises(...)` / `with self.assertRaises(...)`
      block, or in the arguments of such a call, test an error: neither an
      acquire nor a release there counts.
    """

    CODE = "JL403"
    TRIGGERS = (Trigger(("nx",), (NX,)),)
    SUMMARY = "Redis lock released with a plain DELETE: may free another worker's lock"
    HELP = (
        "Release with a compare-and-delete of your token (a Lua script), "
        "e.g. joblint_runtime.lock.RedisLock.release"
    )

    VALID = (
        Valid(
            """
def rebuild(r, token):
    if not r.set("lock:rebuild", token, nx=True, ex=60):
        return
    try:
        pass
    finally:
        if r.get("lock:rebuild") == token:
            r.delete("lock:rebuild")
""",
            id="read-then-compare",
        ),
        Valid(
            """
def rebuild(r, token, key):
    if not r.set(key, token, nx=True, ex=60):
        return
    current = r.get(key)
    if current == token:
        r.delete(key)
    r.delete("cache:rebuild")
""",
            id="read-into-name-and-other-key",
        ),
    )

    INVALID = (
        invalid(
            """import redis
import uuid

def rebuild(r):
    token = uuid.uuid4().hex
    if not r.set("lock:rebuild", token, nx=True, ex=60):
        return
    try:
        pass
    finally:
        r.delete("lock:rebuild")
""",
            (11, 9, "set(..., nx=True) (line 6)"),
            id="finally-delete",
        ),
        invalid(
            """import redis
class Maintenance:
    def __init__(self, connection):
        self.connection = connection
        self.key = "lock:maintenance"

    def acquire(self):
        return self.connection.set(self.key, 1, nx=True, ex=899)

    def release(self):
        self.connection.delete(self.key)
""",
            (11, 9, "joblint_runtime.lock.RedisLock.release"),
            id="class-methods",
        ),
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._scopes: list[_Scope] = [_Scope()]
        # Per enclosing class: what its methods acquire and delete.
        self._classes: list[_Scope] = []
        self._reported: set[int] = set()

    # --- scopes ------------------------------------------------------------------------

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(_Scope())

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        scope = self._classes.pop()
        self._report(scope, across_methods=True)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        in_class = bool(self.context.frame.class_name) and bool(self._classes)
        self._scopes.append(_Scope(in_class=in_class))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        scope = self._scopes.pop()
        self._report(scope, across_methods=False)
        if scope.in_class and self._classes:
            cls = self._classes[-1]
            cls.acquires.extend(a for a in scope.acquires if _on_self(a.key))
            cls.deletes.extend(scope.deletes)

    # --- conditions --------------------------------------------------------------------

    def visit_If(self, node: cst.If) -> None:
        self._push_test(node.test)

    def leave_If(self, node: cst.If) -> None:
        self._scopes[-1].checked.pop()

    def visit_While(self, node: cst.While) -> None:
        self._push_test(node.test)

    def leave_While(self, node: cst.While) -> None:
        self._scopes[-1].checked.pop()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._push_test(node.test)

    def leave_IfExp(self, node: cst.IfExp) -> None:
        self._scopes[-1].checked.pop()

    def _push_test(self, test: cst.BaseExpression) -> None:
        scope = self._scopes[-1]
        scope.checked.append(frozenset(_keys_read(test, scope.reads)))

    # --- acquires, reads, deletes --------------------------------------------------------

    def visit_Assign(self, node: cst.Assign) -> None:
        key = _read_key(node.value)
        if key is None:
            return
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._scopes[-1].reads[target.target.value] = key

    def visit_Call(self, node: cst.Call) -> None:
        scope = self._scopes[-1]
        owner = id(self.context.frame.node)
        acquire = key_lock(node, self.context)
        # A lock taken by a command without an expiry is JL402's: it never
        # expires, so no other worker takes it over, and it must become one
        # with an expiry first. A store with no compare-and-delete (a cache's
        # add) has no safer release to point to.
        if acquire is not None and not (
            acquire.command.takes_expiry and acquire.command.compare_and_delete
        ):
            acquire = None
        released = released_keys(node) if acquire is None else None
        if acquire is None and released is None:
            return
        if expects_error(node, self.context):
            return  # a test that the call raises: no lock is taken or released
        if acquire is not None:
            evidence = lock_evidence(node, self.context, result_read=True, command=acquire.command)
            if evidence.is_lock:
                key = key_code(acquire.key)
                scope.acquires.append(
                    _Acquire(self.context.order, key, acquire, owner, evidence.requires)
                )
            return
        checked = frozenset().union(*scope.checked)
        keys = tuple(k for k in map(key_code, released or ()) if k not in checked)
        if keys:
            scope.deletes.append(_Delete(self.context.order, node, owner, keys))

    # --- reporting ---------------------------------------------------------------------

    def _report(self, scope: _Scope, *, across_methods: bool) -> None:
        for delete in scope.deletes:
            if id(delete.node) in self._reported:
                continue
            acquire = next(
                (
                    a
                    for a in scope.acquires
                    if a.key in delete.unchecked and _before(a, delete, across_methods)
                ),
                None,
            )
            if acquire is not None:
                self._reported.add(id(delete.node))
                self.report(
                    delete.node, _message(acquire), statement=None, requires=acquire.requires
                )


def _message(acquire: _Acquire) -> Callable[[LineOf], str]:
    def message(line_of: LineOf) -> str:
        return (
            f"delete({acquire.key}) releases the lock taken with {acquire.lock.command.display} "
            f"(line {line_of(acquire.lock.call)}) without checking it still holds our token: "
            "if the lock expired and another worker took it, this frees their lock. "
            f"Compare-and-delete in one step (a Lua script), e.g. {locks.RUNTIME_LOCK}.release"
        )

    return message


def _before(acquire: _Acquire, delete: _Delete, across_methods: bool) -> bool:
    """Same function: the acquire comes first. Class: the acquire is in another method."""
    if across_methods:
        return acquire.owner != delete.owner
    return acquire.order < delete.order


def _on_self(key: str) -> bool:
    return key.startswith(("self.", "cls."))


def _read_key(node: cst.BaseExpression) -> str | None:
    """The key of `r.get(key)` / `await r.get(key)`."""
    node = unwrap(node)
    key = read_key(node) if isinstance(node, cst.Call) else None
    return key_code(key) if key is not None else None


def _keys_read(test: cst.BaseExpression, reads: dict[str, str]) -> set[str]:
    """Keys a condition reads: `r.get(key)` calls, names assigned from one."""
    found: set[str] = set()

    def enter(node: cst.CSTNode) -> None:
        if isinstance(node, cst.Call):
            key = _read_key(node)
            if key is not None:
                found.add(key)
        elif isinstance(node, cst.Name) and node.value in reads:
            found.add(reads[node.value])

    walk(test, enter, lambda node: None)
    return found
