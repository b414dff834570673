"""A database-backed job queue: claim with ``SKIP LOCKED``, lease, retry, dead-letter.

PostgreSQL (psycopg 3) is the production backend; SQLite (``sqlite3``) is the
embedded default. The ``jobs`` table is a public contract, meant to be queried
from dashboards: see ``sql/postgres.sql``.

A worker loop, written out (``process_one`` does exactly this)::

    job = queue.claim(conn, worker_id)    # leases one due job and commits the lease
    if job is None:
        time.sleep(1)                     # nothing due, and no transaction left open
        continue
    try:
        handler(job)                      # long work happens outside any transaction
    except Exception as exc:
        queue.fail(conn, job, exc)        # retry later with jitter, or dead-letter
    else:
        queue.complete(conn, job)
    conn.commit()

A crashed worker's job stays ``running`` until ``reclaim_stale`` returns it to
``pending``; the crashed attempt counts, so a job that kills its worker every
time ends up ``dead`` instead of looping. ``attempts`` doubles as a fencing
token: once a job has been reclaimed, the old worker's ``complete``/``fail``
match no row and return ``False``/``None``.
"""

from __future__ import annotations

import traceback
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from . import _db
from ._db import Connection
from .backoff import full_jitter

__all__ = ["Job", "JobQueue", "Level", "QueueHealth"]

Level = Literal["ok", "warn", "page"]
_LEVELS: tuple[Level, ...] = ("ok", "warn", "page")
_MAX_ERROR_CHARS = 8000


@dataclass(frozen=True)
class Job:
    """One claimed job. ``attempts`` counts this attempt (1 on the first run)."""

    id: int
    name: str
    payload: Any
    attempts: int
    max_attempts: int
    idempotency_key: str | None
    worker_id: str


@dataclass(frozen=True)
class QueueHealth:
    """The three figures worth alerting on, each with its level, and the worst level.

    * ``dead_count`` > 0 pages: a dead job is lost work until someone looks.
    * ``oldest_pending_age_s`` > 5x the expected latency warns: workers are
      missing or too slow.
    * ``failure_rate_10m`` > 5 % warns: among jobs whose latest attempt ended in
      the last ten minutes, the share whose latest attempt failed.
    """

    dead_count: int
    oldest_pending_age_s: float
    failure_rate_10m: float
    dead_level: Level
    latency_level: Level
    failure_level: Level
    level: Level


