from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from joblint.analysis.lock_evidence import expects_error, lock_evidence
from joblint.analysis.redis_clients import (
    Tri,
    cache_alias,
    cache_class,
    client_kind,
    expiry,
    has_star,
    is_django_cache,
    is_none,
    keyword,
    method_name,
    positional,
    receiver,
    sets_nx,
)
from joblint.analysis.rewrite import with_keyword
from joblint.analysis.sql import Lookup, lookup_for
from joblint.knowledge import locks
from joblint.knowledge.tokens import (
    CACHES_SETTING,
    NX,
    REDIS_CLIENTS,
    Trigger,
    modules_of,
    tails,
    tops,
)
from joblint.models import Requirement
from joblint.rule import FixSpec, Rule, Valid, fix, invalid

_FIX = f"use {locks.REDIS_LOCK_FIX} or {locks.RUNTIME_LOCK}"

_DJANGO_REDIS_SETTINGS = """
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
"""


_TRIGGERS: tuple[Trigger, ...] = (
    Trigger(("nx",), (NX,)),
    Trigger(tuple(sorted(locks.SETNX_METHODS))),
    # redis-py and django-redis `.lock(name)`: on a Redis client or a Django cache.
    Trigger((".lock(",), (REDIS_CLIENTS,)),
    Trigger(tuple(f".{m}(" for m in sorted(set(locks.LOCK_METHODS) - {"lock"}))),
    # redis.lock.Lock, redis_lock.Lock, huey's lock_task
    Trigger(
        tuple(sorted(tops(locks.LOCK_CONSTRUCTORS))),
        (modules_of(locks.LOCK_CONSTRUCTORS),),
        also=(tuple(sorted(tails(locks.LOCK_CONSTRUCTORS))),),
    ),
    CACHES_SETTING,
)


