"""The job queue on real PostgreSQL and SQLite: exactly-once claims across
processes, crash recovery after SIGKILL, retries, dead letters, health."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import psycopg
import pytest
from joblint_runtime.queue import Job, JobQueue

from .conftest import sqlite_connect

# fork: the workers open their own connections, nothing is pickled.
mp = multiprocessing.get_context("fork")


def open_connection(backend: str, target: str) -> Any:
    if backend == "postgres":
        return psycopg.connect(target)  # autocommit off: claim + commit, like a real worker
    return sqlite_connect(Path(target))


@pytest.fixture(params=["postgres", "sqlite"])
def db(request: pytest.FixtureRequest, sqlite_path: Path) -> Iterator[tuple[str, str]]:
    """(backend, target) where target is a DSN or a SQLite path."""
    if request.param == "postgres":
        yield "postgres", request.getfixturevalue("pg_dsn")
    else:
        yield "sqlite", str(sqlite_path)


@pytest.fixture
def conn(db: tuple[str, str]) -> Iterator[Any]:
    connection = open_connection(*db)
    try:
        yield connection
    finally:
        connection.close()


@pytest.fixture
def queue(conn: Any, table: str) -> JobQueue:
    q = JobQueue(table, expected_latency_s=60.0)
    q.ensure_schema(conn)
    conn.commit()
    return q


def row(conn: Any, table: str, job_id: int, columns: str) -> tuple[Any, ...]:
    result = conn.execute(f"SELECT {columns} FROM {table} WHERE id = {int(job_id)}").fetchone()
    conn.commit()
    return tuple(result)


def claim(queue: JobQueue, conn: Any, worker: str) -> Job | None:
    job = queue.claim(conn, worker)
    conn.commit()
    return job


def test_enqueue_claim_complete(queue: JobQueue, conn: Any, table: str) -> None:
    job_id = queue.enqueue(conn, "send_invoice", {"invoice_id": 12, "tags": ["a", None, 1.5]})
    conn.commit()
    job = claim(queue, conn, "w1")
    assert job is not None
    assert (job.id, job.name, job.payload, job.attempts) == (
        job_id, "send_invoice", {"invoice_id": 12, "tags": ["a", None, 1.5]}, 1)
    assert job.idempotency_key and job.worker_id == "w1"
    assert row(conn, table, job_id, "state, locked_by") == ("running", "w1")
    assert claim(queue, conn, "w2") is None  # nothing else is due
    assert queue.complete(conn, job) is True
    conn.commit()
    assert row(conn, table, job_id, "state, attempts") == ("done", 1)
    assert row(conn, table, job_id, "finished_at IS NOT NULL")[0]
    assert queue.complete(conn, job) is False  # already done


def test_claims_in_run_at_order_and_not_before(queue: JobQueue, conn: Any) -> None:
    now = datetime.now(timezone.utc)
    later = queue.enqueue(conn, "later", {}, run_at=now + timedelta(hours=1))
    second = queue.enqueue(conn, "second", {}, run_at=now - timedelta(seconds=1))
    first = queue.enqueue(conn, "first", {}, run_at=now - timedelta(seconds=10))
    conn.commit()
    claimed = [claim(queue, conn, "w"), claim(queue, conn, "w"), claim(queue, conn, "w")]
    assert [j.id if j else None for j in claimed] == [first, second, None]
    assert later not in [j.id for j in claimed if j]


def test_payload_must_be_ids_and_primitives(queue: JobQueue, conn: Any) -> None:
    for bad in ({"when": datetime.now(timezone.utc)}, {"obj": object()}, {1: "x"}, {"t": (1, 2)},
                {"nan": float("nan")}):
        with pytest.raises((TypeError, ValueError)):
            queue.enqueue(conn, "x", bad)
    with pytest.raises(ValueError):
        queue.enqueue(conn, "x", {}, run_at=datetime.now())  # naive


def test_fail_retries_with_jitter_then_dead_letters(queue: JobQueue, conn: Any,
                                                    table: str) -> None:
    job_id = queue.enqueue(conn, "flaky", {"n": 1}, max_attempts=2, idempotency_key="key-1")
    conn.commit()
    job = claim(queue, conn, "w")
    assert job is not None
    assert queue.fail(conn, job, ValueError("boom")) == "pending"
    conn.commit()
    state, error, delay = row(
        conn, table, job_id,
        "state, last_error, "
        + ("extract(epoch FROM run_at - now())" if isinstance(conn, psycopg.Connection)
           else "(julianday(run_at) - julianday('now')) * 86400"),
    )
    assert state == "pending" and "ValueError: boom" in error
    assert -1.0 <= float(delay) <= 60.0  # full_jitter(1, base=30) is within [0, 60] s
    assert claim(queue, conn, "w") is None  # not due yet
    conn.execute(f"UPDATE {table} SET run_at = created_at")
    conn.commit()
    job = claim(queue, conn, "w")
    assert job is not None and job.attempts == 2
    assert queue.fail(conn, job, "still broken") == "dead"
    conn.commit()
    assert row(conn, table, job_id, "state, attempts") == ("dead", 2)
    health = queue.health(conn)
    assert health.dead_count == 1 and health.dead_level == "page" and health.level == "page"

    assert queue.replay_dead(conn) == 1
    conn.commit()
    assert row(conn, table, job_id, "state, attempts, idempotency_key") == (
        "pending", 0, "key-1")
    job = claim(queue, conn, "w")
    assert job is not None and job.idempotency_key == "key-1"


def test_replay_selected_dead_jobs(queue: JobQueue, conn: Any, table: str) -> None:
    ids = [queue.enqueue(conn, "x", {"i": i}, max_attempts=1) for i in range(3)]
    conn.commit()
    for _ in ids:
        job = claim(queue, conn, "w")
        assert job is not None
        assert queue.fail(conn, job, "nope") == "dead"
        conn.commit()
    assert queue.replay_dead(conn, [ids[0], ids[2]]) == 2
    conn.commit()
    states = [row(conn, table, i, "state")[0] for i in ids]
    assert states == ["pending", "dead", "pending"]
    assert queue.replay_dead(conn, []) == 0


def test_reclaimed_lease_fences_out_the_old_worker(queue: JobQueue, conn: Any,
                                                   table: str) -> None:
    job_id = queue.enqueue(conn, "slow", {})
    conn.commit()
    stale = claim(queue, conn, "old")
    assert stale is not None
    assert queue.heartbeat(conn, stale) is True
    conn.commit()
    time.sleep(0.05)
    assert queue.reclaim_stale(conn, older_than_s=0.01) == 1
    conn.commit()
    fresh = claim(queue, conn, "new")
    assert fresh is not None and fresh.attempts == 2
    assert queue.complete(conn, stale) is False
    assert queue.fail(conn, stale, "late") is None
    assert queue.heartbeat(conn, stale) is False
    assert queue.complete(conn, fresh) is True
    conn.commit()
    assert row(conn, table, job_id, "state, locked_by") == ("done", "new")


def test_reclaim_ignores_fresh_leases_and_dead_letters_exhausted_jobs(
    queue: JobQueue, conn: Any, table: str
) -> None:
    job_id = queue.enqueue(conn, "poison", {}, max_attempts=1)
    conn.commit()
    assert claim(queue, conn, "w") is not None
    assert queue.reclaim_stale(conn, older_than_s=3600) == 0
    conn.commit()  # PostgreSQL's now() is the transaction's start time
    time.sleep(0.05)
    assert queue.reclaim_stale(conn, older_than_s=0.01) == 1
    conn.commit()
    state, error = row(conn, table, job_id, "state, last_error")
    assert state == "dead" and "lease expired" in error


def test_health_levels(queue: JobQueue, conn: Any, table: str) -> None:
    healthy = queue.health(conn)
    assert (healthy.dead_count, healthy.oldest_pending_age_s, healthy.failure_rate_10m,
            healthy.level) == (0, 0.0, 0.0, "ok")
    for i in range(19):
        queue.enqueue(conn, "ok", {"i": i})
    queue.enqueue(conn, "bad", {})
    conn.commit()
    for _ in range(20):
        job = claim(queue, conn, "w")
        assert job is not None
        if job.name == "bad":
            queue.fail(conn, job, "x")
        else:
            queue.complete(conn, job)
        conn.commit()
    health = queue.health(conn)
    assert health.failure_rate_10m == pytest.approx(1 / 20)
    assert health.failure_level == "ok"  # exactly 5 % is not above 5 %
    queue.enqueue(conn, "bad2", {})
    conn.commit()
    job = claim(queue, conn, "w")
    assert job is not None and job.name == "bad2"
    queue.fail(conn, job, "x")
    conn.commit()
    health = queue.health(conn)
    assert health.failure_rate_10m == pytest.approx(2 / 21)
    assert (health.failure_level, health.level) == ("warn", "warn")

    queue.enqueue(conn, "old", {}, run_at=datetime.now(timezone.utc) - timedelta(minutes=10))
    conn.commit()
    health = queue.health(conn)
    assert health.oldest_pending_age_s >= 590
    assert health.latency_level == "warn"  # 600 s > 5 x 60 s
    assert health.dead_level == "ok" and health.level == "warn"


def test_process_one_records_handler_failures(queue: JobQueue, conn: Any, table: str) -> None:
    job_id = queue.enqueue(conn, "x", {})
    conn.commit()

    def handler(job: Job) -> None:
        raise KeyError(job.id)

    handled = queue.process_one(conn, "w", handler)
    assert handled is not None and handled.id == job_id
    assert row(conn, table, job_id, "state, attempts") == ("pending", 1)
    assert queue.process_one(conn, "w", handler) is None  # backing off


# --- many processes -------------------------------------------------------------


def drain(backend: str, target: str, table: str, worker: str, out: Any) -> None:
    conn = open_connection(backend, target)
    queue = JobQueue(table)
    seen: list[int] = []
    while queue.process_one(conn, worker, lambda job: seen.append(job.id)) is not None:
        pass
    conn.close()
    out.put(seen)


@pytest.mark.parametrize("jobs", [5000])
def test_eight_processes_process_each_job_exactly_once(
    db: tuple[str, str], queue: JobQueue, conn: Any, table: str, jobs: int
) -> None:
    backend, target = db
    for i in range(jobs):
        queue.enqueue(conn, "work", {"i": i})
    conn.commit()
    out = mp.Queue()
    workers = [mp.Process(target=drain, args=(backend, target, table, f"w{n}", out))
               for n in range(8)]
    for worker in workers:
        worker.start()
    per_worker = [out.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    seen = Counter(job_id for ids in per_worker for job_id in ids)
    assert len(seen) == jobs and set(seen.values()) == {1}
    assert sum(1 for ids in per_worker if ids) > 1  # the work really was shared
    states = conn.execute(f"SELECT state, attempts, count(*) FROM {table} "
                          "GROUP BY state, attempts").fetchall()
    conn.commit()
    assert [tuple(s) for s in states] == [("done", 1, jobs)]


def hang_in_job(backend: str, target: str, table: str, started: Any) -> None:
    conn = open_connection(backend, target)

    def handler(job: Job) -> None:
        started.set()
        time.sleep(600)  # "mid-job" until killed

    JobQueue(table).process_one(conn, "doomed", handler)


def test_killed_worker_job_is_reclaimed_and_finished(
    db: tuple[str, str], queue: JobQueue, conn: Any, table: str
) -> None:
    backend, target = db
    job_id = queue.enqueue(conn, "report", {"id": 1})
    conn.commit()
    started = mp.Event()
    worker = mp.Process(target=hang_in_job, args=(backend, target, table, started))
    worker.start()
    assert started.wait(timeout=30)
    os.kill(worker.pid or 0, signal.SIGKILL)
    worker.join(timeout=30)
    assert worker.exitcode == -signal.SIGKILL
    assert row(conn, table, job_id, "state, locked_by") == ("running", "doomed")
    assert claim(queue, conn, "rescuer") is None  # still leased

    time.sleep(0.05)
    assert queue.reclaim_stale(conn, older_than_s=0.01) == 1
    conn.commit()
    done: list[Job] = []
    handled = queue.process_one(conn, "rescuer", done.append)
    assert handled is not None and handled.id == job_id
    assert [job.attempts for job in done] == [2]
    assert row(conn, table, job_id, "state, locked_by, attempts") == ("done", "rescuer", 2)


def test_table_name_is_validated() -> None:
    for bad in ("jobs; DROP TABLE x", "1jobs", "a.b.c", "jobs--"):
        with pytest.raises(ValueError):
            JobQueue(bad)
    assert JobQueue("public.jobs").table == "public.jobs"

