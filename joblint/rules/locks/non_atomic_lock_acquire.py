"""JL405 non-atomic-lock-acquire.

Lock taken in two steps (check, then set): two workers can both take it.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL405` show) and its teaching examples."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import libcst as cst

from joblint.analysis.names import Resolver, unwrap
from joblint.analysis.sql import lookup_for
from joblint.analysis.walk import walk
from joblint.knowledge import locks
from joblint.knowledge.tokens import Trigger, alternatives
from joblint.rule import LineOf, Rule, Valid, invalid
from joblint.rules.locks._facts.lock_calls import key_lock
from joblint.rules.locks._facts.lock_evidence import check_then_set_evidence, expects_error
from joblint.rules.locks._facts.redis_clients import (
    is_cache,
    key_code,
    method_name,
    positional,
    receiver,
    response_cache,
)

# A Redis client or a cache is named, also inside other words (`redis_client`,
# `self.cache`): the last part of a Redis module's name, or a response cache's.
_STORE_WORDS = {
    *(module.rsplit(".", 1)[-1] for module in locks.REDIS_MODULES),
    *(store.rsplit(".", 1)[-1].lower() for store in locks.RESPONSE_CACHES),
}
_READ_METHODS = locks.GET_METHODS | locks.EXISTS_METHODS | locks.RESPONSE_LOOKUP_METHODS

# A key that names a lock (its words, as the file spells them), or one deleted
# once the work is done.
_LOCK_EVIDENCE = {
    *(word for word in locks.LOCK_KEY_WORDS if " " not in word),
    *(f".{m}(" for m in locks.DELETE_METHODS),
}

_TRIGGERS: tuple[Trigger, ...] = (
    # A check of a key (`r.get(key)`, `r.exists(key)`, `cache.has_key(key)`,
    # a response cache's lookup) and a set.
    # The lock evidence: a lock word in the file (in the key or the function's
    # name), or a delete of a key.
    Trigger(
        tuple(f".{m}(" for m in sorted(_READ_METHODS)),
        (alternatives(_STORE_WORDS),),
        also=(
            tuple(f".{m}(" for m in sorted(locks.SET_METHODS)),
            tuple(sorted(_LOCK_EVIDENCE)),
        ),
        confirm="key-checked-then-set",
    ),
)

# Statements that leave the block: after `if <key present>: return`, the key was absent.
_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


@dataclass(frozen=True, slots=True)
class _Check:
    """A read of a key in a condition, and where the key was found absent."""

    read: cst.Call
    receiver: str
    key: str
    # True: the condition holds when the key is absent (`not r.get(key)`).
    absent_when_true: bool
    # The name the read was bound to before the condition (`v = cache.get(key)`).
    bound: str = ""


@dataclass(frozen=True, slots=True)
class _Bound:
    """A name bound to a read; `response`: to a response cache's lookup,
    whose attribute (not its truth) says whether the key was found."""

    read: cst.Call
    response: bool = False


class NonAtomicLockAcquire(Rule):
    """
    ## What it does
    Finds a lock taken in two steps: a check that the key is absent, then a
    plain set of the same key on the path the check guards. `if not
    r.get(key): r.set(key, token)`, `if not r.exists(key): ...
    r.set(key, ...)`, `if cache.get(key) is None: cache.set(key, ...)`, and
    the early exit `if r.get(key): return` followed by `r.set(key, ...)`;
    the asyncio clients (`await r.get(key)`) alike, and edx-django-utils'
    `TieredCache` (`if TieredCache.get_cached_response(key).is_found:
    return` then `TieredCache.set_all_tiers(key, ...)`).

    Only a lock counts: the key names one (`lock`, `mutex`, `running`,
    `singleton`... with a marker or an owner's token as the value), or the
    key is deleted after the set, when the work ends, or the function is a
    try-lock: its name names a lock (`acquire_report_lock`) and it answers
    whether it took it (`return True` and `return False`), with a marker or
    a token as the value.

    ## Why is this bad?
    Between the check and the set, another worker runs the same check, sees
    the key absent too, and sets it: both go on to do the "exclusive" work.
    Under load, with retries or a beat that fires twice, this happens.

    ## Example
    ```python
    def nightly_report(r, token):
        if r.get("lock:nightly-report"):
            return
        r.set("lock:nightly-report", token, ex=900)
        try:
            build_report()
        finally:
            r.delete("lock:nightly-report")
    ```

    ## Use instead
    ```python
    def nightly_report(r, token):
        if not r.set("lock:nightly-report", token, nx=True, ex=900):
            return
        build_report()
    ```
    One atomic command decides who wins: `set(key, token, nx=True, ex=...)`
    on Redis, `cache.add(key, token, timeout=...)` on a Django cache, or
    `joblint_runtime.lock.RedisLock`, which also releases with a token
    check.

    ## Fix safety
    No automatic fix: the atomic acquire returns whether it won, and what the
    loser does (skip, retry later) is the job's decision.

    ## Known limits
    - The check and the set are matched by their source text: the same
      receiver (`r`, `self.redis`, `cache`) and the same key expression.
      A check through a name is followed when the name is bound to the read
      just before, in the same block (`v = cache.get(key)`, then `if v is
      None:`).
    - The set must be on the path the check guards: inside the `if` whose
      condition says the key is absent, or in its `else` / after it when the
      condition says present and its block leaves (`return`, `raise`,
      `continue`, `break`), or after a `while <key present>:` wait loop
      without a `break`. A set in another branch is not reported.
    - Not a finding: a cache fill (a key that names no lock and is not
      deleted after the set; or a set of the very value the read was bound
      to, `v = cache.get(key) ... v = compute(); cache.set(key, v)`); a set
      whose value is computed (`cache.set("running_jobs", count_jobs())`)
      unless the key is deleted after it; a `set(..., nx=True)` after the
      check (atomic). A delete of the key in another function (a
      `release_...` beside the acquire) is no evidence on its own: a cache's
      invalidation deletes a debounce marker's key just the same.
    - edx-django-utils' `RequestCache` has the same lookup but lives in one
      request's thread: no other worker races with it, and it is not read.
    - Like the other lock rules, the calls are Redis's or a cache's only
      where a Redis client or Django's cache is in reach (the receiver, or
      an import of the module or a project module it imports).
    """

    CODE = "JL405"
    TRIGGERS = _TRIGGERS
    SUMMARY = "Lock taken in two steps (check, then set): two workers can both take it"
    HELP = (
        "Take the lock in one atomic step: set(key, token, nx=True, ex=...) on Redis, "
        "cache.add(key, token, timeout=...) on a Django cache, or "
        "joblint_runtime.lock.RedisLock"
    )

    VALID = (
        Valid(
            """
