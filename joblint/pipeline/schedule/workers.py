"""Linting many files: the cache first, then worker processes for the rest.

Only plain data crosses process boundaries (path, bytes, settings in;
`FileResult` out), and results come back in input order, so output is the
same whatever the number of workers.
"""

from __future__ import annotations

import functools
import gc
import os
import sys
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from joblint.models import FileResult
from joblint.pipeline.cache import ResultCache, entry_key
from joblint.pipeline.report.progress import CACHED, CHECKED
from joblint.pipeline.screen.prefilter import Prefilter
from joblint.pipeline.screen.verdicts import Screening, digest, screen_for_facts, screen_source
from joblint.pipeline.source import syntax_check
from joblint.settings import LintSettings, ModuleInfo

if TYPE_CHECKING:
    import ctypes
    from concurrent.futures import Future, ProcessPoolExecutor

# Below this many files to parse, a pool costs more than it saves.
MIN_FILES_FOR_POOL = 24
CHUNK_SIZE = 8
# Syntax checks sent to a worker at a time, in bytes of source.
CHUNK_BYTES = 256 * 1024
# Background work (`_Background`): bytes of source a chunk holds (a few
# milliseconds of work, what a batch may wait behind), and how much is sent
# behind a batch (about what the workers get through while the main process
# works out the next batch).
BACKGROUND_CHUNK_BYTES = 64 * 1024
BACKGROUND_WINDOW_BYTES = 4 * 1024 * 1024
# What reading a file's index costs (parsing with `ast`, then summarising),
# in syntax checks of as many bytes.
INDEX_COST = 8
# Files whose LibCST tree is worth returning the memory of afterwards.
BIG_FILE = 64 * 1024
RECURSION_LIMIT = 10_000


@dataclass(frozen=True, slots=True)
class Job:
    path: str  # as shown in results
    data: bytes
    settings: LintSettings
    module: ModuleInfo
    # The content digest (`joblint.pipeline.screen.verdicts.digest`), when the caller has it.
    digest: str = ""
    # Only check that the file can be read and parsed (prefilter-skipped files).
    syntax_only: bool = False
    # Only read its part of the project model (`joblint.pipeline.index`).
    index_only: bool = False
    # An index that tells the module's plain functions (`joblint.index.plain`).
    tells_plain: bool = True

    @property
    def kind(self) -> str:
        if self.index_only:
            return "index" if self.tells_plain else "index-without-plain"
        return "syntax" if self.syntax_only else "lint"

    @property
    def light(self) -> bool:
        """Work of Python's own parser, not LibCST's: cheap, and never counted
        as a file checked."""
        return self.syntax_only or self.index_only


def worker_count(requested: int) -> int:
    return requested if requested > 0 else (os.cpu_count() or 1)


# The run's prefilter, in a worker process (set by the pool's initializer).
_PREFILTER: Prefilter | None = None


def _init_worker(prefilter: Prefilter | None, ready_to_parse: bool) -> None:
    global _PREFILTER
    _PREFILTER = prefilter
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    if ready_to_parse:
        # LibCST, the rules and the index's readers, while the main process
        # still finds and reads the files: otherwise each worker loads them
        # when its first file comes, and the run waits for it.
        import joblint.pipeline.index
        import joblint.pipeline.lint  # noqa: F401
        from joblint.registry import all_rules

        all_rules()
    # The modules loaded so far live as long as the worker: out of the cyclic
    # collector's reach, the full collections after large files (and every
    # other one) walk only what the files made.
    gc.freeze()


def _run(job: Job) -> FileResult:
    if job.syntax_only:
        return syntax_check(job.path, job.data, job.settings)
    if job.index_only:
        # The index's readers and their tables: only in runs that index.
        from joblint.pipeline.index import index_file

        return index_file(job.path, job.data, job.settings, job.module, job.tells_plain)
    from joblint.pipeline.lint import lint_source  # LibCST: only in runs that parse with it

    return lint_source(job.path, job.data, job.settings, job.module)


