"""The full example suite of `joblint.rules.locks.unchecked_lock_acquire`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

VALID = (
    Valid(
        """
def sync(conn, key):
    with conn.cursor() as cur:
        cur.execute("SELECT pg_try_advisory_lock(%s)", (key,))
        (acquired,) = cur.fetchone()
        if not acquired:
            return
        cur.execute("SELECT id FROM jobs WHERE pg_try_advisory_lock(id) LIMIT 1")
        cur.execute("SELECT pg_advisory_unlock(%s)", (key,))
""",
        id="advisory-read-or-in-where",
    ),
    Valid(
        """
async def sync(conn, key):
    if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", key):
        return
    # pg_try_advisory_lock in a comment, not a query
    print("SELECT pg_try_advisory_lock(1) is how we lock")
""",
        id="asyncpg-fetchval-checked",
    ),
    Valid(
        """
import redis

r = redis.Redis()
LAST_SCAN = "stats:last-scan"

def seed():
    r.set("visits", 0, nx=True)
    r.set(LAST_SCAN, "seed", nx=True, ex=900)

def test_scan_is_throttled(conn):
    conn.set(LAST_SCAN, "other-worker", nx=True, ex=900)
""",
        id="bare-set-nx-seeding-state",
    ),
    Valid(
        """
import pytest
import threading
import unittest
from redis.exceptions import DataError

def test_bad_value(r, key):
    with pytest.raises(DataError):
        r.set(key, object(), nx=True, ex=5)

class Reentry(unittest.TestCase):
    def test_closed(self):
        lock = threading.Lock()
        with self.assertRaisesRegex(RuntimeError, "closed"):
            lock.acquire(blocking=False)
""",
        id="error-tests",
    ),
    Valid(
        """
from django.core.cache import cache

def sync(account_id, token, report):
    if not cache.add(f"sync-lock:{account_id}", token, 600):
        return
    won = cache.add("nightly-lock", token, timeout=600)
    if not won:
        return
    cache.add(f"report:{account_id}", report, 300)
    cache.add("report-count", 0)
""",
        id="cache-add-checked-or-a-cache-fill",
    ),
    Valid(
        """
from contextlib import contextmanager
from django_pglocks import advisory_lock

def send_digest():
    with advisory_lock("digest", wait=False) as acquired:
        if not acquired:
            return
        send_all()
    with advisory_lock("digest"):
        send_all()
    with advisory_lock("digest", wait=True):
        send_all()

def rebuild():
    with advisory_lock("rebuild", False, False) as got:
        log_attempt(got)
        rebuild_index()
""",
        id="advisory-lock-flag-read-or-waiting",
    ),
    Valid(
        """
from contextlib import contextmanager

@contextmanager
def advisory_lock(key, wait=True):
    yield True

def send_digest():
    with advisory_lock("digest", wait=False):
        send_all()
""",
        id="own-advisory-lock",
    ),
    Valid(
        """
import redis

r = redis.Redis()


def seed():
    # Keywords only, a literal key naming no lock: a plain SET NX.
    r.set(name="visits", value=0, nx=True)


def sweep(token):
    if not r.set(name="lock:sweep", value=token, nx=True, ex=300):
        return
""",
        id="set-nx-by-keyword-seeding-or-checked",
    ),
)

INVALID = (
    invalid(
        """
TRY_LOCK = "SELECT pg_try_advisory_lock(%s)"

def sync(conn, key):
    with conn.cursor() as cur:
        cur.execute(TRY_LOCK, (key,))
        cur.execute("UPDATE accounts SET synced = now()")
    conn.commit()
""",
        (6, 9, "pg_try_advisory_lock"),
        id="advisory-row-never-read",
    ),
    invalid(
        """
async def sync(conn, key):
    await conn.fetchval("select pg_try_advisory_xact_lock($1)", key)
""",
        (3, 11, "joblint_runtime.lock.PostgresAdvisoryLock"),
        id="asyncpg-result-dropped",
    ),
    invalid(
        """
import redis

from app.keys import LAST_SCAN, SWEEP

r = redis.Redis()

def sweep(token, name):
    r.set(LAST_SCAN, token, nx=True, ex=900)
    r.set(SWEEP, token, nx=True, ex=300)
    r.set("rebuild", token, nx=True, ex=60)
    r.delete("rebuild")
    r.set(f"sweep:{name}", token, nx=True, ex=60)
""",
        (10, 5, "bare statement"),
        (11, 5, "bare statement"),
        (13, 5, "bare statement"),
        id="bare-set-nx-with-lock-evidence",
        app_keys='LAST_SCAN = "stats:last-scan"\nSWEEP = "lock:sweep"\n',
    ),
    invalid(
        """
from django.core.cache import cache, caches

async def sync(account_id, token):
    cache.add(f"sync-lock:{account_id}", token, 600)
    run_sync(account_id)
    caches["locks"].add(f"rebuild:{account_id}", token, timeout=600)
    rebuild(account_id)
    caches["locks"].delete(f"rebuild:{account_id}")
    await cache.aadd("nightly-mutex", token, 60)
""",
        (5, 5, "cache.add() as a bare statement"),
        (7, 5, "if not cache.add(key, token, timeout=...): return"),
        (10, 11, "cache.aadd()"),
        id="cache-add-bare-statement",
    ),
    invalid(
        """
import django_pglocks
from django_pglocks import advisory_lock

def send_digest():
    with advisory_lock("digest", wait=False):
        send_all()
    with django_pglocks.advisory_lock("digest", wait=False) as acquired:
        send_all()
    if acquired:
        log_sent()

@advisory_lock("rebuild", wait=False)
def rebuild():
    rebuild_index()
""",
        (6, 10, "without `as`"),
        (8, 10, "as acquired, never read"),
        (13, 2, "as a decorator"),
        id="advisory-lock-flag-unread",
    ),
    invalid(
        """
import redis

r = redis.Redis()


def sweep(token, name):
    r.set(name=f"sweep-lock:{name}", value=token, nx=True, ex=60)
    r.set(value=token, name="rebuild", nx=True, ex=60)
    r.delete("rebuild")
""",
        (8, 5, "bare statement"),
        (9, 5, "bare statement"),
        id="bare-set-nx-every-argument-by-keyword",
    ),
)
