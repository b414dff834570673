"""Nothing a helper does leaves a transaction (and its locks) open behind the caller's back.

Each test uses two connections, as two processes would: the first does what a
hand-written worker loop does, the second must then be able to write at once.
On SQLite the second connection's busy timeout is short, so a write lock left
behind fails the test with "database is locked" instead of waiting 30 s; on
PostgreSQL a ``lock_timeout`` does the same for the table lock that an idle
transaction keeps.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from joblint_runtime.idempotency import IdempotencyGuard, idempotent
from joblint_runtime.queue import JobQueue
from joblint_runtime.transaction import TransactionError, atomic

from .conftest import sqlite_connect

# Long enough for a free lock on a loaded machine, far below the 30 s default.
SHORT_WAIT_S = 0.5


def sqlite_short_wait(path: Path, **kwargs: Any) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=SHORT_WAIT_S, check_same_thread=False, **kwargs)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn


def pg_short_wait(dsn: str, *, autocommit: bool = False) -> psycopg.Connection[Any]:
    conn = psycopg.connect(dsn, autocommit=autocommit)
    conn.execute(f"SET lock_timeout = '{int(SHORT_WAIT_S * 1000)}ms'")
    conn.commit()
    return conn


def open_transaction(conn: Any) -> bool:
    if isinstance(conn, sqlite3.Connection):
        return conn.in_transaction
    return bool(conn.info.transaction_status.name != "IDLE")


@pytest.fixture(params=["postgres", "sqlite"])
def two(request: pytest.FixtureRequest, sqlite_path: Path) -> Iterator[tuple[Any, Any]]:
    """(worker connection, other connection): autocommit off, as a worker loop would use."""
    if request.param == "postgres":
        dsn = request.getfixturevalue("pg_dsn")
        first, second = psycopg.connect(dsn), pg_short_wait(dsn)
    else:
        first, second = sqlite_connect(sqlite_path), sqlite_short_wait(sqlite_path)
    try:
        yield first, second
    finally:
        first.close()
        second.close()


def must_write_now(queue: JobQueue, other: Any) -> int:
    """What another process does while the worker idles: enqueue, and on PostgreSQL migrate."""
    job_id = queue.enqueue(other, "send_receipt", {"order_id": 1})
    other.commit()
    if not isinstance(other, sqlite3.Connection):
        # An idle-in-transaction worker holds ROW EXCLUSIVE on the table from
        # its UPDATE, so any migration waits for it.
        other.execute(f"ALTER TABLE {queue.table} ADD COLUMN IF NOT EXISTS note text")
        other.commit()
    return job_id


def test_empty_claim_ends_its_own_transaction(two: tuple[Any, Any], table: str) -> None:
    worker, other = two
    queue = JobQueue(table)
    queue.ensure_schema(worker)
    worker.commit()

    assert queue.claim(worker, "w1") is None  # a hand-written loop: no commit on "nothing due"
    assert not open_transaction(worker)
    job_id = must_write_now(queue, other)

    job = queue.claim(worker, "w1")
    assert job is not None and job.id == job_id


def test_claim_commits_the_lease_it_took(two: tuple[Any, Any], table: str) -> None:
    worker, other = two
    queue = JobQueue(table)
    queue.ensure_schema(worker)
    job_id = queue.enqueue(worker, "report", {})
    worker.commit()

    job = queue.claim(worker, "w1")  # no commit: the handler runs now
    assert job is not None and job.id == job_id
    assert not open_transaction(worker)
    state = other.execute(f"SELECT state, locked_by FROM {table} WHERE id = {job_id}").fetchone()
    other.commit()
    assert tuple(state) == ("running", "w1")  # visible to everyone while the job runs
    assert queue.claim(other, "w2") is None
    must_write_now(queue, other)
    assert queue.complete(worker, job) is True
    worker.commit()


def test_claim_inside_the_callers_transaction_joins_it(two: tuple[Any, Any], table: str) -> None:
    worker, other = two
    queue = JobQueue(table)
    queue.ensure_schema(worker)
    job_id = queue.enqueue(worker, "report", {})
    worker.commit()

    with pytest.raises(RuntimeError), atomic(worker, immediate=True):
        job = queue.claim(worker, "w1")
        assert job is not None and job.id == job_id
        assert open_transaction(worker)  # the caller's transaction, not committed by claim
        raise RuntimeError("work in the same transaction failed")
    again = queue.claim(other, "w2")  # the rollback returned the job
    assert again is not None and (again.id, again.attempts) == (job_id, 1)


# --- the idempotency guard ------------------------------------------------------


@pytest.fixture(params=["postgres", "postgres-autocommit", "sqlite", "sqlite-implicit"])
def guard_conn(request: pytest.FixtureRequest, sqlite_path: Path) -> Iterator[Any]:
    """Every way a user may open the connection they hand to ``claim``.

    ``sqlite-implicit`` is sqlite3's default mode, where the module itself
    opens a transaction before the INSERT and nobody ends it.
    """
    if request.param.startswith("postgres"):
        conn: Any = psycopg.connect(request.getfixturevalue("pg_dsn"),
                                    autocommit=request.param.endswith("autocommit"))
    elif request.param == "sqlite":
        conn = sqlite_connect(sqlite_path)
    else:
        conn = sqlite3.connect(sqlite_path, timeout=30, check_same_thread=False)
    try:
        yield conn
    finally:
        conn.close()


def test_guard_claim_outside_a_transaction_is_refused(
    guard_conn: Any, request: pytest.FixtureRequest, sqlite_path: Path, table: str
) -> None:
    guard = IdempotencyGuard(table)
    with atomic(guard_conn):
        guard.ensure_schema(guard_conn)

    with pytest.raises(TransactionError, match=r"atomic\(conn"):
        guard.claim(guard_conn, "charge:1")
    assert not open_transaction(guard_conn)

    # The next delivery, on another connection, claims and runs at once.
    connect: Callable[[], contextlib.AbstractContextManager[Any]]
    if isinstance(guard_conn, sqlite3.Connection):
        @contextlib.contextmanager
        def connect() -> Iterator[sqlite3.Connection]:
            conn = sqlite_short_wait(sqlite_path, isolation_level=None)
            try:
                yield conn
            finally:
                conn.close()
    else:
        dsn = request.getfixturevalue("pg_dsn")

        def connect() -> contextlib.AbstractContextManager[Any]:
            return pg_short_wait(dsn, autocommit=True)

    @idempotent(key=lambda order_id: f"charge:{order_id}", connect=connect, guard=guard)
    def charge(conn: Any, order_id: int) -> int:
        return order_id

    assert charge(1) == 1
    assert charge(1) is None

    # Inside a transaction the guard works on the same connection as before.
    with atomic(guard_conn, immediate=True):
        assert guard.claim(guard_conn, "charge:2") is True
    with atomic(guard_conn, immediate=True):
        assert guard.claim(guard_conn, "charge:2") is False
