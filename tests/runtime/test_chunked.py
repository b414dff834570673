"""Keyset chunking over a real SQLite table: every row once, retry-safe pages."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import pytest
from joblint_runtime.chunked import run_chunk


@pytest.fixture
def users(sq: sqlite3.Connection) -> sqlite3.Connection:
    sq.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)")
    sq.execute("CREATE TABLE mailed (user_id INTEGER PRIMARY KEY, times INTEGER NOT NULL)")
    # Gaps in the ids: keyset pagination must not assume dense keys.
    sq.executemany("INSERT INTO users VALUES (?, ?)",
                   [(i * 3, f"u{i}@example.com") for i in range(1, 1235)])
    return sq


def fetch(conn: sqlite3.Connection) -> Any:
    def fetch_page(after: int | None, limit: int) -> list[tuple[int, str]]:
        return conn.execute("SELECT id, email FROM users WHERE id > ? ORDER BY id LIMIT ?",
                            (after or 0, limit)).fetchall()
    return fetch_page


def mark(conn: sqlite3.Connection) -> Any:
    def process(rows: Sequence[tuple[int, str]]) -> None:
        conn.executemany(
            "INSERT INTO mailed VALUES (?, 1) "
            "ON CONFLICT (user_id) DO UPDATE SET times = times + 1",
            [(row[0],) for row in rows])
    return process


def test_chain_visits_every_row_once(users: sqlite3.Connection) -> None:
    queue: list[int | None] = [None]  # the first job starts from the beginning
    jobs = 0
    while queue:
        cursor = queue.pop(0)
        jobs += 1
        run_chunk(fetch(users), mark(users), queue.append, cursor=cursor, page=100)
    assert jobs == 13  # 12 full pages of 100, then the short last page ends the chain
    assert users.execute("SELECT count(*), min(times), max(times) FROM mailed").fetchone() == (
        1234, 1, 1)


def test_returns_next_cursor_and_retry_reads_the_same_page(users: sqlite3.Connection) -> None:
    enqueued: list[int] = []
    first = run_chunk(fetch(users), mark(users), enqueued.append, page=10)
    assert first == 30 and enqueued == [30]
    seen: list[list[int]] = []
    for _ in range(2):  # the job for cursor 30 is delivered twice
        run_chunk(fetch(users), lambda rows: seen.append([r[0] for r in rows]),
                  enqueued.append, cursor=30, page=10)
    assert seen[0] == seen[1] == list(range(33, 61, 3))
    assert enqueued == [30, 60, 60]


def test_last_and_empty_pages_end_the_walk(users: sqlite3.Connection) -> None:
    enqueued: list[int] = []
    processed: list[int] = []
    assert run_chunk(fetch(users), lambda rows: processed.append(len(rows)), enqueued.append,
                     cursor=3 * 1230, page=10) is None
    assert processed == [4] and enqueued == []
    assert run_chunk(fetch(users), lambda rows: processed.append(len(rows)), enqueued.append,
                     cursor=10**9) is None
    assert processed == [4]


def test_custom_key_and_page_validation(users: sqlite3.Connection) -> None:
    def fetch_dicts(after: str | None, limit: int) -> list[dict[str, Any]]:
        rows = users.execute("SELECT id, email FROM users WHERE email > ? ORDER BY email LIMIT ?",
                             (after or "", limit)).fetchall()
        return [{"id": i, "email": e} for i, e in rows]

    out: list[str] = []
    nxt = run_chunk(fetch_dicts, lambda rows: None, out.append, page=2,
                    key=lambda row: row["email"])
    assert nxt == "u1001@example.com" and out == [nxt]  # "u1000@" < "u1001@" < "u100@"
    with pytest.raises(ValueError):
        run_chunk(fetch(users), mark(users), out.append, page=0)
