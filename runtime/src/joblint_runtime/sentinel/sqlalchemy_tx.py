"""SQLAlchemy's transactions (1.4-2.x), watched through its own events.

A ``Session``'s root transaction (``after_transaction_create`` without a
parent, to ``after_commit`` / ``after_transaction_end``) is the code's when
the code began it, by its first use of the session; one a fixture began is
the test's. Its writes are its flushes and ORM ``insert``/``update``/
``delete`` statements. A ``Connection``'s own transaction (``engine.begin()``,
``connection.begin()``), not one a session drives, is watched through the
engine events, its writes through ``before_cursor_execute``. The transaction
a fixture begins around each test (``connection.begin()`` in a conftest) is
the test's: it is told apart by where it began.
"""

from __future__ import annotations

import functools
import sys
import weakref
from collections.abc import Callable
from types import FrameType, ModuleType
from typing import Any

from .imports import when_imported
from .recorder import Transaction
from .watch import WRITE, Watch

SESSION_KIND = "SQLAlchemy session transaction"
CONNECTION_KIND = "SQLAlchemy connection transaction"


def install(watch: Watch) -> None:
    when_imported("sqlalchemy.orm", functools.partial(_watch_sessions, watch))
    when_imported("sqlalchemy.engine", functools.partial(_watch_connections, watch))


# `engine.begin()` is a context manager: the `with` is in the caller of contextlib.
_PASSED_THROUGH = ("sqlalchemy.", "joblint_runtime.sentinel.", "contextlib")


def _outside_sqlalchemy(frame: FrameType | None) -> FrameType | None:
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_PASSED_THROUGH):
        frame = frame.f_back
    return frame


def _session_driven(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("sqlalchemy.orm."):
            return True
        frame = frame.f_back
    return False


def _watch_sessions(watch: Watch, module: ModuleType) -> None:
    from sqlalchemy import event

    session_class = module.Session
    roots: weakref.WeakKeyDictionary[Any, Transaction] = weakref.WeakKeyDictionary()

    def created(session: Any, transaction: Any) -> None:
        if transaction.parent is not None:
            return
        frame = _outside_sqlalchemy(sys._getframe(1))
        record = watch.transaction(SESSION_KIND, session, frame)
        record.running = functools.partial(_is_active, weakref.ref(transaction))
        roots[transaction] = record
        watch.recorder.opened(record)

    def ended(session: Any, transaction: Any) -> None:
        record = roots.pop(transaction, None)
        if record is not None:
            watch.recorder.closed(record)

    def committed(session: Any) -> None:
        root = getattr(session, "_transaction", None)
        while root is not None and root.parent is not None:
            root = root.parent
        if root is not None:
            ended(session, root)

    def flushed(session: Any, flush_context: Any) -> None:
        watch.wrote(session)

    def executed(state: Any) -> None:
        if state.is_insert or state.is_update or state.is_delete:
            watch.wrote(state.session)

    # Each listener with the event's own arguments (SQLAlchemy reads their
    # number), its body guarded: the sentinel never raises into the code.
    event.listen(
        session_class, "after_transaction_create", lambda s, t: _safely(watch, created, s, t)
    )
    event.listen(session_class, "after_transaction_end", lambda s, t: _safely(watch, ended, s, t))
    event.listen(session_class, "after_commit", lambda s: _safely(watch, committed, s))
    event.listen(session_class, "after_flush", lambda s, c: _safely(watch, flushed, s, c))
    event.listen(session_class, "do_orm_execute", lambda state: _safely(watch, executed, state))


def _safely(watch: Watch, listener: Callable[..., None], *args: Any) -> None:
    with watch.guarded():
        listener(*args)


def _is_active(transaction: weakref.ref[Any]) -> bool:
    alive = transaction()
    return alive is not None and bool(alive.is_active)


def _watch_connections(watch: Watch, module: ModuleType) -> None:
    from sqlalchemy import event

    engine_class = module.Engine
    open_on: weakref.WeakKeyDictionary[Any, list[Transaction]] = weakref.WeakKeyDictionary()

    def began(connection: Any) -> None:
        if _session_driven(sys._getframe(1)):
            return
        frame = _outside_sqlalchemy(sys._getframe(1))
        record = watch.transaction(CONNECTION_KIND, connection, frame)
        open_on.setdefault(connection, []).append(record)
        watch.recorder.opened(record)

    def ended(connection: Any) -> None:
        for record in open_on.pop(connection, []):
            watch.recorder.closed(record)

    def executing(
        connection: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool
    ) -> None:
        if isinstance(statement, str) and WRITE.match(statement):
            watch.wrote(connection)

    event.listen(engine_class, "begin", lambda c: _safely(watch, began, c))
    event.listen(engine_class, "commit", lambda c: _safely(watch, ended, c))
    event.listen(engine_class, "rollback", lambda c: _safely(watch, ended, c))
    event.listen(
        engine_class,
        "before_cursor_execute",
        lambda c, cursor, statement, parameters, context, many: _safely(
            watch, executing, c, cursor, statement, parameters, context, many
        ),
    )
