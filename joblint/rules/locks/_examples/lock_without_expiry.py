"""The full example suite of `joblint.rules.locks.lock_without_expiry`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

_DJANGO_REDIS_SETTINGS = """
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
"""


VALID = (
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
    Valid(
        """
from django.core.cache import cache

class Ledger:
    def add(self, key, value, timeout=None):
        pass

def remember(user_id, ledger, tags):
    if cache.add(f"lock:{user_id}", 1):
        pass
    if cache.add(f"lock:{user_id}", 1, timeout=60):
        pass
    if not cache.add(f"sync-lock:{user_id}", 1, 60):
        return
    cache.add(f"seen:{user_id}", 1, timeout=None)
    ledger.add(f"lock:{user_id}", 1, timeout=None)
    tags.add("lock")
""",
        id="cache-add-expiring-or-no-lock",
    ),
    Valid(
        """
import redis

r = redis.Redis()

def remember(user_id, state):
    r.hsetnx("user-states", user_id, state)
    r.hsetnx("user-states", "count", 0)
""",
        id="hsetnx-as-a-plain-command",
    ),
    Valid(
        """
import aioredis
import aioredis.lock

client = aioredis.from_url("redis://localhost")

async def run(token):
    async with client.lock("report", timeout=60):
        pass
    async with aioredis.lock.Lock(client, "report", 60):
        pass
    if not await client.set(f"lock:{token}", token, nx=True, ex=60):
        return
""",
        id="aioredis-with-expiry",
    ),
    Valid(
        """
import redis
from django.core.cache import cache

r = redis.Redis()

def count_view(pk, delta=1):
    key = f"views:{pk}"
    created = cache.add(key, 1, timeout=None)
    if not created:
        cache.incr(key, delta=delta)

def count_download(name):
    if not r.set(f"downloads:{name}", 0, nx=True):
        r.incr(f"downloads:{name}")
""",
        id="counters-seeded-if-absent-then-counted",
    ),
    Valid(
        """
import redis
import redis.asyncio

r = redis.Redis()
ar = redis.asyncio.Redis()


def refresh(feed_id, options):
    # Every argument by keyword, with an expiry (or one `**options` may hold).
    if not r.set(name=f"feed-lock:{feed_id}", value="1", nx=True, ex=120):
        return
    if not r.set(name=f"feed-mutex:{feed_id}", value="1", nx=True, **options):
        return
    # A literal key naming no lock, never deleted: a plain SET NX.
    r.set(name="feeds:first-run", value="1", nx=True)


async def arefresh(feed_id):
    if await ar.set(value="1", name=f"feed-lock:{feed_id}", px=90_000, nx=True):
        return True
    return False
""",
        id="set-nx-by-keyword-with-expiry-or-no-lock",
    ),
)

INVALID = (
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
        (12, 14, "joblint_runtime.lock.RedisLock"),
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
    invalid(
        """
import redis

r = redis.Redis()

def run(job_id, token):
    if not r.hsetnx("locks", job_id, token):
        return
    r.hsetnx("jobs", "lock", token)
    r.hsetnx("jobs", job_id, token)
    work(job_id)
    r.hdel("jobs", job_id)
""",
        (7, 12, "hsetnx() sets a lock key that never expires"),
        (9, 5, "hsetnx()"),
        (10, 5, "set(key, token, nx=True, ex=...)"),
        id="hsetnx",
    ),
    invalid(
        """
import aioredis
import aioredis.lock

client = aioredis.Redis.from_url("redis://localhost")

async def run(name, token):
    async with client.lock("report"):
        pass
    async with aioredis.lock.Lock(client, "report"):
        pass
    if not await client.set(f"lock:{name}", token, nx=True):
        return
""",
        (8, 16, "timeout="),
        (10, 16, "aioredis.lock.Lock(...) without timeout="),
        (12, 18, "ex/px/exat/pxat"),
        id="aioredis",
    ),
    invalid(
        """
from django.core.cache import cache, caches

async def run(name, token):
    if not cache.add(f"lock:{name}", token, timeout=None):
        return
    if not caches["locks"].add(name, token, None):
        return
    if not await cache.aadd(f"sync:{name}", token, timeout=None):
        return
    cache.add("nightly-report", token, timeout=None)
    build_report()
    cache.delete("nightly-report")
""",
        (5, 12, "cache.add(..., timeout=None) never expires"),
        (7, 12, "use cache.add(key, token, timeout=...)"),
        (9, 18, "cache.aadd(..., timeout=None)"),
        (11, 5, "timeout=None"),
        id="django-cache-add-without-expiry",
    ),
    invalid(
        """
import redis
import redis.asyncio

r = redis.Redis()
ar = redis.asyncio.Redis()


def refresh(feed_id, fetch):
    key = f"feed-lock:{feed_id}"
    if not r.set(name=key, value="1", nx=True):
        return
    try:
        fetch(feed_id)
    finally:
        r.delete(key)


async def arefresh(feed_id, fetch):
    taken = await ar.set(value=feed_id, name=f"feed:{feed_id}", nx=True, ex=None)
    if taken:
        await fetch(feed_id)


def mark_leader(node):
    return r.setnx(name="cluster-leader", value=node)
""",
        (11, 12, "set(..., nx=True) without ex/px/exat/pxat"),
        (20, 19, "set(..., nx=True) without ex/px/exat/pxat"),
        (26, 12, "setnx() sets a lock key that never expires"),
        id="set-nx-every-argument-by-keyword",
    ),
)
