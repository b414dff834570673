"""The servers the other runtime tests rely on are real and answering."""

from __future__ import annotations

import psycopg
import redis


def test_postgres_is_real(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    row = pg.execute("SELECT current_setting('server_version_num')::int").fetchone()
    assert row is not None and row[0] >= 120000


def test_redis_is_real(r: redis.Redis) -> None:
    assert r.ping() is True
    assert r.set("k", "v", nx=True, px=1000) is True
    assert r.set("k", "v", nx=True, px=1000) is None