import redis

r = redis.Redis()

def report(token):
    if not r.set("lock:report", token, nx=True, ex=900):
        return
    build_report()
    r.delete("lock:report")
""",
            id="atomic-set-nx",
        ),
        Valid(
            """
from django.core.cache import cache

def dashboard(user_id):
    key = f"dashboard:{user_id}"
    data = cache.get(key)
    if data is None:
        data = compute_dashboard(user_id)
        cache.set(key, data, 300)
    return data
""",
            id="cache-fill",
        ),
    )

    INVALID = (
        invalid(
            """
import redis

r = redis.Redis()

def report(token):
    if r.get("lock:report"):
        return
    r.set("lock:report", token, ex=900)
    build_report()
    r.delete("lock:report")
""",
            (9, 5, "line 7"),
            id="check-then-set",
        ),
        invalid(
            """
from django.core.cache import cache

def sync(account_id):
    key = f"sync-lock:{account_id}"
    if cache.get(key) is None:
        cache.set(key, True, 600)
        run_sync(account_id)
""",
            (7, 9, "cache.add(key, token, timeout=...)"),
            id="django-cache-check-then-set",
        ),
    )

    # At the end of a block: the names bound in it (`key = f"lock:{pk}"`) are known.
    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._check_block(node.body)

    def leave_Module(self, node: cst.Module) -> None:
        self._check_block(node.body)

    def _check_block(self, body: Sequence[cst.BaseStatement]) -> None:
        for index, statement in enumerate(body):
            if isinstance(statement, cst.If):
                self._check_if(statement, body[:index], body[index + 1 :])
            elif isinstance(statement, cst.While):
                self._check_while(statement, body[:index], body[index + 1 :])

    def _check_if(
        self,
        node: cst.If,
        before: Sequence[cst.BaseStatement],
        after: Sequence[cst.BaseStatement],
    ) -> None:
        resolver = self.context.resolver
        for check in _checks(node.test, _bound_reads(before, resolver), resolver):
            if check.absent_when_true:
                guarded: list[cst.CSTNode] = [node.body]
            else:
                guarded = [node.orelse] if isinstance(node.orelse, cst.Else) else []
                if _leaves(node.body):
                    guarded.extend(after)
            self._report_set(check, guarded)

    def _check_while(
        self,
        node: cst.While,
        before: Sequence[cst.BaseStatement],
        after: Sequence[cst.BaseStatement],
    ) -> None:
        """`while r.get(key): sleep(...)` then `r.set(key, ...)`: a wait, then the same race."""
        if _breaks(node.body):
            return
        resolver = self.context.resolver
        for check in _checks(node.test, _bound_reads(before, resolver), resolver):
            if not check.absent_when_true:
                self._report_set(check, list(after))

    def _report_set(self, check: _Check, guarded: Sequence[cst.CSTNode]) -> None:
        for call in _sets(guarded, check):
            if key_lock(call, self.context) is not None:
                continue  # an atomic set-if-absent: the check is only a shortcut
            if _refills(call, check) or expects_error(call, self.context):
                continue
            key = positional(call)[0]
            evidence = check_then_set_evidence(call, key, self.context)
            if not evidence.is_lock:
                continue
            if not evidence.released and not _marks(call):
                continue  # a computed value under a lock-like key: a cache fill
            self.report(
                call,
                self._message(call, check),
                requires=evidence.requires,
                statement=None,
                related=((check.read, f"the check of {check.key}"),),
            )
            return

    def _message(self, call: cst.Call, check: _Check) -> Callable[[LineOf], str]:
        atomic = _atomic_acquire(call, self)

        def message(line_of: LineOf) -> str:
            return (
                f"{method_name(call)}({check.key}, ...) takes a lock checked at line "
                f"{line_of(check.read)} in a separate step: two workers can both see the key "
                f"absent and both take the lock. Take it in one step with `{atomic}` (its "
                f"result says who won) or {locks.RUNTIME_LOCK}"
            )

        return message


# --- the checks ------------------------------------------------------------------------


def _read(node: cst.BaseExpression) -> cst.Call | None:
    """`r.get(key)` / `r.exists(key)` / `await cache.aget(key)`: a read of one key."""
    node = unwrap(node)
    if not isinstance(node, cst.Call) or receiver(node) is None:
        return None
    method = method_name(node)
    if method not in locks.GET_METHODS and method not in locks.EXISTS_METHODS:
        return None
    return node if len(positional(node)) >= 1 else None


def _lookup(node: cst.BaseExpression, resolver: Resolver) -> cst.Call | None:
    """`TieredCache.get_cached_response(key)`: a response cache's read of one key."""
    node = unwrap(node)
    if not isinstance(node, cst.Call) or method_name(node) not in locks.RESPONSE_LOOKUP_METHODS:
        return None
    target = receiver(node)
    if target is None or response_cache(target, resolver) is None:
        return None
    return node if len(positional(node)) >= 1 else None