class JobQueue:
    """Jobs in one table. All methods run on the caller's connection and leave
    committing to the caller, so enqueueing can join a business transaction
    (the transactional-outbox effect for free)."""

    def __init__(
        self,
        table: str = "jobs",
        *,
        max_attempts: int = 5,
        backoff_base: float = 30.0,
        backoff_cap: float = 600.0,
        expected_latency_s: float = 60.0,
    ) -> None:
        self.table = _db.check_table(table)
        if max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.expected_latency_s = expected_latency_s

    def _exec(self, conn: Connection, name: str, params: dict[str, Any] | None = None) -> Any:
        dialect = _db.dialect_of(conn)
        return conn.execute(_db.sql(dialect, f"queue_{name}", self.table), params or {})

    def ensure_schema(self, conn: Connection) -> None:
        """Create the table and its partial indexes if missing (idempotent)."""
        _db.run_script(conn, _db.dialect_of(conn), "queue_schema", self.table)

    def enqueue(
        self,
        conn: Connection,
        name: str,
        payload: Any,
        run_at: datetime | None = None,
        *,
        idempotency_key: str | None = None,
        max_attempts: int | None = None,
    ) -> int:
        """Insert a pending job and return its id.

        ``payload`` must be JSON primitives, lists and dicts (IDs, not objects).
        Every job gets an idempotency key (a random one unless given); it
        survives retries and dead-letter replays, so a consumer guarded by
        :class:`~joblint_runtime.idempotency.IdempotencyGuard` on ``job.idempotency_key``
        runs its side effect once however often the job is delivered.
        """
        params = {
            "name": name,
            "payload": _db.dumps(payload),
            "run_at": _timestamp(conn, run_at),
            "max_attempts": max_attempts or self.max_attempts,
            "idempotency_key": idempotency_key or uuid.uuid4().hex,
        }
        return int(self._exec(conn, "enqueue", params).fetchone()[0])

    def claim(self, conn: Connection, worker_id: str) -> Job | None:
        """Lease the next due job to ``worker_id``, or return None.

        Called with no transaction open, the claim runs in a transaction of its
        own and commits it, job or no job: the lease is visible to everyone
        while the job runs, and an idle worker holds no lock (on SQLite an open
        claim transaction holds the database's write lock, so every other
        writer would fail with "database is locked"). Called inside the
        caller's transaction (``atomic(conn)``, ``conn.transaction()``), it
        joins that transaction and the caller's COMMIT or ROLLBACK decides.
        sqlite3 with Python 3.12's ``autocommit=False`` always has a
        transaction open, so there the caller commits after every claim.

        PostgreSQL: one ``UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED
        LIMIT 1) RETURNING``. SQLite: the same UPDATE inside ``BEGIN IMMEDIATE``.
        """
        owned = not _db.in_transaction(conn)
        if owned and _db.dialect_of(conn) == "sqlite":
            conn.execute("BEGIN IMMEDIATE")
        try:
            row = self._exec(conn, "claim", {"worker_id": worker_id}).fetchone()
        except BaseException:
            if owned:
                _rollback(conn)
            raise
        if owned:
            _commit(conn)
        if row is None:
            return None
        job_id, name, payload, attempts, max_attempts, key = row
        return Job(int(job_id), name, _db.loads(payload), attempts, max_attempts, key, worker_id)

    def complete(self, conn: Connection, job: Job) -> bool:
        """Mark the job done. False if this attempt no longer owns it (lease reclaimed)."""
        cursor = self._exec(conn, "complete", {"id": job.id, "attempts": job.attempts})
        return bool(cursor.rowcount == 1)

    def heartbeat(self, conn: Connection, job: Job) -> bool:
        """Renew the lease of a long job so ``reclaim_stale`` leaves it alone."""
        cursor = self._exec(conn, "heartbeat", {"id": job.id, "attempts": job.attempts})
        return bool(cursor.rowcount == 1)

    def fail(
        self, conn: Connection, job: Job, error: str | BaseException
    ) -> Literal["pending", "dead"] | None:
        """Record a failed attempt; retry at ``now + full_jitter(attempts)`` or go dead.

        Returns the job's new state, or None if this attempt no longer owns it.
        """
        delay = full_jitter(job.attempts, base=self.backoff_base, cap=self.backoff_cap)
        params = {
            "id": job.id,
            "attempts": job.attempts,
            "delay": delay,
            "error": _describe(error),
        }
        row = self._exec(conn, "fail", params).fetchone()
        return None if row is None else row[0]

    def reclaim_stale(self, conn: Connection, older_than_s: float) -> int:
        """Return jobs leased more than ``older_than_s`` ago to ``pending`` (or ``dead``).

        Pick ``older_than_s`` well above the heartbeat interval (or the longest
        job, without heartbeats): reclaiming a live job makes it run twice.
        """
        cursor = self._exec(conn, "reclaim_stale", {"older_than_s": float(older_than_s)})
        return int(cursor.rowcount)

    def replay_dead(self, conn: Connection, job_ids: Sequence[int] | None = None) -> int:
        """Send dead jobs (all, or those in ``job_ids``) back to ``pending`` with fresh attempts.

        The idempotency key is kept, so a replay is one more duplicate delivery
        through the consumer's guard, never a second side effect.
        """
        ids = None if job_ids is None else [int(i) for i in job_ids]
        if _db.dialect_of(conn) == "sqlite":
            params: dict[str, Any] = {"all": ids is None, "ids": _db.dumps(ids or [])}
        else:
            params = {"all": ids is None, "ids": ids or []}
        return int(self._exec(conn, "replay_dead", params).rowcount)

    def health(self, conn: Connection) -> QueueHealth:
        """Dead-letter count, oldest due job's age and recent failure rate, with levels."""
        dead, oldest, succeeded, failed = self._exec(conn, "health").fetchone()
        ended = int(succeeded) + int(failed)
        rate = int(failed) / ended if ended else 0.0
        dead_level: Level = "page" if dead > 0 else "ok"
        latency_level: Level = "warn" if oldest > 5 * self.expected_latency_s else "ok"
        failure_level: Level = "warn" if rate > 0.05 else "ok"
        worst = max((dead_level, latency_level, failure_level), key=_LEVELS.index)
        return QueueHealth(
            dead_count=int(dead),
            oldest_pending_age_s=max(0.0, float(oldest)),
            failure_rate_10m=rate,
            dead_level=dead_level,
            latency_level=latency_level,
            failure_level=failure_level,
            level=worst,
        )

    def process_one(
        self, conn: Connection, worker_id: str, handler: Callable[[Job], object]
    ) -> Job | None:
        """Claim, commit the lease, run ``handler(job)``, then complete or fail and commit.

        Returns the job handled, or None when nothing was due. ``handler``
        exceptions are recorded on the job, not raised (``BaseException`` such as
        ``KeyboardInterrupt`` still propagates; the lease then expires).
        """
        job = self.claim(conn, worker_id)
        _commit(conn)  # the caller may have had a transaction open, which claim joined
        if job is None:
            return None
        try:
            handler(job)
        except Exception as exc:
            _rollback(conn)  # the handler may have left a failed transaction behind
            self.fail(conn, job, exc)
        else:
            self.complete(conn, job)
        _commit(conn)
        return job


def _explicit_sqlite(conn: Connection) -> bool:
    # Python 3.12+ sqlite3 with autocommit=True ignores commit()/rollback(),
    # while our BEGIN IMMEDIATE still needs ending.
    return getattr(conn, "autocommit", None) is True and _db.dialect_of(conn) == "sqlite"


def _commit(conn: Connection) -> None:
    if not _explicit_sqlite(conn):
        conn.commit()
    elif getattr(conn, "in_transaction", False):
        conn.execute("COMMIT")


def _rollback(conn: Connection) -> None:
    if not _explicit_sqlite(conn):
        conn.rollback()
    elif getattr(conn, "in_transaction", False):
        conn.execute("ROLLBACK")


def _timestamp(conn: Connection, when: datetime | None) -> Any:
    if when is None:
        return None
    if when.tzinfo is None:
        raise ValueError("run_at must be timezone-aware (a naive datetime is ambiguous)")
    if _db.dialect_of(conn) == "postgres":
        return when
    return when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _describe(error: str | BaseException) -> str:
    if isinstance(error, BaseException):
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    else:
        text = error
    return text[-_MAX_ERROR_CHARS:]
