"""instrument() emits timing and outcome counters to logging and to a real UDP StatsD socket."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Iterator

import pytest
from joblint_runtime.metrics import LoggingSink, StatsdSink, instrument


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, float]] = []

    def timing(self, name: str, milliseconds: float) -> None:
        self.events.append(("timing", name, milliseconds))

    def incr(self, name: str, value: int = 1) -> None:
        self.events.append(("incr", name, value))


@pytest.fixture
def udp() -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(5)
    yield sock
    sock.close()


def test_decorator_counts_ok_and_failed() -> None:
    sink = Recorder()

    @instrument("sync users", sink=sink)
    def job(fail: bool) -> int:
        if fail:
            raise ValueError("x")
        return 7

    assert job(False) == 7
    with pytest.raises(ValueError):
        job(True)
    names = [(kind, name) for kind, name, _ in sink.events]
    assert names == [
        ("timing", "job.sync_users.duration_ms"), ("incr", "job.sync_users.ok"),
        ("timing", "job.sync_users.duration_ms"), ("incr", "job.sync_users.failed"),
    ]
    assert all(value >= 0 for kind, _, value in sink.events if kind == "timing")
    assert job.__name__ == "job"


def test_context_manager_and_async() -> None:
    sink = Recorder()
    with instrument("block", sink=sink):
        pass
    with pytest.raises(KeyError), instrument("block", sink=sink):
        raise KeyError("k")

    @instrument("coro", sink=sink)
    async def work() -> str:
        await asyncio.sleep(0)
        return "done"

    assert asyncio.run(work()) == "done"
    assert [name for kind, name, _ in sink.events if kind == "incr"] == [
        "job.block.ok", "job.block.failed", "job.coro.ok"]


def test_logging_sink_is_the_default(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="joblint_runtime.metrics"), instrument("nightly"):
        pass
    messages = [record.getMessage() for record in caplog.records]
    assert any(m.startswith("job.nightly.duration_ms:") and m.endswith("|ms") for m in messages)
    assert "job.nightly.ok:1|c" in messages
    assert isinstance(LoggingSink().logger, logging.Logger)


def test_statsd_sink_sends_line_protocol(udp: socket.socket) -> None:
    port = udp.getsockname()[1]
    sink = StatsdSink("127.0.0.1", port, prefix="app")
    try:
        with pytest.raises(RuntimeError), instrument("export", sink=sink):
            raise RuntimeError("x")
        first, second = udp.recv(512).decode(), udp.recv(512).decode()
    finally:
        sink.close()
    assert first.startswith("app.job.export.duration_ms:") and first.endswith("|ms")
    assert second == "app.job.export.failed:1|c"


def test_a_broken_sink_never_fails_the_job(caplog: pytest.LogCaptureFixture) -> None:
    class Broken:
        def timing(self, name: str, milliseconds: float) -> None:
            raise OSError("statsd down")

        def incr(self, name: str, value: int = 1) -> None:
            raise OSError("statsd down")

    @instrument("safe", sink=Broken())
    def job() -> int:
        return 1

    assert job() == 1
    assert any("metrics sink" in record.getMessage() for record in caplog.records)