class WorkerPool:
    """A run's worker processes, forked once. `eager`: before the run reads
    its files, so they don't inherit (and count in their memory) every file's
    bytes; otherwise on the first batch that needs them (a warm run may have
    nothing to compute). `ready_to_parse`: each worker loads LibCST and the
    index's readers as it starts (a run that will parse files)."""

    def __init__(
        self,
        workers: int,
        prefilter: Prefilter | None = None,
        eager: bool = True,
        ready_to_parse: bool = False,
    ):
        self.workers = workers
        self.prefilter = prefilter
        self.ready_to_parse = ready_to_parse
        self._executor: ProcessPoolExecutor | None = None
        self._background: _Background | None = None
        if eager:
            self.start()

    def start(self) -> None:
        if self.workers <= 1 or self._executor is not None:
            return
        # Imported here: a warm run that computes nothing never starts a pool.
        from concurrent.futures import ProcessPoolExecutor

        self._executor = ProcessPoolExecutor(
            max_workers=self.workers,
            initializer=_init_worker,
            initargs=(self.prefilter, self.ready_to_parse),
        )
        # With the fork start method every worker is forked on the first submit.
        # (LibCST is not imported here first for them to inherit: the main
        # process would wait for it before finding the files. Each worker
        # loads it as it starts, `ready_to_parse`, or on its first file to lint.)
        self._executor.submit(int)

    @property
    def started(self) -> bool:
        return self._executor is not None

    @property
    def executor(self) -> ProcessPoolExecutor | None:
        """The pool's executor, started if need be (None: one worker, run serially)."""
        self.start()
        return self._executor

    def close(self) -> None:
        self._background = None
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)
            self._executor = None

    def meanwhile(self, jobs: list[Job], needed: Callable[[Job], bool]) -> None:
        """Run `jobs` in the moments the pool would idle (`_Background`),
        each only if still `needed` when its turn comes; a serial run, or one
        whose pool didn't start, leaves them to `done_meanwhile`'s caller."""
        if self._executor is not None and jobs:
            self._background = _Background(self._executor, jobs, needed)
            self._background.send()

    def done_meanwhile(self, taken: Collection[str] = ()) -> dict[str, FileResult]:
        """The results of the background jobs done so far, by shown path
        (waiting for those a worker holds); the jobs of the paths `taken`
        that are not done leave the background, their caller computing them
        now. The rest go on behind the next batch: the syntax pass of each
        part of a run takes them, and a part after the first would otherwise
        check again what the background checked for it."""
        if self._background is None:
            return {}
        return self._background.collect(frozenset(taken))

    def stop_meanwhile(self) -> None:
        """Drop the background jobs no worker has started (the run needs no more)."""
        if self._background is not None:
            self._background.withdraw()
            self._background = None

    @contextmanager
    def batch(self) -> Iterator[ProcessPoolExecutor]:
        """Submit a batch of work to the started pool: ahead of the
        background jobs not started yet, which go behind it again once it is
        submitted."""
        executor = self.executor
        assert executor is not None, "a batch goes to a pool of workers"
        background = self._background
        if background is not None:
            background.withdraw()
        try:
            yield executor
        finally:
            if background is not None:
                background.send()


class _Background:
    """Cheap jobs (syntax checks) for the moments the pool would otherwise
    idle: the tail of a batch, and the main process working out the next
    one. Chunks are sent behind every batch; when the next batch comes,
    those not handed to a worker yet are taken back, so it waits behind only
    the few chunks the workers already hold."""

    def __init__(
        self, executor: ProcessPoolExecutor, jobs: list[Job], needed: Callable[[Job], bool]
    ) -> None:
        self._executor = executor
        self._todo: deque[Job] = deque(jobs)
        self._needed = needed
        self._sent: list[tuple[list[Job], Future[list[FileResult]]]] = []
        self._done: dict[str, FileResult] = {}

    def send(self) -> None:
        window = sum(_bytes(chunk) for chunk, _ in self._sent)
        while self._todo and window < BACKGROUND_WINDOW_BYTES:
            chunk = self._next_chunk()
            if chunk:
                self._sent.append((chunk, self._executor.submit(_run_chunk, chunk)))
                window += _bytes(chunk)

    def _next_chunk(self) -> list[Job]:
        chunk: list[Job] = []
        size = 0
        while self._todo and size < BACKGROUND_CHUNK_BYTES and len(chunk) < CHUNK_SIZE * 4:
            job = self._todo.popleft()
            if self._needed(job):
                chunk.append(job)
                size += len(job.data)
        return chunk

    def withdraw(self) -> None:
        """Take back the chunks no worker has started; keep what is done."""
        running = []
        for chunk, future in reversed(self._sent):
            if future.done():
                self._keep(future)
            elif future.cancel():
                self._todo.extendleft(reversed(chunk))
            else:
                running.append((chunk, future))
        self._sent = running[::-1]

    def collect(self, taken: frozenset[str]) -> dict[str, FileResult]:
        """Everything done so far, after the chunks the workers hold; those
        not started wait for `send`, but for the paths `taken`."""
        self.withdraw()
        for _, future in self._sent:
            self._keep(future)
        self._sent = []
        if taken:
            self._todo = deque(job for job in self._todo if job.path not in taken)
        return dict(self._done)  # a copy: the background goes on adding to its own

    def _keep(self, future: Future[list[FileResult]]) -> None:
        self._done.update((result.path, result) for result in future.result())


