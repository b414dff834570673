"""Duplicate deliveries through the guard produce one side effect; failures release the claim."""

from __future__ import annotations

import contextlib
import inspect
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from joblint_runtime.idempotency import IdempotencyGuard, idempotent
from joblint_runtime.transaction import atomic

from .conftest import sqlite_connect


@pytest.fixture(params=["postgres", "sqlite"])
def connect(
    request: pytest.FixtureRequest, table: str, tmp_path: Path
) -> Callable[[], contextlib.AbstractContextManager[Any]]:
    """A ``connect=`` argument for ``idempotent``, plus the tables it needs."""
    if request.param == "postgres":
        dsn = request.getfixturevalue("pg_dsn")

        def make() -> contextlib.AbstractContextManager[Any]:
            return psycopg.connect(dsn, autocommit=True)
    else:
        path = tmp_path / "runs.db"

        @contextlib.contextmanager
        def make() -> Iterator[sqlite3.Connection]:
            conn = sqlite_connect(path)
            try:
                yield conn
            finally:
                conn.close()

    with make() as conn:
        IdempotencyGuard(f"{table}_runs").ensure_schema(conn)
        conn.execute(f"CREATE TABLE {table}_effects (order_id int, note text)")
    return make


def effects(connect: Callable[[], Any], table: str) -> list[tuple[Any, ...]]:
    with connect() as conn:
        return [tuple(row) for row in conn.execute(f"SELECT * FROM {table}_effects")]


def test_claim_is_true_once_per_key(connect: Callable[[], Any], table: str) -> None:
    guard = IdempotencyGuard(f"{table}_runs")
    with connect() as conn:
        with atomic(conn):
            assert guard.claim(conn, "a") is True
        with atomic(conn):
            assert guard.claim(conn, "a") is False
            assert guard.claim(conn, "b") is True
        with atomic(conn):
            assert guard.release(conn, "a") is True
        with atomic(conn):
            assert guard.claim(conn, "a") is True


def test_rolled_back_claim_is_released(connect: Callable[[], Any], table: str) -> None:
    guard = IdempotencyGuard(f"{table}_runs")
    with connect() as conn:
        with pytest.raises(RuntimeError), atomic(conn):
            assert guard.claim(conn, "k") is True
            raise RuntimeError("job failed")
        with atomic(conn):
            assert guard.claim(conn, "k") is True


def test_sixteen_concurrent_duplicates_have_one_side_effect(
    connect: Callable[[], Any], table: str
) -> None:
    calls: list[int] = []
    start = threading.Barrier(16)

    @idempotent(key=lambda order_id: f"charge:{order_id}", connect=connect,
                guard=IdempotencyGuard(f"{table}_runs"))
    def charge(conn: Any, order_id: int) -> str:
        calls.append(order_id)
        conn.execute(f"INSERT INTO {table}_effects VALUES ({order_id}, 'charged')")
        time.sleep(0.05)  # keep the transaction open while the duplicates arrive
        return "charged"

    results: list[str | None] = []
    errors: list[BaseException] = []

    def deliver() -> None:
        start.wait()
        try:
            results.append(charge(42))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=deliver) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results.count("charged") == 1 and results.count(None) == 15
    assert calls == [42]
    assert effects(connect, table) == [(42, "charged")]


def test_failed_first_attempt_lets_the_retry_run(connect: Callable[[], Any], table: str) -> None:
    attempts: list[int] = []

    @idempotent(key=lambda order_id: f"ship:{order_id}", connect=connect,
                guard=IdempotencyGuard(f"{table}_runs"))
    def ship(conn: Any, order_id: int) -> int:
        attempts.append(order_id)
        conn.execute(f"INSERT INTO {table}_effects VALUES ({order_id}, 'shipped')")
        if len(attempts) == 1:
            raise ConnectionError("carrier API timed out")
        return order_id

    with pytest.raises(ConnectionError):
        ship(7)
    assert effects(connect, table) == []  # the failed attempt left nothing behind
    assert ship(7) == 7  # the retry runs
    assert ship(7) is None  # and a later duplicate does not
    assert attempts == [7, 7]
    assert effects(connect, table) == [(7, "shipped")]


def test_wrapper_signature_is_the_callers_without_the_connection() -> None:
    @idempotent(key=lambda order_id, note="": f"ship:{order_id}", connect=contextlib.nullcontext)
    def ship(conn: Any, order_id: int, note: str = "") -> int:
        return order_id

    assert list(inspect.signature(ship).parameters) == ["order_id", "note"]
    assert inspect.signature(ship).parameters["note"].default == ""
    assert inspect.getfullargspec(ship).args == ["order_id", "note"]  # what Celery checks
    assert ship.__name__ == "ship"


def test_forget_older_than(pg: psycopg.Connection[tuple[Any, ...]], table: str) -> None:
    guard = IdempotencyGuard(table)
    guard.ensure_schema(pg)
    with atomic(pg):
        assert guard.claim(pg, "old")
    pg.execute(f"UPDATE {table} SET claimed_at = now() - interval '2 days'")
    with atomic(pg):
        assert guard.claim(pg, "new")
    assert guard.forget_older_than(pg, 86400) == 1
    with atomic(pg):
        assert guard.claim(pg, "old") is True
        assert guard.claim(pg, "new") is False
