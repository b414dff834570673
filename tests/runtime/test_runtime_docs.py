"""Every Python block of docs/runtime.md, run on each database its marker names.

``SPECS`` is the table: for each block, the names it is given (made as
``docs_world.GIVEN`` says: real connections, servers and clients), what is set
up before it, and what running it must show. "Before" blocks, the wrong code a
section starts from, run too: their check asserts the bug they illustrate, and
``reports`` names the rule the linter must find in them (test_doc_snippets.py).
The blocks run under real workers (``celery-tasks``, ``rq-jobs``,
``dramatiq-actors``) are the worker tests' (``RUN_BY_WORKERS``).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import psycopg
import pytest
from joblint_runtime.backoff import ceiling
from joblint_runtime.queue import JobQueue
from rq import Queue

from .docs_world import (
    ORDER_ID,
    PREAMBLE_DEFINES,
    TOTAL,
    Database,
    Run,
    connect_as_documented,
    database,
    doc_block,
    free_names,
    metrics_log,
    run_block,
)
from .services import Postgres, RedisServer
from .workers import doc_blocks, wait_until

RUN_BY_WORKERS = {
    "celery-tasks": "test_celery.py",
    "rq-jobs": "test_rq.py",
    "dramatiq-actors": "test_dramatiq.py",
}

# Why a block that touches a database runs on one of them only.
ONE_DATABASE_BECAUSE = {
    "connect-sqlite": "one block per driver; connect-postgres is the other",
    "connect-postgres": "one block per driver; connect-sqlite is the other",
    "atomic-sqlite": "its SQL has sqlite3's placeholders; atomic-postgres has psycopg's",
    "atomic-postgres": "its SQL has psycopg's placeholders; atomic-sqlite has sqlite3's",
    "idempotent-sqlite": "its SQL has sqlite3's placeholders; idempotent-postgres has psycopg's",
    "idempotent-postgres": "its SQL has psycopg's placeholders; idempotent-sqlite has sqlite3's",
    "enqueue-in-transaction": "conn.transaction() is psycopg's API",
    "outbox": "the outbox needs PostgreSQL (FOR UPDATE SKIP LOCKED)",
    "for-update": "FOR UPDATE is PostgreSQL's; SQLite has no row locks",
    "advisory-lock": "advisory locks are PostgreSQL's",
    "celery-tasks": "psycopg and the outbox, under real Celery workers",
    "dramatiq-actors": "psycopg, under a real Dramatiq worker; idempotent-sqlite: SQLite",
}

PICKLE = {"task_serializer": "pickle", "accept_content": ["pickle", "json"]}


@dataclass(frozen=True)
class Spec:
    given: tuple[str, ...]  # exactly the names the block reads and neither it nor PREAMBLE defines
    check: Callable[[Run], None]
    setup: Callable[[Database], None] | None = None
    celery_conf: dict[str, Any] = field(default_factory=dict)
    raises: type[Exception] | None = None  # what the block demonstrates by raising
    match: str = ""  # ... with this in its message
    reports: tuple[str, ...] = ()  # a "before" block: the rules the linter must report in it
    linted: bool = True  # False: a demonstration of a runtime check, not advice


# --- setup ---------------------------------------------------------------------------


def an_order(db: Database) -> None:
    db.insert_many("orders", "id, total", [(ORDER_ID, TOTAL)])


def two_pending_jobs(db: Database) -> None:
    queue = JobQueue()
    queue.ensure_schema(db.admin())
    for order_id in (1, 2):
        queue.enqueue(db.admin(), "send_receipt", {"order_id": order_id})


USERS = 1200


def users(db: Database) -> None:
    db.insert_many("users", "id, email", [(i, f"u{i}@example.com") for i in range(1, USERS + 1)])


# --- checks --------------------------------------------------------------------------


def sqlite_autocommit_wal(run: Run) -> None:
    conn = run["conn"]
    assert conn.isolation_level is None
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def postgres_autocommit(run: Run) -> None:
    conn = run["conn"]
    assert conn.autocommit
    assert conn.execute("SELECT count(*) FROM orders").fetchone()[0] == 0  # the run's schema
    conn.close()


def published_before_commit(run: Run) -> None:
    [message] = run.published()
    assert (message.task, message.args) == ("shop.tasks.send_receipt", [ORDER_ID])
    assert message.orders_committed == 0  # a worker taking it now finds no order
    assert run.db.value("SELECT count(*) FROM orders") == 1


def published_after_commit(run: Run) -> None:
    [message] = run.published()
    assert (message.task, message.args) == ("shop.tasks.send_receipt", [ORDER_ID])
    assert message.orders_committed == 1


def relayed_after_commit(run: Run) -> None:
    published_after_commit(run)
    assert run.db.value("SELECT count(*) FROM job_outbox WHERE sent_at IS NOT NULL") == 1


def nothing_published(run: Run) -> None:
    assert run.published() == []


def published_in_60_s(run: Run) -> None:
    [message] = run.published()
    assert (message.args, message.kwargs) == ([ORDER_ID], {})
    assert message.eta is not None
    wait = (message.eta - datetime.now(timezone.utc)).total_seconds()
    assert 50 < wait <= 60


def every_callback_sent_the_last_order(run: Run) -> None:
    assert [m.args for m in run.published()] == [[3], [3], [3]]


def each_callback_sent_its_order(run: Run) -> None:
    assert [m.args for m in run.published()] == [[1], [2], [3]]


def a_pickled_copy(run: Run) -> None:
    [message] = run.published()
    copy = message.args[0]
    assert isinstance(copy, run["Order"]) and copy.total == TOTAL
    run.db.admin().execute(f"UPDATE orders SET total = 1 WHERE id = {ORDER_ID}")
    assert copy.total == TOTAL  # what the job will work on, whatever the row says by then


def the_id(run: Run) -> None:
    [message] = run.published()
    assert message.args == [ORDER_ID]


def retried_in_lockstep(run: Run) -> None:
    for customer in ("flaky-a", "flaky-b"):
        run.outside.crm.fail(customer, ConnectionError("down"), ConnectionError("down"))
        assert run["sync"].apply(args=(customer,)).state == "SUCCESS"
    # Both failed together and retry together: after 1 s, then after 2 s.
    assert run.retry_countdowns("sync") == [1, 2, 1, 2]


def retried_with_jitter(run: Run) -> None:
    run.outside.crm.fail("flaky-a", ConnectionError("down"), ConnectionError("down"))
    assert run["sync"].apply(args=("flaky-a",)).state == "SUCCESS"
    waits = run.retry_countdowns("sync")
    assert len(waits) == 2
    assert all(0 <= wait <= ceiling(n) for n, wait in enumerate(waits))

    run.outside.crm.fail("down-a", *[ConnectionError("down")] * 9)
    assert run["sync_customer"].apply(args=("down-a",)).state == "FAILURE"
    assert run.outside.crm.attempts("down-a") == 5
    waits = run.retry_countdowns("sync_customer")
    assert len(waits) == 4
    assert all(0 <= wait <= ceiling(n) for n, wait in enumerate(waits))


def rq_intervals_drawn(run: Run) -> None:
    [job] = Queue(connection=run["r"]).jobs
    assert job.args == ("flaky-1",)
    assert job.retries_left == 4
    assert job.retry_intervals is not None and len(job.retry_intervals) == 4
    assert all(0 <= wait <= ceiling(n) for n, wait in enumerate(job.retry_intervals))


def a_bug_retried(run: Run) -> None:
    run.outside.crm.fail("bug-a", *[KeyError("email")] * 6)
    assert run["sync"].apply(args=("bug-a",)).state == "SUCCESS"
    # Six retries of a KeyError; it would go on for as long as the bug stays.
    assert run.outside.crm.attempts("bug-a") == 7


def transient_errors_only(run: Run) -> None:
    sync, crm = run["sync"], run.outside.crm
    crm.fail("bug-a", KeyError("email"))
    assert sync.apply(args=("bug-a",)).state == "FAILURE"
    assert crm.attempts("bug-a") == 1
    crm.fail("busy-a", run["CRMUnavailable"](), run["CRMUnavailable"]())
    assert sync.apply(args=("busy-a",)).state == "SUCCESS"
    assert crm.attempts("busy-a") == 3
    crm.fail("down-a", *[ConnectionError("down")] * 9)
    assert sync.apply(args=("down-a",)).state == "FAILURE"
    assert crm.attempts("down-a") == 5


def second_worker_waits(run: Run) -> None:
    query = "SELECT id FROM jobs WHERE state = 'pending' ORDER BY id LIMIT 1 FOR UPDATE"
    assert run["cur"].fetchone() == (1,)
    with psycopg.connect(run.db.dsn) as other:
        other.execute("SET lock_timeout = '200ms'")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            other.execute(query)
        other.rollback()
        assert other.execute(query.replace("FOR UPDATE", "FOR UPDATE SKIP LOCKED")).fetchone() == (
            2,
        )


def a_worker_runs_the_job(run: Run) -> None:
    stop, failures = threading.Event(), []

    def worker() -> None:
        conn = connect_as_documented(run.db)  # a connection of the worker's own
        try:
            run["work"](conn, "worker-1", stop)
        except Exception as exc:
            failures.append(exc)
            raise
        finally:
            conn.close()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        wait_until(
            lambda: run.outside.mailer.receipts == [ORDER_ID] or bool(failures),
            10,
            "the worker to send the receipt",
        )
    finally:
        stop.set()
        thread.join(timeout=10)
    assert failures == []
    assert run.db.rows("SELECT state, attempts FROM jobs") == [("done", 1)]


def lock_never_expires(run: Run) -> None:
    assert run.outside.report_ttls_ms == [-1]  # no TTL: a dead worker holds it forever
    assert not run["r"].exists("lock:report")


def locked_with_ttl(run: Run) -> None:
    ttls = run.outside.report_ttls_ms
    assert len(ttls) == 2 and all(0 < ttl <= 300_000 for ttl in ttls)
    assert not run["r"].exists("lock:report")
    assert run.outside.digests == 1
    assert not run["run_once_per"](run["r"], "daily-digest", run["today"].isoformat(), ttl=60)


def held_while_reindexing(run: Run) -> None:
    assert run.outside.reindex_held == [True, True]
    run.outside.reindex()
    assert run.outside.reindex_held[-1] is False  # released


def charged_twice(run: Run) -> None:
    run["charge"].apply(args=(ORDER_ID,))
    run["charge"].apply(args=(ORDER_ID,))  # a redelivery
    assert run.payments is not None
    assert [body for body, _key in run.payments.calls] == [{"order_id": ORDER_ID}] * 2


def charged_once(run: Run) -> None:
    for _ in range(3):  # the first delivery, a retry, a redelivery
        assert run["charge"].apply(args=(ORDER_ID,)).state == "SUCCESS"
    assert run.payments is not None
    assert run.payments.calls == [({"order_id": ORDER_ID}, f"charge:{ORDER_ID}")]
    assert run.db.rows("SELECT order_id FROM charges") == [(ORDER_ID,)]
    assert run.db.rows("SELECT job_key FROM job_runs") == [(f"charge:{ORDER_ID}",)]


def one_long_job(run: Run) -> None:
    assert run["backfill"].apply().state == "SUCCESS"
    assert sorted(run.outside.updated) == list(range(1, USERS + 1))
    assert run.published() == []  # all of it in this one job


def one_page_per_job(run: Run) -> None:
    assert run["backfill"].apply().state == "SUCCESS"
    delivered = run.deliver()
    assert [m.id for m in delivered] == ["backfill:500", "backfill:1000"]
    assert [len(page) for page in run.outside.pages] == [500, 500, 200]
    assert Counter(i for page in run.outside.pages for i in page) == Counter(range(1, USERS + 1))


def timed_and_counted(run: Run) -> None:
    assert run.outside.exports == 1
    with metrics_log() as lines:
        run["send_receipt"](ORDER_ID)
    assert run.outside.mailer.receipts == [ORDER_ID]
    assert any(line.startswith("job.send_receipt.duration_ms:") for line in lines)
    assert "job.send_receipt.ok:1|c" in lines


SPECS: dict[str, Spec] = {
    "connect-sqlite": Spec((), sqlite_autocommit_wal),
    "connect-postgres": Spec(("DSN",), postgres_autocommit),
    "enqueue-in-transaction": Spec(
        ("conn", "order_id", "total"), published_before_commit, reports=("JL101",)
    ),
    "atomic-sqlite": Spec(("conn", "order_id", "total"), published_after_commit),
    "atomic-postgres": Spec(("conn", "order_id", "total"), published_after_commit),
    "sqlalchemy-on-commit": Spec(("order",), published_after_commit),
    "outbox": Spec(("DSN", "conn", "order_id", "total"), relayed_after_commit),
    "countdown-as-argument": Spec(
        ("order_id",),
        nothing_published,
        raises=TypeError,
        match="unexpected keyword argument 'countdown'",
        reports=("JL103",),
    ),
    "countdown-as-option": Spec(("order_id",), published_in_60_s),
    "late-binding": Spec(
        ("conn", "orders"), every_callback_sent_the_last_order, reports=("JL104",)
    ),
    "bound-now": Spec(("conn", "orders"), each_callback_sent_its_order),
    "object-payload": Spec(
        ("order_id",), a_pickled_copy, setup=an_order, celery_conf=PICKLE, reports=("JL201",)
    ),
    "id-payload": Spec(("order_id",), the_id, setup=an_order),
    "payload-type-error": Spec(
        ("conn", "order"),
        nothing_published,
        raises=TypeError,
        match="payload['order']: Order is not a JSON primitive",
        linted=False,
    ),
    "retry-in-lockstep": Spec(("crm",), retried_in_lockstep, reports=("JL301",)),
    "retry-with-jitter": Spec(("crm",), retried_with_jitter),
    "rq-retry-with-jitter": Spec(("crm", "customer_id"), rq_intervals_drawn),
    "retry-forever": Spec(("crm",), a_bug_retried, reports=("JL302", "JL303")),
    "retry-bounded": Spec(("crm",), transient_errors_only),
    "for-update": Spec(("cur",), second_worker_waits, setup=two_pending_jobs, reports=("JL401",)),
    "job-queue": Spec(("conn", "mailer", "order_id"), a_worker_runs_the_job),
    "setnx-lock": Spec(("build_report",), lock_never_expires, reports=("JL402",)),
    "redis-lock": Spec(("build_report", "send_digest"), locked_with_ttl),
    "advisory-lock": Spec(("conn", "reindex"), held_while_reindexing),
    "unguarded-charge": Spec(("PAYMENTS_URL",), charged_twice, reports=("JL601",)),
    "idempotent-sqlite": Spec(("PAYMENTS_URL",), charged_once),
    "idempotent-postgres": Spec(("DSN", "PAYMENTS_URL"), charged_once),
    "whole-table-job": Spec(("update",), one_long_job, setup=users, reports=("JL602",)),
    "chunked-job": Spec(("update_many",), one_page_per_job, setup=users),
    "metrics": Spec(("export", "mailer"), timed_and_counted),
}


def _runs() -> Iterator[Any]:
    for block in doc_blocks():
        if block.name in SPECS:
            for backend in block.backends or ("none",):
                yield pytest.param(block.name, backend, id=f"{block.name}-{backend}")


@pytest.mark.parametrize(("name", "backend"), list(_runs()))
def test_the_block_runs_as_documented(
    name: str,
    backend: str,
    redis_server: RedisServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    spec, block = SPECS[name], doc_block(name)
    monkeypatch.chdir(tmp_path)  # the SQLite blocks' "shop.db"
    postgres: Postgres | None = (
        request.getfixturevalue("postgres") if backend == "postgres" else None
    )
    with (
        database(backend, postgres, tmp_path) as db,
        run_block(
            block, db, redis_server, spec.given, celery_conf=spec.celery_conf, setup=spec.setup
        ) as run,
    ):
        if spec.raises is None:
            if run.error is not None:
                raise run.error
        else:
            assert isinstance(run.error, spec.raises), run.error
            assert spec.match in str(run.error)
        spec.check(run)


def test_each_block_is_given_exactly_what_it_reads() -> None:
    for block in doc_blocks():
        if block.name in SPECS:
            needs = free_names(block.source) - PREAMBLE_DEFINES
            assert needs == set(SPECS[block.name].given), block.name


def test_a_block_on_one_database_says_why() -> None:
    on_one = {block.name for block in doc_blocks() if len(block.backends) == 1}
    assert on_one == set(ONE_DATABASE_BECAUSE)