def _bound_reads(before: Sequence[cst.BaseStatement], resolver: Resolver) -> dict[str, _Bound]:
    """Names bound to a read by the statements before the check, in its block
    (the last binding of each name wins)."""
    bound: dict[str, _Bound] = {}
    for statement in before:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Assign):
                continue
            read = _read(small.value)
            lookup = _lookup(small.value, resolver) if read is None else None
            for target in small.targets:
                if not isinstance(target.target, cst.Name):
                    continue
                if read is not None:
                    bound[target.target.value] = _Bound(read)
                elif lookup is not None:
                    bound[target.target.value] = _Bound(lookup, response=True)
                else:
                    bound.pop(target.target.value, None)
    return bound


def _checks(test: cst.BaseExpression, bound: dict[str, _Bound], resolver: Resolver) -> list[_Check]:
    """The reads a condition tests, and whether it holds when the key is absent.
    Under `and`, the absent tests hold for the block; under `or`, the present
    ones do (for the code after a block that leaves)."""
    test = unwrap(test)
    if isinstance(test, cst.BooleanOperation):
        wanted = isinstance(test.operator, cst.And)
        found = _checks(test.left, bound, resolver) + _checks(test.right, bound, resolver)
        return [check for check in found if check.absent_when_true is wanted]
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return [_flipped(check) for check in _checks(test.expression, bound, resolver)]
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if not _is_empty(target.comparator):
            return []
        if isinstance(target.operator, cst.Is | cst.Equal):
            return [_flipped(check) for check in _checks(test.left, bound, resolver)]
        if isinstance(target.operator, cst.IsNot | cst.NotEqual):
            return _checks(test.left, bound, resolver)
        return []
    name = ""
    if isinstance(test, cst.Attribute):
        found_lookup = _found(test, bound, resolver)
        if found_lookup is None:
            return []
        name, read = found_lookup
    elif isinstance(test, cst.Name) and test.value in bound:
        if bound[test.value].response:
            return []  # a response has no truth value: its attribute says
        name, read = test.value, bound[test.value].read
    else:
        found_read = _read(test)
        if found_read is None:
            return []
        read = found_read
    target_node = receiver(read)
    if target_node is None:
        return []
    key = key_code(positional(read)[0])
    return [_Check(read, key_code(target_node), key, absent_when_true=False, bound=name)]


