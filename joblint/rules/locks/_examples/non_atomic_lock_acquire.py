"""The full example suite of `joblint.rules.locks.non_atomic_lock_acquire`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

VALID = (
    Valid(
        """
import redis

r = redis.Redis()

def publish(name, token):
    if not r.get(f"lock:{name}"):
        notify_idle(name)
    else:
        r.set(f"lock:{name}", token, ex=60)
    if r.get(f"lock:{name}"):
        log_busy(name)
    r.set(f"lock:{name}", token, ex=60)
    r.delete(f"lock:{name}")
""",
        id="set-in-another-branch",
    ),
    Valid(
        """
import redis

r = redis.Redis()
other = redis.Redis()

def publish(name, token):
    if not r.exists(f"lock:{name}"):
        r.set(f"lock:{name}:owner", token, ex=60)
        other.set(f"lock:{name}", token, ex=60)
    if not r.get(f"lock:{name}"):
        r.set(f"lock:{name}", token, nx=True, ex=60)
""",
        id="other-key-other-receiver-or-atomic",
    ),
    Valid(
        """
from django.core.cache import cache

def running_jobs():
    if cache.get("running_jobs") is None:
        cache.set("running_jobs", count_running_jobs(), 60)
    jobs = cache.get("locked_accounts")
    if jobs is None:
        jobs = find_locked_accounts()
        cache.set("locked_accounts", jobs, 300)
    return jobs
""",
        id="computed-value-under-a-lock-word",
    ),
    Valid(
        """
from django.core.cache import cache

def notify_failure(task_key):
    last = cache.get(task_key)
    if last != "errored":
        cache.set(task_key, "errored", None)
        send_failure_notice()

def trim(conn):
    last_trim = conn.get("flows:last-trim")
    if not last_trim:
        last_trim = 0
    trim_since(last_trim)
    conn.set("flows:last-trim", now())
""",
        id="state-markers",
    ),
    Valid(
        """
import time
import redis

r = redis.Redis()

def wait_then_take(token):
    while r.get("lock:report"):
        if time.time() > deadline():
            break
        time.sleep(1)
    r.set("lock:report", token, ex=60)
""",
        id="wait-loop-with-break",
    ),
    Valid(
        """
class Store:
    def __init__(self):
        self.rows = {}

    def get(self, key):
        return self.rows.get(key)

    def set(self, key, value):
        self.rows[key] = value

def claim(store, name):
    if not store.get(f"lock:{name}"):
        store.set(f"lock:{name}", 1)
        work(name)
        store.rows.pop(f"lock:{name}")
""",
        id="no-redis-in-reach",
    ),
    Valid(
        """
from edx_django_utils.cache import RequestCache, TieredCache

def course_outline(course_id):
    key = f"outline:{course_id}"
    response = TieredCache.get_cached_response(key)
    if response.is_found:
        return response.value
    outline = build_outline(course_id)
    TieredCache.set_all_tiers(key, outline, 300)
    return outline

def acquire_render_lock(page_id):
    local = RequestCache("render")
    response = local.get_cached_response(page_id)
    if response.is_found:
        return False
    local.set(page_id, True)
    return True
""",
        id="tiered-cache-fill-and-request-cache",
    ),
    Valid(
        """
from django.core.cache import cache

def show_lock_screen_tip(user_id):
    if cache.get(f"banner:{user_id}") is None:
        cache.set(f"banner:{user_id}", "shown", 3600)
        show_tip(user_id)

class Profile:
    def announce_change(self):
        if cache.get(self.notice_key):
            return
        send_change_notice(self)
        cache.set(self.notice_key, True, 60)

    def reset_notice(self):
        cache.delete(self.notice_key)
""",
        id="markers-in-lock-named-function-and-sibling-delete",
    ),
)

INVALID = (
    invalid(
        """
import redis

r = redis.Redis()

def publish(name, token):
    if not r.exists(f"lock:{name}"):
        r.set(f"lock:{name}", token, ex=60)
        work(name)
""",
        (8, 9, "set(key, token, nx=True, ex=...)"),
        id="exists-then-set",
    ),
    invalid(
        """
import redis

r = redis.Redis()

def nightly():
    if r.get("report-running") or paused():
        return
    r.setex("report-running", 600, 1)
    build_report()
""",
        (9, 5, "checked at line 7"),
        id="early-exit-then-setex",
    ),
    invalid(
        """
import redis.asyncio as aredis

r = aredis.Redis()

async def sync(account_id, token):
    key = f"sync:{account_id}"
    if await r.get(key):
        return
    await r.set(key, token, ex=300)
    try:
        await run_sync(account_id)
    finally:
        await r.delete(key)
""",
        (10, 11, "set(key, ...) takes a lock"),
        id="asyncio-key-deleted-after-the-work",
    ),
    invalid(
        """
import aioredis

r = aioredis.from_url("redis://localhost")

async def sync(account_id, worker_id):
    if not await r.exists(f"mutex:{account_id}") and enabled():
        await r.set(f"mutex:{account_id}", worker_id)
""",
        (8, 15, "set("),
        id="aioredis-and-condition",
    ),
    invalid(
        """
from django.core.cache import cache

def rebuild(index_name):
    held = cache.get(f"rebuild-lock:{index_name}")
    if held is None:
        cache.set(f"rebuild-lock:{index_name}", True, 600)
        rebuild_index(index_name)
        cache.delete(f"rebuild-lock:{index_name}")

async def refresh(feed):
    if await cache.aget(f"refresh-lock:{feed}"):
        return
    await cache.aset(f"refresh-lock:{feed}", 1, 60)
""",
        (7, 9, "cache.add(key, token, timeout=...)"),
        (14, 11, "aset("),
        id="django-cache-bound-read-and-async",
    ),
    invalid(
        """
import time
import redis

r = redis.Redis()

def wait_then_take(token):
    while r.exists("lock:report"):
        time.sleep(1)
    r.set("lock:report", token, ex=60)
""",
        (10, 5, "checked at line 8"),
        id="wait-loop-then-set",
    ),
    invalid(
        """
import redis

r = redis.Redis()

def publish(name, token):
    if r.exists(f"lock:{name}") == 0:
        r.set(f"lock:{name}", token, ex=60)
    if r.exists(f"leader:{name}") != 0:
        return
    r.set(f"leader:{name}", token, ex=60)
""",
        (8, 9, "checked at line 7"),
        (11, 5, "checked at line 9"),
        id="exists-compared-with-zero",
    ),
    invalid(
        """
from edx_django_utils.cache import TieredCache

def acquire_export_lock(account_id):
    key = f"export:{account_id}"
    response = TieredCache.get_cached_response(key)
    if response.is_found:
        return False
    TieredCache.set_all_tiers(key, "held", 600)
    return True

def rebuild(index_name, token):
    if not TieredCache.get_cached_response(f"rebuild:{index_name}").is_found:
        TieredCache.set_all_tiers(f"rebuild:{index_name}", token, 900)
        rebuild_index(index_name)
        TieredCache.delete_all_tiers(f"rebuild:{index_name}")
""",
        (9, 5, "cache.add(key, token, timeout=...)"),
        (14, 9, "set_all_tiers("),
        id="tiered-cache-try-lock-and-released",
    ),
    invalid(
        """
import redis

r = redis.Redis()

def take_report_lock(day, worker_id):
    if r.exists(f"report:{day}"):
        return False
    r.set(f"report:{day}", worker_id, ex=900)
    return True
""",
        (9, 5, "set(key, token, nx=True, ex=...)"),
        id="try-lock-function",
    ),
)
