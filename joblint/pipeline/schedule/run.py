"""Scheduling a run: which files are screened, linted and read for facts, in
which passes, on which workers, from the cache or computed.

A run discovers the files, screens each (its bytes, Python's AST, remembered
verdicts), lints the files that can report with LibCST in worker processes,
runs a second pass over skipped files that name one of the project's tasks or
queue objects, loads facts on demand for names findings depend on, and hands
every result to the project step. `joblint.api` is its public face.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from joblint.analysis.evaluation import environment_variables
from joblint.config import Config, Configs
from joblint.knowledge import jobs, requests
from joblint.knowledge.brokers import SETTINGS_CLASS_VARIABLES
from joblint.libraries.django import SETTINGS_MODULE_VARIABLE
from joblint.models import (
    HOOK_AROUND,
    HOOK_SETTING,
    EnvironmentValue,
    FileResult,
    Finding,
    ModuleIndex,
)
from joblint.pipeline.cache import (
    CACHE_DIR_NAME,
    ResultCache,
    code_fingerprint,
    entry_key,
    prune_screenings,
)
from joblint.pipeline.discover import Discovery, discover, module_name
from joblint.pipeline.manifest import Manifest
from joblint.pipeline.project import (
    ProjectIndex,
    ProjectSettings,
    candidate_modules,
    job_names,
    package_roots,
    task_helpers,
    wanted,
)
from joblint.pipeline.project.call_graph import MAX_HOPS
from joblint.pipeline.project.describe import describe
from joblint.pipeline.project.scope import TestCode, settle_scoped
from joblint.pipeline.report.progress import CACHED, SKIPPED
from joblint.pipeline.schedule.deployment_files import (
    deployment_signature,
    deployment_values,
    facts_of,
)
from joblint.pipeline.schedule.memo import Input, Memo, Outcome, Remembered, Settled, run_key
from joblint.pipeline.schedule.project_files import project_file_facts
from joblint.pipeline.schedule.selection import Selector
from joblint.pipeline.schedule.workers import (
    CHUNK_BYTES,
    FACTS,
    FULL,
    MIN_FILES_FOR_POOL,
    SYNTAX,
    Job,
    WorkerPool,
    run_jobs,
    screen_soon,
    screen_sources,
    worker_count,
)
from joblint.pipeline.screen.payload_check import Forwarders, source_may_hand_object
from joblint.pipeline.screen.prefilter import Prefilter, ProjectFacts, anchor_automaton
from joblint.pipeline.screen.verdicts import FACTS_KEY, Screener, Screening, digest
from joblint.pipeline.source import (
    UNPARSEABLE,
    SourceError,
    budget,
    unparseable_result,
)
from joblint.registry import follows_arguments, follows_calls
from joblint.requirements import (
    Reached,
    Receives,
    RequestDepends,
    Requirement,
    RunByJob,
    WrittenInTransaction,
)
from joblint.settings import LintSettings, ModuleInfo

if TYPE_CHECKING:
    from concurrent.futures import Future

# Rounds of loading facts on demand (a class's base may live in yet another module).
MAX_FACT_ROUNDS = 6

# A run's results and context.
_Project = tuple[list[FileResult], list[FileResult]]


# Words a module connecting a receiver to a signal holds (`@receiver(`,
# `.connect(`).
_CONNECTING_WORDS = (b"receiver", b".connect")
# The names a module calls a command runner by (`call_command`).
_COMMAND_RUNNERS = tuple(n.encode() for n in sorted(requests.COMMAND_RUNNER_NAMES))
# How many settings modules deep star-imports are followed.
_MAX_SETTINGS_DEPTH = 4
# The rule whose findings a request's transaction adds.
ENQUEUE_IN_TRANSACTION = "JL101"


@dataclass(slots=True)
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    # One-line problems with paths (missing, unreadable): reported, run goes on.
    errors: list[str] = field(default_factory=list)
    # A rule failed on a file: reported with "please report", exit status 2.
    internal_errors: list[str] = field(default_factory=list)
    # One-line warnings (a malformed suppression comment): the exit status stays.
    warnings: list[str] = field(default_factory=list)
    settings: ProjectSettings | None = None
    # Findings in test code and migrations that were not reported (joblint.pipeline.project.scope).
    hidden_in_tests: int = 0
    # What re-linting one file with the project around it needs: the run's
    # results and context (`results`, `context`), or how to read them (a run
    # replayed from the memo reads them when first asked).
    project: _Project | Callable[[], _Project] = field(default_factory=lambda: ([], []))

    @property
    def results(self) -> list[FileResult]:
        return self._read_project()[0]

    @property
    def context(self) -> list[FileResult]:
        return self._read_project()[1]

    def _read_project(self) -> _Project:
        if callable(self.project):
            self.project = self.project()
        return self.project


def display_path(path: Path, cwd: Path | None = None) -> str:
    """Relative to the current directory when below it, else as given."""
    here = cwd or Path.cwd()
    absolute = path.absolute()
    try:
        return absolute.relative_to(here).as_posix()
    except ValueError:
        return path.as_posix()


def _read(path: Path) -> bytes | str:
    """The file's bytes, or a one-line reason it can't be read (unbuffered:
    the file is read whole, and a buffer in between costs a copy and half
    the time of a small file's read)."""
    try:
        with open(path, "rb", buffering=0) as stream:
            return stream.readall()
    except FileNotFoundError:
        return "file disappeared before it could be read"
    except IsADirectoryError:
        return "is a directory"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"


@dataclass(slots=True)
class RunOptions:
    """How to run, as opposed to what to check (that is `Config`)."""

    jobs: int = 1  # worker processes; 0 = one per CPU
    cache: bool = False
    use_prefilter: bool = True
    # Progress callback, once per file: joblint.pipeline.report.progress.SKIPPED,
    # CACHED or CHECKED, and the file's size in bytes.
    on_file: Callable[[str, int], None] | None = None
    # The number of files and their bytes in all, once read.
    on_total: Callable[[int, int], None] | None = None
    # The project model follows every call the named files make, not only
    # those inside a transaction (to describe what it infers for them).
    follow_every_call: bool = False


@dataclass(slots=True)
class _Source:
    path: Path
    shown: str
    # None: not read yet (its digest came from the manifest); read when asked.
    _data: bytes | None
    _module: ModuleInfo | None = None
    _key: str = ""
    screening: Screening | None = None
    # Its size in bytes, from `stat` when it isn't read yet (the progress bar's weight).
    _size: int = -1

    @property
    def data(self) -> bytes:
        if self._data is None:
            read = _read(self.path)
            self._data = read if isinstance(read, bytes) else b""  # gone since: nothing
            if digest(self._data) != self._key:  # changed within a timestamp tick
                self._key, self.screening = "", None
        return self._data

    @property
    def read_lazily(self) -> bool:
        """Not read yet: the manifest gave its digest."""
        return self._data is None

    @property
    def size(self) -> int:
        return len(self.data) if self._size < 0 or self._data is not None else self._size

    @property
    def key(self) -> str:
        """The content digest."""
        if not self._key:
            self._key = digest(self.data)
        return self._key

    @property
    def module(self) -> ModuleInfo:
        if self._module is None:
            name, is_package = module_name(self.path)
            self._module = ModuleInfo(name, is_package)
        return self._module


class _Run:
    """One `lint_paths` run: which files to parse, and which facts to load."""

    def __init__(self, config: Config, options: RunOptions, selector: Selector) -> None:
        self.config = config
        self.options = options
        self.selector = selector
        self.workers = worker_count(options.jobs)
        self.pool: WorkerPool | None = None
        self.cache_dir = _cache_dir(config, options)
        self.cache = ResultCache(self.cache_dir) if self.cache_dir is not None else None
        self.prefilter = Prefilter(
            self.selector.base,
            self.selector.user_functions,
            project_facts=self.selector.reads_settings,
        )
        self.facts_only = LintSettings(frozenset(), self.selector.options)
        # What `facts` read, by shown path.
        self.facts_read: dict[str, FileResult] = {}
        # The names of the project's tasks that enqueue when called (Huey's).
        self.calls: _Words | None = None
        self.screener = Screener(self.prefilter, self.cache_dir, code_fingerprint())
        self.manifest = Manifest(self.cache_dir)
        # The cache entry of each result (by id), for the memo of the run.
        self.entries: dict[int, tuple[str, FileResult]] = {}
        # Screenings started while the files were read (`screen_early`): the
        # content digests of each chunk, and its future.
        self._early: list[tuple[list[str], Future[list[Screening]]]] = []
        self._reading: dict[str, bytes] = {}
        self._reading_bytes = 0
        self._sent_early: set[str] = set()

    def start_pool(self, files: int) -> None:
        """Fork the workers now, before the files are read, unless earlier
        runs' screenings suggest a warm run (then only if work turns up)."""
        workers = self.workers if files >= MIN_FILES_FOR_POOL else 1
        warm = self.screener.remembers
        self.pool = WorkerPool(workers, self.prefilter, eager=not warm)

    def _pool(self) -> WorkerPool:
        assert self.pool is not None, "lint_paths starts the pool before any work"
        return self.pool

    def screen(self, source: _Source) -> Screening:
        """Its screening (only its facts' part for a file the run screened
        with `FACTS`: `screen_all(..., FULL)` first where more is read)."""
        if source.screening is None:
            self.screen_all([source])
        assert source.screening is not None
        return source.screening

    def screen_early(self, source: _Source) -> None:
        """Screen a file just read (in full, as `screen_all(..., FULL)`) in
        a pool forked for a cold run, while the main process reads the next:
        the workers would otherwise wait for the last file to be read."""
        if not self._pool().started or source.read_lazily or source.key in self._sent_early:
            return
        if self.screener.lookup(source.key) is not None:
            return
        self._reading[source.key] = source.data
        self._sent_early.add(source.key)
        self._reading_bytes += len(source.data)
        if self._reading_bytes >= CHUNK_BYTES:
            self.flush_early()

    def flush_early(self) -> None:
        """Send the files read since the last chunk."""
        if self._reading:
            keys, items = list(self._reading), [(d, FULL) for d in self._reading.values()]
            self._early.append((keys, screen_soon(items, self._pool())))
            self._reading, self._reading_bytes = {}, 0

    def _take_early(self) -> None:
        self.flush_early()
        for keys, future in self._early:
            for key, screening in zip(keys, future.result(), strict=True):
                self.screener.record(key, screening)
        self._early = []

    def screen_all(self, sources: list[_Source], depth: str = SYNTAX) -> None:
        """Each source's screening: remembered, or computed (in the pool) to
        `depth`. Files that never report need no syntax check for JL001
        (`FULL`), and files that are never linted only their facts' part
        (`FACTS`, remembered apart: a later run may lint them)."""
        self._take_early()
        prefix = FACTS_KEY if depth == FACTS else ""
        todo: dict[str, _Source] = {}
        for source in sources:
            known = source.screening
            if known is None or (known.facts_only and depth != FACTS):
                source.screening = self.screener.lookup(source.key)
                if source.screening is None and prefix:
                    source.screening = self.screener.lookup(prefix + source.key)
                if source.screening is None:
                    todo.setdefault(source.key, source)
        if depth == SYNTAX and UNPARSEABLE not in self.selector.base:
            depth = FULL
        computed = screen_sources(
            [(s.data, depth) for s in todo.values()], self.prefilter, self._pool()
        )
        for key, screening in zip(todo, computed, strict=True):
            self.screener.record(prefix + key, screening)
        for source in sources:
            if source.screening is None:
                source.screening = self.screener.lookup(prefix + source.key)

    def _jobs(
        self, sources: list[_Source], syntax_only: bool = False, triggered: bool = False
    ) -> list[Job]:
        return [
            Job(
                s.shown,
                s.data,
                self._settings(s, triggered),
                s.module,
                s.key,
                syntax_only=syntax_only,
            )
            for s in sources
        ]

    def _settings(self, source: _Source, triggered: bool) -> LintSettings:
        """`triggered`: only the rules whose triggers the screening found (a
        rule can't fire where it has none), and JL001."""
        settings = self.selector.settings_for(source.path)
        screening = source.screening if triggered and self.options.use_prefilter else None
        narrowed = _triggered(settings, screening)
        if narrowed is settings or self._calls_tasks(source):
            return settings  # every rule (a Huey task call has no trigger of its own)
        return narrowed

    def _calls_tasks(self, source: _Source) -> bool:
        return self.calls is not None and self.calls.search(source.data) is not None

    def lint(
        self,
        sources: list[_Source],
        counted: bool = False,
        triggered: bool = False,
        also: frozenset[str] = frozenset(),
        forwarders: frozenset[str] = frozenset(),
    ) -> list[FileResult]:
        """`counted`: the progress bar has already counted these files.
        `triggered`: run only the rules the screening found triggers of (and
        the selected rules among `also`). `forwarders`: the project functions
        handing a parameter on to a payload (`Options.payload_forwarders`)."""
        on_file = None if counted else self.options.on_file
        jobs = self._jobs(sources, triggered=triggered)
        if also or forwarders:
            jobs = [
                replace(j, settings=self._with(j.settings, s.path, also, forwarders))
                for j, s in zip(jobs, sources, strict=True)
            ]
        return run_jobs(jobs, self._pool(), self.cache, on_file, self.entries)

    def _with(
        self,
        settings: LintSettings,
        path: Path,
        also: frozenset[str],
        forwarders: frozenset[str] = frozenset(),
    ) -> LintSettings:
        selected = self.selector.settings_for(path).codes
        options = replace(settings.options, payload_forwarders=forwarders)
        return replace(settings, codes=settings.codes | (also & selected), options=options)

    def check_syntax_meanwhile(self, skipped: list[_Source]) -> None:
        """Start the syntax checks JL001 will ask of the skipped files in the
        moments the pool would idle (`WorkerPool.meanwhile`), first those a
        later step is least likely to parse anyway: files that name no job
        library, neither open nor commit a transaction and hold no gated
        trigger are linted or indexed only where a call leads to them, and
        test code first among them."""
        if UNPARSEABLE not in self.selector.base:
            return
        unknown = [s for s in skipped if self.screen(s).parses is None]
        tests = self.selector.test_code()  # rarely indexed: a production file calls none
        unknown.sort(key=lambda s: (_may_be_parsed_later(self.screen(s)), s.shown not in tests))
        screenings = {s.shown: self.screen(s) for s in unknown}

        def not_parsed_yet(job: Job) -> bool:  # the index parses files too
            return screenings[job.path].parses is None

        self._pool().meanwhile(self._jobs(unknown, syntax_only=True), not_parsed_yet)

    def check_syntax(self, sources: list[_Source]) -> list[FileResult]:
        """JL001 for skipped files Python can't parse (or not known to)."""
        unknown = [s for s in sources if self.screen(s).parses is not True]
        found = run_jobs(
            self._jobs(unknown, syntax_only=True),
            self._pool(),
            self.cache,
            entries=self.entries,
            ready=self._pool().done_meanwhile(),
        )
        for source, result in zip(unknown, found, strict=True):
            self.screener.parses(source.key, result.parsed)
        return [r for r in found if r.findings]

    def learn_call_enqueues(self, sources: list[_Source]) -> None:
        """Which of the project's tasks enqueue when called (Huey's), from the
        files that name Huey: calls of other functions are then never taken
        for enqueues, which spares a pending finding per argument of every call."""
        defining = [s for s in sources if self.screen(s).on_call]
        on_call, _ = job_names(self.facts(defining)) if defining else (set(), set())
        self.selector.learn_call_enqueues(frozenset(on_call))
        self.calls = _words(on_call)

    def facts(self, sources: list[_Source]) -> list[FileResult]:
        if self.cache is not None:
            for source in sources:
                self._facts_from_lint(self.cache, source)
        jobs = [Job(s.shown, s.data, self.facts_only, s.module, s.key) for s in sources]
        found = run_jobs(jobs, self._pool(), self.cache, entries=self.entries)
        self.facts_read.update((r.path, r) for r in found)
        return found

    def _facts_from_lint(self, cache: ResultCache, source: _Source) -> None:
        """A file an earlier run linted gave its facts then: a lint's facts
        don't depend on the rules that ran (tests/test_memo.py checks it on
        every example), so its facts job is that result's facts, remembered
        under the job's own entry, and the file isn't parsed again. (The
        warnings of a malformed suppression comment are left out: facts are
        context, whose warnings are never shown.)"""
        facts_key = entry_key(source.shown, source.key, self.facts_only, source.module)
        if cache.has(facts_key):
            return
        for settings in self._lint_settings_of(source):
            found = cache.get(entry_key(source.shown, source.key, settings, source.module))
            if found is not None and found.parsed:
                cache.put(facts_key, FileResult(found.path, facts=found.facts))
                return

    def _lint_settings_of(self, source: _Source) -> list[LintSettings]:
        """The settings a run may have linted the file with (`lint`): the
        rules its screening found triggers of, those and the rules that
        follow calls, every selected rule."""
        every = self.selector.settings_for(source.path)
        screening = self.screener.lookup(source.key)  # its full screening, if a run made one
        if screening is None or screening.facts_only:
            return [every]
        triggered = _triggered(every, screening)
        if triggered == every:
            return [every]
        return [triggered, self._with(triggered, source.path, self.follows_calls), every]

    def index(self, sources: list[_Source]) -> list[FileResult]:
        """Their part of the project model, read with Python's `ast`."""
        # A test module's index tells no plain functions: production code is
        # settled without test code's index (with its facts, where production
        # imports the module), so what a finding asks of a test module is
        # read from its facts, as the index would otherwise say it need not be.
        # A module the test paths take by its name alone (`emails/test.py`)
        # but that holds no test is production code a view may call.
        tests = self.selector.test_code()
        jobs = [
            Job(
                s.shown,
                s.data,
                self.facts_only,
                s.module,
                s.key,
                index_only=True,
                tells_plain=s.shown not in tests or not _TEST_WORDS.search(s.data),
            )
            for s in sources
        ]
        found = run_jobs(jobs, self._pool(), self.cache, entries=self.entries)
        for source, result in zip(sources, found, strict=True):
            # Python parsed it: its syntax check is done (unless it is over
            # the size JL001 refuses, which `ast` doesn't mind).
            if result.parsed and budget.check_size(len(source.data)) is None:
                self.screener.parses(source.key, True)
        return found

    def lacks_call_following(self, source: _Source) -> bool:
        """Whether the first pass linted `source` without a selected rule that
        follows calls (its triggers weren't in the file) though the file holds
        what that rule needs besides an enqueue (a transaction, a commit): a
        call in it may still lead to an enqueue."""
        selected = self.selector.settings_for(source.path).codes & self.follows_calls
        missing = selected - self._settings(source, triggered=True).codes
        lowered = source.data.lower()
        return any(Prefilter.has_context(code, lowered) for code in missing)

    def lacks_rule(self, source: _Source, *codes: str) -> bool:
        """Whether the first pass linted `source` without one of the selected
        rules `codes`."""
        settings = self.selector.settings_for(source.path)
        selected = settings.codes.intersection(codes)
        if not selected:
            return False
        screening = source.screening if self.options.use_prefilter else None
        # The file's text is searched only where the screening left one out.
        narrowed = _triggered(settings, screening)
        return not selected <= narrowed.codes and not self._calls_tasks(source)

    @property
    def follows_arguments(self) -> frozenset[str]:
        """The selected rules whose findings follow arguments into project functions."""
        return frozenset(code for code in self.selector.base if follows_arguments(code))

    @property
    def follows_calls(self) -> frozenset[str]:
        """The selected rules whose findings follow calls across modules."""
        return frozenset(code for code in self.selector.base if follows_calls(code))


def _may_be_parsed_later(screening: Screening) -> bool:
    """Whether a later step of the run may lint or index a skipped file."""
    return (
        screening.defines_jobs
        or screening.gated
        or screening.on_call
        or screening.transactional
        or screening.commits
    )


def _triggered(settings: LintSettings, screening: Screening | None) -> LintSettings:
    """Only the rules whose triggers the screening found (and JL001); every
    rule without a screening that names them."""
    rules = screening.codes if screening is not None and screening.wanted else None
    if rules is None:
        return settings
    return replace(settings, codes=settings.codes & (rules | {UNPARSEABLE}))


def _cache_dir(config: Config, options: RunOptions) -> Path | None:
    return cache_directory(config) if options.cache else None


def cache_directory(config: Config) -> Path:
    if config.cache_dir is not None:
        return config.cache_dir
    return project_root(config) / CACHE_DIR_NAME


def _load_sources(
    paths: list[Path], manifest: Manifest, on_read: Callable[[_Source], None] | None = None
) -> tuple[list[_Source], list[tuple[Path, str]]]:
    """The run's files, and those that can't be read (with why). `on_read`
    hears of each file as it is read."""
    sources, unreadable = [], []
    shown = _DisplayPaths()
    for path in paths:
        found = _source(path, shown(path), manifest)
        if isinstance(found, str):
            unreadable.append((path, found))
        else:
            sources.append(found)
            if on_read is not None:
                on_read(found)
    return sources, unreadable


def _project_sources(paths: list[Path], manifest: Manifest) -> list[_Source]:
    """The files of the project besides those named (unreadable files are
    left out, as they give the named files nothing)."""
    shown = _DisplayPaths()
    found = (_source(path, shown(path), manifest) for path in paths)
    return [source for source in found if not isinstance(source, str)]


def _source(path: Path, shown: str, manifest: Manifest) -> _Source | str:
    """The file, or a one-line reason it can't be read. One the manifest
    knows unchanged is read only when its bytes are needed: a run replayed
    from the memo reads none (a file made unreadable since has a new change
    time, so it is read, and reported)."""
    try:
        stat: os.stat_result | None = os.stat(path)
    except OSError:
        stat = None
    if stat is not None:
        known = manifest.digest(path, stat)
        if known is not None:
            return _Source(path, shown, None, _key=known, _size=stat.st_size)
    data = _read(path)
    if isinstance(data, str):
        return data
    source = _Source(path, shown, data)
    if stat is not None:
        manifest.remember(path, stat, source.key)
    return source


class _DisplayPaths:
    """`display_path` for many paths: the current directory looked up once."""

    def __init__(self) -> None:
        self.cwd = os.getcwd()
        self.below = os.path.join(self.cwd, "")

    def __call__(self, path: Path) -> str:
        text = str(path)
        if not os.path.isabs(text):
            return path.as_posix()  # below the current directory already
        if text.startswith(self.below) and os.sep == "/" and "/." not in text:
            return text[len(self.below) :]  # what `relative_to` gives, without parsing
        return display_path(path, Path(self.cwd))


def lint_paths(paths: list[Path], config: Config, options: RunOptions | None = None) -> RunResult:
    options = options or RunOptions()
    configs = Configs(config)
    discovery = discover(paths, config, configs, _cache_dir(config, options))
    run = _Run(config, options, Selector(config, configs, discovery.files))
    run.start_pool(len(discovery.files))
    try:
        return _lint_discovered(paths, config, run, discovery)
    finally:
        assert run.pool is not None
        run.pool.close()


def _lint_discovered(
    paths: list[Path], config: Config, run: _Run, discovery: Discovery
) -> RunResult:
    early = run.screen_early if run.options.use_prefilter else None
    sources, unreadable = _load_sources(discovery.files, run.manifest, early)
    run.flush_early()
    if run.options.on_total:
        run.options.on_total(len(discovery.files), sum(s.size for s in sources))
    results = [
        unparseable_result(display_path(p), run.selector.settings_for(p), SourceError(reason))
        for p, reason in unreadable
    ]
    named_files = any(path.is_file() for path in paths)
    others: list[_Source] = []
    if named_files:
        # Pre-commit style: only some files are named. Facts of the rest of the
        # project still count (settings live elsewhere); findings are only theirs.
        root = [project_root(config)]
        project = discover(root, config, run.selector.configs, run.cache_dir).files
        is_named = _named_files(sources)
        rest = [p for p in project if not is_named(p)]
        others = _project_sources(rest, run.manifest)
    memo = _memo(run, sources, others, named_files) if not unreadable else None
    remembered = memo.load(_settling(run)) if memo is not None else None
    replayed = _replayed(run, remembered, discovery, sources) if remembered is not None else None
    if replayed is not None:
        return replayed
    if run.options.use_prefilter:
        # JL001's syntax check of skipped files comes last (`_syntax_errors`).
        run.screen_all(sources, FULL)
        run.screen_all(others, FACTS)
    run.learn_call_enqueues([*sources, *others])
    wanted, skipped = _prefilter(run, sources)
    run.check_syntax_meanwhile(skipped)
    results.extend(run.lint(wanted, triggered=True))
    named: frozenset[str] | None = None
    pool = list(skipped)
    context: list[FileResult] = []
    if named_files:
        named = frozenset(r.path for r in results)
        pool.extend(others)
        if run.selector.reads_settings:
            context = run.facts(_project_fact_files(run, sources, pool))
    # Files outside the paths named (read from the project root for facts) never
    # report findings of their own.
    linted = {s.shown for s in sources}
    context.extend(_second_pass(run, pool, linted, results))
    everything = [*sources, *others]
    context.extend(_helper_callers(run, everything, results, context))
    context.extend(_on_demand(run, everything, pool, results, context))
    if run.follows_arguments and _forwarder_callers(
        run, sources, everything, pool, results, context
    ):
        context.extend(_on_demand(run, everything, pool, results, context))
    if run.follows_calls:
        partly = [s for s in wanted if run.lacks_call_following(s)]
        model = _Model(everything, pool, partly, linted, named_files)
        context.extend(_project_model(run, model, results, context))
    context.extend(_loaded_settings(run, everything, results, context))
    context.extend(_session_dependencies(run, everything, results, context))
    context.extend(_request_hooks(run, everything, results, context))
    requested = _Requested(pool, wanted, linted)
    context.extend(_request_enqueues(run, requested, results, context))
    context.extend(_request_callers(run, everything, pool, results, context))
    context.extend(_writers(run, everything, results, context))
    results.extend(_syntax_errors(run, skipped, pool))
    run.screener.save()
    run.manifest.save()
    if run.cache is not None:
        run.cache.flush()
    finished = _finish(
        results,
        discovery.errors,
        run.selector.project_settings(named),
        context,
        files_checked=len(discovery.files),
        tests=run.selector.test_code(),
    )
    if memo is not None:
        memo.save(Outcome(results, context, named), run.entries, _reported(run, finished))
    if run.cache is not None:  # a bounded cache: old entries and records go
        run.cache.prune_if_full()
        if run.screener.saved:
            prune_screenings(run.cache.directory)
    return finished


def _memo(
    run: _Run, sources: list[_Source], others: list[_Source], named_files: bool
) -> Memo | None:
    """The memo of the run, by everything its decisions depend on (with a cache)."""
    if run.cache is None:
        return None

    def inputs(group: list[_Source]) -> list[Input]:
        return [Input(s.shown, s.module, s.key, run.selector.settings_for(s.path)) for s in group]

    options = run.options
    how = [run.prefilter.signature, options.use_prefilter, options.follow_every_call, named_files]
    if run.selector.reads_settings:  # the deployment files' facts are read every run
        how.append(deployment_signature(project_root(run.config)))
    return Memo(run.cache, run_key(inputs(sources), inputs(others), how))


def _replayed(
    run: _Run, remembered: Remembered, discovery: Discovery, sources: list[_Source]
) -> RunResult | None:
    """A run ended as the remembered run with the same inputs ended (the
    progress bar told what the prefilter skipped, the rest from the cache):
    what it reported, when settled as this run would settle it, else settled
    again from its outcome. None: an entry of the outcome is gone."""
    settled = remembered.settled
    outcome = remembered.outcome() if settled is None else None
    if settled is None and outcome is None:
        return None
    if run.options.on_file:
        if run.options.use_prefilter:
            run.screen_all(sources)
        for source in _prefilter(run, sources)[0]:
            run.options.on_file(CACHED, source.size)
    run.manifest.save()
    settings = run.selector.project_settings(remembered.named)
    if settled is None:
        assert outcome is not None
        return _finish(
            outcome.results,
            discovery.errors,
            settings,
            outcome.context,
            files_checked=len(discovery.files),
            tests=run.selector.test_code(),
        )
    return RunResult(
        findings=list(settled.findings),
        files_checked=len(discovery.files),
        errors=list(discovery.errors),
        internal_errors=list(settled.internal_errors),
        warnings=list(settled.warnings),
        settings=settings,
        hidden_in_tests=settled.hidden_in_tests,
        project=lambda: _remembered_project(remembered),
    )


def _remembered_project(remembered: Remembered) -> _Project:
    """The replayed run's results and context (none, if an entry went since
    the run began: only re-linting a file with its project needs them)."""
    outcome = remembered.outcome()
    return ([], []) if outcome is None else (outcome.results, outcome.context)


def _settling(run: _Run) -> str:
    """What settling a run's results depends on besides them, as a
    fingerprint: every configuration in use (the project settings, what
    counts as test code) and the rules selected."""
    configs = [repr(config) for config in run.selector.configs.loaded()]
    parts = json.dumps([configs, sorted(run.selector.base)])
    return hashlib.sha256(parts.encode("utf-8", "surrogateescape")).hexdigest()


def _reported(run: _Run, finished: RunResult) -> Settled:
    return Settled(
        finished.findings,
        finished.hidden_in_tests,
        finished.internal_errors,
        finished.warnings,
        _settling(run),
    )


def _syntax_errors(run: _Run, skipped: list[_Source], pool: list[_Source]) -> list[FileResult]:
    """JL001 for the run's skipped files Python can't parse, checked last:
    those a later pass linted have theirs from the lint, and those the index
    or an AST check parsed are known to parse."""
    if UNPARSEABLE not in run.selector.base:
        return []
    left = {s.shown for s in pool}
    return run.check_syntax([s for s in skipped if s.shown in left])


def _project_fact_files(run: _Run, named: list[_Source], pool: list[_Source]) -> list[_Source]:
    """The files of `pool` whose facts the whole-project rules need for
    findings that involve a named file: every file's settings, and others'
    limits and delays only where a named file holds what they are compared
    with (`ProjectFacts.needed_by`)."""
    held = ProjectFacts()
    for source in named:
        held |= run.screen(source).project_facts
    return [s for s in pool if run.screen(s).project_facts.needed_by(held)]


def _named_files(named: list[_Source]) -> Callable[[Path], bool]:
    """Whether a project file is one of the files named (resolving links only
    for a file of a named file's name: resolving every path of a large
    project costs more than the rest of a warm run)."""
    by_name: dict[str, set[Path]] = {}
    for source in named:
        by_name.setdefault(source.path.name, set()).add(source.path.resolve())

    def named_file(path: Path) -> bool:
        resolved = by_name.get(path.name)
        return resolved is not None and path.resolve() in resolved

    return named_file


def _prefilter(run: _Run, sources: list[_Source]) -> tuple[list[_Source], list[_Source]]:
    """The sources to lint, and the skipped."""
    if not run.options.use_prefilter:
        return list(sources), []
    wanted: list[_Source] = []
    skipped: list[_Source] = []
    for source in sources:
        if run.screen(source).wanted:
            wanted.append(source)
        else:
            skipped.append(source)
            if run.options.on_file:
                run.options.on_file(SKIPPED, source.size)
    return wanted, skipped


def _second_pass(
    run: _Run, pool: list[_Source], linted: set[str], results: list[FileResult]
) -> list[FileResult]:
    """Skipped files that may still enqueue: calling a Huey task enqueues it
    (there is no token to look for), and `x.send(...)` or `q.enqueue(...)`
    enqueue only on a task or queue object. Files that may define tasks or
    queue objects are analysed first; then the skipped files that name one of
    them. Only the run's own files are linted (the others never report, and
    the facts findings depend on are read on demand); where no other skipped
    file may name a task (no gated trigger, no call of a Huey task), the
    task-defining files are not linted for their names either. Returns the
    results that are not the run's own (context)."""
    if not pool:
        return []
    mine = [s for s in pool if s.shown in linted]
    defines = {id(s) for s in mine if run.screen(s).defines_jobs}
    if not any(id(s) not in defines and _may_call_task(run, s) for s in mine):
        # No other skipped file may enqueue by naming a task: the task-defining
        # files are linted only where they call a task themselves; the others
        # stay in the pool, read on demand like any file (a skipped file has
        # no trigger of any rule).
        calling = [s for s in mine if id(s) in defines and _calls_task(run, s)]
        results.extend(run.lint(calling, counted=True))
        taken = {id(s) for s in calling}
        pool[:] = [s for s in pool if id(s) not in taken]
        return []
    own = [s for s in mine if id(s) in defines]
    results.extend(run.lint(own, counted=True))
    run.screen_all(pool, FULL)  # the others' tasks count: their full screening
    defining = [s for s in pool if run.screen(s).defines_jobs]
    context = run.facts([s for s in defining if s.shown not in linted])
    on_call, every = job_names([*results, *context])
    taken = {id(s) for s in defining}
    callers: list[_Source] = []
    names = _words(every)
    if names is not None:
        calls = _words(on_call)
        callers = [
            s
            for s in pool
            if id(s) not in taken
            and s.shown in linted
            and (
                (calls is not None and calls.search(s.data))
                or (run.screen(s).gated and names.search(s.data))
            )
        ]
    taken.update(id(s) for s in callers)
    pool[:] = [s for s in pool if id(s) not in taken]
    results.extend(run.lint(callers, counted=True))
    return context


def _calls_task(run: _Run, source: _Source) -> bool:
    """It names one of the project's tasks whose call enqueues them (Huey's)."""
    return run.calls is not None and run.calls.search(source.data)


def _may_call_task(run: _Run, source: _Source) -> bool:
    """It may enqueue through a task or queue object the project defines: a
    call of a Huey task, or a gated trigger (`x.send(...)`)."""
    return run.screen(source).gated or _calls_task(run, source)


def _words(names: set[str], after: bytes = b"\\b") -> _Words | None:
    return _Words(names, after) if names else None


# Up to this many words, each is looked for as bytes first (a scan in C per
# word), beyond it all at once; the regular expression, whose alternation is
# tried at every position, runs only on files holding one.
_LITERAL_WORDS = 8


class _Words:
    """Whether bytes name one of some words (whole words, followed by
    `after`; with `calls`, not where a `def` defines one)."""

    def __init__(self, names: set[str], after: bytes, calls: bool = False) -> None:
        self._words = sorted(n.encode() for n in names)
        self._after = after
        self._before = rb"(?<!def )" if calls else b""
        self._pattern: re.Pattern[bytes] | None = None  # compiled when first needed
        self._automaton: Any = None

    def search(self, data: bytes) -> bool:
        if not self._may_hold(data):
            return False
        if self._pattern is None:
            words = b"|".join(re.escape(w) for w in self._words)
            self._pattern = re.compile(self._before + rb"\b(?:" + words + rb")" + self._after)
        return self._pattern.search(data) is not None

    def _may_hold(self, data: bytes) -> bool:
        """Whether a word is in `data` at all: a scan in C per word, or for
        many words one pass of an automaton (the alternation of the
        regular expression is tried at every position)."""
        if len(self._words) <= _LITERAL_WORDS:
            return any(w in data for w in self._words)
        if self._automaton is None:
            self._automaton = anchor_automaton(self._words)
        # Latin-1 maps each byte to one character: the words' matches are the bytes'.
        return next(self._automaton.iter(data.decode("latin-1")), None) is not None


def _on_demand(
    run: _Run,
    everything: list[_Source],
    pool: list[_Source],
    results: list[FileResult],
    context: list[FileResult],
    asked: Callable[[ProjectIndex], set[str]] | None = None,
) -> list[FileResult]:
    """Read what findings depend on, until nothing is missing: the facts of
    skipped files whose module holds a name a finding depends on (a task, a
    class and its bases, a constant), and the index of the modules the
    project model's calls lead to. `asked`: further calls (qualified names)
    the project model is to follow, given the index of every result so far."""
    loaded: list[FileResult] = []
    # The files whose facts an earlier call read are in `context` already.
    read = {r.path for r in context if run.facts_read.get(r.path) is r}
    remaining = _ByModule([s for s in pool if s.shown not in read])
    modules = _ByModule(everything)
    indexed = {r.path for r in [*results, *context] if r.index is not None}
    registrars: list[_Source] | None = None  # searched for once, when a service is called
    for _ in range(MAX_FACT_ROUNDS + 2 * MAX_HOPS):
        names, called = wanted([*results, *context, *loaded], asked)
        to_index = [
            s
            for s in modules.of(candidate_modules(called, modules, modules.roots))
            if s.shown not in indexed
        ]
        if registrars is None and any(requests.names_service(name) for name in called):
            registrars = _service_registrars(everything)
            to_index.extend(s for s in registrars if s.shown not in indexed)
        # The index first: where it shows a wanted name is a plain function
        # or class, its module's facts need not be read for it.
        found = run.index(to_index)
        loaded.extend(found)
        indexed.update(s.shown for s in to_index)
        names -= {name for r in found if r.index is not None for name in _plain(r.index)}
        batch = remaining.take(candidate_modules(names, modules, modules.roots))
        if not batch and not to_index:
            break
        loaded.extend(run.facts(batch))
    return loaded


def _service_registrars(everything: list[_Source]) -> list[_Source]:
    """The files that may register a service a call is made on
    (`config.register_service_factory(...)`, usually in an `includeme`): no
    name of the call leads to them, the key it is found by does."""
    words = requests.SERVICE_REGISTRATION_WORDS
    return [s for s in everything if any(word in s.data for word in words)]


def _plain(index: ModuleIndex) -> tuple[str, ...]:
    return (*index.plain_functions, *index.plain_classes)


class _Indexer:
    """Reads the index of sources the results so far have none of, each
    once; what it read, in order (`loaded`)."""

    def __init__(self, run: _Run, have: list[FileResult]) -> None:
        self._run = run
        self._indexed = {r.path for r in have if r.index is not None}
        self.loaded: list[FileResult] = []

    def read(self, batch: list[_Source]) -> list[FileResult]:
        fresh = [s for s in batch if s.shown not in self._indexed]
        self._indexed.update(s.shown for s in fresh)
        found = self._run.index(fresh)
        self.loaded.extend(found)
        return found


class _ByModule:
    """Sources looked up by module name, in their order; a project's few
    thousand files are grouped once instead of scanned every round."""

    def __init__(self, sources: list[_Source]) -> None:
        self._by_name: dict[str, list[tuple[int, _Source]]] = {}
        for position, source in enumerate(sources):
            self._by_name.setdefault(source.module.name, []).append((position, source))

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    @functools.cached_property
    def roots(self) -> dict[str, str]:
        """The packages imported from their own import root (`package_roots`)."""
        return package_roots(self._by_name)

    def of(self, names: set[str]) -> list[_Source]:
        found = [entry for name in names for entry in self._by_name.get(name, ())]
        return [source for _, source in sorted(found, key=lambda entry: entry[0])]

    def take(self, names: set[str]) -> list[_Source]:
        """`of(names)`, no longer found afterwards."""
        taken = self.of(names)
        for name in names:
            self._by_name.pop(name, None)
        return taken


def _helper_callers(
    run: _Run, everything: list[_Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """The index of the files naming a helper that a pending finding needs a
    bound task to hand itself to (`def retry_later(task, exc)`): the callers."""
    helpers = task_helpers(results)
    if not helpers:
        return []
    reader = _Indexer(run, [*results, *context])
    # A function a task may run through others (`RunByJob`): their callers
    # too, hop by hop, up to a function a decorator may make a task.
    run_by_jobs = {r.function.rsplit(".", 1)[-1] for r in _requirements(results, RunByJob)}
    asked: set[str] = set(helpers)
    looked_for: set[str] = set()
    for _ in range(MAX_HOPS):
        names = _words(asked - looked_for, rb"\s*\(")  # a call of one
        looked_for |= asked
        if names is None:
            break
        reader.read([s for s in everything if names.search(s.data)])
        run_by_jobs |= _plain_callers([*results, *context, *reader.loaded], run_by_jobs)
        asked |= run_by_jobs
    return reader.loaded


def _plain_callers(results: list[FileResult], names: set[str]) -> set[str]:
    """The unqualified names of the undecorated functions in `results`
    calling one of `names`: no decorator makes them a task. A special
    method (`__init__`) is run by Python, not called by its name."""
    return {
        name
        for result in results
        if result.index is not None
        for summary in result.index.functions
        if not summary.decorators
        and not (name := summary.qualname.rsplit(".", 1)[-1]).startswith("__")
        and any(call.callee.rsplit(".", 1)[-1] in names for call in summary.calls)
    }


def _forwarder_callers(
    run: _Run,
    sources: list[_Source],
    everything: list[_Source],
    pool: list[_Source],
    results: list[FileResult],
    context: list[FileResult],
) -> bool:
    """Lint again, with the rules that follow arguments and the names of
    the project functions handing a parameter on to a job's payload
    (`CallGraph.payload_forwarders`, from the index of the files those rules
    ran on), the run's own files where a call of one may pass a live object:
    it is reported at the caller. The first pass reads no such call (it
    can't know the functions), so a file linted then gets its new result in
    place of the old (`context` gets the index read). Whether it linted any."""
    codes = run.follows_arguments
    pooled = {id(s) for s in pool}  # by identity: sources compare by their data
    lacking = {id(s) for s in sources if id(s) in pooled or run.lacks_rule(s, *codes)}
    ran = [s for s in sources if id(s) not in lacking]
    have = {r.path for r in [*results, *context] if r.index is not None}
    context.extend(run.index([s for s in ran if s.shown not in have]))
    if len(everything) > len(sources):  # some files named: the functions they call
        found = _callee_modules(run, sources, everything, lacking, context)
        context.extend(found)
        callees = {name for r in found if r.index is not None for name in _calls_made(r.index)}
        context.extend(_on_demand(run, everything, pool, results, context, lambda _: callees))
    names = ProjectIndex.build([*results, *context]).graph.payload_forwarders()
    if not names:
        return False
    words = _Words(set(names), rb"\s*\(", calls=True)
    tests = run.selector.test_code()
    naming = [
        s
        for s in sources
        # What test code hands a helper is hidden from the report anyway.
        if (s.shown not in tests or tests.includes(s.shown)) and words.search(s.data)
    ]
    chosen = _handing_objects(run, naming, names)
    if not chosen:
        return False
    taken = {id(s) for s in chosen}
    pool[:] = [s for s in pool if id(s) not in taken]
    again = {s.shown for s in chosen}
    results[:] = [r for r in results if r.path not in again]
    handing = frozenset(names)
    results.extend(run.lint(chosen, counted=True, triggered=True, also=codes, forwarders=handing))
    return True


def _handing_objects(run: _Run, sources: list[_Source], names: Forwarders) -> list[_Source]:
    """The files where Python's AST says a call of one of `names` may pass a
    live object (what the rules would read there), decided in the workers."""
    pool = run._pool()
    if pool.started and len(sources) > 1:
        with pool.batch() as executor:
            verdicts = list(
                executor.map(source_may_hand_object, [s.data for s in sources], repeat(names))
            )
    else:
        verdicts = [source_may_hand_object(s.data, names) for s in sources]
    return [s for s, verdict in zip(sources, verdicts, strict=True) if verdict]


def _callee_modules(
    run: _Run,
    sources: list[_Source],
    everything: list[_Source],
    lacking: set[int],
    context: list[FileResult],
) -> list[FileResult]:
    """The index of the named files lacking the rules that follow arguments,
    and of the modules of the project functions they call (which may hand
    an argument on to a job), where none was read."""
    have = {r.path for r in context if r.index is not None}
    named = run.index([s for s in sources if id(s) in lacking and s.shown not in have])
    have |= {s.shown for s in sources}
    modules = _ByModule(everything)
    callees = {name for r in named if r.index is not None for name in _calls_made(r.index)}
    wanted = [
        s
        for s in modules.of(candidate_modules(callees, modules, modules.roots))
        if s.shown not in have
    ]
    return [*named, *run.index(wanted)]


def _calls_made(index: ModuleIndex) -> set[str]:
    """What the module's functions call (qualified names)."""
    return {call.callee for function in index.functions for call in function.calls}


@dataclass(slots=True)
class _Model:
    """What the project model step of a run works over."""

    everything: list[_Source]  # every file read, named or not
    pool: list[_Source]  # the skipped files not linted yet
    partly: list[_Source]  # linted without the rules that follow calls
    linted: set[str]  # the run's own files (shown paths)
    named_files: bool


def _project_model(
    run: _Run, model: _Model, results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """Lint, with the rules that follow calls, the run's own files that were
    skipped or linted without those rules, where a call inside a transaction
    (a library's, or one a project callable opens), or before a commit in
    the same function, enqueues a job or leads to an enqueue
    (`CallGraph.reports_in`), with what that needs read on demand; a file
    linted before gets its new result in place of the old. Candidates: those
    files that open a transaction or commit one, and those naming a function
    that opens one (a run over some files takes every one it
    names). Returns the results that are not the run's own (context)."""
    pool, everything = model.pool, model.everything
    own = [*(s for s in pool if s.shown in model.linted), *model.partly]
    described = []
    if run.options.follow_every_call:
        described = [s for s in everything if s.shown in model.linted]
    if not own and not described:
        return []
    indexed = {r.path for r in [*results, *context] if r.index is not None}
    loaded: list[FileResult] = []

    def read(batch: list[_Source]) -> None:
        fresh = [s for s in batch if s.shown not in indexed]
        indexed.update(s.shown for s in fresh)
        loaded.extend(run.index(fresh))

    if model.named_files:
        read([*own, *described])
    else:
        read([s for s in own if run.screen(s).transactional or run.screen(s).commits])
        looked_for: set[str] = set()
        for _ in range(MAX_HOPS):  # a function opening a transaction through another
            found = ProjectIndex.build([*results, *context, *loaded]).graph.openers()
            openers = _words(found - looked_for)  # files were searched for the others
            looked_for |= found
            if openers is None:
                break
            more = [s for s in own if s.shown not in indexed and openers.search(s.data)]
            if not more:
                break
            read(more)
    candidates = {s.shown for s in own if s.shown in indexed}
    every_call = {s.shown for s in described}

    def asked(index: ProjectIndex) -> set[str]:
        graph = index.graph
        found = {callee for path in candidates for callee in graph.transaction_callees(path)}
        return found | {callee for path in every_call for callee in graph.callees(path)}

    loaded.extend(_on_demand(run, everything, pool, results, [*context, *loaded], asked))
    graph = ProjectIndex.build([*results, *context, *loaded]).graph
    chosen = [s for s in own if s.shown in candidates and graph.reports_in(s.shown)]
    taken = {id(s) for s in chosen}
    pool[:] = [s for s in pool if id(s) not in taken]
    again = {s.shown for s in chosen}
    results[:] = [r for r in results if r.path not in again]
    results.extend(run.lint(chosen, counted=True, triggered=True, also=run.follows_calls))
    loaded.extend(_on_demand(run, everything, pool, results, [*context, *loaded]))
    return loaded


def _environment_variables(results: list[FileResult]) -> set[str]:
    """The environment variables the files' settings and module constants read
    (the broker URL's among them): those the deployment files are read for."""
    # The variables naming the settings in force: where the deployment files
    # set them, they choose the configuration.
    found: set[str] = {SETTINGS_MODULE_VARIABLE, *SETTINGS_CLASS_VARIABLES}
    for result in results:
        for _name, expr in result.facts.constants:
            found |= environment_variables(expr)
        for value in result.facts.broker.config:
            found |= environment_variables(value.value) | environment_variables(value.guard)
    return found


def _has_broker_settings(results: list[FileResult]) -> bool:
    """Whether any file sets a broker setting (else no deployment file can matter)."""
    return any(result.facts.broker.config for result in results)


def _loaded_settings(
    run: _Run, everything: list[_Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """The facts of the settings modules entry points name, and of those
    they star-import in turn (`from api.settings import *` in the admin's):
    what one sets holds for the project loading the other. Returns those
    read now."""
    loaded: list[FileResult] = []
    deployed: list[EnvironmentValue] = []
    if run.selector.reads_settings:
        root = project_root(run.config)
        configured = project_file_facts(root, display_path)
        loaded.extend(r for r in configured if r.path not in {h.path for h in [*results, *context]})
        deployed = deployment_values(root, display_path)
    have = [*results, *context, *loaded]
    read = {r.path for r in have}
    modules = _ByModule(everything)
    asked = {named for r in have for named in r.facts.loads_settings}
    # The settings module the deployment files run the project with.
    asked |= {v.value for v in deployed if v.variable == SETTINGS_MODULE_VARIABLE}
    asked |= {star for r in have for star in r.facts.broker.star_imports}
    done: set[str] = set()
    for _ in range(_MAX_SETTINGS_DEPTH):
        fresh = [s for s in modules.of(asked - done) if s.shown not in read]
        done |= asked
        if not fresh:
            break
        read.update(s.shown for s in fresh)
        found = run.facts(fresh)
        loaded.extend(found)
        asked |= {star for r in found for star in r.facts.broker.star_imports}
    if run.selector.reads_settings:
        # Where the settings read the broker URL from the environment, the
        # project's deployment files say its value.
        variables = _environment_variables([*results, *context, *loaded])
        if _has_broker_settings([*results, *context, *loaded]):
            loaded.extend(r for r in facts_of(deployed, variables) if r.path not in read)
    return loaded


def _request_enqueues(
    run: _Run,
    sources: _Requested,
    results: list[FileResult],
    context: list[FileResult],
) -> list[FileResult]:
    """Where the project's settings make a framework's requests transactions,
    any enqueue in a function may run inside one: the run's own files that
    may enqueue and were skipped, or linted without JL101 (their transaction
    trigger was missing), are linted with it; a file linted before gets its
    new result in place of the old. Returns nothing of the context: they are
    the run's own."""
    code = ENQUEUE_IN_TRANSACTION
    if code not in run.selector.base or not _request_transactions([*results, *context]):
        return []
    pool = sources.pool
    skipped = [s for s in pool if s.shown in sources.linted]
    partly = [s for s in sources.wanted if run.lacks_rule(s, code)]
    chosen = [s for s in [*skipped, *partly] if run.prefilter.enqueues(s.data.lower())]
    if not chosen:
        return []
    taken = {id(s) for s in chosen}
    pool[:] = [s for s in pool if id(s) not in taken]
    again = {s.shown for s in chosen}
    results[:] = [r for r in results if r.path not in again]
    results.extend(run.lint(chosen, counted=True, triggered=True, also=frozenset({code})))
    return []


@dataclass(slots=True)
class _Requested:
    """The files a request's transaction may add JL101 findings to."""

    pool: list[_Source]  # the skipped files not linted yet
    wanted: list[_Source]  # the files the first pass linted
    linted: set[str]  # the run's own files (shown paths)


# The frameworks of `requests.DEPENDENCY_FRAMEWORKS`, as their imports read.
_DEPENDENCY_FRAMEWORK = re.compile(rb"^\s*(?:from|import)\s+fastapi\b", re.MULTILINE)
_COMMIT_CALL = re.compile(rb"\.commit\(\s*\)")


def _uses_dependency_framework(data: bytes) -> bool:
    # The substring first: a scan in C, where the anchored pattern is not.
    return b"fastapi" in data and _DEPENDENCY_FRAMEWORK.search(data) is not None


def _request_callers(
    run: _Run,
    everything: list[_Source],
    pool: list[_Source],
    results: list[FileResult],
    context: list[FileResult],
) -> list[FileResult]:
    """Where a pending finding asks whether something runs its function in
    a transaction nobody wrote around it (`Reached`): the index of the
    functions' own modules and of the files connecting them to a signal;
    then, hop by hop up to `MAX_HOPS`, of every file sending a signal one
    of them receives, and (where the project's settings make a framework's
    requests transactions) of every file calling one of them by name,
    whether the prefilter skipped it or not: a views module needs no
    enqueue token of its own. Returns those read now."""
    targets = _reached_functions(results, context)
    if not targets:
        return []
    requests_on = _request_transactions([*results, *context])
    modules = _ByModule(everything)
    reader = _Indexer(run, [*results, *context])
    read, loaded = reader.read, reader.loaded

    own = modules.of(candidate_modules(targets, modules, modules.roots))
    if not requests_on:  # only signals may reach them: modules that connect receivers
        own = [s for s in own if any(word in s.data for word in _CONNECTING_WORDS)]
    read(own)
    asked = {part for name in targets for part in _function_names(name)}
    models = _saving_models(targets) if requests_on else set()
    made = _manager_writes(models)
    if made is not None:
        # `Order.objects.create(...)` runs the model's own `save()`.
        found = read([s for s in everything if made.search(s.data)])
        registering = _registering([*results, *context, *loaded])
        asked |= _callers_named(found, set(requests.MANAGER_CALLS_INSTANCE), registering)
    connecting = _words(asked, rb"\s*[(),]")
    if connecting is not None:
        read([s for s in everything if b".connect" in s.data and connecting.search(s.data)])
    looked_for: set[str] = set()
    signals_sent: set[str] = set()
    commands_run: set[str] = set()
    mixins_looked_for: set[str] = set()
    for _ in range(MAX_HOPS):
        signals = _signals_of([*results, *context, *loaded], asked) - signals_sent
        signals_sent |= signals
        sends = _words(signals, rb"\.send")
        found = []
        if sends is not None:
            found = read([s for s in everything if sends.search(s.data)])
            asked |= _senders(found, signals)
        names = _words(asked - looked_for, rb"\s*\(") if requests_on else None
        looked_for |= asked
        if names is not None:
            calling = [s for s in everything if names.search(s.data)]
            found = read(calling)
            # Files indexed before (linted ones) hold callers too: a method
            # calling another of its class is in the file the search starts from.
            shown = {s.shown for s in calling}
            have = [r for r in [*results, *context, *loaded] if r.path in shown]
            # The modules telling whether a handler is one: its router's, its decorator's.
            owners = {
                e.of for r in have if r.index for e in r.index.entries if e.needs in _NEEDS_OWNER
            }
            read(modules.of(candidate_modules(owners, modules, modules.roots)))
            # A mixin's request-taking method is a handler of the views that
            # derive from it: the modules naming the mixin may define them.
            mixins = _mixins_with_handlers(have, asked) - mixins_looked_for
            mixins_looked_for |= mixins
            naming = _words({m.rpartition(".")[2] for m in mixins})
            if naming is not None:
                read([s for s in everything if naming.search(s.data)])
            registering = _registering([*results, *context, *loaded])
            asked |= _callers_named(have, looked_for, registering)
        # Nobody calls a command's handler by its name: the callers of the
        # commands on the way name their modules (`call_command("x")`).
        commands = set()
        if requests_on:
            commands = _commands_on_the_way([*results, *context, *loaded], asked) - commands_run
            commands_run |= commands
        running = _words(commands, rb"['\"]")
        if running is not None:
            found = read([s for s in everything if _runs_command(s.data, running)])
            registering = _registering([*results, *context, *loaded])
            asked |= _callers_named(found, looked_for, registering, commands)
        elif names is None and sends is None:
            break

    def handlers_and_tasks(index: ProjectIndex) -> set[str]:
        """What resolving the calls on the way reads (the classes a caller's
        call names, the bases they inherit from); and what telling whether a
        job depends on the request's writes reads: the handler's calls, all
        the way down, and the task's body."""
        # Wherever the caller was read (a file the run linted calls them
        # too), where the search goes up to request handlers.
        callers = [*results, *context, *loaded] if requests_on else loaded
        found = {
            call.callee
            for result in callers
            if result.index is not None
            for summary in result.index.functions
            for call in summary.calls
            if call.callee.rsplit(".", 1)[-1] in asked
        }
        # The model's method a manager's write runs (`Order.objects.create`
        # runs `Order.save`), as the call names the model: wherever it is.
        found |= {
            f"{call.callee.rsplit('.', 2)[0]}.{method}"
            for result in [*results, *context, *loaded]
            if models and result.index is not None
            for summary in result.index.functions
            for call in summary.calls
            if call.text.split(".", 1)[0] in models
            for method in requests.MANAGER_CALLS_INSTANCE.get(call.callee.rsplit(".", 1)[-1], ())
        }
        for requirement in _reached(results, [*context, *loaded]):
            reach = index.reach.reached(requirement.function)
            if reach is not None and reach.handler is not None and requirement.task:
                found.add(reach.handler.entry.qualname)
                found.add(requirement.task)
        for depends in _requirements(results, RequestDepends):
            found.add(depends.handler)
            if depends.task:
                found.add(depends.task)
        return found

    loaded.extend(
        _on_demand(run, everything, pool, results, [*context, *loaded], handlers_and_tasks)
    )
    return loaded


def _saving_models(targets: set[str]) -> set[str]:
    """The classes (unqualified) of the targets a manager's write runs (a
    model's `save()`)."""
    instance = {m for methods in requests.MANAGER_CALLS_INSTANCE.values() for m in methods}
    return {
        parts[-2]
        for target in targets
        if len(parts := target.split(".")) >= 2 and parts[-1] in instance
    }


def _manager_writes(models: set[str]) -> re.Pattern[bytes] | None:
    """The manager calls naming one of the classes `models` that run its
    `save()` (`Order.objects.create(`)."""
    if not models:
        return None
    managers = b"|".join(re.escape(m.encode()) for m in sorted(requests.MODEL_MANAGERS))
    writes = b"|".join(re.escape(m.encode()) for m in sorted(requests.MANAGER_CALLS_INSTANCE))
    names = b"|".join(re.escape(m.encode()) for m in sorted(models))
    return re.compile(rb"\b(?:" + names + rb")\.(?:" + managers + rb")\.(?:" + writes + rb")\s*\(")


def _signals_of(results: list[FileResult], handlers: set[str]) -> set[str]:
    """The unqualified names of the signals the functions named `handlers` receive."""
    return {
        signal.rsplit(".", 1)[-1]
        for result in results
        if result.index is not None
        for signal, handler, _ in result.index.connections
        if handler.rsplit(".", 1)[-1] in handlers or handler.endswith(".<returned>")
    }


def _senders(results: list[FileResult], signals: set[str]) -> set[str]:
    """The unqualified names of the functions in `results` sending one of `signals`."""
    return {
        summary.qualname.rsplit(".", 1)[-1]
        for result in results
        if result.index is not None
        for summary in result.index.functions
        if any(
            call.callee.rpartition(".")[2] in requests.SEND_METHODS
            and call.callee.rsplit(".", 2)[-2:-1][0] in signals
            for call in summary.calls
            if call.callee.count(".") >= 1
        )
    }


_Required = TypeVar("_Required", bound=Requirement)


def _requirements(results: list[FileResult], kind: type[_Required]) -> list[_Required]:
    """The requirements of one type the pending findings of `results` make."""
    return [
        requirement
        for result in results
        for pending in result.pending
        for requirement in pending.requires
        if isinstance(requirement, kind)
    ]


def _function_names(qualname: str) -> set[str]:
    """The function's own name, and those of the functions it is nested in
    (a factory's: connecting what it returns names the factory)."""
    parts = qualname.split(".")
    nested = {parts[i - 1] for i, part in enumerate(parts) if part == "<locals>" and i}
    return {parts[-1], *nested}


def _reached_functions(results: list[FileResult], context: list[FileResult]) -> set[str]:
    return {requirement.function for requirement in _reached(results, context)}


def _reached(results: list[FileResult], context: list[FileResult]) -> list[Reached]:
    """The pending findings' `Reached` requirements; an async function's
    only where a handler may run one inside a transaction (a FastAPI
    dependency or a middleware committing its session): elsewhere no
    search can end."""
    found = _requirements(results, Reached)
    if not any(r.is_async for r in found) or _dependency_sessions(results):
        return found
    # The hooks' modules are read for the context (`_request_hooks`).
    if _hooks_commit([*results, *context]):
        return found
    return [r for r in found if not r.is_async]


def _request_transactions(results: list[FileResult]) -> bool:
    """Whether some settings turn on a framework's request transactions, or
    a module defines a dependency committing its session after the handler,
    or registers a function committing after the handlers."""
    flags = set(requests.FRAMEWORK_FLAGS.values())
    if any(not flags.isdisjoint(r.facts.flags) for r in results):
        return True
    return _dependency_sessions(results) or _hooks_commit(results)


def _hooks_commit(results: list[FileResult]) -> bool:
    """Whether a module registers a function after or around request
    handlers (`ModuleIndex.hooks`) that a loaded summary of the name shows
    committing after them, or a setting committing after them; the project
    step tells which handlers they run after."""
    indexes = [r.index for r in results if r.index is not None]
    hooks = [hook for index in indexes for hook in index.hooks]
    if not hooks:
        return False
    settings = {hook.target for hook in hooks if hook.kind == HOOK_SETTING}
    if settings:
        return True
    after = {h.target.rsplit(".", 1)[-1] for h in hooks if h.kind != HOOK_AROUND}
    around = {h.target.rsplit(".", 1)[-1] for h in hooks if h.kind == HOOK_AROUND}
    for index in indexes:
        for summary in index.functions:
            if summary.commit_settings:
                continue  # it commits only where a setting no module sets is on
            parts = summary.qualname.split(".")
            if parts[-1] in after and summary.commits:
                return True
            if summary.commits and not around.isdisjoint(parts[:-1]):
                return True  # a middleware's method or a function it defines
    return False


def _dependency_sessions(results: list[FileResult]) -> bool:
    """Whether a handler depends on something and a dependency commits its
    session after the `yield` (FastAPI's request transactions)."""
    indexes = [r.index for r in results if r.index is not None]
    return any(e.depends for i in indexes for e in i.entries) and any(
        summary.commits_after_yield for i in indexes for summary in i.functions
    )


def _session_dependencies(
    run: _Run, everything: list[_Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """Where the project uses a framework whose handlers' dependencies may
    commit the request's session (FastAPI), the index of the modules that
    may define one (a generator that commits) and of those importing the
    framework (its routes): a route depending on one turns the request's
    transactions on. Returns those read now."""
    if ENQUEUE_IN_TRANSACTION not in run.selector.base:
        return []
    if not any(_uses_dependency_framework(s.data) for s in everything):
        return []
    indexed = {r.path for r in [*results, *context] if r.index is not None}
    candidates = [
        s
        for s in everything
        if s.shown not in indexed
        and (
            (b"yield" in s.data and _COMMIT_CALL.search(s.data))
            or _uses_dependency_framework(s.data)  # its routes, and what they depend on
        )
    ]
    return run.index(candidates)


# What a module holding tests names: a test function or class, or the
# framework that runs them.
_TEST_WORDS = re.compile(rb"\bdef test|\bclass Test|\bpytest\b|\bunittest\b|\bTestCase\b")

# The frameworks running functions after or around their handlers
# (`requests.HOOKS`), as their imports read; the words of a module naming one.
_HOOK_FRAMEWORK_WORDS = (b"flask", b"starlette", b"fastapi")
_HOOK_FRAMEWORK = re.compile(rb"^\s*(?:from|import)\s+(?:flask|starlette|fastapi)", re.MULTILINE)
_HOOK_WORDS = tuple(word.encode() for word in requests.HOOK_WORDS)
_ROUTE_CALL_WORDS = tuple(word.encode() for word in requests.ROUTE_CALL_WORDS)


def _uses_hook_framework(data: bytes) -> bool:
    # The substrings first: scans in C, where the anchored pattern is not.
    return any(w in data for w in _HOOK_FRAMEWORK_WORDS) and bool(_HOOK_FRAMEWORK.search(data))


def _request_hooks(
    run: _Run, everything: list[_Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """Where the project uses a framework running functions after or around
    its handlers (Flask's teardowns, Starlette's middleware), the index of
    the modules that may register one, then of those defining what they
    register; where one may commit after the handlers, of the modules that
    may register a handler by a call (`Route("/x", endpoint)`): the project
    step tells which handlers run inside the session it commits. Returns
    those read now."""
    if ENQUEUE_IN_TRANSACTION not in run.selector.base:
        return []
    if not any(_uses_hook_framework(s.data) for s in everything):
        return []
    reader = _Indexer(run, [*results, *context])
    read, loaded = reader.read, reader.loaded

    read([s for s in everything if any(word in s.data for word in _HOOK_WORDS)])
    have = [*results, *context, *loaded]
    # What they register, and the objects a blueprint's own hooks are
    # registered on (whether they are blueprints).
    targets = {
        name
        for r in have
        if r.index is not None
        for hook in r.index.hooks
        for name in (hook.target, hook.of)
        if name
    }
    modules = _ByModule(everything)
    read(modules.of(candidate_modules(targets, modules, modules.roots)))
    if _hooks_commit([*results, *context, *loaded]):
        read([s for s in everything if any(word in s.data for word in _ROUTE_CALL_WORDS)])
    return loaded


# Handlers whose router or decorator tells whether they are ones.
_NEEDS_OWNER = frozenset({"router", "decorator"})


def _mixins_with_handlers(results: list[FileResult], asked: set[str]) -> set[str]:
    """The classes deriving from nothing the project or a framework gives
    (`class ReportMixin:`) whose methods taking the request are on the way
    (named in `asked`): handlers only of the views that derive from them."""
    found: set[str] = set()
    for result in results:
        index = result.index
        if index is None:
            continue
        owners = {
            e.of
            for e in index.entries
            if e.needs == "class" and e.qualname.rpartition(".")[2] in asked
        }
        for qualname, bases in index.classes:
            if qualname in owners and not any(_gives_kind(base) for base in bases):
                found.add(qualname)
    return found


def _gives_kind(base: str) -> bool:
    return base.startswith(requests.REQUEST_CLASS_BASES) or jobs.may_be_project_code(base)


def _registering(results: list[FileResult]) -> set[str]:
    """The qualified names of the loaded decorator factories registering
    request handlers (a class's, whose `__call__` does)."""
    found: set[str] = set()
    for result in results:
        if result.index is None:
            continue
        for summary in result.index.functions:
            if summary.registers:
                found.add(summary.qualname.removesuffix(".__call__"))
    return found


def _callers_named(
    results: list[FileResult],
    names: set[str],
    registering: set[str],
    commands: set[str] | None = None,
) -> set[str]:
    """The unqualified names of the functions in `results` calling one of
    `names` (or running one of the management `commands`), but for request
    handlers: the search up stops at them (a view's `post` is called by the
    framework, and names a thousand other things); at a function a decorator
    of the project decorates, where the decorator is loaded and `registering`."""
    found: set[str] = set()
    commands = commands or set()
    for result in results:
        if result.index is None:
            continue
        handlers = {
            entry.qualname
            for entry in result.index.entries
            if entry.needs != "decorator" or entry.of in registering
        }
        found.update(
            summary.qualname.rsplit(".", 1)[-1]
            for summary in result.index.functions
            if summary.qualname not in handlers
            and any(
                call.callee.rsplit(".", 1)[-1] in names or call.command in commands
                for call in summary.calls
            )
        )
    return found


def _commands_on_the_way(results: list[FileResult], asked: set[str]) -> set[str]:
    """The names of the management commands (`<app>.management.commands.<name>`)
    whose handler is asked for by name or calls a function that is."""
    found: set[str] = set()
    for result in results:
        index = result.index
        if index is None or not requests.command_name(index.module):
            continue
        handler = requests.command_handler(index.module)
        for summary in index.functions:
            if summary.qualname == handler and (
                handler.rsplit(".", 1)[-1] in asked
                or any(call.callee.rsplit(".", 1)[-1] in asked for call in summary.calls)
            ):
                found.add(requests.command_name(index.module))
    return found


def _runs_command(data: bytes, commands: _Words) -> bool:
    """The file's bytes call a command runner and quote one of `commands`
    (`call_command("rebuild_index"`): a file that may run one of them."""
    return any(n in data for n in _COMMAND_RUNNERS) and commands.search(data)


def _writers(
    run: _Run, everything: list[_Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """Where a finding depends on the project writing a model inside a
    transaction (a model signal's receiver): the index of every project file
    naming such a model that opens a transaction or registers a model with a
    framework that writes it in one, named or not (a write the project step
    counts names its model); of every one opening a transaction where a
    receiver takes any model's writes. Returns those read now."""
    models = _written_models(results, context)
    if not models:
        return []
    named = None if "" in models else _words(models)
    indexed = {r.path for r in [*results, *context] if r.index is not None}
    unread = [s for s in everything if s.shown not in indexed]
    if named is not None:
        unread = [s for s in unread if named.search(s.data)]
    # The screening's own test, on the bytes: files screened only for their
    # facts were never asked whether they open a transaction.
    opening = [s for s in unread if run.prefilter.transactional(s.data.lower())]
    found = run.index(opening)
    return [*found, *_library_creators(run, everything, [*results, *context, *found], models)]


def _library_creators(
    run: _Run, everything: list[_Source], have: list[FileResult], models: set[str]
) -> list[FileResult]:
    """Where a model asked for is one a library call creates a row of
    (`requests.ROW_CREATING_CALLS`: actstream's `action.send`): the index of
    the files making such a call, then, up to `MAX_HOPS` calls up, of the
    files calling their functions by name, and of the modules defining the
    objects those calls are made on: a call inside a transaction on the way
    makes the row the transaction's."""
    calls = {c for c, model in requests.ROW_CREATING_CALLS.items() if _short(model) in models}
    if not calls:
        return []
    modules = _ByModule(everything)
    reader = _Indexer(run, have)
    read, loaded = reader.read, reader.loaded

    tails = {".".join(c.split(".")[-2:]).encode() for c in calls}  # `action.send`
    making = read([s for s in everything if any(t in s.data for t in tails)])
    asked = {
        name
        for r in [*have, *making]
        if r.index is not None
        for summary in r.index.functions
        if any(call.callee in calls for call in summary.calls)
        for name in _function_names(summary.qualname)
    }
    looked_for: set[str] = set()
    for _ in range(MAX_HOPS):
        names = _words(asked - looked_for, rb"\s*\(")
        looked_for |= asked
        if names is None:
            break
        calling = read([s for s in everything if names.search(s.data)])
        # The objects the calls are made on (`event = namespace.add_kind(...)`).
        owners = {
            call.callee.rpartition(".")[0]
            for r in calling
            if r.index is not None
            for summary in r.index.functions
            for call in summary.calls
            if call.callee.rsplit(".", 1)[-1] in asked
        }
        read(modules.of(candidate_modules(owners, modules, modules.roots)))
        asked |= _callers_named(calling, looked_for, set())
    return loaded


def _short(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def _written_models(results: list[FileResult], context: list[FileResult]) -> set[str]:
    """The names of the models whose transactional writes pending findings
    ask for: a receiver's sender, or the sender another module connects a
    receiver-shaped function to (not for signals sent in the framework's
    own transaction, which need no write)."""
    asked: set[str] = set()
    handlers: set[str] = set()
    for result in results:
        for pending in result.pending:
            for requirement in pending.requires:
                if isinstance(requirement, WrittenInTransaction):
                    asked.add(requirement.model.rsplit(".", 1)[-1])
                elif isinstance(requirement, Receives):  # by name: connected through a re-export
                    handlers.add(requirement.handler.rsplit(".", 1)[-1])
    if handlers:
        for result in [*results, *context]:
            for fact in result.facts.receivers:
                connects = fact.handler.rsplit(".", 1)[-1] in handlers
                if connects and not fact.own_transaction:  # "": every model's
                    asked.add(fact.model.rsplit(".", 1)[-1])
    return asked


def describe_project_model(path: Path, config: Config, options: RunOptions) -> list[str]:
    """What the project model inferred for the file at `path`, as lines to print."""
    run = lint_paths([path], config, replace(options, follow_every_call=True))
    graph = ProjectIndex.build([*run.results, *run.context]).graph
    return describe(graph, display_path(path))


def project_root(config: Config) -> Path:
    """The config file's directory, else the enclosing git root, else the cwd."""
    if config.source is not None:
        return config.source.resolve().parent
    here = Path.cwd().resolve()
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return here


def lint_text(text: bytes, filename: str, config: Config) -> RunResult:
    """Lint source given on stdin, shown as `filename` (and configured as a
    file of that name would be)."""
    selector = Selector(config)
    path = Path(filename)
    name, is_package = module_name(path) if path.exists() else (path.stem, False)
    from joblint.pipeline.lint import lint_source

    result = lint_source(
        display_path(path), text, selector.settings_for(path), ModuleInfo(name, is_package)
    )
    settings = selector.project_settings(None)
    return _finish([result], [], settings, tests=selector.test_code())


def test_code(config: Config) -> TestCode:
    """What counts as test code for files of `config` (joblint.pipeline.project.scope)."""
    return Selector(config).root.tests


def _finish(
    results: list[FileResult],
    errors: list[str],
    settings: ProjectSettings,
    context: list[FileResult] | None = None,
    files_checked: int | None = None,
    *,
    tests: TestCode,
    include_tests: bool = False,
) -> RunResult:
    checked = len(results) if files_checked is None else files_checked
    run = RunResult(files_checked=checked, errors=list(errors))
    shown = settle_scoped(results, settings, context or (), tests, include_tests)
    run.findings, run.hidden_in_tests = shown.findings, shown.hidden
    run.project, run.settings = (results, list(context or ())), settings
    for result in results:
        run.internal_errors.extend(result.errors)
        run.warnings.extend(result.warnings)
    return run


def relinter(config: Config, run: RunResult, shown: str) -> Callable[[bytes], list[Finding]]:
    """Lint new bytes of the run's file `shown` (a path as reported),
    settled with the rest of the run's project; its findings only."""
    relint = outcome_relinter(config, run, shown)
    return lambda data: relint(data).findings


def outcome_relinter(config: Config, run: RunResult, shown: str) -> Callable[[bytes], RunResult]:
    """`relinter`, with the whole outcome for the file: its findings, and the
    internal errors and warnings linting it gave (an editor shows the buffer's
    findings and logs the rest)."""
    path = Path(shown)
    selector = Selector(config)
    settings = selector.settings_for(path)
    name, is_package = module_name(path)
    others = [r for r in run.results if r.path != shown] + run.context
    tests = selector.test_code()
    from joblint.pipeline.lint import lint_source

    def relint(data: bytes) -> RunResult:
        result = lint_source(shown, data, settings, ModuleInfo(name, is_package))
        scoped = settle_scoped([result], run.settings, others, tests)
        outcome = RunResult(files_checked=1, settings=run.settings, project=([result], []))
        outcome.findings = [f for f in scoped.findings if f.path == shown]
        outcome.internal_errors.extend(result.errors)
        outcome.warnings.extend(result.warnings)
        return outcome

    return relint
