"""The idempotency guard under a real Dramatiq worker on the test Redis broker.

The actor is the "dramatiq-actors" block of docs/runtime.md after a preamble
that stands in for the user's settings and payment provider, and a middleware
after it that records every delivery and outcome.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import psycopg
import pytest
import redis

from .services import Postgres, RedisServer
from .workers import (
    doc_snippet,
    dramatiq_worker,
    fresh_database,
    import_module,
    stop_all,
    wait_until,
)

PREAMBLE = '''\
"""Test preamble: the user's settings and payment provider, recording every call."""
import json
import os
import time

import redis as _redis

BROKER_URL = os.environ["BROKER_URL"]
DSN = os.environ["DSN"]
_records = _redis.Redis.from_url(os.environ["RECORDS_URL"])

DECLINE_FIRST_CALL = 8


class _Payments:
    def charge(self, order_id, idempotency_key):
        calls = _records.rpush(f"payments:{order_id}", json.dumps(
            {"t": time.time(), "key": idempotency_key, "pid": os.getpid()}))
        if order_id == DECLINE_FIRST_CALL and calls == 1:
            raise ConnectionError("payment provider timed out")
        time.sleep(0.3)  # keep the transaction open while duplicates arrive


payments = _Payments()


# --- docs/runtime.md, "dramatiq-actors" ------------------------------------------
'''

POSTAMBLE = '''

# --- test recorder ------------------------------------------------------------------
import dramatiq as _dramatiq  # noqa: E402


class _Recorder(_dramatiq.Middleware):
    def before_process_message(self, broker, message):
        _records.rpush(f"delivered:{message.args[0]}", os.getpid())

    def after_process_message(self, broker, message, *, result=None, exception=None):
        outcome = "success" if exception is None else "failure"
        _records.rpush(f"outcome:{message.args[0]}", outcome)


_dramatiq.get_broker().add_middleware(_Recorder())
'''


@dataclass
class DramatiqRun:
    actors: ModuleType
    dsn: str
    records: redis.Redis

    def log(self, key: str) -> list[Any]:
        return [json.loads(item) for item in self.records.lrange(key, 0, -1)]

    def outcomes(self, order_id: int) -> list[str]:
        return [item.decode() for item in self.records.lrange(f"outcome:{order_id}", 0, -1)]

    def charges(self) -> Counter[int]:
        with psycopg.connect(self.dsn) as conn:
            return Counter(row[0] for row in conn.execute("SELECT order_id FROM charges"))


@pytest.fixture
def dramatiq_env(postgres: Postgres, redis_server: RedisServer,
                 tmp_path_factory: pytest.TempPathFactory,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[DramatiqRun]:
    directory = tmp_path_factory.mktemp("dramatiq")
    source = PREAMBLE + doc_snippet("dramatiq-actors") + "\n" + POSTAMBLE
    (directory / "actors.py").write_text(source)
    dsn = fresh_database(postgres)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE charges (order_id int NOT NULL)")
    base = redis_server.url.rsplit("/", 1)[0]
    # Databases 5 and 6: the other tests flush database 0 under the worker's feet.
    env = {"BROKER_URL": f"{base}/5", "RECORDS_URL": f"{base}/6", "DSN": dsn}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for url in (env["BROKER_URL"], env["RECORDS_URL"]):
        redis.Redis.from_url(url).flushdb()
    records = redis.Redis.from_url(env["RECORDS_URL"])
    actors = import_module("actors", directory / "actors.py")
    with psycopg.connect(dsn, autocommit=True) as conn:
        actors.create_tables(conn)  # the block's own, as a deploy would run it
    worker = dramatiq_worker("actors", directory, env, name="dramatiq")
    try:
        yield DramatiqRun(actors, dsn, records)
    finally:
        stop_all([worker])
        sys.modules.pop("actors", None)
        records.close()


def test_idempotent_actor_duplicates_and_a_retry_have_one_effect_each(
    dramatiq_env: DramatiqRun,
) -> None:
    actors = dramatiq_env.actors
    for _ in range(5):
        actors.charge.send(7)  # one logical job, five messages
    actors.charge.send(actors.DECLINE_FIRST_CALL)
    wait_until(lambda: len(dramatiq_env.outcomes(7)) >= 5, 30, "five deliveries of order 7")
    # Sorted: the retry is enqueued by a middleware hook that may run before ours.
    wait_until(lambda: sorted(dramatiq_env.outcomes(8)) == ["failure", "success"], 30,
               "order 8 to fail once and succeed on Dramatiq's retry")

    assert dramatiq_env.outcomes(7) == ["success"] * 5
    assert len(dramatiq_env.log("payments:7")) == 1
    # The failed attempt rolled its claim back, so the retry ran the body.
    assert [call["key"] for call in dramatiq_env.log("payments:8")] == ["charge:8"] * 2
    assert dramatiq_env.charges() == Counter({7: 1, 8: 1})
