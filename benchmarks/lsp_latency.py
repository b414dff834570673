"""How long the editor server takes to publish diagnostics after a change.

    python benchmarks/lsp_latency.py --workspace PATH [--runs 3] [--write-docs]

(`make bench` runs it with `--workspace $JOBLINT_BENCH_APP` when that is set.)
The workspace (an application's checkout, never committed here) is copied
to a temporary directory, and a synthetic 500-line module of the bench's own
is written into its first package. `joblint server` is started there and
driven over stdio by pygls's client, as an editor would: open the module,
change one line, time until the diagnostics for the new version arrive.

- cold index: no cache, the server just started. The first diagnostics are
  the buffer's alone; those within the index (the project model, the
  whole-project rules) follow once the index is built.
- warm index: the cache filled by an earlier session, the index built
  (from the cache) before the buffer is opened; a change per second.

Each change types a character into a comment in the module's middle, so
the code stays valid and every change is linted in full (a change that
breaks the syntax costs a fraction: its JL001 needs no LibCST).

The server's debounce is set to 0 here: an editor's default of 300 ms adds
that to every figure measured after a change.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from operator import contains
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- editor server -->"
BUFFER_NAME = "joblint_bench_buffer.py"
BUFFER_LINES = 500
CHANGES_PER_SESSION = 10
PATIENCE = 600.0  # seconds: a cold index of a large workspace on a busy machine

BLOCK = """

@shared_task
def notify_{n}(order_id):
    return order_id


def settle_{n}(order):
    with transaction.atomic():
        order.save()
        notify_{n}.delay(order.id)
    # the order's total
    total = 0
    for line in order.lines.all():
        total += line.quantity * line.price
    return total
