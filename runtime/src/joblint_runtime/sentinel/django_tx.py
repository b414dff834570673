"""Django's transactions, watched at ``Atomic.__enter__``/``__exit__`` (Django 4.2-5.x).

Every ``atomic`` block goes through them: the code's ``with atomic()`` and
``@atomic``, ``ATOMIC_REQUESTS`` (the view wrapped in ``atomic``), and
Django's own blocks in ``get_or_create``, deletes, m2m changes and the admin.
A block the test case opens around each test (``TestCase``, pytest-django's
``db``) is told apart by where it was opened. Writes are seen through each
connection's ``execute_wrappers``, Django's hook for instrumenting queries;
callbacks given to ``on_commit`` are marked, so an enqueue they make is not
inside the transaction (it runs after COMMIT in production).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import threading
from collections.abc import Callable
from types import FrameType, ModuleType
from typing import Any

from .imports import when_imported
from .recorder import Transaction
from .watch import WRITE, Watch

_CONTEXTLIB = contextlib.__file__
KIND = "Django atomic block"
REQUEST_KIND = "request's transaction (ATOMIC_REQUESTS)"
# Where Django calls a view it wrapped in `atomic` for ATOMIC_REQUESTS.
_REQUEST_HANDLERS = "django.core.handlers"


def install(watch: Watch) -> None:
    when_imported("django.db.transaction", functools.partial(_watch_atomic, watch))
    when_imported("django.db.backends.base.base", functools.partial(_watch_on_commit, watch))
    when_imported("django.db.backends.signals", functools.partial(_watch_writes, watch))


def _opening(frame: FrameType | None) -> tuple[FrameType | None, Any]:
    """The frame that entered the block, and the function when `@atomic` decorates one."""
    while frame is not None and frame.f_code.co_filename == _CONTEXTLIB:
        decorated = frame.f_locals.get("func") if frame.f_code.co_name == "inner" else None
        if callable(decorated):
            code = getattr(_unwrapped(decorated), "__code__", None)
            if code is not None:
                return frame.f_back, code
        frame = frame.f_back
    return frame, None


def _unwrapped(function: Callable[..., Any]) -> Callable[..., Any]:
    """The function a decorator got: through `functools.partial` and bound
    methods (`method_decorator(atomic)` hands `atomic` a partial of a bound
    method) and `functools.wraps` chains."""
    for _ in range(10):
        if isinstance(function, functools.partial):
            function = function.func
        elif hasattr(function, "__func__"):
            function = function.__func__
        else:
            try:
                unwrapped: Callable[..., Any] = inspect.unwrap(function)
            except ValueError:
                return function
            if unwrapped is function:
                return function
            function = unwrapped
    return function


def _watch_atomic(watch: Watch, module: ModuleType) -> None:
    atomic_class = module.Atomic
    enter, exit_ = atomic_class.__enter__, atomic_class.__exit__
    stacks: dict[int, list[Transaction]] = {}

    def __enter__(self: Any) -> Any:
        result = enter(self)
        with watch.guarded():
            _entered(self, sys._getframe(1))
        return result

    def _entered(self: Any, caller: FrameType) -> None:
        frame, decorated = _opening(caller)
        by_handler = frame is not None and frame.f_globals.get("__name__", "").startswith(
            _REQUEST_HANDLERS
        )
        kind = REQUEST_KIND if decorated is not None and by_handler else KIND
        transaction = watch.transaction(kind, self.using or "default", frame, decorated)
        stacks.setdefault(threading.get_ident(), []).append(transaction)
        watch.recorder.opened(transaction)

    def __exit__(self: Any, *exc: Any) -> Any:
        with watch.guarded():
            stack = stacks.get(threading.get_ident())
            if stack:
                watch.recorder.closed(stack.pop())
        return exit_(self, *exc)

    atomic_class.__enter__ = __enter__
    atomic_class.__exit__ = __exit__


def _watch_on_commit(watch: Watch, module: ModuleType) -> None:
    wrapper_class = module.BaseDatabaseWrapper
    on_commit = wrapper_class.on_commit

    def marked_on_commit(self: Any, func: Callable[[], Any], *args: Any, **kwargs: Any) -> Any:
        @functools.wraps(func)
        def after_commit() -> Any:
            with watch.commit_hook():
                return func()

        return on_commit(self, after_commit, *args, **kwargs)

    wrapper_class.on_commit = marked_on_commit


def _watch_writes(watch: Watch, module: ModuleType) -> None:
    def note_writes(
        execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]
    ) -> Any:
        with watch.guarded():
            if isinstance(sql, str) and WRITE.match(sql):
                watch.wrote(context["connection"].alias or "default")
        return execute(sql, params, many, context)

    def add_wrapper(sender: Any, connection: Any, **kwargs: Any) -> None:
        if note_writes not in connection.execute_wrappers:
            connection.execute_wrappers.append(note_writes)

    module.connection_created.connect(add_wrapper, weak=False)
    db = sys.modules.get("django.db")
    connections = getattr(db, "connections", None)
    if connections is not None:
        with contextlib.suppress(Exception):
            try:
                existing = connections.all(initialized_only=True)
            except TypeError:  # Django before 4.1 has no initialized_only
                existing = connections.all()
            for connection in existing:
                add_wrapper(None, connection)
