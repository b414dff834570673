"""Redis locks against a real redis-server; PostgreSQL advisory locks against a real cluster."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from typing import Any

import psycopg
import pytest
import redis
from joblint_runtime.lock import (
    LockLost,
    LockNotAcquired,
    PostgresAdvisoryLock,
    RedisLock,
    run_once_per,
)
from joblint_runtime.transaction import TransactionError, atomic

mp = multiprocessing.get_context("fork")


def race(contenders: list[Any], attempt: Any) -> list[bool]:
    start = threading.Barrier(len(contenders))
    results: list[bool] = [False] * len(contenders)

    def run(index: int) -> None:
        start.wait()
        results[index] = attempt(contenders[index])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(contenders))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_two_contenders_exactly_one_wins(r: redis.Redis) -> None:
    for round_ in range(25):
        locks = [RedisLock(r, f"report:{round_}", ttl=10) for _ in range(2)]
        results = race(locks, lambda lock: lock.acquire())
        assert sorted(results) == [False, True]
        winner = locks[results.index(True)]
        assert r.get(f"report:{round_}") == winner.token.encode()
        assert 0 < r.pttl(f"report:{round_}") <= 10_000


def hold_forever(url: str, name: str, acquired: Any) -> None:
    lock = RedisLock(redis.Redis.from_url(url), name, ttl=1.0)
    assert lock.acquire()
    acquired.set()
    time.sleep(600)


def test_lock_expires_after_ttl_when_its_holder_dies(r: redis.Redis, redis_server: Any) -> None:
    acquired = mp.Event()
    holder = mp.Process(target=hold_forever, args=(redis_server.url, "nightly", acquired))
    holder.start()
    assert acquired.wait(timeout=30)
    contender = RedisLock(r, "nightly", ttl=5)
    assert contender.acquire() is False
    os.kill(holder.pid or 0, signal.SIGKILL)
    holder.join(timeout=30)
    assert holder.exitcode == -signal.SIGKILL
    assert contender.acquire(blocking=False) is False  # the dead holder's TTL still runs
    assert contender.acquire(blocking=True, timeout=10) is True
    assert r.get("nightly") == contender.token.encode()
    assert contender.release() is True
    assert r.exists("nightly") == 0


def wait_until_gone(r: redis.Redis, name: str) -> None:
    deadline = time.monotonic() + 10
    while r.exists(name) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not r.exists(name)


def test_expired_holder_cannot_release_or_extend_the_new_owners_lock(r: redis.Redis) -> None:
    stale = RedisLock(r, "invoice:9", ttl=0.2)
    assert stale.acquire()
    wait_until_gone(r, "invoice:9")
    owner = RedisLock(r, "invoice:9", ttl=30)
    assert owner.acquire()
    assert stale.release() is False
    assert stale.extend(60) is False
    assert r.get("invoice:9") == owner.token.encode()
    assert r.pttl("invoice:9") <= 30_000
    assert owner.extend(60) is True
    assert 30_000 < r.pttl("invoice:9") <= 60_000
    assert owner.release() is True
    assert owner.release() is False
    assert owner.extend(5) is False  # not held any more


def test_blocking_acquire_times_out(r: redis.Redis) -> None:
    assert RedisLock(r, "busy", ttl=30).acquire()
    waiter = RedisLock(r, "busy", ttl=30)
    assert waiter.acquire(blocking=True, timeout=0.2) is False
    assert waiter.locked() is True


def test_context_manager(r: redis.Redis) -> None:
    with RedisLock(r, "cm", ttl=30) as lock:
        assert r.get("cm") == lock.token.encode()
        with pytest.raises(LockNotAcquired), RedisLock(r, "cm", ttl=30, blocking_timeout=0.1):
            pass
    assert r.exists("cm") == 0
    with pytest.raises(LockLost), RedisLock(r, "short", ttl=0.1):
        wait_until_gone(r, "short")


def test_ttl_is_required_and_positive(r: redis.Redis) -> None:
    for ttl in (0, -1, float("nan")):
        with pytest.raises(ValueError):
            RedisLock(r, "x", ttl=ttl)


def test_run_once_per_period(r: redis.Redis) -> None:
    results = race(list(range(8)), lambda _: run_once_per(r, "digest", "2026-11-29", ttl=60))
    assert results.count(True) == 1
    assert run_once_per(r, "digest", "2026-11-30", ttl=60) is True
    assert 0 < r.pttl("joblint:once:digest:2026-11-29") <= 60_000


def test_advisory_lock_session_scope(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as a, \
            psycopg.connect(pg_dsn, autocommit=True) as b:
        mine = PostgresAdvisoryLock(a, "reindex")
        theirs = PostgresAdvisoryLock(b, "reindex")
        assert mine.acquire() is True
        assert theirs.acquire() is False
        assert theirs.acquire(blocking=True, timeout=0.2) is False
        assert theirs.release() is False  # not theirs to release
        assert mine.release() is True
        with theirs:
            assert mine.acquire() is False
        assert mine.acquire() is True
        assert mine.release() is True


def test_advisory_lock_transaction_scope(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as a, \
            psycopg.connect(pg_dsn, autocommit=True) as b:
        with pytest.raises(TransactionError):
            PostgresAdvisoryLock(a, 42, scope="transaction").acquire()
        with atomic(a):
            assert PostgresAdvisoryLock(a, 42, scope="transaction").acquire() is True
            assert PostgresAdvisoryLock(b, 42).acquire() is False
        # COMMIT released it.
        other = PostgresAdvisoryLock(b, 42)
        assert other.acquire() is True
        assert other.release() is True
        with pytest.raises(ValueError):
            PostgresAdvisoryLock(a, 2**63)