class LockWithoutExpiry(Rule):
    """
    ## What it does
    Finds Redis locks that never expire: `set(key, value, nx=True)` with none
    of `ex`, `px`, `exat`, `pxat`; `setnx(...)`; redis-py `r.lock(name)` and
    `redis.lock.Lock(client, name)` without `timeout=`; a Django cache's
    `cache.lock(name)` without its backend's expiry (`timeout=` for
    django-redis, `expire=` for python-redis-lock's
    `redis_lock.django_cache.RedisCache`); python-redis-lock
    `redis_lock.Lock(conn, name)` without `expire=`; Huey `lock_task(...)`,
    which has no expiry at all.

    A `set(..., nx=True)` or `setnx(...)` counts as a lock only with evidence
    of one: its key is not a string literal, or names a lock (`lock`,
    `mutex`, `singleton`, `running`, `leader`...), or the same key is deleted
    or expired later in the function, or the result gates the work (`if
    r.set(...)`, `if not r.set(...): return`, assigned and then tested, or
    returned). A literal-key `SET NX` without any of these is a plain Redis
    command: a counter seeded once, a marker a test sets up.

    ## Why is this bad?
    A worker that dies while holding the lock (OOM kill, deploy, lost
    connection) never releases it. Every later run of the job sees the lock
    taken and skips or waits forever: the scheduled job silently stops until
    someone deletes the key by hand. `SETNX` followed by `EXPIRE` has the same
    hole between the two commands.

    ## Example
    ```python
    def nightly_report(r):
        if not r.set("lock:nightly-report", token, nx=True):
            return
        build_report()
    ```

    ## Use instead
    ```python
    def nightly_report(r):
        if not r.set("lock:nightly-report", token, nx=True, ex=15 * 60):
            return
        build_report()
    ```
    or `joblint.runtime.lock.RedisLock(r, "nightly-report", ttl=15 * 60)`,
    which also releases with a token check. Each library names the expiry
    its own way: `ex=`/`px=` for redis-py `set`, `timeout=` for redis-py
    `lock()`/`redis.lock.Lock` and django-redis `cache.lock`, `expire=` for
    python-redis-lock `redis_lock.Lock` and its Django cache backend (with
    `auto_renewal=True` for long jobs). Huey's `lock_task` can't expire: pair
    it with a task `timeout=` and start the consumer with `flush_locks`.

    ## Options
    `default-lock-timeout` (seconds, a positive integer; unset by default):
    the expiry JL402's fix adds.
    ```toml
    [tool.joblint.rules.JL402]
    default-lock-timeout = 60   # seconds; unset: no fix
    ```

    ## Fix safety
    No automatic fix by default: the expiry must exceed the longest run of
    the protected work (or be renewed), otherwise two workers run it at once,
    and only a human knows that number.

    With the option `default-lock-timeout` set (seconds, see Options), an unsafe
    fix (`--fix --unsafe-fixes`) gives a lock object made without an expiry
    that one: redis-py `.lock(name)` and `redis.lock.Lock(client, name)` get
    `timeout=<n>` (replacing `timeout=None`), python-redis-lock
    `redis_lock.Lock(conn, name)` gets `expire=<n>`, and a Django cache's
    `cache.lock(name)` gets its backend's keyword: `timeout=<n>` with
    django-redis, `expire=<n>` with python-redis-lock's backend. The wrong
    keyword raises `TypeError`, so a cache lock whose backend the project's
    settings don't name gets no fix. A lock whose expiry slot holds a
    positional `None` gets no fix, and neither do `set(..., nx=True)`,
    `setnx()` and Huey's `lock_task`. Unsafe because the lock now expires:
    work running longer than `<n>` seconds loses it to another worker.

    ## Known limits
    - A call of a class or function the module itself defines is never taken
      for the library's: a library's own module constructing its own API
      class (`return RetryStrategy()` beside `class RetryStrategy`) is its
      internals, not a use of its API.
    - `.set(..., nx=True)` and `.setnx(...)` are Redis's only where a Redis
      client is in reach: the receiver is a known client, or the module (or a
      project module it imports, up to three imports away) imports `redis`,
      `django_redis`, `django.core.cache` or another Redis client library. A
      project's own store with a `set(..., nx=...)` method is not reported.
      On a Django cache (django-redis) `set(..., nx=True)` uses the cache's
      default timeout, so only an explicit `timeout=None` is reported.
    - Lock evidence is read from the source: keys are compared by their text
      (`key`, `self.key`), lock words are matched on the words of the key's
      text (split at punctuation and camelCase, so `blocklist` is no lock),
      and a module constant used as the key is read from the module that
      defines it, in this project. A result that is only asserted
      (`assert r.set(...)`, `self.assertTrue(...)`) is a test of SET NX
      itself: a literal key that names no lock is then no lock even when a
      delete follows (the test's clean-up). A result passed on to another
      function (`allowed = r.set(...); scan(allowed)`) gates nothing here.
    - Calls in a `with pytest.raises(...)` / `with self.assertRaises(...)`
      block, or in the arguments of such a call, test an error: not reported.
    - `.lock(name)` is only reported on a receiver known to be a Redis client
      (a name or `self.X` assigned once from `redis.Redis(...)`,
      `Redis.from_url(...)`, `redis.asyncio.from_url(...)`,
      `get_redis_connection()`, a `.pipeline()` of one, or a parameter
      annotated with a client class) or a Django cache (`cache`,
      `caches["alias"]`, or a name annotated with a cache backend class).
    - A Django cache's backend is the `BACKEND` of its alias in a module-level
      `CACHES = {...}` dict of the project; settings in test packages don't
      count, and when the settings disagree (or can't be read) the backend is
      unknown: the message names each backend's keyword, and with an
      argument in the expiry slot of one of them (`cache.lock(name, 30)`:
      python-redis-lock's `expire`) nothing is reported.
    - `**kwargs` (or `*args`) that may carry the expiry makes the call unknown:
      not reported. `ex=None` is no expiry.
    """

    CODE = "JL402"
    TRIGGERS = _TRIGGERS
    READS_SETTINGS = True  # the Django cache's backend (CACHES)
    SUMMARY = "Redis lock without an expiry: a crashed worker holds it forever"
    HELP = (
        "Give the lock a TTL with the keyword of its API (ex=/px= for set(), timeout= for "
        "redis-py and django-redis locks, expire= for python-redis-lock) or use "
        "joblint.runtime.lock.RedisLock"
    )

    VALID = (
        Valid(
            """
import redis

r = redis.Redis()

def run(token):
    if r.set("lock:report", token, nx=True, ex=900):
        pass
    if r.set("lock:report", token, 900, nx=True):
        pass
    if r.set("lock:report", token, nx=True, px=900_000):
        pass
""",
            id="set-nx-with-expiry",
        ),
        Valid(
            """
import redis

r = redis.Redis.from_url("redis://localhost")

def run(token, options):
    if r.set("lock:report", token, nx=True, **options):
        pass
    with r.lock("report", timeout=60):
        pass
    with r.lock("report", 60):
        pass
    with r.lock("report", **options):
        pass
""",
            id="kwargs-unknown-and-lock-timeout",
        ),
        Valid(
            """
from django.core.cache import cache

def run(token):
    if cache.set("lock:report", token, nx=True):
        pass
    with cache.lock("report", timeout=60):
        pass
""",
            id="django-cache-default-timeout",
        ),
        Valid(
            """
import threading

_lock = threading.Lock()

def run(user, door):
    with _lock:
        pass
    user.lock("reason")
    door.lock()
""",
            id="other-locks",
        ),
        Valid(
            """
import redis_lock
from pottery import Redlock

def run(conn):
    with redis_lock.Lock(conn, "report", expire=60, auto_renewal=True):
        pass
    with Redlock(key="report", masters={conn}):
        pass
""",
            id="python-redis-lock-expire-and-pottery",
        ),
        Valid(
            """
import redis

r = redis.Redis()
SEEDED = "stats:seeded"

def seed_counters():
    r.set("visits", 0, nx=True)
    r.setnx(b"signups", 0)
    key = "downloads"
    r.set(key, 0, nx=True)
    r.set(SEEDED, 1, nx=True)
    r.set("stats:" "uploads", 0, nx=True)
    r.set(f"stats:blocklist", 0, nx=True)

def test_set_nx_keeps_the_first_value():
    assert r.set("greeting", "hello", nx=True)
    assert not r.set("greeting", "bye", nx=True)
    first = r.setnx("colour", "blue")
    assert first
    r.delete("greeting", "colour")
""",
            id="set-nx-as-a-plain-command",
        ),
        Valid(
            """
import pytest
import redis
import unittest
from redis.exceptions import DataError, LockError

r = redis.Redis()

def test_bad_value(name):
    with pytest.raises(DataError):
        r.set(name, object(), nx=True)
    with pytest.raises(LockError):
        with r.lock(name):
            pass
    pytest.raises(DataError, lambda: r.setnx(name, object()))

class LockTests(unittest.TestCase):
    def test_release_unlocked(self):
        with self.assertRaises(LockError):
            r.lock("orphan").release()
        self.assertRaises(TypeError, lambda: r.lock())
""",
            id="error-tests",
        ),
        Valid(
            """
from django.core.cache import cache

def run():
    with cache.lock("report", 30):
        pass
""",
            id="cache-lock-positional-backend-unknown",
        ),
        Valid(
            """
class Ledger:
    def __init__(self):
        self.rows = {}

    def set(self, key, value, nx=False):
        if nx and key in self.rows:
            return False
        self.rows[key] = value
        return True

def claim_invoice(ledger, invoice_id):
    if not ledger.set(f"invoice:{invoice_id}", "claimed", nx=True):
        return
    send_invoice(invoice_id)
""",
            id="no-redis-in-reach",
        ),
    )

    INVALID = (
        invalid(
            """
import redis

r = redis.Redis()

def run(token):
    if not r.set("lock:report", token, nx=True):
        return
    if not r.set("lock:other", token, nx=True, ex=None):
        return
""",
            (7, 12, "never expires"),
            (9, 12, "set(key, token, nx=True, ex=...)"),
            id="set-nx-without-expiry",
        ),
        invalid(
            """
from redis import Redis

def run(r: Redis):
    if r.setnx("lock:report", 1):
        r.expire("lock:report", 60)
""",
            (5, 8, "setnx"),
            id="setnx",
        ),
        invalid(
            """
from redis import asyncio as aioredis

client = aioredis.from_url("redis://localhost")

async def run():
    async with client.lock("report", blocking_timeout=5):
        pass
""",
            (7, 16, "timeout="),
            id="asyncio-lock-without-timeout",
        ),
        invalid(
            """
import redis
import redis.lock
import redis_lock
from django.core.cache import cache

class Reports:
    def __init__(self):
        self.redis = redis.Redis.from_url("redis://localhost")

    def run(self):
        with self.redis.pipeline().lock("a"):
            pass
        with redis.lock.Lock(self.redis, "b"):
            pass
        with redis_lock.Lock(self.redis, "c"):
            pass
        with cache.lock("d", None):
            pass
""",
            (12, 14, "joblint.runtime.lock.RedisLock"),
            (14, 14, "redis.lock.Lock"),
            (16, 14, "expire="),
            (18, 14, "cache.lock"),
            id="lock-objects",
        ),
        invalid(
            """
from huey import RedisHuey

huey = RedisHuey()

@huey.periodic_task(huey.crontab(minute="0"))
@huey.lock_task("reports")
def reports():
    pass
""",
            (7, 2, "time limit"),
            id="huey-lock-task",
        ),
        invalid(
            """
import redis
import redis.lock
import redis_lock
from django.core.cache import cache

r = redis.Redis()

def run():
    with r.lock("a"):
        pass
    with r.lock("b", timeout=None, blocking_timeout=5):
        pass
    with redis.lock.Lock(r, "c"):
        pass
    with redis_lock.Lock(r, "d"):
        pass
    with cache.lock("e", None):
        pass
    with r.lock("f", None):
        pass
""",
            (10, 10, "never expires"),
            (12, 10, "never expires"),
            (14, 10, "redis.lock.Lock"),
            (16, 10, "expire="),
            (18, 10, "cache.lock"),
            (20, 10, "never expires"),
            fixed="""
import redis
import redis.lock
import redis_lock
from django.core.cache import cache

r = redis.Redis()

def run():
    with r.lock("a", timeout=60):
        pass
    with r.lock("b", timeout=60, blocking_timeout=5):
        pass
    with redis.lock.Lock(r, "c", timeout=60):
        pass
    with redis_lock.Lock(r, "d", expire=60):
        pass
    with cache.lock("e", None, timeout=60):
        pass
    with r.lock("f", None):
        pass
""",
            config={"rules": {"JL402": {"default-lock-timeout": 60}}},
            id="default-lock-timeout-option",
            proj_settings=_DJANGO_REDIS_SETTINGS,
        ),
        invalid(
            """
import redis

r = redis.Redis()
REPORT_LOCK = "reports"

def nightly(token):
    if not r.set("nightly-report", token, nx=True):
        return
    won = r.set("weekly-report", token, nx=True)
    if won:
        pass
    r.set("rebuild", token, nx=True)
    r.delete("rebuild")
    r.set(REPORT_LOCK, token, nx=True)
    r.set(f"export:{token}", token, nx=True)
    if (got := r.setnx("sync", token)) and token:
        pass

def try_claim(token):
    return r.set("claim", token, nx=True)
""",
            (8, 12, "never expires"),
            (10, 11, "never expires"),
            (13, 5, "never expires"),
            (15, 5, "never expires"),
            (16, 5, "never expires"),
            (17, 16, "setnx"),
            (21, 12, "never expires"),
            id="literal-key-with-lock-evidence",
        ),
        invalid(
            """
import redis

from app.keys import SCAN_MARKER, SWEEP

r = redis.Redis()

def sweep(token):
    r.set(SCAN_MARKER, token, nx=True)
    r.set(SWEEP, token, nx=True)
""",
            (10, 5, "never expires"),
            id="key-constant-from-another-module",
            app_keys='SCAN_MARKER = "stats:last-scan"\nSWEEP = "lock:sweep"\n',
        ),
        invalid(
            """
from django.core.cache import cache, caches

def run():
    with cache.lock("a"):
        pass
    with caches["locks"].lock("b", None):
        pass
    with cache.lock("c", 30):
        pass
""",
            (5, 10, "cache.lock(...) without timeout= never expires (django-redis takes timeout=)"),
            (7, 10, "pass timeout="),
            (9, 10, "timeout="),
            fixed="""
from django.core.cache import cache, caches

def run():
    with cache.lock("a", timeout=60):
        pass
    with caches["locks"].lock("b", None, timeout=60):
        pass
    with cache.lock("c", 30, timeout=60):
        pass
""",
            config={"rules": {"JL402": {"default-lock-timeout": 60}}},
            id="django-redis-cache-lock",
            proj_settings="""
CACHES = {
    "default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r/0"},
    "locks": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r/1"},
}
""",
        ),
        invalid(
            """
from django.core.cache import cache

def run():
    with cache.lock("a"):
        pass
    with cache.lock("b", 30):
        pass
    with cache.lock("c", None):
        pass
""",
            (5, 10, "without expire= never expires (python-redis-lock's redis_lock.django_cache"),
            (9, 10, "pass expire="),
            fixed="""
from django.core.cache import cache

def run():
    with cache.lock("a", expire=60):
        pass
    with cache.lock("b", 30):
        pass
    with cache.lock("c", None):
        pass
""",
            config={"rules": {"JL402": {"default-lock-timeout": 60}}},
            id="python-redis-lock-cache-lock",
            proj_settings="""
CACHES = {"default": {"BACKEND": "redis_lock.django_cache.RedisCache", "LOCATION": "redis://r"}}
""",
        ),
        invalid(
            """
from django.core.cache import cache, caches

def run(alias):
    with cache.lock("a"):
        pass
    with caches[alias].lock("b"):
        pass
    with caches["other"].lock("c"):
        pass
""",
            (5, 10, "timeout= for django-redis, expire= for python-redis-lock's"),
            (7, 10, "the BACKEND in CACHES"),
            (9, 10, "timeout= for django-redis"),
            fixed=None,
            config={"rules": {"JL402": {"default-lock-timeout": 60}}},
            id="cache-lock-backend-unknown",
            proj_settings=_DJANGO_REDIS_SETTINGS,
            proj_local="""
CACHES = {"default": {"BACKEND": "redis_lock.django_cache.RedisCache", "LOCATION": "redis://r"}}
""",
            proj_tests_settings="""
CACHES = {"other": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://t"}}
""",
        ),
        invalid(
            """
from django_redis.cache import RedisCache
from redis_lock.django_cache import RedisCache as LockingCache

def run(cache: RedisCache, locking: LockingCache):
    with cache.lock("a"):
        pass
    with locking.lock("b"):
        pass
    if cache.set("lock:c", 1, timeout=60, nx=True):
        pass
""",
            (6, 10, "without timeout= never expires (django-redis takes timeout=)"),
            (8, 10, "without expire= never expires (python-redis-lock's"),
            id="cache-lock-annotated-backend",
        ),
        invalid(
            """
from .connections import redis_client

def nightly_report(token):
    if not redis_client.set("report:nightly", token, nx=True):
        return
    build_report()
""",
            (5, 12, "set(..., nx=True) without ex/px/exat/pxat"),
            id="redis-in-reach-through-a-project-module",
            app_connections="import redis\n\nredis_client = redis.Redis()\n",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method is None or not self._check_method(node, method):
            self._check_constructor(node)

    def _check_method(self, node: cst.Call, method: str) -> bool:
        """Check a lock-making method call; False when `node` isn't one."""
        if method == "set":
            self._check_set(node)
            return True
        if method in locks.SETNX_METHODS and len(positional(node)) == 2:
            evidence = lock_evidence(node, self.context, result_read=True)
            if evidence.is_lock:
                self._report_lock(
                    node,
                    "setnx() sets a lock key that never expires (a later expire() isn't "
                    f"atomic with it): a crashed worker holds the lock forever; {_FIX}",
                    requires=evidence.requires,
                )
            return True
        lookup = lookup_for(self.context)
        for factory in locks.LOCK_METHODS.get(method, ()):
            if not _receiver_fits(node, factory, lookup):
                continue
            target = receiver(node)
            alias = cache_alias(target, lookup) if target is not None else None
            if factory.needs_cache and target is not None and alias is not None:
                api = locks.CACHE_BACKEND_LOCK_APIS.get(cache_class(target, lookup))
                if api is not None:  # `cache: RedisCache`: the class says which lock()
                    self._check_factory(node, locks.CACHE_LOCK_APIS[api], _cache_lock_message)
                else:
                    self._check_cache_lock(node, alias)
            else:
                self._check_factory(node, factory)
            return True
        return False

    def _check_constructor(self, node: cst.Call) -> None:
        resolver = self.context.resolver
        qualname = resolver.library_name(node.func)
        factory = locks.LOCK_CONSTRUCTORS.get(qualname or "")
        if factory is not None:
            self._check_factory(node, factory)

    def _check_set(self, node: cst.Call) -> None:
        if not sets_nx(node) or has_star(node):
            return
        message = self._set_message(node)
        if message is None:
            return
        evidence = lock_evidence(node, self.context, result_read=True)
        if evidence.is_lock:
            self._report_lock(node, message, requires=evidence.requires)

    def _set_message(self, node: cst.Call) -> str | None:
        """What is wrong with a `set(..., nx=True)` taken as a lock; None: it expires."""
        target = receiver(node)
        if target is not None and is_django_cache(target, lookup_for(self.context)):
            timeout = keyword(node, locks.CACHE_SET_TIMEOUT_KEYWORD)
            args = positional(node)
            if timeout is None and len(args) > locks.CACHE_SET_TIMEOUT_POSITION:
                timeout = args[locks.CACHE_SET_TIMEOUT_POSITION]
            if timeout is not None and is_none(timeout):
                return f"cache.set(..., timeout=None, nx=True) never expires; {_FIX}"
            return None
        if expiry(node, locks.SET_EXPIRY_KEYWORDS, locks.SET_EXPIRY_POSITION) is Tri.NO:
            return (
                "set(..., nx=True) without ex/px/exat/pxat: the lock key never expires and a "
                f"crashed worker holds it forever; {_FIX}"
            )
        return None

    def _check_factory(
        self,
        node: cst.Call,
        factory: locks.LockFactory,
        message: Callable[[locks.LockFactory], str] | None = None,
    ) -> None:
        if factory.no_expiry_exists:
            self._report_lock(
                node,
                f"{factory.display} has no expiry: a killed worker leaves the lock behind. "
                "Pair it with a task time limit (timeout=) and flush_locks, or use "
                f"{locks.RUNTIME_LOCK}",
            )
            return
        found = expiry(node, (factory.expiry_keyword,), factory.expiry_position)
        if found is Tri.NO:
            self._report_lock(
                node,
                (message or _lock_message)(factory),
                fix=self._expiry_fix(node, factory),
            )

    def _check_cache_lock(self, node: cst.Call, alias: str) -> None:
        """A Django cache's `lock()`: its keyword is its backend's, which the
        project's settings give. One alternative per backend, settled by the
        project step; where the backend isn't known, a message naming each
        backend's keyword and no fix (the wrong keyword raises TypeError)."""
        readings = {
            api: expiry(node, (factory.expiry_keyword,), factory.expiry_position)
            for api, factory in locks.CACHE_LOCK_APIS.items()
        }
        if alias:
            for api, factory in locks.CACHE_LOCK_APIS.items():
                if readings[api] is Tri.NO:
                    self._report_lock(
                        node,
                        _cache_lock_message(factory),
                        requires=(_cache_lock_api(alias, api),),
                        fix=self._expiry_fix(node, factory),
                    )
        if all(found is Tri.NO for found in readings.values()):
            self._report_lock(
                node,
                _CACHE_LOCK_UNKNOWN,
                requires=(_cache_lock_api(alias, locks.UNKNOWN_CACHE_LOCK_API),) if alias else (),
            )

    def _report_lock(
        self,
        node: cst.Call,
        message: str,
        *,
        requires: tuple[Requirement, ...] = (),
        fix: FixSpec | None = None,
    ) -> None:
        """Report a lock, unless the call is a test that an error is raised."""
        if not expects_error(node, self.context):
            self.report(node, message, requires=requires, fix=fix)

    def _expiry_fix(self, node: cst.Call, factory: locks.LockFactory) -> FixSpec | None:
        """`timeout=<default-lock-timeout>` (`expire=` for python-redis-lock), only
        when the option is set: the number must come from a human."""
        seconds = self.context.options.rule_option(self.CODE, locks.DEFAULT_TIMEOUT_OPTION)
        if not isinstance(seconds, int) or isinstance(seconds, bool):
            return None
        position = factory.expiry_position
        if position is not None and len(positional(node)) > position:
            return None  # a positional `None` holds the slot: a keyword would clash
        name = factory.expiry_keyword
        new = with_keyword(node, name, cst.Integer(str(seconds)))
        message = (
            f"Add {name}={seconds} (default-lock-timeout): the lock expires after {seconds} s "
            "even if the work still runs"
        )
        return fix(node, new, message)


def _cache_lock_api(alias: str, api: str) -> Requirement:
    return Requirement(locks.CACHE_LOCK_API_REQUIREMENT, alias, frozenset({api}))


def _lock_message(factory: locks.LockFactory) -> str:
    keyword = factory.expiry_keyword
    return (
        f"{factory.display} without {keyword}= never expires: a crashed worker holds the "
        f"lock forever; pass {keyword}= or use {locks.RUNTIME_LOCK}"
    )


def _cache_lock_message(factory: locks.LockFactory) -> str:
    keyword = factory.expiry_keyword
    return (
        f"{factory.display} without {keyword}= never expires ({factory.library} takes "
        f"{keyword}=): a crashed worker holds the lock forever; pass {keyword}= or use "
        f"{locks.RUNTIME_LOCK}"
    )


def _cache_keywords() -> str:
    return ", ".join(
        f"{factory.expiry_keyword}= for {factory.library}"
        for factory in locks.CACHE_LOCK_APIS.values()
    )


_CACHE_LOCK_UNKNOWN = (
    "cache.lock(...) without an expiry never expires: a crashed worker holds the lock "
    "forever. The keyword is the cache backend's (the BACKEND in CACHES): "
    f"{_cache_keywords()}; or use {locks.RUNTIME_LOCK}"
)


def _receiver_fits(node: cst.Call, factory: locks.LockFactory, lookup: Lookup) -> bool:
    target = receiver(node)
    if target is None:
        return False
    if factory.needs_client:
        return client_kind(target, lookup) is not None
    if factory.needs_cache:
        return is_django_cache(target, lookup)
    return True
