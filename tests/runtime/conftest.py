"""Real PostgreSQL and Redis for the runtime tests, started once per session.

If either server cannot start, every test that needs it errors with the
server's log; nothing is skipped.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis

from .services import Postgres, RedisServer, start_postgres, start_redis


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    server = start_postgres()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_dsn(postgres: Postgres) -> str:
    return postgres.dsn


@pytest.fixture
def pg(pg_dsn: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """An autocommit connection: each statement commits unless atomic() is used."""
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        yield conn


@pytest.fixture
def table() -> str:
    """A fresh table name per test, so tests never see each other's rows."""
    return f"t_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "jobs.db"


def sqlite_connect(path: Path) -> sqlite3.Connection:
    """How the runtime expects SQLite connections: explicit transactions, WAL, a busy timeout."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


@pytest.fixture
def sq(sqlite_path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite_connect(sqlite_path)
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = start_redis()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def r(redis_server: RedisServer) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    try:
        yield client
    finally:
        client.close()