def _found(
    test: cst.Attribute, bound: dict[str, _Bound], resolver: Resolver
) -> tuple[str, cst.Call] | None:
    """`response.is_found` of a name bound to a lookup, or of the lookup itself:
    the name ("" for the lookup) and the lookup; None for any other attribute."""
    value = unwrap(test.value)
    name = ""
    if isinstance(value, cst.Name) and value.value in bound and bound[value.value].response:
        name, read = value.value, bound[value.value].read
    else:
        lookup = _lookup(value, resolver)
        if lookup is None:
            return None
        read = lookup
    target = receiver(read)
    cache = response_cache(target, resolver) if target is not None else None
    if cache is None or test.attr.value != cache.found_attribute:
        return None
    return name, read


def _flipped(check: _Check) -> _Check:
    return _Check(check.read, check.receiver, check.key, not check.absent_when_true, check.bound)


def _is_empty(node: cst.BaseExpression) -> bool:
    """`None`, `0`, `False`: what an absent key reads as (`exists(key) == 0`)."""
    node = unwrap(node)
    if isinstance(node, cst.Name):
        return node.value in ("None", "False")
    return isinstance(node, cst.Integer) and node.value == "0"


def _leaves(block: cst.BaseSuite) -> bool:
    """The block ends by leaving (`return`, `raise`, `continue`, `break`)."""
    if isinstance(block, cst.SimpleStatementSuite):
        return bool(block.body) and isinstance(block.body[-1], _EXITS)
    if not isinstance(block, cst.IndentedBlock) or not block.body:
        return False
    last = block.body[-1]
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], _EXITS)


def _breaks(block: cst.BaseSuite) -> bool:
    """A `break` of this loop (not of a loop nested in it)."""
    found = {"yes": False}
    depth = {"loops": 0}

    def enter(node: cst.CSTNode) -> None:
        if isinstance(node, cst.For | cst.While):
            depth["loops"] += 1
        elif isinstance(node, cst.Break) and depth["loops"] == 0:
            found["yes"] = True

    def leave(node: cst.CSTNode) -> None:
        if isinstance(node, cst.For | cst.While):
            depth["loops"] -= 1

    walk(block, enter, leave)
    return found["yes"]


# --- the sets ---------------------------------------------------------------------------


def _sets(guarded: Sequence[cst.CSTNode], check: _Check) -> list[cst.Call]:
    """Sets of the checked key on the checked receiver, in the guarded code
    (not in functions or classes defined there)."""
    found: list[cst.Call] = []
    nested = {"depth": 0}

    def enter(node: cst.CSTNode) -> None:
        if isinstance(node, _SCOPES):
            nested["depth"] += 1
        elif nested["depth"] == 0 and isinstance(node, cst.Call) and _sets_key(node, check):
            found.append(node)

    def leave(node: cst.CSTNode) -> None:
        if isinstance(node, _SCOPES):
            nested["depth"] -= 1

    for part in guarded:
        walk(part, enter, leave)
    return found


def _sets_key(call: cst.Call, check: _Check) -> bool:
    if method_name(call) not in locks.SET_METHODS:
        return False
    target = receiver(call)
    args = positional(call)
    return (
        target is not None
        and len(args) >= 2
        and key_code(target) == check.receiver
        and key_code(args[0]) == check.key
    )


def _value(call: cst.Call) -> cst.BaseExpression | None:
    """The value a set stores: the last positional (`setex(key, ttl, value)`
    has it third, `set(key, value, ttl)` second: read by the method's shape)."""
    args = positional(call)
    method = method_name(call) or ""
    index = 2 if method in locks.TTL_FIRST_SET_METHODS else 1
    return args[index] if len(args) > index else None


def _refills(call: cst.Call, check: _Check) -> bool:
    """A set of the very name the read was bound to: a cache fill."""
    value = _value(call)
    return bool(check.bound) and isinstance(value, cst.Name) and value.value == check.bound


def _marks(call: cst.Call) -> bool:
    """The value is a marker or an owner's token: a literal, or a name, attribute
    or call whose text has a token word (`token`, `worker_id`, `uuid4()`)."""
    value = _value(call)
    if value is None:
        return False
    value = unwrap(value)
    if isinstance(value, cst.Integer | cst.Float | cst.SimpleString):
        return True
    if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
        return True
    return locks.names_a_token(key_code(value))


def _atomic_acquire(call: cst.Call, rule: Rule) -> str:
    """The one-step acquire on this receiver, by the libraries' set-if-absent commands."""
    target = receiver(call)
    fronted = response_cache(target, rule.context.resolver) if target is not None else None
    on_cache = target is not None and is_cache(target, lookup_for(rule.context))
    wanted = locks.LockReceiver.CACHE if on_cache else locks.LockReceiver.ANY
    if fronted is not None:
        wanted = fronted.atomic_receiver
    for commands in locks.KEY_LOCK_COMMANDS.values():
        for command in commands:
            if command.receiver is wanted and command.takes_expiry:
                return f"{command.receiver_text}{command.fix}"
    return locks.RUNTIME_LOCK
