"""What every watcher shares: the recorder, the places, and per-thread flags.

Two flags keep enqueues out that aren't made by the code inside its
transaction: one is set while an on-commit callback runs (the enqueue is
deferred, which is the fix), one while an enqueue call is under way (a task
run eagerly by that call enqueues from what would be a worker).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import CodeType, FrameType

from .frames import Place, Places
from .recorder import Recorder, Transaction

# A statement that writes, as Django's query wrappers and SQLAlchemy's cursor
# events see it.
WRITE = re.compile(r"^\s*(?:WITH\b.*?\b)?(INSERT|UPDATE|DELETE|REPLACE|MERGE)\b", re.I | re.S)

# Modules whose transactions wrap each test, not the code: Django's test
# cases (pytest-django's `db` fixture uses them too) and pytest itself.
HARNESS_MODULES = ("django.test", "pytest_django", "_pytest", "pytest")
# Making and resetting the test database: Django's creation of it, and the
# flush `TransactionTestCase` runs after each test, with the migrations and
# `post_migrate` handlers they run (nothing of a test's own run is under them).
SETUP_MODULES = ("django.db.backends.base.creation", "django.core.management.commands.flush")
# Library code that runs the project as production would, whoever called it:
# serving a request (the test client's too), a management command.
ENTRY_MODULES = ("django.core.handlers", "django.core.management")


class _Flags(threading.local):
    commit_hooks = 0
    enqueues = 0


@dataclass
class Watch:
    recorder: Recorder
    places: Places
    payloads: bool = False
    errors: list[str] = field(default_factory=list)
    _flags: _Flags = field(default_factory=_Flags)

    @contextlib.contextmanager
    def guarded(self) -> Iterator[None]:
        """The sentinel's own bookkeeping: a failure in it is noted, never
        raised into the code under test."""
        try:
            yield
        except Exception as error:
            trace = error.__traceback__
            while trace is not None and trace.tb_next is not None:
                trace = trace.tb_next
            where = f" at {trace.tb_frame.f_code.co_filename}:{trace.tb_lineno}" if trace else ""
            self.errors.append(f"{type(error).__name__}: {error}{where}")

    @contextlib.contextmanager
    def commit_hook(self) -> Iterator[None]:
        self._flags.commit_hooks += 1
        try:
            yield
        finally:
            self._flags.commit_hooks -= 1

    def in_commit_hook(self) -> bool:
        return self._flags.commit_hooks > 0

    def wrote(self, key: object) -> None:
        """A write through `key`, unless a job run in place by an enqueue call
        (eager mode) makes it: in production a worker does, in its own
        transaction."""
        if self._flags.enqueues == 0:
            self.recorder.wrote(key)

    @contextlib.contextmanager
    def enqueue_call(self) -> Iterator[bool]:
        """Yields True for the outermost enqueue call of the thread."""
        self._flags.enqueues += 1
        try:
            yield self._flags.enqueues == 1
        finally:
            self._flags.enqueues -= 1

    def transaction(
        self, kind: str, key: object, frame: FrameType | None, decorated: CodeType | None = None
    ) -> Transaction:
        """A transaction opened at `frame` (the caller of the library's opening
        call), or around the function `decorated` when a decorator opened it."""
        opener_module = frame.f_globals.get("__name__", "") if frame is not None else ""
        if decorated is not None:
            opener = self.places.definition(decorated)
            opener_kind = self.places.kind(decorated.co_filename)
        elif frame is not None:
            opener = self.places.place(frame)
            opener_kind = self.places.kind(frame.f_code.co_filename)
        else:
            opener, opener_kind = Place("<unknown>", 1), "library"
        called_from = None
        led_by_code = opener_kind == "code"
        if opener_kind == "library" and frame is not None:
            caller, entry = self._led_by(frame)
            if caller is not None:
                called_from = self.places.place(caller)
            led_by_code = entry or (
                caller is not None and self.places.kind(caller.f_code.co_filename) == "code"
            )
        # A library's own transaction (get_or_create, a delete, a request's
        # ATOMIC_REQUESTS block, an admin view) is the code's when the code, or
        # the serving of a request, led to it; one a test (or a factory beside
        # it) led to directly is the test's doing.
        harness = (
            opener_kind == "test"
            or opener_module.startswith(HARNESS_MODULES)
            or not led_by_code
            or self.in_database_setup(frame)
        )
        return Transaction(kind, key, opener, called_from, of_the_code=not harness)

    def _led_by(self, frame: FrameType) -> tuple[FrameType | None, bool]:
        """The first project frame outward from a library's frame, and whether
        a production entry point (a request handler...) lies on the way."""
        entry = False
        current: FrameType | None = frame
        while current is not None and self.places.kind(current.f_code.co_filename) == "library":
            entry = entry or current.f_globals.get("__name__", "").startswith(ENTRY_MODULES)
            current = current.f_back
        return current, entry

    def in_database_setup(self, frame: FrameType | None) -> bool:
        """Whether the test database is being made or reset: the harness's doing."""
        while frame is not None:
            if frame.f_globals.get("__name__", "").startswith(SETUP_MODULES):
                return True
            frame = frame.f_back
        return False
