"""Run a function on a thread with a large stack and a high recursion limit.

LibCST's native parser recurses on the C stack of the calling thread (3,000
nested parentheses crash an 8 MB main thread with SIGSEGV), and its
metadata and code generation recurse in Python (the stdlib's own
`pydoc_data/topics.py` exceeds the default limit of 1,000 frames). Parsing
and analysing each file on a thread with `STACK_BYTES` of stack, with the
recursion limit raised to `RECURSION_LIMIT` while any such thread runs, lets
both go deep enough for every file `joblint.budget` lets through, and turns
anything deeper into a `RecursionError` the caller reports instead of a
crash. The stack is virtual memory: pages are only used when touched.

If the platform refuses a thread that large, the function runs on the
calling thread (deep files then become JL001 "too deeply nested").
"""

from __future__ import annotations

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


def call(function: Callable[[], T]) -> T:
    """`function()`, on a deep-stack thread; its exception is re-raised here."""
    results: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            results.append(function())
        except BaseException as exc:  # handed to the caller's thread
            errors.append(exc)

    _raise_limit()
    thread = _start(target)
    if thread is None:
        _restore_limit()  # an 8 MB stack can't take the raised limit
        return function()
    try:
        thread.join()
    finally:
        _restore_limit()
    if errors:
        raise errors[0]
    return results[0]
