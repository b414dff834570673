"""Linting many files: the cache first, then worker processes for the rest.

Only plain data crosses process boundaries (path, bytes, settings in;
`FileResult` out), and results come back in input order, so output is the
same whatever the number of workers.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from joblint.cache import ResultCache, entry_key
from joblint.engine import (
    LintSettings,
    ModuleInfo,
    confirm_then_lint,
    lint_source,
    syntax_check,
)
from joblint.models import FileResult
from joblint.progress import CACHED, CHECKED

# Below this many files to parse, a pool costs more than it saves.
MIN_FILES_FOR_POOL = 24
CHUNK_SIZE = 8
# Syntax checks sent to a worker at a time, in bytes of source.
CHUNK_BYTES = 256 * 1024
# Files whose LibCST tree is worth returning the memory of afterwards.
BIG_FILE = 64 * 1024
RECURSION_LIMIT = 10_000


@dataclass(frozen=True, slots=True)
class Job:
    path: str  # as shown in results
    data: bytes
    settings: LintSettings
    module: ModuleInfo
    # Only check that the file can be read and parsed (prefilter-skipped files).
    syntax_only: bool = False
    # Lint only if one of these AST checks confirms a trigger (`joblint.confirm`).
    confirm: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        if self.syntax_only:
            return "syntax"
        return "confirm:" + ",".join(self.confirm) if self.confirm else "lint"


def worker_count(requested: int) -> int:
    return requested if requested > 0 else (os.cpu_count() or 1)


def _init_worker() -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))


def _run(job: Job) -> FileResult:
    if job.syntax_only:
        return syntax_check(job.path, job.data, job.settings)
    if job.confirm:
        return confirm_then_lint(job.path, job.data, job.settings, job.module, job.confirm)
    return lint_source(job.path, job.data, job.settings, job.module)


class WorkerPool:
    """A run's worker processes, forked once, before the run reads its files:
    they don't inherit (and count in their memory) every file's bytes, and
    the run's batches of work don't each pay for a new pool."""

    def __init__(self, workers: int) -> None:
        self.executor: ProcessPoolExecutor | None = None
        if workers > 1:
            self.executor = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker)
            # With the fork start method every worker is forked on the first submit.
            self.executor.submit(int).result()

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(cancel_futures=True)
            self.executor = None


def run_jobs(
    jobs: Sequence[Job],
    workers: int,
    cache: ResultCache | None,
    on_done: Callable[[str], None] | None = None,
    pool: WorkerPool | None = None,
) -> list[FileResult]:
    """Results in input order. `on_done` hears of every file linted (syntax
    checks are of files already counted as skipped)."""
    results: list[FileResult | None] = [None] * len(jobs)
    keys: list[str] = []
    todo: list[int] = []
    for index, job in enumerate(jobs):
        key = entry_key(job.path, job.data, job.settings, job.module, job.kind) if cache else ""
        keys.append(key)
        cached = cache.get(key) if cache else None
        if cached is not None:
            results[index] = cached
            if on_done and not job.syntax_only:
                on_done(CACHED)
        else:
            todo.append(index)
    computed = _compute([jobs[i] for i in todo], workers, on_done, pool)
    for index, result in zip(todo, computed, strict=True):
        results[index] = result
        # A clean syntax check is remembered by the screening record instead.
        trivial = jobs[index].syntax_only and not result.findings and result.parsed
        if cache is not None and not trivial:
            cache.put(keys[index], result)
    return [r for r in results if r is not None]


def _compute(
    jobs: list[Job],
    workers: int,
    on_done: Callable[[str], None] | None,
    pool: WorkerPool | None = None,
) -> list[FileResult]:
    if pool is not None and pool.executor is not None and jobs:
        return _in_pool(pool.executor, jobs, on_done)
    if workers <= 1 or len(jobs) < MIN_FILES_FOR_POOL:
        found = []
        for job in jobs:
            found.append(_run(job))
            if on_done and not job.syntax_only:
                on_done(CHECKED)
        return found
    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker) as executor:
        return _in_pool(executor, jobs, on_done)


def _in_pool(
    executor: ProcessPoolExecutor, jobs: list[Job], on_done: Callable[[str], None] | None
) -> list[FileResult]:
    results: list[FileResult | None] = [None] * len(jobs)
    submitted = [
        (chunk, executor.submit(_run_chunk, [jobs[i] for i in chunk])) for chunk in _chunks(jobs)
    ]
    for chunk, future in submitted:
        for index, result in zip(chunk, future.result(), strict=True):
            results[index] = result
            if on_done and not jobs[index].syntax_only:
                on_done(CHECKED)
    return [r for r in results if r is not None]


def _run_chunk(jobs: list[Job]) -> list[FileResult]:
    results = [_run(job) for job in jobs]
    if any(not job.syntax_only and len(job.data) > BIG_FILE for job in jobs):
        _give_memory_back()
    return results


def _give_memory_back() -> None:
    """A large file's syntax tree is garbage now; hand its pages back to the
    system so a worker's memory is that of its current file, not its largest."""
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") else None  # glibc only


_LIBC = _libc() if sys.platform.startswith("linux") else None


def _chunks(jobs: list[Job]) -> list[list[int]]:
    """Work in the order that keeps every worker busy to the end: LibCST jobs
    first, largest first, each alone (one file can cost as much as hundreds of
    syntax checks); then syntax checks in batches of about CHUNK_BYTES."""
    heavy = sorted(
        (i for i, job in enumerate(jobs) if not job.syntax_only), key=lambda i: -len(jobs[i].data)
    )
    chunks = [[i] for i in heavy]
    batch: list[int] = []
    size = 0
    for index, job in enumerate(jobs):
        if not job.syntax_only:
            continue
        batch.append(index)
        size += len(job.data)
        if size >= CHUNK_BYTES or len(batch) >= CHUNK_SIZE * 4:
            chunks.append(batch)
            batch, size = [], 0
    if batch:
        chunks.append(batch)
    return chunks