"""
HEADER = '''"""A synthetic module of the editor-server benchmark."""

from celery import shared_task
from django.db import transaction
'''


def synthetic_module(lines: int = BUFFER_LINES) -> str:
    """A module of about `lines` lines: tasks, each enqueued inside a
    transaction (a JL101 finding with its fix)."""
    parts, n = [HEADER], 0
    while sum(p.count("\n") for p in parts) + BLOCK.count("\n") <= lines:
        parts.append(BLOCK.format(n=n))
        n += 1
    text = "".join(parts)
    return text + "\n" * (lines - text.count("\n"))


def copy_workspace(source: Path, target: Path) -> Path:
    shutil.copytree(
        source, target, symlinks=True, ignore=shutil.ignore_patterns(".joblint_cache", ".git")
    )
    return target


def buffer_path(workspace: Path) -> Path:
    """The synthetic module's place: the workspace's first package, so it
    is a module of the application."""
    packages = sorted(p.parent for p in workspace.glob("*/__init__.py"))
    return (packages[0] if packages else workspace) / BUFFER_NAME


@dataclass
class Session:
    client: LanguageClient
    published: dict[int, list[float]] = field(default_factory=dict)  # version -> arrival times
    indexed_at: float | None = None
    index_log: str = ""
    drain: asyncio.Task[None] | None = None

    async def wait(self, holds: Callable[[], bool], what: str) -> None:
        deadline = time.perf_counter() + PATIENCE
        while not holds():
            if time.perf_counter() > deadline:
                raise SystemExit(f"timed out waiting for {what}")
            await asyncio.sleep(0.005)


async def start(workspace: Path) -> Session:
    client = LanguageClient("joblint-bench", "1")
    session = Session(client)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            session.published.setdefault(params.version, []).append(time.perf_counter())

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def logged(params: types.LogMessageParams) -> None:
        if "workspace indexed" in params.message:
            session.indexed_at = time.perf_counter()
            session.index_log = params.message

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    await client.start_io(sys.executable, "-m", "joblint", "server", env=env, cwd=str(workspace))
    # pygls's client pipes the server's standard error: drained to a file, or
    # a full pipe would block the server.
    process = client._server
    if process is not None and process.stderr is not None:
        session.drain = asyncio.create_task(drain(process.stderr, workspace.parent / "server.log"))
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=workspace.as_uri(),
            initialization_options={"joblint": {"debounce-ms": 0}},
        )
    )
    client.initialized(types.InitializedParams())
    return session


async def drain(stream: asyncio.StreamReader, path: Path) -> None:
    with path.open("ab") as log:
        while chunk := await stream.read(65536):
            log.write(chunk)


async def stop(session: Session) -> None:
    await session.client.shutdown_async(None)
    session.client.exit(None)
    await session.client.stop()


def open_buffer(session: Session, path: Path, text: str) -> None:
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=path.as_uri(), language_id="python", version=1, text=text
            )
        )
    )


def typing_place(text: str) -> types.Position:
    """The end of the comment line nearest the module's middle: typing
    there keeps the code valid, so every change is linted in full."""
    lines = text.splitlines()
    comments = [i for i, line in enumerate(lines) if line.strip().startswith("#")]
    line = min(comments, key=lambda i: abs(i - len(lines) // 2))
    return types.Position(line=line, character=len(lines[line]))


def change_line(session: Session, path: Path, version: int, where: types.Position) -> float:
    """Type a character at `where`; when it was sent."""
    sent = time.perf_counter()
    session.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=where, end=where), text="#"
                )
            ],
        )
    )
    return sent


@dataclass
class Cold:
    first: float  # the change -> the buffer's own diagnostics
    within_index: float  # the change -> diagnostics within the index
    index_log: str


async def cold_run(workspace: Path, path: Path, text: str) -> Cold:
    shutil.rmtree(workspace / ".joblint_cache", ignore_errors=True)
    session = await start(workspace)
    open_buffer(session, path, text)
    await session.wait(lambda: 1 in session.published, "the first diagnostics")
    sent = change_line(session, path, 2, typing_place(text))
    await session.wait(lambda: 2 in session.published, "diagnostics after the change")
    first = session.published[2][0] - sent
    if session.indexed_at is not None:
        raise SystemExit("the index was ready before the change: the workspace is too small")
    await session.wait(lambda: len(session.published.get(2, [])) > 1, "diagnostics in the index")
    within = session.published[2][-1] - sent
    await stop(session)
    return Cold(first, within, session.index_log)


async def warm_run(workspace: Path, path: Path, text: str) -> tuple[list[float], str]:
    session = await start(workspace)
    await session.wait(lambda: session.indexed_at is not None, "the index")
    open_buffer(session, path, text)
    await session.wait(lambda: 1 in session.published, "the first diagnostics")
    latencies = []
    place = typing_place(text)
    for version in range(2, CHANGES_PER_SESSION + 2):
        typed = version - 2  # characters typed there before
        where = types.Position(line=place.line, character=place.character + typed)
        sent = change_line(session, path, version, where)
        await session.wait(partial(contains, session.published, version), f"v{version}")
        latencies.append(session.published[version][0] - sent)
        await asyncio.sleep(1.0)
    await stop(session)
    return latencies, session.index_log


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


async def bench(source: Path, runs: int) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="joblint-lsp-bench-") as temporary:
        workspace = copy_workspace(source, Path(temporary) / source.name)
        path = buffer_path(workspace)
        text = synthetic_module()
        path.write_text(text)
        files = sum(1 for _ in workspace.rglob("*.py"))
        colds = [await cold_run(workspace, path, text) for _ in range(runs)]
        warm: list[float] = []
        warm_log = ""
        for _ in range(runs):
            latencies, warm_log = await warm_run(workspace, path, text)
            warm.extend(latencies)
    firsts = [c.first for c in colds]
    withins = [c.within_index for c in colds]
    shown = path.relative_to(workspace)
    warm_sorted = sorted(warm)
    p90 = warm_sorted[min(len(warm_sorted) - 1, int(0.9 * len(warm_sorted)))]
    return [
        f"Machine: {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; {runs} cold "
        f"sessions, {runs} warm sessions of {CHANGES_PER_SESSION} changes; debounce 0.",
        "",
        f"### {source.name}: {files} files; the buffer: {shown} ({text.count(chr(10))} lines)",
        "",
        "| after a one-character change | median ms | slowest ms |",
        "| --- | ---: | ---: |",
        f"| cold index: the buffer's own diagnostics | {_ms(statistics.median(firsts))} "
        f"| {_ms(max(firsts))} |",
        f"| cold index: diagnostics within the index | {_ms(statistics.median(withins))} "
        f"| {_ms(max(withins))} |",
        f"| warm index | {_ms(statistics.median(warm))} | {_ms(max(warm))} |",
        "",
        f"- warm index, 90th percentile: {_ms(p90)} ms",
        f"- cold: {colds[-1].index_log.removeprefix('joblint: ')}",
        f"- warm: {warm_log.removeprefix('joblint: ')} (from the cache)",
    ]


def section(tasks: int) -> list[str]:
    """The section's heading and what it measures."""
    return [
        "## Editor server",
        "",
        "`python benchmarks/lsp_latency.py --workspace PATH` (and `make bench` with",
        "`JOBLINT_BENCH_APP=PATH`) drives `joblint server` over stdio as an editor",
        "would, in a copy of the application with a synthetic 500-line module of",
        f"its own ({tasks} tasks, each enqueued inside a transaction): open it, type one",
        "character into a comment (the code stays valid, so each change is linted",
        "in full), time until that version's diagnostics arrive. With a cold",
        "index (no cache, the server just started) the buffer's own findings come",
        "first, and those within the index once the workspace's whole run is done;",
        "with a warm one (built from the cache before the buffer opens) every",
        "change is linted within it. The debounce is 0 here; an editor's 300 ms",
        "default comes on top.",
        "",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, default=os.environ.get("JOBLINT_BENCH_APP"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    if args.workspace is None:
        raise SystemExit("give --workspace PATH (or set JOBLINT_BENCH_APP)")
    tasks = synthetic_module().count(".delay(")
    report = [*section(tasks), *asyncio.run(bench(Path(args.workspace).resolve(), args.runs))]
    print("\n".join(report))
    if args.write_docs:
        write_section(ROOT / "docs" / "performance.md", report)
    return 0


def write_section(docs: Path, report: list[str]) -> None:
    """Replace the section after `MARKER` (the file's last), or add it."""
    text = docs.read_text()
    head = text.split(MARKER)[0].rstrip()
    docs.write_text(f"{head}\n\n{MARKER}\n\n" + "\n".join(report).rstrip() + "\n")


if __name__ == "__main__":
    sys.exit(main())
