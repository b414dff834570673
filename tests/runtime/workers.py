"""Real Celery, RQ and Dramatiq worker processes for the runtime tests.

A worker runs a temporary module, written into a temp directory, in a
subprocess that leads its own session, so that one ``killpg`` reaches every
process it forked (Celery's pool, RQ's work horse). It logs to a file and is
waited for until it says it is ready; one that exits or stays silent raises
``ServiceError`` with its log, so a broken worker fails the test instead of
skipping it. Every address is loopback: the broker is the tests' own
redis-server, the database their own PostgreSQL.

The code the workers run is the documentation's: ``doc_snippet(name)`` returns
the Python block that follows ``<!-- test: name ... -->`` in ``docs/runtime.md``,
and the tests write it into the module verbatim after a test preamble that
defines the names the snippet leaves to the reader (``app``, ``DSN``, ...).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import psycopg

import joblint

from .services import Postgres, ServiceError

REPO = Path(joblint.__file__).resolve().parent.parent
DOCS = REPO / "docs" / "runtime.md"

# Every Python block, with the marker that may precede it:
# <!-- test: NAME [sqlite] [postgres] -->, the databases the block is written for.
_BLOCK = re.compile(r"(?:<!-- test: ([^>]*?) -->\n)?```python\n(.*?)\n```", re.DOTALL)

# Worker start-up on the shared 2-CPU machine is about a second; the margin is
# for a loaded CI run, and only a broken worker ever waits that long.
START_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class DocBlock:
    """One ```python block of docs/runtime.md."""

    name: str  # "" for a block without a marker
    backends: tuple[str, ...]  # the databases it is run on; () for none
    line: int  # of its first line of code
    source: str


def doc_blocks() -> list[DocBlock]:
    text = DOCS.read_text("utf-8")
    blocks = []
    for match in _BLOCK.finditer(text):
        name, *backends = (match.group(1) or "").split() or [""]
        line = text.count("\n", 0, match.start(2)) + 1
        blocks.append(DocBlock(name, tuple(backends), line, match.group(2)))
    return blocks


def doc_snippets() -> dict[str, str]:
    return {block.name: block.source for block in doc_blocks() if block.name}


def doc_snippet(name: str) -> str:
    snippets = doc_snippets()
    if name not in snippets:
        raise KeyError(f"docs/runtime.md has no block marked <!-- test: {name} ... -->")
    return snippets[name]


def import_module(name: str, path: Path) -> ModuleType:
    """Import the worker's module here too: the test process is its producer."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def fresh_database(postgres: Postgres) -> str:
    """A database of its own, so the documented default table names collide with nothing."""
    name = f"jl_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return postgres.dsn.replace("dbname=postgres", f"dbname={name}")


def wait_until(
    predicate: Callable[[], bool], timeout: float, what: str, interval: float = 0.02
) -> None:
    """Poll ``predicate`` until it holds; fail with ``what`` once ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


@dataclass
class WorkerProcess:
    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_for(self, needle: str, timeout: float = START_TIMEOUT_S, count: int = 1) -> None:
        deadline = time.monotonic() + timeout
        while self.text().count(needle) < count:
            if self.process.poll() is not None:
                raise ServiceError(
                    f"{self.name} exited with {self.process.returncode} before "
                    f"logging {needle!r}:\n{self.text()}"
                )
            if time.monotonic() > deadline:
                self.kill()
                raise ServiceError(f"{self.name} did not log {needle!r} in {timeout} s:\n"
                                   f"{self.text()}")
            time.sleep(0.02)

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)

    def kill(self) -> None:
        """SIGKILL the worker and everything it forked: no shutdown code runs, nothing is acked."""
        self._signal_group(signal.SIGKILL)
        self.process.wait(timeout=30)

    def terminate(self) -> None:
        """Ask for a warm shutdown; ``stop`` then waits for it."""
        if self.process.poll() is None:
            self._signal_group(signal.SIGTERM)

    def stop(self, timeout: float = 10.0) -> None:
        if self.process.poll() is None:
            self._signal_group(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=timeout)
        # The pool's children may outlive a main process that exited.
        self._signal_group(signal.SIGKILL)
        if self.process.poll() is None:
            self.process.wait(timeout=30)


def start_worker(
    name: str,
    argv: Sequence[str],
    directory: Path,
    env: Mapping[str, str],
    ready: str,
) -> WorkerProcess:
    """Run ``argv`` in ``directory`` with the module there and this checkout importable."""
    log = directory / f"{name}.log"
    full_env = {
        **os.environ,
        **env,
        "PYTHONPATH": os.pathsep.join([str(directory), str(REPO)]),
        "PYTHONUNBUFFERED": "1",
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            list(argv), cwd=directory, env=full_env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )
    worker = WorkerProcess(name, process, log)
    try:
        worker.wait_for(ready)
    except BaseException:
        worker.stop(timeout=1)
        raise
    return worker


def stop_all(workers: Sequence[WorkerProcess]) -> None:
    """Shut the workers down side by side rather than one after the other."""
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.stop()


def celery_worker(
    module: str,
    directory: Path,
    env: Mapping[str, str],
    *,
    hostname: str,
    queue: str = "celery",
    pool: str = "solo",
    concurrency: int = 1,
) -> WorkerProcess:
    # Gossip, mingle and heartbeats are cluster chatter these tests do not
    # need; off, a worker is ready sooner and its log has only our tasks.
    argv = [
        sys.executable, "-m", "celery", "-A", module, "worker",
        f"--pool={pool}", f"--concurrency={concurrency}", f"--hostname={hostname}@localhost",
        f"--queues={queue}", "--prefetch-multiplier=1", "--loglevel=INFO",
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]
    return start_worker(hostname, argv, directory, env, ready=f"{hostname}@localhost ready.")


def rq_worker(directory: Path, env: Mapping[str, str], *, name: str,
              queue: str = "default") -> WorkerProcess:
    """``rq worker --with-scheduler``: retries with an interval wait in the scheduler."""
    argv = [sys.executable, "-m", "rq.cli", "worker", "--url", env["BROKER_URL"],
            "--with-scheduler", f"--name={name}", f"--path={directory}", queue]
    worker = start_worker(name, argv, directory, env, ready=f"Listening on {queue}")
    try:
        worker.wait_for(f"Scheduler for {queue} started")
    except BaseException:
        worker.stop(timeout=1)
        raise
    return worker


def dramatiq_worker(module: str, directory: Path, env: Mapping[str, str], *, name: str,
                    processes: int = 2, threads: int = 2) -> WorkerProcess:
    argv = [sys.executable, "-m", "dramatiq", module, f"--processes={processes}",
            f"--threads={threads}", f"--path={directory}"]
    worker = start_worker(name, argv, directory, env, ready="ready for action")
    try:
        worker.wait_for("Worker process is ready for action.", count=processes)
    except BaseException:
        worker.stop(timeout=1)
        raise
    return worker
