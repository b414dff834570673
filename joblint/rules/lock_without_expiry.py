from __future__ import annotations

import libcst as cst

from joblint.analysis.redis_clients import (
    Tri,
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
from joblint.rule import FixSpec, Rule, Valid, fix, invalid

_FIX = f"use {locks.REDIS_LOCK_FIX} or {locks.RUNTIME_LOCK}"


class LockWithoutExpiry(Rule):
    """
    ## What it does
    Finds Redis locks that never expire: `set(key, value, nx=True)` with none
    of `ex`, `px`, `exat`, `pxat`; `setnx(...)`; redis-py `r.lock(name)` and
    `redis.lock.Lock(client, name)` without `timeout=`; django-redis
    `cache.lock(name)` without `timeout=`; python-redis-lock
    `redis_lock.Lock(conn, name)` without `expire=`; Huey `lock_task(...)`,
    which has no expiry at all.

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
    which also releases with a token check. For redis-py locks pass
    `timeout=`; for python-redis-lock `expire=` (with `auto_renewal=True` for
    long jobs). Huey's `lock_task` can't expire: pair it with a task
    `timeout=` and start the consumer with `flush_locks`.

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
    that one: redis-py `.lock(name)` and `redis.lock.Lock(client, name)` and
    django-redis `cache.lock(name)` get `timeout=<n>` (replacing
    `timeout=None`), python-redis-lock `redis_lock.Lock(conn, name)` gets
    `expire=<n>`. A lock whose expiry slot holds a positional `None` gets no
    fix, and neither do `set(..., nx=True)`, `setnx()` and Huey's `lock_task`.
    Unsafe because the lock now expires: work running longer than `<n>`
    seconds loses it to another worker.

    ## Known limits
    - `.set(..., nx=True)` and `.setnx(...)` are recognised on any receiver;
      on a Django cache (django-redis) `set(..., nx=True)` uses the cache's
      default timeout, so only an explicit `timeout=None` is reported.
    - `.lock(name)` is only reported on a receiver known to be a Redis client
      (a name or `self.X` assigned once from `redis.Redis(...)`,
      `Redis.from_url(...)`, `redis.asyncio.from_url(...)`,
      `get_redis_connection()`, a `.pipeline()` of one, or a parameter
      annotated with a client class) or a Django cache.
    - `**kwargs` (or `*args`) that may carry the expiry makes the call unknown:
      not reported. `ex=None` is no expiry.
    """

    CODE = "JL402"
    SUMMARY = "Redis lock without an expiry: a crashed worker holds it forever"
    HELP = "Give the lock a TTL: set(key, token, nx=True, ex=...) or joblint.runtime.lock.RedisLock"

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
            self.report(
                node,
                "setnx() sets a lock key that never expires (a later expire() isn't atomic "
                f"with it): a crashed worker holds the lock forever; {_FIX}",
            )
            return True
        lookup = lookup_for(self.context)
        for factory in locks.LOCK_METHODS.get(method, ()):
            if _receiver_fits(node, factory, lookup):
                self._check_factory(node, factory)
                return True
        return False

    def _check_constructor(self, node: cst.Call) -> None:
        resolver = self.context.resolver
        qualname = resolver.qualified_name(node.func)
        factory = locks.LOCK_CONSTRUCTORS.get(qualname or "")
        if factory is not None:
            self._check_factory(node, factory)

    def _check_set(self, node: cst.Call) -> None:
        if not sets_nx(node) or has_star(node):
            return
        target = receiver(node)
        if target is not None and is_django_cache(target, lookup_for(self.context)):
            timeout = keyword(node, locks.CACHE_SET_TIMEOUT_KEYWORD)
            args = positional(node)
            if timeout is None and len(args) > locks.CACHE_SET_TIMEOUT_POSITION:
                timeout = args[locks.CACHE_SET_TIMEOUT_POSITION]
            if timeout is not None and is_none(timeout):
                self.report(node, f"cache.set(..., timeout=None, nx=True) never expires; {_FIX}")
            return
        if expiry(node, locks.SET_EXPIRY_KEYWORDS, locks.SET_EXPIRY_POSITION) is Tri.NO:
            self.report(
                node,
                "set(..., nx=True) without ex/px/exat/pxat: the lock key never expires and a "
                f"crashed worker holds it forever; {_FIX}",
            )

    def _check_factory(self, node: cst.Call, factory: locks.LockFactory) -> None:
        if factory.no_expiry_exists:
            self.report(
                node,
                f"{factory.display} has no expiry: a killed worker leaves the lock behind. "
                "Pair it with a task time limit (timeout=) and flush_locks, or use "
                f"{locks.RUNTIME_LOCK}",
            )
            return
        found = expiry(node, (factory.expiry_keyword,), factory.expiry_position)
        if found is Tri.NO:
            self.report(
                node,
                f"{factory.display} without {factory.expiry_keyword}= never expires: a crashed "
                f"worker holds the lock forever; pass {factory.expiry_keyword}= or use "
                f"{locks.RUNTIME_LOCK}",
                fix=self._expiry_fix(node, factory),
            )

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


def _receiver_fits(node: cst.Call, factory: locks.LockFactory, lookup: Lookup) -> bool:
    target = receiver(node)
    if target is None:
        return False
    if factory.needs_client:
        return client_kind(target, lookup) is not None
    if factory.needs_cache:
        return is_django_cache(target, lookup)
    return True
