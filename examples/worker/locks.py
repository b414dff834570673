"""Guarding periodic jobs with Redis and PostgreSQL advisory locks."""

import uuid

import redis
import redis_lock
from django.core.cache import cache

from joblint_runtime.lock import RedisLock

r = redis.Redis.from_url("redis://localhost:6379/0")


def nightly_report():
    # The lock never expires: one crash and the report never runs again.
    if not r.set("lock:nightly-report", "1", nx=True):  # JL402: set nx without ex
        return
    build_report()


def rebuild_search_index():
    token = uuid.uuid4().hex
    if not r.set("lock:search-index", token, nx=True, ex=600):
        return
    try:
        build_index()
    finally:
        r.delete("lock:search-index")  # JL403: may delete another worker's lock


def rebuild_search_index_safely():
    # Correct: the runtime lock releases with a compare-and-delete script.
    with RedisLock(r, "search-index", ttl=600):
        build_index()


def sync_accounts():
    token = uuid.uuid4().hex
    r.set("lock:sync", token, nx=True, ex=300)  # JL404: result ignored, every worker syncs
    sync()


def sync_accounts_checked():
    token = uuid.uuid4().hex
    if not r.set("lock:sync", token, nx=True, ex=300):
        return
    try:
        sync()
    finally:
        if r.get("lock:sync") == token.encode():
            r.delete("lock:sync")


def send_digests():
    with r.lock("digests", blocking_timeout=5):  # JL402: redis-py lock without timeout
        send()
    with r.lock("digests", timeout=120, blocking_timeout=5):
        send()


def import_feeds(conn):
    with redis_lock.Lock(conn, "feeds", expire=60, auto_renewal=True):
        send()
    with cache.lock("feeds", timeout=60):
        send()


def purge_sessions(pg):
    with pg.cursor() as cur:
        cur.execute("SELECT pg_try_advisory_lock(%s)", (42,))  # JL404: row never read
        cur.execute("DELETE FROM sessions WHERE expires < now()")
    pg.commit()


def purge_sessions_checked(pg):
    with pg.cursor() as cur:
        cur.execute("SELECT pg_try_advisory_lock(%s)", (42,))
        (acquired,) = cur.fetchone()
        if not acquired:
            return
        cur.execute("DELETE FROM sessions WHERE expires < now()")
        cur.execute("SELECT pg_advisory_unlock(%s)", (42,))


def build_report(): ...


def build_index(): ...


def sync(): ...


def send(): ...
