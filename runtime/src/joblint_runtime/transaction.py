"""Run code after COMMIT, never after ROLLBACK.

Enqueueing a job inside a transaction lets a worker pick it up before the rows
it needs are committed (or after they were rolled back). The fix is to defer
the enqueue until the transaction has committed. Django has
``transaction.on_commit``; psycopg, sqlite3 and SQLAlchemy do not, so this
module provides the same contract for them:

* callbacks run after COMMIT succeeded, in registration order;
* they never run when the transaction rolls back or COMMIT itself fails;
* a nested ``atomic`` on the same connection joins the outer transaction, so
  its callbacks wait for the outermost COMMIT.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ._db import Connection, dialect_of

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, SessionTransaction

__all__ = ["Transaction", "TransactionError", "atomic", "on_commit"]

log = logging.getLogger(__name__)

Callback = Callable[[], object]


class TransactionError(RuntimeError):
    """The connection is in a state where ``atomic`` cannot keep its promise."""


class Transaction:
    """The transaction opened by the outermost :func:`atomic` on a connection."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._callbacks: list[tuple[Callback, bool]] = []
        self._failed_inner = False

    def on_commit(self, fn: Callback, *, robust: bool = False) -> None:
        """Run ``fn()`` once the outermost transaction has committed.

        Bind loop variables now (``functools.partial(task.delay, obj.pk)``): a
        lambda reading a loop variable would see its last value at commit time.
        With ``robust=True`` an exception from ``fn`` is logged and the next
        callbacks still run; otherwise it propagates and the rest are skipped
        (the data is committed either way).
        """
        self._callbacks.append((fn, robust))

    def _run_callbacks(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for fn, robust in callbacks:
            if not robust:
                fn()
                continue
            try:
                fn()
            except Exception:
                log.exception("on_commit callback %r failed", fn)


# One entry per connection currently inside an outermost ``atomic``. A
# connection belongs to one thread at a time, so a plain dict is enough.
_active: dict[int, Transaction] = {}
_active_lock = threading.Lock()


@contextmanager
def atomic(conn: Connection, *, immediate: bool = False) -> Iterator[Transaction]:
    """Open a transaction on a psycopg 3 or sqlite3 connection; commit on success.

    Nested ``atomic(conn)`` blocks join the outer transaction (no savepoint). If
    a nested block exits with an exception that the outer code then swallows,
    the outer transaction is rolled back and :class:`TransactionError` raised,
    because the work of the failed block cannot be undone on its own.
    ``immediate=True`` uses ``BEGIN IMMEDIATE`` on SQLite (take the write lock
    up front instead of failing with "database is locked" at the first write).

    The connection must not already be inside a transaction that ``atomic`` did
    not open: its COMMIT would be someone else's, and callbacks would run early.
    """
    outer = _active.get(id(conn))
    if outer is not None and outer.connection is conn:
        try:
            yield outer
        except BaseException:
            outer._failed_inner = True
            raise
        return
    tx = Transaction(conn)
    with _active_lock:
        _active[id(conn)] = tx
    try:
        if dialect_of(conn) == "postgres":
            with _postgres_transaction(conn, tx):
                yield tx
        else:
            with _sqlite_transaction(conn, tx, immediate=immediate):
                yield tx
    finally:
        with _active_lock:
            del _active[id(conn)]
    tx._run_callbacks()


def _refuse_if_inner_failed(tx: Transaction) -> None:
    if tx._failed_inner:
        raise TransactionError(
            "a nested atomic() block failed and its exception was caught; "
            "the whole transaction was rolled back"
        )


@contextmanager
def _postgres_transaction(conn: Any, tx: Transaction) -> Iterator[None]:
    status = conn.info.transaction_status.name
    if status != "IDLE":
        raise TransactionError(
            f"connection is {status}, not IDLE: commit or roll back first "
            "(or use autocommit=True) so that atomic() owns the transaction"
        )
    # psycopg's own block issues BEGIN/COMMIT (or ROLLBACK) and raises if
    # COMMIT fails, in which case we never reach the callbacks.
    with conn.transaction():
        yield
        _refuse_if_inner_failed(tx)


@contextmanager
def _sqlite_transaction(conn: Any, tx: Transaction, *, immediate: bool) -> Iterator[None]:
    if getattr(conn, "autocommit", None) is False:
        # Python 3.12+ autocommit=False: a transaction is always open.
        begin, commit, rollback = None, conn.commit, conn.rollback
    else:
        if conn.in_transaction:
            raise TransactionError(
                "sqlite3 connection already has an open transaction: commit or roll back first"
            )
        # Explicit SQL, because with autocommit=True conn.commit() is a no-op.
        begin = "BEGIN IMMEDIATE" if immediate else "BEGIN"

        def commit() -> None:
            conn.execute("COMMIT")

        def rollback() -> None:
            if conn.in_transaction:
                conn.execute("ROLLBACK")

    if begin:
        conn.execute(begin)
    try:
        yield
        _refuse_if_inner_failed(tx)
        commit()
    except BaseException:
        rollback()
        raise


# --- SQLAlchemy ------------------------------------------------------------

_SA_KEY = "joblint.on_commit"


def on_commit(session: Session, fn: Callback) -> None:
    """Run ``fn()`` after ``session``'s current transaction commits (SQLAlchemy 2).

    Uses the session's ``after_commit`` event, which also fires when a SAVEPOINT
    (``begin_nested``) is released; such callbacks are handed to the enclosing
    transaction and only run at the real COMMIT. Rolling back a savepoint drops
    the callbacks registered inside it; rolling back the transaction drops all.
    Called before the session has begun a transaction, ``fn`` waits for the
    next COMMIT.
    """
    info = session.info
    if _SA_KEY not in info:
        _listen(session)
        info[_SA_KEY] = []
    info[_SA_KEY].append((session.get_nested_transaction(), fn))


def _listen(session: Session) -> None:
    from sqlalchemy import event

    event.listen(session, "after_commit", _sa_after_commit)
    event.listen(session, "after_soft_rollback", _sa_after_soft_rollback)
    event.listen(session, "after_transaction_end", _sa_after_transaction_end)


def _enclosing_savepoint(trans: SessionTransaction | None) -> SessionTransaction | None:
    parent = trans.parent if trans is not None else None
    while parent is not None and not parent.nested:
        parent = parent.parent
    return parent


def _within(owner: SessionTransaction | None, boundary: SessionTransaction) -> bool:
    while owner is not None:
        if owner is boundary:
            return True
        owner = owner.parent
    return False


def _sa_after_commit(session: Session) -> None:
    pending: list[tuple[SessionTransaction | None, Callback]] = session.info.get(_SA_KEY, [])
    savepoint = session.get_nested_transaction()
    if savepoint is not None:
        # RELEASE SAVEPOINT is not a commit: hand the callbacks to the enclosing level.
        outer = _enclosing_savepoint(savepoint)
        pending[:] = [(outer if owner is savepoint else owner, fn) for owner, fn in pending]
        return
    session.info[_SA_KEY] = []
    for _owner, fn in pending:
        fn()


def _sa_after_soft_rollback(session: Session, previous: SessionTransaction) -> None:
    boundary: SessionTransaction | None = previous
    while boundary is not None and not boundary.nested and boundary.parent is not None:
        boundary = boundary.parent
    if boundary is None or not boundary.nested:
        session.info[_SA_KEY] = []
        return
    pending = session.info.get(_SA_KEY, [])
    pending[:] = [(owner, fn) for owner, fn in pending if not _within(owner, boundary)]


def _sa_after_transaction_end(session: Session, trans: SessionTransaction) -> None:
    # After a COMMIT the callbacks have already run (after_commit comes first);
    # a root transaction that ends any other way (close(), failed COMMIT) must
    # not leave them for the next, unrelated transaction.
    if trans.parent is None:
        session.info[_SA_KEY] = []
