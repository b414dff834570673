"""The full example suite of `joblint.rules.unchecked_lock_acquire` (its class keeps the
teaching examples the docs open with)."""

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
        (3, 11, "joblint.runtime.lock.PostgresAdvisoryLock"),
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
)
