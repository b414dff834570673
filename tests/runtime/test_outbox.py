"""Outbox rows are published exactly once by concurrent relays and kept when publish fails."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest
from joblint_runtime.outbox import Outbox
from joblint_runtime.transaction import atomic


@pytest.fixture
def outbox(pg: psycopg.Connection[tuple[Any, ...]], table: str) -> Outbox:
    box = Outbox(table)
    box.ensure_schema(pg)
    return box


def factory(dsn: str) -> Callable[[], psycopg.Connection[tuple[Any, ...]]]:
    return lambda: psycopg.connect(dsn, autocommit=True)


def unsent(pg: psycopg.Connection[tuple[Any, ...]], table: str) -> int:
    row = pg.execute(f"SELECT count(*) FROM {table} WHERE sent_at IS NULL").fetchone()
    assert row is not None
    return int(row[0])


def test_add_rejects_objects(outbox: Outbox, pg: psycopg.Connection[tuple[Any, ...]]) -> None:
    for args, kwargs in [
        ((datetime.now(timezone.utc),), None),
        ((object(),), None),
        ((), {"user": {1, 2}}),
        (([(1, 2)],), None),
        ((), {"x": {3: "int key"}}),
    ]:
        with pytest.raises(TypeError):
            outbox.add(pg, "task", args, kwargs)
    assert outbox.add(pg, "task", (1, "a", None, [True, 2.5]), {"user_id": 3}) > 0


def test_rolled_back_add_is_never_published(
    outbox: Outbox, pg: psycopg.Connection[tuple[Any, ...]], pg_dsn: str
) -> None:
    with pytest.raises(RuntimeError), atomic(pg):
        outbox.add(pg, "send_welcome", (1,))
        raise RuntimeError("signup failed")
    with atomic(pg):
        outbox.add(pg, "send_welcome", (2,), {"lang": "fr"})
    sent: list[tuple[str, list[Any], dict[str, Any]]] = []
    assert outbox.relay(factory(pg_dsn), lambda *m: sent.append(m)) == 1
    assert sent == [("send_welcome", [2], {"lang": "fr"})]
    assert outbox.relay(factory(pg_dsn), lambda *m: sent.append(m)) == 0


def test_three_concurrent_relays_publish_each_row_once(
    outbox: Outbox, pg: psycopg.Connection[tuple[Any, ...]], pg_dsn: str, table: str
) -> None:
    rows = 900
    with atomic(pg):
        for i in range(rows):
            outbox.add(pg, "notify", (i,))
    published: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(3)
    per_relay: list[int] = []

    def publish(task_name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
        time.sleep(0.0005)  # a broker round trip, so the relays overlap
        with lock:
            published.append(args[0])

    def run_relay() -> None:
        start.wait()
        total = 0
        with psycopg.connect(pg_dsn, autocommit=True) as check:
            while True:
                total += outbox.relay(factory(pg_dsn), publish, batch=50)
                if unsent(check, table) == 0:
                    break
        per_relay.append(total)

    threads = [threading.Thread(target=run_relay) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counts = Counter(published)
    assert len(counts) == rows and set(counts.values()) == {1}
    assert sum(per_relay) == rows
    assert sum(1 for n in per_relay if n) > 1  # more than one relay did work
    assert unsent(pg, table) == 0


def test_failed_publish_keeps_the_row_for_the_next_relay(
    outbox: Outbox, pg: psycopg.Connection[tuple[Any, ...]], pg_dsn: str, table: str
) -> None:
    for i in range(5):
        outbox.add(pg, "charge", (i,))
    published: list[int] = []
    failures = {2}

    def publish(task_name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
        if args[0] in failures:
            failures.discard(args[0])
            raise ConnectionError("broker unavailable")
        published.append(args[0])

    assert outbox.relay(factory(pg_dsn), publish) == 2  # 0 and 1, then 2 failed: stop
    assert published == [0, 1]
    row = pg.execute(
        f"SELECT attempts, last_error, sent_at FROM {table} WHERE args = '[2]'::jsonb"
    ).fetchone()
    assert row is not None
    assert row[0] == 1 and "broker unavailable" in row[1] and row[2] is None
    # Fresh rows first, then the one that failed: nothing is lost or duplicated.
    assert outbox.relay(factory(pg_dsn), publish) == 3
    assert published == [0, 1, 3, 4, 2]
    assert unsent(pg, table) == 0


def test_outbox_needs_postgres(sq: Any) -> None:
    with pytest.raises(TypeError):
        Outbox().ensure_schema(sq)