def _bytes(chunk: list[Job]) -> int:
    return sum(len(job.data) for job in chunk)


# How much of a file to screen (`screen_sources`).
SYNTAX = "syntax"  # every verdict, and Python's syntax check for a file no rule wants
FULL = "full"  # every verdict
FACTS = "facts"  # only what a file that is never linted gives (`screen_for_facts`)


def screen_sources(
    items: list[tuple[bytes, str]], prefilter: Prefilter, pool: WorkerPool
) -> list[Screening]:
    """Each (bytes, depth) screened (`joblint.pipeline.screen.verdicts`), in
    input order, in the pool when there are enough files to pay for one."""
    if len(items) < MIN_FILES_FOR_POOL or pool.executor is None:
        return screen_here(items, prefilter)
    results: list[Screening | None] = [None] * len(items)
    chunks = _byte_batches(range(len(items)), lambda i: len(items[i][0]))
    with pool.batch() as executor:
        futures = [(c, executor.submit(_screen_chunk, [items[i] for i in c])) for c in chunks]
    for chunk, future in futures:
        for index, screening in zip(chunk, future.result(), strict=True):
            results[index] = screening
    return [r for r in results if r is not None]


def screen_here(items: list[tuple[bytes, str]], prefilter: Prefilter) -> list[Screening]:
    """Each (bytes, depth) screened in this process."""
    return [_screen(prefilter, data, depth) for data, depth in items]


def screen_soon(items: list[tuple[bytes, str]], pool: WorkerPool) -> Future[list[Screening]]:
    """Each (bytes, depth) screened in a started pool, while the caller goes
    on (reading the next files)."""
    with pool.batch() as executor:
        return executor.submit(_screen_chunk, items)


def _screen(prefilter: Prefilter, data: bytes, depth: str) -> Screening:
    if depth == FACTS:
        return screen_for_facts(data)
    return screen_source(prefilter, data, check_syntax=depth == SYNTAX)


def _screen_chunk(items: list[tuple[bytes, str]]) -> list[Screening]:
    assert _PREFILTER is not None, "the pool's initializer sets the prefilter"
    return [_screen(_PREFILTER, data, depth) for data, depth in items]


def run_jobs(
    jobs: Sequence[Job],
    pool: WorkerPool,
    cache: ResultCache | None,
    on_done: Callable[[str, int], None] | None = None,
    entries: dict[int, tuple[str, FileResult]] | None = None,
    ready: dict[str, FileResult] | None = None,
) -> list[FileResult]:
    """Results in input order. `on_done` hears of every file linted, with its
    size in bytes (syntax checks are of files already counted as skipped). `entries` learns the
    cache entry of each result that has one (by the result's id; holding the
    result keeps its id from being reused). `ready`: results the background
    computed (`WorkerPool.meanwhile`), by shown path, taken instead of computing."""
    results: list[FileResult | None] = [None] * len(jobs)
    keys: list[str] = []
    todo: list[int] = []
    for index, job in enumerate(jobs):
        content = job.digest or digest(job.data)
        key = entry_key(job.path, content, job.settings, job.module, job.kind) if cache else ""
        keys.append(key)
        cached = cache.get(key) if cache else None
        if cached is not None:
            results[index] = cached
            if on_done and not job.light:
                on_done(CACHED, len(job.data))
        else:
            todo.append(index)
    done = ready or {}
    fresh = iter(_compute([jobs[i] for i in todo if jobs[i].path not in done], pool, on_done))
    computed = [done[jobs[i].path] if jobs[i].path in done else next(fresh) for i in todo]
    uncached: set[int] = set()
    for index, result in zip(todo, computed, strict=True):
        results[index] = result
        # A clean syntax check is remembered by the screening record instead.
        trivial = jobs[index].syntax_only and not result.findings and result.parsed
        if cache is not None and not trivial:
            cache.put(keys[index], result)
        else:
            uncached.add(index)
    found = [r for r in results if r is not None]
    if entries is not None and cache is not None:
        entries.update(
            (id(r), (keys[i], r))
            for i, r in enumerate(results)
            if r is not None and i not in uncached
        )
    return found


