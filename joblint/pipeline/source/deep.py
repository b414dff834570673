"""Run a function on a thread with a large stack and a high recursion limit.

LibCST's native parser recurses on the C stack of the calling thread (3,000
nested parentheses crash an 8 MB main thread with SIGSEGV), and its
metadata and code generation recurse in Python (the stdlib's own
`pydoc_data/topics.py` exceeds the default limit of 1,000 frames). Parsing
and analysing each file on a thread with `STACK_BYTES` of stack, with the
recursion limit raised to `RECURSION_LIMIT` while any such thread runs, lets
both go deep enough for every file `joblint.pipeline.source.budget` lets through, and turns
anything deeper into a `RecursionError` the caller reports instead of a
crash. The stack is virtual memory: pages are only used when touched.

One long-lived thread serves every call (one call at a time; a forked child
starts its own). If the platform refuses a thread that large, the function
runs on the calling thread (deep files then become JL001 "too deeply nested").
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

STACK_BYTES = 512 * 1024 * 1024
# 512 MB / 60,000 frames leaves ~8 KB of C stack per Python frame.
RECURSION_LIMIT = 60_000

_lock = threading.Lock()
_running = 0
_saved_limit = 0


def _raise_limit() -> None:
    global _running, _saved_limit
    with _lock:
        if _running == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        _running += 1


def _restore_limit() -> None:
    global _running
    with _lock:
        _running -= 1
        if _running == 0:
            sys.setrecursionlimit(_saved_limit)


class _Worker:
    """One long-lived deep-stack thread (a thread per call costs ~1 ms)."""

    def __init__(self, thread_factory: Callable[[Callable[[], None]], threading.Thread | None]):
        self.pid = os.getpid()
        self.requests: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.thread = thread_factory(self._loop)

    def _loop(self) -> None:
        while True:
            self.requests.get()()


_worker: _Worker | None = None
_calls = threading.Lock()  # one call at a time on the worker


def _start(target: Callable[[], None]) -> threading.Thread | None:
    with _lock:
        previous = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            thread = threading.Thread(target=target, name="joblint-deep", daemon=True)
            thread.start()
        except (ValueError, RuntimeError, MemoryError):
            return None
        finally:
            threading.stack_size(previous)
    return thread


def _current_worker() -> _Worker | None:
    global _worker
    if _worker is None or _worker.pid != os.getpid():  # none yet, or a forked child
        _worker = _Worker(_start)
    return _worker if _worker.thread is not None else None


def call(function: Callable[[], T]) -> T:
    """`function()`, on the deep-stack thread; its exception is re-raised here."""
    results: list[T] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def task() -> None:
        try:
            results.append(function())
        except BaseException as exc:  # handed to the caller's thread
            errors.append(exc)
        finally:
            done.set()

    if _worker is not None and threading.current_thread() is _worker.thread:
        return function()  # already on the deep thread
    with _calls:
        worker = _current_worker()
        if worker is None:
            return function()  # no deep thread to be had: run here
        _raise_limit()
        try:
            worker.requests.put(task)
            done.wait()
        finally:
            _restore_limit()
    if errors:
        raise errors[0]
    return results[0]


def _after_fork_in_child() -> None:
    """A forked child has no worker thread and must not inherit held locks."""
    global _worker, _calls, _lock, _running
    if _running:
        sys.setrecursionlimit(_saved_limit)
    _worker, _calls, _lock, _running = None, threading.Lock(), threading.Lock(), 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
