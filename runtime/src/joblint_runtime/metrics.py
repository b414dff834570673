"""Count and time jobs: ``job.<name>.duration_ms``, ``job.<name>.ok`` / ``.failed``.

A job system is only as healthy as its slowest and most failing job, and
neither is visible without per-job numbers. ``instrument`` is a decorator and a
context manager; it sends to a :class:`Sink`, by default the logging sink (no
infrastructure needed), or :class:`StatsdSink` for a StatsD/Datadog agent.
Emitting never raises into the job: a metrics outage must not fail work.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
import socket
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Protocol, TypeVar, cast

__all__ = ["LoggingSink", "Sink", "StatsdSink", "instrument"]

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")


class Sink(Protocol):
    """Where metrics go. Implementations must be cheap and must not raise."""

    def timing(self, name: str, milliseconds: float) -> None: ...

    def incr(self, name: str, value: int = 1) -> None: ...


class LoggingSink:
    """Metrics as log records on ``joblint_runtime.metrics`` (INFO by default)."""

    def __init__(self, logger: logging.Logger | None = None, level: int = logging.INFO) -> None:
        self.logger = logger or log
        self.level = level

    def timing(self, name: str, milliseconds: float) -> None:
        self.logger.log(self.level, "%s:%.3f|ms", name, milliseconds)

    def incr(self, name: str, value: int = 1) -> None:
        self.logger.log(self.level, "%s:%d|c", name, value)


class StatsdSink:
    """StatsD line protocol over UDP (fire and forget, one datagram per metric)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8125, prefix: str = "") -> None:
        self.address = (host, port)
        self.prefix = f"{prefix.rstrip('.')}." if prefix else ""
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    def _send(self, line: str) -> None:
        try:
            self._socket.sendto(f"{self.prefix}{line}".encode(), self.address)
        except OSError:
            log.debug("statsd send failed", exc_info=True)

    def timing(self, name: str, milliseconds: float) -> None:
        self._send(f"{name}:{milliseconds:.3f}|ms")

    def incr(self, name: str, value: int = 1) -> None:
        self._send(f"{name}:{value}|c")

    def close(self) -> None:
        self._socket.close()


_default_sink: Sink = LoggingSink()


class instrument:  # a class so it can be both a decorator and a context manager
    """Time a block or a function and count its outcome.

    ``@instrument("send_invoice")`` or ``with instrument("send_invoice"):`` emits
    ``job.send_invoice.duration_ms`` and ``job.send_invoice.ok`` or ``.failed``
    (an exception counts as failed and is re-raised). Works on async functions.
    Each call gets its own timer, so one decorated function may run
    concurrently or recursively.
    """

    def __init__(self, name: str, sink: Sink | None = None) -> None:
        self.prefix = f"job.{_UNSAFE.sub('_', name)}"
        self.sink = sink
        self._started: list[float] = []

    def _sink(self) -> Sink:
        return self.sink if self.sink is not None else _default_sink

    def _emit(self, started: float, failed: bool) -> None:
        sink = self._sink()
        try:
            sink.timing(f"{self.prefix}.duration_ms", (time.perf_counter() - started) * 1000.0)
            sink.incr(f"{self.prefix}.{'failed' if failed else 'ok'}")
        except Exception:
            log.warning("metrics sink %r failed", sink, exc_info=True)

    def __enter__(self) -> instrument:
        self._started.append(time.perf_counter())
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._emit(self._started.pop(), failed=exc_type is not None)

    def __call__(self, fn: F) -> F:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                started = time.perf_counter()
                try:
                    result = await fn(*args, **kwargs)
                except BaseException:
                    self._emit(started, failed=True)
                    raise
                self._emit(started, failed=False)
                return result

            return cast(F, async_wrapper)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                result = fn(*args, **kwargs)
            except BaseException:
                self._emit(started, failed=True)
                raise
            self._emit(started, failed=False)
            return result

        return cast(F, wrapper)
