"""Transactional outbox: enqueue in the same transaction as the data, publish after.

``add`` writes a row into ``job_outbox`` inside the caller's transaction, so the
job exists exactly when the business change does: a rollback discards both.
``relay`` (run it in a loop, a cron or a worker) publishes committed rows to the
real broker and marks them sent. Delivery is at-least-once: a relay that dies
after publishing but before its COMMIT leaves the rows unsent and the next relay
publishes them again, so consumers must be idempotent
(:mod:`joblint_runtime.idempotency`). PostgreSQL only: relays running side by
side split the rows between them with ``FOR UPDATE SKIP LOCKED``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from . import _db
from ._db import Connection
from .transaction import atomic

__all__ = ["Outbox", "Publish"]

log = logging.getLogger(__name__)

#: ``publish(task_name, args, kwargs)``: send one message to the broker, raise on failure.
Publish = Callable[[str, list[Any], dict[str, Any]], object]


class Outbox:
    """Outgoing job messages stored in ``table`` until a relay has published them."""

    def __init__(self, table: str = "job_outbox") -> None:
        self.table = _db.check_table(table)

    def _exec(self, conn: Connection, name: str, params: dict[str, Any] | None = None) -> Any:
        if _db.dialect_of(conn) != "postgres":
            raise TypeError("the outbox needs PostgreSQL (FOR UPDATE SKIP LOCKED)")
        return conn.execute(_db.sql("postgres", f"outbox_{name}", self.table), params or {})

    def ensure_schema(self, conn: Connection) -> None:
        if _db.dialect_of(conn) != "postgres":
            raise TypeError("the outbox needs PostgreSQL (FOR UPDATE SKIP LOCKED)")
        _db.run_script(conn, "postgres", "outbox_schema", self.table)

    def add(
        self,
        conn: Connection,
        task_name: str,
        args: Sequence[Any] = (),
        kwargs: Mapping[str, Any] | None = None,
    ) -> int:
        """Queue ``task_name(*args, **kwargs)`` inside the caller's transaction; return the row id.

        Arguments must be JSON primitives, lists and dicts: identifiers, not
        objects (an ORM instance would be stale, or unserialisable, by the time
        the job runs). Anything else raises ``TypeError`` before touching the DB.
        """
        params = {
            "task_name": task_name,
            "args": _db.dumps(list(args), "args"),
            "kwargs": _db.dumps(dict(kwargs or {}), "kwargs"),
        }
        return int(self._exec(conn, "add", params).fetchone()[0])

    def relay(
        self,
        conn_factory: Callable[[], AbstractContextManager[Any]],
        publish: Publish,
        batch: int = 100,
    ) -> int:
        """Publish up to ``batch`` unsent rows; return how many were published.

        Rows are locked with ``FOR UPDATE SKIP LOCKED`` for the length of one
        transaction, so concurrent relays never publish the same row (short of a
        crash). A row is marked sent only after ``publish`` returned for it. When
        ``publish`` raises, the relay logs it, records the error on that row,
        commits what was already published and stops: a failure usually means
        the broker is down, and the row stays for the next relay (rows that
        failed before are tried after fresh ones, so one poison message cannot
        block the others).
        """
        if batch < 1:
            raise ValueError("batch must be >= 1")
        published: list[int] = []
        with conn_factory() as conn, atomic(conn):
            rows = self._exec(conn, "claim", {"batch": batch}).fetchall()
            for row_id, task_name, args, kwargs in rows:
                try:
                    publish(task_name, list(_db.loads(args)), dict(_db.loads(kwargs)))
                except Exception as exc:
                    log.warning("outbox row %s (%s) not published", row_id, task_name,
                                exc_info=True)
                    self._exec(conn, "mark_failed", {"id": row_id, "error": repr(exc)[:2000]})
                    break
                published.append(int(row_id))
            if published:
                self._exec(conn, "mark_sent", {"ids": published})
        return len(published)

    def purge(self, conn: Connection, older_than_s: float) -> int:
        """Delete rows sent more than ``older_than_s`` seconds ago."""
        return int(self._exec(conn, "purge", {"older_than_s": float(older_than_s)}).rowcount)
