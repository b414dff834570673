"""Run a job's effects once per key, however often the job is delivered.

Every queue in this family delivers at least once: retries, redeliveries after a
visibility timeout, dead-letter replays and the outbox relay all produce
duplicates. The guard makes them harmless by claiming the job's key with
``INSERT ... ON CONFLICT (job_key) DO NOTHING`` *in the same transaction* as
the job's database writes:

* the first delivery inserts the key and commits it together with its work;
* a concurrent duplicate blocks on the uncommitted key (PostgreSQL) or on the
  write lock (SQLite) and, once the first commits, claims nothing and skips;
* if the first delivery fails, its ROLLBACK removes the key too, so the retry
  runs. Nothing needs cleaning up, even after a crash.

Effects outside the database (an email, an HTTP call) are not undone by a
ROLLBACK: pass the same key to the remote side as its idempotency key, or
record the effect before performing it.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Concatenate, ParamSpec, TypeVar

from . import _db
from ._db import Connection
from .transaction import TransactionError, atomic

__all__ = ["IdempotencyGuard", "idempotent"]

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


class IdempotencyGuard:
    """Keys of jobs that already ran, one row each, in ``table``."""

    def __init__(self, table: str = "job_runs") -> None:
        self.table = _db.check_table(table)

    def _exec(self, conn: Connection, name: str, params: dict[str, Any]) -> Any:
        return conn.execute(_db.sql(_db.dialect_of(conn), f"runs_{name}", self.table), params)

    def ensure_schema(self, conn: Connection) -> None:
        _db.run_script(conn, _db.dialect_of(conn), "runs_schema", self.table)

    def claim(self, conn: Connection, key: str) -> bool:
        """True if this transaction is the first to claim ``key``: go ahead and do the work.

        Must run inside the transaction that does the work, and before it;
        with no transaction open it raises :class:`TransactionError`. Outside
        one, the claim would either commit on its own (a job that then fails
        is never retried) or, with sqlite3's default mode, open an implicit
        transaction that keeps the write lock until somebody commits.
        """
        if not _db.in_transaction(conn):
            raise TransactionError(
                "IdempotencyGuard.claim() needs the transaction that does the job's work, "
                "and this connection has none open: wrap the claim and the work in "
                "`with atomic(conn, immediate=True):` (joblint_runtime.transaction), "
                "or decorate the job with @idempotent(...)"
            )
        return bool(self._exec(conn, "claim", {"key": key}).rowcount == 1)

    def release(self, conn: Connection, key: str) -> bool:
        """Forget a committed claim so the job can run again (manual replays)."""
        return bool(self._exec(conn, "release", {"key": key}).rowcount == 1)

    def forget_older_than(self, conn: Connection, older_than_s: float) -> int:
        """Drop keys older than any possible redelivery, to keep the table small."""
        return int(self._exec(conn, "forget", {"older_than_s": float(older_than_s)}).rowcount)


def idempotent(
    *,
    key: Callable[P, str],
    connect: Callable[[], AbstractContextManager[Any]],
    guard: IdempotencyGuard | None = None,
) -> Callable[[Callable[Concatenate[Any, P], R]], Callable[P, R | None]]:
    """Make the job body ``fn(conn, *args, **kwargs)`` run once per ``key(*args, **kwargs)``.

    ``connect()`` returns a context manager yielding a connection, for example
    ``lambda: psycopg.connect(DSN)`` or ``pool.connection``. The wrapper opens a
    transaction, claims the key, calls the body with that connection, and
    commits; a duplicate delivery returns ``None`` without calling the body. If
    the body raises, the transaction (claim included) rolls back and the
    exception propagates, so the queue's retry runs the body again::

        @idempotent(key=lambda order_id: f"charge:{order_id}", connect=pool.connection)
        def charge(conn, order_id): ...

    The body receives the connection because its writes must go through the
    transaction that holds the claim, or a failure would keep the claim and
    lose the work. Callers don't pass it: the wrapper's signature, as
    ``inspect.signature`` (and so Celery's argument check) sees it, is the
    body's without its first parameter.
    """
    runs = guard or IdempotencyGuard()

    def decorate(fn: Callable[Concatenate[Any, P], R]) -> Callable[P, R | None]:
        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | None:
            job_key = key(*args, **kwargs)
            with connect() as conn, atomic(conn, immediate=True):
                if not runs.claim(conn, job_key):
                    log.info("skipping duplicate delivery of %s", job_key)
                    return None
                return fn(conn, *args, **kwargs)

        wrapper.__signature__ = _without_connection(fn)  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _without_connection(fn: Callable[..., Any]) -> inspect.Signature:
    """`fn`'s signature less its first parameter (the connection the wrapper
    passes), and without its return annotation: a duplicate returns None."""
    signature = inspect.signature(fn)
    parameters = list(signature.parameters.values())
    if parameters and parameters[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        parameters = parameters[1:]
    return signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty)
