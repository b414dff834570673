"""JL404 unchecked-lock-acquire.

Non-blocking lock attempt whose result is ignored: the job runs either way.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL404` show) and its teaching examples."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import unwrap
from joblint.analysis.sql import call_sql, lookup_for, selected_functions
from joblint.analysis.walk import walk
from joblint.knowledge import locks
from joblint.knowledge.tokens import Trigger, tails
from joblint.rule import Rule, Valid, invalid
from joblint.rules.locks._facts.lock_calls import (
    KeyLock,
    NonBlockingAcquire,
    TryLockEntered,
    key_lock,
    non_blocking_acquire,
    try_lock_context,
)
from joblint.rules.locks._facts.lock_evidence import expects_error, lock_evidence
from joblint.rules.locks._facts.redis_clients import client_kind, key_code, method_name, receiver
from joblint.rules.locks._tokens import CACHE_MODULES, NX, modules_of


@dataclass(slots=True)
class _PendingExecute:
    """`cur.execute("SELECT pg_try_advisory_lock(...)")`: reported unless `cur` is read later."""

    node: cst.Call
    receiver: str
    function: str


_TRIGGERS: tuple[Trigger, ...] = (
    # acquire(blocking=False): a literal False, None or number
    Trigger(("blocking",), (r"\bblocking\s*=[\s(]*(?:false|none|[\d._])",)),
    Trigger(("nx",), (NX,)),
    Trigger(tuple(sorted(tails(locks.TRY_ADVISORY_FUNCTIONS)))),
    # A cache's `add(...)`: a file naming a cache's module, where the AST
    # shows an `add(` on what may be a cache object (not a set's).
    Trigger(
        tuple(f".{m}(" for m in sorted(locks.RECEIVER_SETNX_METHODS)),
        (CACHE_MODULES,),
        confirm="cache-add-call",
        also=(("cache",),),  # every cache module's name holds the word
    ),
    # `with advisory_lock(key, wait=False):`
    # django-pglocks' `advisory_lock(key, wait=False)`: a file importing it.
    Trigger(
        tuple(f"{name}(" for name in sorted(tails(locks.TRY_LOCK_CONTEXTS))),
        (modules_of(locks.TRY_LOCK_CONTEXTS),),
    ),
)


class UncheckedLockAcquire(Rule):
    """
    ## What it does
    Finds non-blocking lock attempts whose result is ignored:
    `lock.acquire(blocking=False)` as a bare statement;
    `set(key, value, nx=True, ...)` as a bare statement; a Django cache used
    as a lock, `cache.add(key, value, ...)` (or `aadd`), as a bare statement;
    a `SELECT pg_try_advisory_lock(...)` (or `pg_try_advisory_xact_lock`, and
    their `_shared` forms) executed and its row never read; django-pglocks
    `advisory_lock(key, wait=False)` whose acquired flag is never read
    (`with advisory_lock(key, wait=False):` without `as`, an `as acquired`
    the block never reads, or the call used as a decorator).

    A bare `set(..., nx=True)` counts only when it is a lock attempt: its key
    is not a string literal, or names a lock (`lock`, `mutex`, `running`...),
    or the same key is deleted or expired later in the function. A bare SET NX
    of a literal key that names no lock seeds state (a counter, a marker a
    test sets up) and is no lock attempt. A bare `cache.add(...)` needs a lock
    word in its key or a delete of the key later: keeping an existing entry
    (`cache.add(key, computed, 300)`) is a cache fill.

    ## Why is this bad?
    A non-blocking attempt doesn't fail when the lock is taken: it returns
    `False`. Ignoring that value means the job runs whether or not it got the
    lock — two workers run the "exclusive" section at the same time, and the
    one that didn't get the lock may later release the other's.

    ## Example
    ```python
    def sync_accounts(r, token):
        r.set("lock:sync", token, nx=True, ex=300)
        do_sync()
    ```

    ## Use instead
    ```python
    def sync_accounts(r, token):
        if not r.set("lock:sync", token, nx=True, ex=300):
            return  # another worker is syncing
        do_sync()
    ```
    or `joblint_runtime.lock.RedisLock` / `PostgresAdvisoryLock`, whose
    context managers raise when the lock isn't acquired.

    ## Fix safety
    No automatic fix: what to do when the lock is taken (skip, retry later,
    fail) is the job's decision.

    ## Known limits
    - A `set(..., nx=True)` acquire is Redis's only where a Redis client is in
      reach (a known client receiver, or `redis`, `django_redis`,
      `django.core.cache`... imported by the module or a project module it
      imports).
    - `acquire(blocking=False)` counts on any receiver (threading locks
      included: ignoring the result is the same bug). `acquire(False)` is not
      read: redis-py's first positional is `sleep`, not `blocking`.
    - Lock evidence is read from the source: keys are compared by their text,
      lock words are matched on the words of the key's text, and a module
      constant used as the key is read from the module that defines it.
    - Calls in a `with pytest.raises(...)` / `with self.assertRaises(...)`
      block, or in the arguments of such a call, test an error: not reported.
    - `set(..., nx=True)` on a pipeline (a name assigned from `.pipeline()`,
      `with r.pipeline() as pipe`, or a receiver whose name contains `pipe`)
      is not reported: its result comes from `execute()`.
    - After `cur.execute(...)`, any read of `cur` later in the function
      (`fetchone()`, iteration, passing it on) counts as reading the row.
      An advisory lock used inside the query (`WHERE pg_try_advisory_lock(id)`)
      is checked by the query itself and never reported.
    - `advisory_lock(..., wait=False)` counts only as a literal false (keyword
      or third positional); its flag counts as read when its name appears
      anywhere in the `with` block (logged or passed on included). A module's
      own function named `advisory_lock` is not the library's.
    """

    CODE = "JL404"
    TRIGGERS = _TRIGGERS
    SUMMARY = "Non-blocking lock attempt whose result is ignored: the job runs either way"
    HELP = "Check the result and skip (or retry later) when the lock wasn't acquired"

    VALID = (
        Valid(
            """