def _compute(
    jobs: list[Job], pool: WorkerPool, on_done: Callable[[str, int], None] | None
) -> list[FileResult]:
    """In the pool once it runs or when there are enough jobs to start it;
    else here, one by one."""
    wanted = jobs and (pool.started or len(jobs) >= MIN_FILES_FOR_POOL)
    if wanted and pool.executor is not None:
        return _in_pool(pool, jobs, on_done)
    found = []
    for job in jobs:
        found.append(_run(job))
        if on_done and not job.light:
            on_done(CHECKED, len(job.data))
    return found


def _in_pool(
    pool: WorkerPool, jobs: list[Job], on_done: Callable[[str, int], None] | None
) -> list[FileResult]:
    results: list[FileResult | None] = [None] * len(jobs)
    with pool.batch() as executor:
        submitted = [
            (chunk, executor.submit(_run_chunk, [jobs[i] for i in chunk]))
            for chunk in _chunks(jobs)
        ]
    for chunk, future in submitted:
        for index, result in zip(chunk, future.result(), strict=True):
            results[index] = result
            if on_done and not jobs[index].light:
                on_done(CHECKED, len(jobs[index].data))
    return [r for r in results if r is not None]


def _run_chunk(jobs: list[Job]) -> list[FileResult]:
    results = [_run(job) for job in jobs]
    if any(not job.light and len(job.data) > BIG_FILE for job in jobs):
        _give_memory_back()
    return results


def _give_memory_back() -> None:
    """A large file's syntax tree is garbage now; hand its pages back to the
    system so a worker's memory is that of its current file, not its largest."""
    gc.collect()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """glibc, looked up on the first large file (`find_library` runs ldconfig)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") else None  # glibc only


def _chunks(jobs: list[Job]) -> list[list[int]]:
    """Work in the order that keeps every worker busy to the end: LibCST jobs
    first, largest first, each alone (one file can cost as much as hundreds of
    syntax checks); then the index's, in batches as costly as one of syntax
    checks (a round of the project model's reading is a few dozen files,
    which one batch of bytes would give one worker); then syntax checks in
    batches of about CHUNK_BYTES."""
    heavy = sorted(
        (i for i, job in enumerate(jobs) if not job.light), key=lambda i: -len(jobs[i].data)
    )
    index = sorted(
        (i for i, job in enumerate(jobs) if job.index_only), key=lambda i: -len(jobs[i].data)
    )
    syntax = (i for i, job in enumerate(jobs) if job.syntax_only)
    return [
        *([i] for i in heavy),
        *_byte_batches(index, lambda i: INDEX_COST * len(jobs[i].data)),
        *_byte_batches(syntax, lambda i: len(jobs[i].data)),
    ]


def _byte_batches(indexes: Iterable[int], size_of: Callable[[int], int]) -> list[list[int]]:
    """Cheap per-file work in batches of about CHUNK_BYTES of source."""
    batches: list[list[int]] = []
    batch: list[int] = []
    size = 0
    for index in indexes:
        batch.append(index)
        size += size_of(index)
        if size >= CHUNK_BYTES or len(batch) >= CHUNK_SIZE * 4:
            batches.append(batch)
            batch, size = [], 0
    if batch:
        batches.append(batch)
    return batches
