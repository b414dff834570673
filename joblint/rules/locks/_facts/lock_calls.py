"""Lock calls as neutral facts: a lock taken on a key, a lock object made, a
non-blocking acquire, a key released or read.

Which calls these are, on which receivers, and where their expiry goes is the
libraries' data (`joblint.knowledge.locks`); the rules judge the facts (does
the lock expire, is the result read, is the release checked) and take the
names and keywords their messages and fixes need from the facts' API data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.sql import Lookup, lookup_for
from joblint.knowledge import locks
from joblint.requirements import CacheLockApi, Requirement
from joblint.rules.locks._facts.redis_clients import (
    Tri,
    cache_alias,
    cache_class,
    client_kind,
    has_star,
    is_cache,
    is_none,
    keyword,
    literal,
    method_name,
    positional,
    receiver,
)


class Expiry(Enum):
    """What a call says about the lock's expiry."""

    GIVEN = "given"  # an expiry argument that isn't None
    ABSENT = "absent"  # no expiry argument (or the API has none)
    NONE = "none"  # an explicit None: no expiry
    UNKNOWN = "unknown"  # `*args`/`**kwargs` may carry one


def never_expires(expiry: Expiry, *, default_expires: bool = False) -> bool:
    """Whether the lock surely never expires; `default_expires`: given no
    expiry, the store's default timeout applies."""
    return expiry is Expiry.NONE or (expiry is Expiry.ABSENT and not default_expires)


def read_expiry(call: cst.Call, keywords: Sequence[str], position: int | None) -> Expiry:
    """The expiry a call gives in one of `keywords` or at `position`."""
    if not keywords and position is None:
        return Expiry.ABSENT  # the API takes none: nothing can carry one
    if has_star(call):
        return Expiry.UNKNOWN
    args = positional(call)
    slots = [args[position]] if position is not None and len(args) > position else []
    slots.extend(value for name in keywords if (value := keyword(call, name)) is not None)
    if any(not is_none(value) for value in slots):
        return Expiry.GIVEN
    return Expiry.NONE if slots else Expiry.ABSENT


def _receiver_fits(
    target: cst.BaseExpression | None, needed: locks.LockReceiver, lookup: Lookup
) -> bool:
    if target is None:
        return False
    if needed is locks.LockReceiver.CLIENT:
        return client_kind(target, lookup) is not None
    if needed is locks.LockReceiver.CACHE:
        return is_cache(target, lookup)
    return True


# --- a lock taken on a key ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyLock:
    """A command that sets `key` only when it is absent (`set(key, token,
    nx=True)`, `setnx(key, token)`): a lock acquire, if the key is a lock's
    (`joblint.rules.locks._facts.lock_evidence` says)."""

    call: cst.Call
    key: cst.BaseExpression
    command: locks.KeyLockCommand
    expiry: Expiry

    @property
    def never_expires(self) -> bool:
        return never_expires(self.expiry, default_expires=self.command.default_expires)


def key_lock(call: cst.Call, context: FileContext) -> KeyLock | None:
    """The key lock `call` takes, by the first command whose shape and receiver fit."""
    commands = locks.KEY_LOCK_COMMANDS.get(method_name(call) or "")
    if not commands:
        return None
    shaped: list[tuple[locks.KeyLockCommand, list[cst.BaseExpression]]] = []
    for command in commands:
        args = key_lock_arguments(call, command)
        if _conditional(call, command) and _has_arguments(args, command):
            shaped.append((command, args))
    if not shaped:
        return None
    target = receiver(call)
    lookup = lookup_for(context)
    for command, args in shaped:
        if _receiver_fits(target, command.receiver, lookup):
            expiry = read_expiry(call, command.expiry_keywords, command.expiry_position)
            return KeyLock(call, args[0], command, expiry)
    return None


def key_lock_arguments(call: cst.Call, command: locks.KeyLockCommand) -> list[cst.BaseExpression]:
    """The leading arguments (the key, the value) as the command binds them:
    the positionals, then its parameters after them given by keyword
    (`set(name=key, value=token, nx=True)`), as far as they go in order."""
    args = positional(call)
    for name in command.parameters[len(args) :]:
        value = keyword(call, name)
        if value is None:
            break
        args.append(value)
    return args


def _conditional(call: cst.Call, command: locks.KeyLockCommand) -> bool:
    """`nx=True` (a literal true value) where the command needs its flag."""
    if not command.flag_keyword:
        return True
    value = keyword(call, command.flag_keyword)
    return value is not None and literal(value) is Tri.YES


def _has_arguments(args: Sequence[cst.BaseExpression], command: locks.KeyLockCommand) -> bool:
    """The key and the value; more positionals only where the expiry may go."""
    if command.expiry_position is None:
        return len(args) == command.arguments
    return len(args) >= command.arguments