def sync(r, token, lock):
    if not r.set("lock:sync", token, nx=True, ex=300):
        return
    acquired = lock.acquire(blocking=False)
    if not acquired:
        return
    lock.acquire()
    lock.acquire(blocking=True)
""",
            id="checked",
        ),
        Valid(
            """
import redis

r = redis.Redis()

def sync(token):
    pipe = r.pipeline()
    pipe.set("lock:sync", token, nx=True, ex=300)
    pipe.incr("runs")
    won, _ = pipe.execute()
    with r.pipeline() as p:
        p.set("lock:sync", token, nx=True, ex=300)
        p.execute()
""",
            id="pipeline",
        ),
    )

    INVALID = (
        invalid(
            """import redis
def sync(r, token, lock):
    r.set("lock:sync", token, nx=True, ex=300)
    lock.acquire(blocking=False)
""",
            (3, 5, "set(..., nx=True)"),
            (4, 5, "acquire(blocking=False)"),
            id="bare-statements",
        ),
        invalid(
            """
from redis.asyncio import Redis

async def sync(r: Redis, token):
    await r.set("lock:sync", token, nx=True, ex=300)
    lock = r.lock("sync", timeout=60)
    await lock.acquire(blocking=False)
""",
            (5, 11, "only signal"),
            (7, 11, "acquire(blocking=False)"),
            id="asyncio",
        ),
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._pending: list[_PendingExecute] = []

    def visit_Expr(self, node: cst.Expr) -> None:
        call = unwrap(node.value)
        if not isinstance(call, cst.Call) or expects_error(call, self.context):
            return
        method = method_name(call)
        non_blocking = non_blocking_acquire(call)
        acquire = key_lock(call, self.context) if non_blocking is None else None
        if non_blocking is not None:
            self._report_non_blocking(non_blocking)
        elif acquire is not None:
            self._check_key_lock(acquire)
        elif method in locks.SQL_ROW_METHODS or method in locks.SQL_CURSOR_METHODS:
            self._check_advisory(call, method)

    def _report_non_blocking(self, acquire: NonBlockingAcquire) -> None:
        self.report(
            acquire.call,
            f"{acquire.method}({acquire.keyword}=False) returns False when the lock is taken, "
            "and the result is ignored: the code below runs whether or not it holds the lock. "
            "Check it and skip when False",
        )

    def _check_key_lock(self, acquire: KeyLock) -> None:
        # A lock taken by a command without an expiry is JL402's: it must
        # become one with an expiry first (the fix this message names).
        if not acquire.command.takes_expiry:
            return
        target = receiver(acquire.call)
        if target is None or _maybe_pipeline(target, self):
            return
        # A bare SET NX of a key that names no lock (a counter seeded once, a
        # marker set up by a test) is a plain command, not a lock attempt.
        evidence = lock_evidence(
            acquire.call, self.context, result_read=False, command=acquire.command
        )
        if not evidence.is_lock:
            return
        command = acquire.command
        self.report(
            acquire.call,
            f"{command.receiver_text}{command.display} as a bare statement: its return value "
            "is the only signal of who won the lock, and it is ignored, so every worker runs "
            f"the job. Use `if not {command.receiver_text or 'r.'}{command.fix}: return` or "
            f"{locks.RUNTIME_LOCK}",
            requires=evidence.requires,
        )

    # --- a try-lock context whose flag is never read ----------------------------------

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            call = unwrap(item.item)
            if not isinstance(call, cst.Call):
                continue
            entered = try_lock_context(call, self.context)
            if entered is None or expects_error(call, self.context):
                continue
            target = item.asname.name if item.asname is not None else None
            if target is None:
                self.report(call, _try_lock_message(entered, "without `as`"))
            elif isinstance(target, cst.Name) and not _name_read(node.body, target):
                self.report(call, _try_lock_message(entered, f"as {target.value}, never read"))

    def visit_Decorator(self, node: cst.Decorator) -> None:
        call = node.decorator
        if isinstance(call, cst.Call):
            entered = try_lock_context(call, self.context)
            if entered is not None:
                self.report(call, _try_lock_message(entered, "as a decorator"))

    def _check_advisory(self, call: cst.Call, method: str) -> None:
        functions = self._advisory_functions(call)
        if not functions:
            return
        if method in locks.SQL_ROW_METHODS:
            self.report(call, _advisory_message(functions[0]))
            return
        target = receiver(call)
        if target is None or isinstance(unwrap(target), cst.Call):
            self.report(call, _advisory_message(functions[0]))
            return
        self._pending.append(_PendingExecute(call, key_code(target), self.context.frame.key))

    def _advisory_functions(self, call: cst.Call) -> tuple[str, ...]:
        found: list[str] = []
        for sql in call_sql(call, lookup_for(self.context)):
            found.extend(selected_functions(sql.text, locks.TRY_ADVISORY_FUNCTIONS) or ())
        return tuple(found)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._settle(node, self.context.frame.key)

    def leave_Module(self, node: cst.Module) -> None:
        self._settle(node, "")

    def _settle(self, scope: cst.FunctionDef | cst.Module, key: str) -> None:
        mine = [p for p in self._pending if p.function == key]
        if not mine:
            return
        self._pending = [p for p in self._pending if p.function != key]
        for pending in mine:
            if not _read_after(scope, pending):
                functions = self._advisory_functions(pending.node)
                self.report(pending.node, _advisory_message(functions[0] if functions else ""))


def _try_lock_message(entered: TryLockEntered, how: str) -> str:
    api = entered.api
    name = api.qualname.rsplit(".", 1)[-1]
    return (
        f"{name}(..., {api.keyword}=False) {how}: it yields whether the lock was taken and "
        "the block runs either way, so the job runs without the lock. Use "
        f"`with {name}(key, {api.keyword}=False) as acquired:` and skip when not acquired, or "
        f"{locks.ADVISORY_LOCK_FIX}"
    )


def _name_read(scope: cst.CSTNode, target: cst.Name) -> bool:
    """Whether `target`'s name is read in `scope` (the block of the `with`: once
    it ends, the lock is already released)."""
    found = {"yes": False}

    def enter(node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name) and node is not target and node.value == target.value:
            found["yes"] = True

    walk(scope, enter, lambda node: None)
    return found["yes"]


def _advisory_message(function: str) -> str:
    return (
        f"{function}(...) returns whether the lock was taken, and that row is never read: "
        "the job runs either way. Read the boolean and skip when it is false, or use "
        f"{locks.ADVISORY_LOCK_FIX}"
    )


def _maybe_pipeline(target: cst.BaseExpression, rule: UncheckedLockAcquire) -> bool:
    kind = client_kind(target, lookup_for(rule.context))
    if kind == "pipeline":
        return True
    text = key_code(target).lower()
    return kind is None and any(word in text for word in locks.PIPELINE_NAME_WORDS)


def _read_after(scope: cst.CSTNode, pending: _PendingExecute) -> bool:
    """Whether the receiver is read (or used in any way but to run more SQL) after
    the call, in source order, in this scope."""
    state = {"seen": False, "read": False}
    handled: set[int] = set()

    def enter(node: cst.CSTNode) -> None:
        if node is pending.node:
            state["seen"] = True
            handled.add(id(node.func))
            if isinstance(node.func, cst.Attribute):
                handled.add(id(node.func.value))
            return
        if not state["seen"] or state["read"] or id(node) in handled:
            return
        if isinstance(node, cst.Attribute) and _is_receiver(node.value, pending):
            handled.add(id(node.value))
            if node.attr.value in locks.RESULT_READ_METHODS:
                state["read"] = True
        elif isinstance(node, cst.Name | cst.Attribute) and _is_receiver(node, pending):
            state["read"] = True  # passed on, iterated, returned: assume it's read

    walk(scope, enter, lambda node: None)
    return state["read"]


def _is_receiver(node: cst.BaseExpression, pending: _PendingExecute) -> bool:
    if isinstance(node, cst.Name):
        return node.value == pending.receiver
    if isinstance(node, cst.Attribute):
        return key_code(node) == pending.receiver
    return False
