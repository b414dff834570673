"""on_commit callbacks run after COMMIT, in order, and never after a rollback."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from joblint_runtime.transaction import TransactionError, atomic, on_commit
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

from .conftest import sqlite_connect

Connect = Callable[[], Any]


@pytest.fixture(params=["postgres", "sqlite"])
def connect(request: pytest.FixtureRequest, table: str, tmp_path: Path) -> Iterator[Connect]:
    """Opens connections to one database holding ``table`` (id int primary key)."""
    opened: list[Any] = []
    if request.param == "postgres":
        dsn = request.getfixturevalue("pg_dsn")

        def make() -> Any:
            conn = psycopg.connect(dsn, autocommit=True)
            opened.append(conn)
            return conn
    else:
        path = tmp_path / "tx.db"

        def make() -> Any:
            conn = sqlite_connect(path)
            opened.append(conn)
            return conn

    make().execute(f"CREATE TABLE {table} (id int PRIMARY KEY)")
    yield make
    for conn in opened:
        conn.close()


def count(conn: Any, table: str) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_callbacks_run_after_commit_in_order_and_see_committed_data(
    connect: Connect, table: str
) -> None:
    conn, observer = connect(), connect()
    seen: list[tuple[str, int]] = []
    with atomic(conn) as tx:
        conn.execute(f"INSERT INTO {table} VALUES (1)")
        tx.on_commit(lambda: seen.append(("first", count(observer, table))))
        tx.on_commit(lambda: seen.append(("second", count(observer, table))))
        assert seen == []
        assert count(observer, table) == 0  # not committed yet
    # Another connection already sees the row: the callbacks ran after COMMIT.
    assert seen == [("first", 1), ("second", 1)]


def test_callbacks_never_run_after_rollback(connect: Connect, table: str) -> None:
    conn = connect()
    ran: list[int] = []
    with pytest.raises(ZeroDivisionError), atomic(conn) as tx:
        conn.execute(f"INSERT INTO {table} VALUES (1)")
        tx.on_commit(lambda: ran.append(1))
        _ = 1 / 0
    assert ran == []
    assert count(conn, table) == 0
    # The connection is usable again and a new transaction has a clean slate.
    with atomic(conn) as tx:
        tx.on_commit(lambda: ran.append(2))
    assert ran == [2]


def test_nested_atomic_joins_the_outer_transaction(connect: Connect, table: str) -> None:
    conn, observer = connect(), connect()
    ran: list[str] = []
    with atomic(conn) as outer:
        with atomic(conn) as inner:
            assert inner is outer
            conn.execute(f"INSERT INTO {table} VALUES (1)")
            inner.on_commit(lambda: ran.append("inner"))
        assert ran == []  # leaving the inner block is no commit
        assert count(observer, table) == 0
        outer.on_commit(lambda: ran.append("outer"))
    assert ran == ["inner", "outer"]
    assert count(observer, table) == 1


def test_swallowed_inner_failure_rolls_back_everything(connect: Connect, table: str) -> None:
    conn = connect()
    ran: list[int] = []
    with pytest.raises(TransactionError), atomic(conn) as outer:
        conn.execute(f"INSERT INTO {table} VALUES (1)")
        outer.on_commit(lambda: ran.append(1))
        try:
            with atomic(conn):
                raise KeyError("inner")
        except KeyError:
            pass
    assert ran == []
    assert count(conn, table) == 0


def test_robust_callback_failure_does_not_stop_the_others(connect: Connect, table: str) -> None:
    conn = connect()
    ran: list[int] = []

    def boom() -> None:
        raise RuntimeError("broker down")

    with atomic(conn) as tx:
        tx.on_commit(boom, robust=True)
        tx.on_commit(lambda: ran.append(1))
    assert ran == [1]
    with pytest.raises(RuntimeError), atomic(conn) as tx:
        conn.execute(f"INSERT INTO {table} VALUES (7)")
        tx.on_commit(boom)
        tx.on_commit(lambda: ran.append(2))
    assert ran == [1]  # a plain callback's error propagates and skips the rest
    assert count(conn, table) == 1  # but the data was committed


def test_psycopg_commit_failure_runs_no_callbacks(pg_dsn: str, table: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f"CREATE TABLE {table} (id int PRIMARY KEY, parent int REFERENCES {table} (id) "
            "DEFERRABLE INITIALLY DEFERRED)"
        )
        ran: list[int] = []
        # The foreign key is only checked at COMMIT, which therefore fails.
        with pytest.raises(psycopg.errors.ForeignKeyViolation), atomic(conn) as tx:
            conn.execute(f"INSERT INTO {table} VALUES (1, 999)")
            tx.on_commit(lambda: ran.append(1))
        assert ran == []
        assert count(conn, table) == 0


def test_sqlite_commit_failure_runs_no_callbacks(sqlite_path: Path, table: str) -> None:
    conn = sqlite_connect(sqlite_path)
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(
        f"CREATE TABLE {table} (id int PRIMARY KEY, parent int REFERENCES {table} (id) "
        "DEFERRABLE INITIALLY DEFERRED)"
    )
    ran: list[int] = []
    with pytest.raises(sqlite3.IntegrityError), atomic(conn) as tx:
        conn.execute(f"INSERT INTO {table} VALUES (1, 999)")
        tx.on_commit(lambda: ran.append(1))
    assert ran == []
    assert not conn.in_transaction
    assert count(conn, table) == 0
    conn.close()


def test_refuses_a_transaction_it_did_not_open(pg_dsn: str, sq: sqlite3.Connection) -> None:
    with psycopg.connect(pg_dsn) as conn:  # autocommit off: SELECT opens a transaction
        conn.execute("SELECT 1")
        with pytest.raises(TransactionError), atomic(conn):
            pass
    sq.execute("BEGIN")
    with pytest.raises(TransactionError), atomic(sq):
        pass


def test_psycopg_non_autocommit_connection_commits(pg_dsn: str, table: str) -> None:
    with psycopg.connect(pg_dsn) as conn, psycopg.connect(pg_dsn, autocommit=True) as observer:
        conn.execute(f"CREATE TABLE {table} (id int)")
        conn.commit()
        ran: list[int] = []
        with atomic(conn) as tx:
            conn.execute(f"INSERT INTO {table} VALUES (1)")
            tx.on_commit(lambda: ran.append(count(observer, table)))
        assert ran == [1]


# --- SQLAlchemy ---------------------------------------------------------------


@pytest.fixture
def session(pg_dsn: str, table: str) -> Iterator[Session]:
    params = dict(part.split("=", 1) for part in pg_dsn.split())
    url = (
        f"postgresql+psycopg://{params['user']}@{params['host']}:{params['port']}/"
        f"{params['dbname']}"
    )
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f"CREATE TABLE {table} (id int)"))
    with Session(engine) as s:
        yield s
    engine.dispose()


def sa_count(session: Session, table: str) -> int:
    return int(session.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def test_sqlalchemy_on_commit_runs_after_commit(session: Session, table: str) -> None:
    ran: list[str] = []
    session.execute(text(f"INSERT INTO {table} VALUES (1)"))
    on_commit(session, lambda: ran.append("a"))
    on_commit(session, lambda: ran.append("b"))
    assert ran == []
    session.commit()
    assert ran == ["a", "b"]
    session.commit()  # an empty second commit must not replay them
    assert ran == ["a", "b"]


def test_sqlalchemy_on_commit_dropped_on_rollback(session: Session, table: str) -> None:
    ran: list[str] = []
    session.execute(text(f"INSERT INTO {table} VALUES (1)"))
    on_commit(session, lambda: ran.append("rolled back"))
    session.rollback()
    session.execute(text(f"INSERT INTO {table} VALUES (2)"))
    session.commit()
    assert ran == []
    assert sa_count(session, table) == 1


def test_sqlalchemy_savepoints(session: Session, table: str) -> None:
    ran: list[str] = []
    session.execute(text(f"INSERT INTO {table} VALUES (1)"))
    on_commit(session, lambda: ran.append("outer"))
    with session.begin_nested():
        on_commit(session, lambda: ran.append("released savepoint"))
    assert ran == []  # RELEASE SAVEPOINT is not COMMIT
    savepoint = session.begin_nested()
    on_commit(session, lambda: ran.append("rolled-back savepoint"))
    savepoint.rollback()
    session.commit()
    assert ran == ["outer", "released savepoint"]


def test_sqlalchemy_savepoint_callbacks_dropped_with_the_transaction(
    session: Session, table: str
) -> None:
    ran: list[str] = []
    with session.begin_nested():
        on_commit(session, lambda: ran.append("x"))
    session.rollback()
    session.commit()
    assert ran == []


def test_sqlalchemy_close_without_commit_drops_callbacks(session: Session, table: str) -> None:
    ran: list[str] = []
    session.execute(text(f"INSERT INTO {table} VALUES (1)"))
    on_commit(session, lambda: ran.append("x"))
    session.close()
    session.execute(text("SELECT 1"))
    session.commit()
    assert ran == []