# --- a lock object made -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MadeLock:
    """A call that makes a lock object (`r.lock(name)`, `Lock(client, name)`),
    read as `api`; it stands for the call only when every requirement holds (a
    cache's lock is read once per backend its settings may give)."""

    call: cst.Call
    api: locks.LockApi
    expiry: Expiry
    requires: tuple[Requirement, ...] = ()

    @property
    def never_expires(self) -> bool:
        return never_expires(self.expiry)


def made_locks(call: cst.Call, context: FileContext) -> tuple[MadeLock, ...]:
    """The readings of a lock-making call: a method on the receiver it needs, or
    a library function or class (never one the module defines itself)."""
    target = receiver(call)
    apis = locks.LOCK_METHODS.get(method_name(call) or "", ())
    lookup = lookup_for(context) if apis else None
    for api in apis:
        if lookup is not None and _receiver_fits(target, api.receiver, lookup):
            if api.backend_defined and target is not None:
                return _cache_locks(call, api, target, lookup)
            return (_made(call, api),)
    constructor = locks.LOCK_CONSTRUCTORS.get(context.resolver.library_name(call.func) or "")
    return (_made(call, constructor),) if constructor is not None else ()


def _made(call: cst.Call, api: locks.LockApi) -> MadeLock:
    keywords = (api.expiry_keyword,) if api.expiry_keyword else ()
    return MadeLock(call, api, read_expiry(call, keywords, api.expiry_position))


def _cache_locks(
    call: cst.Call, api: locks.LockApi, target: cst.BaseExpression, lookup: Lookup
) -> tuple[MadeLock, ...]:
    """A cache's `lock()`: its signature is its backend's. An annotation naming
    the backend (`cache: RedisCache`) says which; otherwise one reading per
    backend, each standing where the project's settings give the cache alias
    that backend, and one for a backend they don't name (`api`, expiring only
    if some backend's reading does)."""
    backend = locks.CACHE_BACKEND_LOCK_APIS.get(cache_class(target, lookup))
    if backend is not None:
        return (_made(call, locks.CACHE_LOCK_APIS[backend]),)
    alias = cache_alias(target, lookup) or ""
    readings = {name: _made(call, lock) for name, lock in locks.CACHE_LOCK_APIS.items()}
    found: list[MadeLock] = []
    if alias:
        found.extend(
            MadeLock(call, reading.api, reading.expiry, (cache_lock_api(alias, name),))
            for name, reading in readings.items()
        )
    unknown = (cache_lock_api(alias, locks.UNKNOWN_CACHE_LOCK_API),) if alias else ()
    found.append(MadeLock(call, api, _any_expiry(list(readings.values())), unknown))
    return tuple(found)


def _any_expiry(readings: Sequence[MadeLock]) -> Expiry:
    """The expiry of a call read under every backend: none only if none gives one."""
    expiries = [reading.expiry for reading in readings]
    if all(never_expires(expiry) for expiry in expiries):
        return Expiry.ABSENT
    return Expiry.UNKNOWN if Expiry.UNKNOWN in expiries else Expiry.GIVEN


def cache_lock_api(alias: str, api: str) -> Requirement:
    """The project's settings give the cache alias `alias` the lock API `api`."""
    return CacheLockApi(alias, frozenset({api}))


# --- a non-blocking acquire -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NonBlockingAcquire:
    """`lock.acquire(blocking=False)`: returns False instead of waiting."""

    call: cst.Call
    method: str
    keyword: str


def non_blocking_acquire(call: cst.Call) -> NonBlockingAcquire | None:
    """A lock acquire told not to wait (a literal False, None or 0)."""
    method = method_name(call)
    for name in locks.NON_BLOCKING_ACQUIRES.get(method or "", ()):
        value = keyword(call, name)
        if method is not None and value is not None and literal(value) is Tri.NO:
            return NonBlockingAcquire(call, method, name)
    return None


# --- a lock context told not to wait -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TryLockEntered:
    """`advisory_lock(key, wait=False)`: a context manager that yields whether
    it got the lock, and runs its block either way."""

    call: cst.Call
    api: locks.TryLockContext


def try_lock_context(call: cst.Call, context: FileContext) -> TryLockEntered | None:
    """The library's try-lock context manager, told not to wait (a literal false)."""
    api = locks.TRY_LOCK_CONTEXTS.get(context.resolver.library_name(call.func) or "")
    if api is None:
        return None
    value = keyword(call, api.keyword)
    args = positional(call)
    if value is None and api.position is not None and len(args) > api.position:
        value = args[api.position]
    if value is not None and literal(value) is Tri.NO:
        return TryLockEntered(call, api)
    return None


# --- a key released or read -------------------------------------------------------------


def released_keys(call: cst.Call) -> tuple[cst.BaseExpression, ...] | None:
    """The keys a delete releases (`r.delete(key)`); None when `call` isn't one."""
    if method_name(call) not in locks.DELETE_METHODS:
        return None
    return tuple(positional(call))


def read_key(call: cst.Call) -> cst.BaseExpression | None:
    """The key whose value `call` reads (`r.get(key)`)."""
    if method_name(call) in locks.GET_METHODS:
        args = positional(call)
        if args:
            return args[0]
    return None
