"""The machinery every pass of a run shares (`Run`): its configuration and
options, the worker pool, the result cache and the screenings, and the jobs
the passes hand the workers (lint a file with some rules, read its facts,
read its index), each sent with the settings its configuration gives it."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from joblint.config import Config
from joblint.models import FileResult
from joblint.pipeline.cache import ResultCache, code_fingerprint, derived_key, entry_key
from joblint.pipeline.manifest import Manifest
from joblint.pipeline.project.scope import TestCode
from joblint.pipeline.report.progress import SKIPPED
from joblint.pipeline.schedule.options import RunOptions
from joblint.pipeline.schedule.roots import cache_dir
from joblint.pipeline.schedule.selection import Selector
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.words import Words
from joblint.pipeline.schedule.workers import (
    CHUNK_BYTES,
    FACTS,
    FULL,
    MIN_FILES_FOR_POOL,
    SYNTAX,
    Job,
    WorkerPool,
    run_jobs,
    screen_here,
    screen_soon,
    screen_sources,
    worker_count,
)
from joblint.pipeline.screen.prefilter import Prefilter
from joblint.pipeline.screen.verdicts import FACTS_KEY, Screener, Screening
from joblint.pipeline.source import UNPARSEABLE, budget
from joblint.registry import follows_arguments, follows_calls
from joblint.settings import LintSettings

if TYPE_CHECKING:
    from concurrent.futures import Future

    from joblint.pipeline.schedule.by_module import ByModule

# What a module holding tests names: a test function or class, or the
# framework that runs them.
_TEST_WORDS = re.compile(rb"\bdef test|\bclass Test|\bpytest\b|\bunittest\b|\bTestCase\b")


def holds_tests(source: Source, tests: TestCode) -> bool:
    """Whether `source` is a test module: under the test paths and holding
    tests (a module the test paths take by its name alone, such as
    `emails/test.py`, may be production code a view calls)."""
    return source.shown in tests and _TEST_WORDS.search(source.data) is not None


class Run:
    """One `lint_paths` run: which files to parse, and which facts to load."""

    def __init__(self, config: Config, options: RunOptions, selector: Selector) -> None:
        self.config = config
        self.options = options
        self.selector = selector
        self.workers = worker_count(options.jobs)
        self.pool: WorkerPool | None = None
        self.cache_dir = cache_dir(config, options)
        self.cache = ResultCache(self.cache_dir) if self.cache_dir is not None else None
        self.prefilter = Prefilter(
            self.selector.base,
            self.selector.user_functions,
            project_facts=self.selector.reads_settings,
        )
        self.facts_only = LintSettings(frozenset(), self.selector.options)
        # What `facts` read, by shown path.
        self.facts_read: dict[str, FileResult] = {}
        # The modules `index` found no index of (Python can't parse them), by
        # shown path and content digest: the passes look for a module's index
        # among their results, and would have such a module parsed again each
        # time. (Those with an index are not kept here: a part's results go
        # when the part is done.)
        self._unindexed: dict[tuple[str, str], FileResult] = {}
        # The names of the project's tasks that enqueue when called (Huey's).
        self.calls: Words | None = None
        self.screener = Screener(self.prefilter, self.cache_dir, code_fingerprint())
        self.manifest = Manifest(self.cache_dir)
        # The cache entry of each result (by id), for the memo of the run.
        self.entries: dict[int, tuple[str, FileResult]] = {}
        # Screenings started while the files were read (`screen_early`): the
        # content digests of each chunk, and its future.
        self._early: list[tuple[list[str], list[tuple[bytes, str]], Future[list[Screening]]]] = []
        self._reading: dict[str, tuple[bytes, str]] = {}
        self._reading_bytes = 0
        self._sent_early: set[str] = set()
        self._grouped: tuple[list[Source], ByModule] | None = None

    @property
    def expects_work(self) -> bool:
        """No earlier run's screenings: a cold run, not one its memo may replay."""
        return not self.screener.remembers

    def start_pool(self, files: int, reads_project: bool) -> None:
        """Fork the workers now, before the files are read, unless earlier
        runs' screenings suggest a warm run (then only if work turns up).
        `reads_project`: a run naming files, which reads the rest of the
        project too: a pool pays for itself even for one file named."""
        many = files >= MIN_FILES_FOR_POOL or reads_project
        workers = self.workers if many else 1
        self.pool = WorkerPool(
            workers, self.prefilter, eager=self.expects_work, ready_to_parse=self.expects_work
        )

    def work_pool(self) -> WorkerPool:
        """The worker pool `start_pool` started."""
        assert self.pool is not None, "lint_paths starts the pool before any work"
        return self.pool

    def grouped(self, everything: list[Source]) -> ByModule:
        """A part's files by module name, for lookups: grouped once for all
        the passes over the part, which ask of the same list (kept here, so
        its identity can't pass to another list)."""
        if self._grouped is None or self._grouped[0] is not everything:
            from joblint.pipeline.schedule.by_module import ByModule  # the project model's

            self._grouped = (everything, ByModule(everything))
        return self._grouped[1]

    def screen(self, source: Source) -> Screening:
        """Its screening (only its facts' part for a file the run screened
        with `FACTS`: `screen_all(..., FULL)` first where more is read)."""
        if source.screening is None:
            self.screen_all([source])
        assert source.screening is not None
        return source.screening

    def screen_early(self, source: Source, depth: str = FULL) -> None:
        """Screen a file just read (as `screen_all(..., depth)` would, `FULL`
        or `FACTS`) in a pool forked for a cold run, while the main process
        reads the next: the workers would otherwise wait for the last file
        to be read."""
        if not self.work_pool().started or source.read_lazily:
            return
        key = _screening_key(source, depth)
        if key in self._sent_early or self.screener.lookup(key) is not None:
            return
        self._reading[key] = (source.data, depth)
        self._sent_early.add(key)
        self._reading_bytes += len(source.data)
        if self._reading_bytes >= CHUNK_BYTES:
            self.flush_early()

    def flush_early(self) -> None:
        """Send the files read since the last chunk."""
        if self._reading:
            keys, items = list(self._reading), list(self._reading.values())
            self._early.append((keys, items, screen_soon(items, self.work_pool())))
            self._reading, self._reading_bytes = {}, 0

    def _take_early(self) -> None:
        """The early screenings' results. The chunks no worker has started
        (the last ones: the workers take them in order) are screened here
        instead: the main process would otherwise only wait for them."""
        self.flush_early()
        early, self._early = self._early, []
        stolen = []
        while early and early[-1][2].cancel():
            keys, items, _ = early.pop()
            stolen.append((keys, screen_here(items, self.prefilter)))
        done = [(keys, future.result()) for keys, _, future in early]
        for keys, screenings in [*done, *stolen]:
            for key, screening in zip(keys, screenings, strict=True):
                self.screener.record(key, screening)

    def screen_all(self, sources: list[Source], depth: str = SYNTAX) -> None:
        """Each source's screening: remembered, or computed (in the pool) to
        `depth`. Files that never report need no syntax check for JL001
        (`FULL`), and files that are never linted only their facts' part
        (`FACTS`, remembered apart: a later run may lint them)."""
        self._take_early()
        prefix = FACTS_KEY if depth == FACTS else ""
        todo: dict[str, Source] = {}
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
            [(s.data, depth) for s in todo.values()], self.prefilter, self.work_pool()
        )
        for key, screening in zip(todo, computed, strict=True):
            self.screener.record(prefix + key, screening)
        for source in sources:
            if source.screening is None:
                source.screening = self.screener.lookup(prefix + source.key)

    def screened_in(self, sources: list[Source]) -> tuple[list[Source], list[Source]]:
        """The sources to lint, and the skipped (each counted by the
        progress bar as it is skipped)."""
        if not self.options.use_prefilter:
            return list(sources), []
        wanted: list[Source] = []
        skipped: list[Source] = []
        for source in sources:
            if self.screen(source).wanted:
                wanted.append(source)
            else:
                skipped.append(source)
                if self.options.on_file:
                    self.options.on_file(SKIPPED, source.size)
        return wanted, skipped

    def make_jobs(
        self, sources: list[Source], syntax_only: bool = False, triggered: bool = False
    ) -> list[Job]:
        """The jobs linting `sources` (`syntax_only`: JL001's check only;
        `triggered`: as `settings_of`)."""
        return [
            Job(
                s.shown,
                s.data,
                self.settings_of(s, triggered),
                s.module,
                s.key,
                syntax_only=syntax_only,
            )
            for s in sources
        ]

    def settings_of(self, source: Source, triggered: bool) -> LintSettings:
        """`triggered`: only the rules whose triggers the screening found (a
        rule can't fire where it has none), and JL001."""
        settings = self.selector.settings_for(source.path)
        screening = source.screening if triggered and self.options.use_prefilter else None
        narrowed = _triggered(settings, screening)
        if narrowed is settings or self.calls_tasks(source):
            return settings  # every rule (a Huey task call has no trigger of its own)
        return narrowed

    def calls_tasks(self, source: Source) -> bool:
        """Whether the file names one of the project's tasks that enqueue when called."""
        return self.calls is not None and self.calls.search(source.data) is not None

    def lint(
        self,
        sources: list[Source],
        counted: bool = False,
        triggered: bool = False,
        also: frozenset[str] = frozenset(),
        forwarders: frozenset[str] = frozenset(),
    ) -> list[FileResult]:
        """Lint the files with the selected rules, in the workers (or their
        results from the cache).

        `counted`: the progress bar has already counted these files.
        `triggered`: run only the rules the screening found triggers of (and
        the selected rules among `also`). `forwarders`: the project functions
        handing a parameter on to a payload (`Options.payload_forwarders`)."""
        on_file = None if counted else self.options.on_file
        jobs = self.make_jobs(sources, triggered=triggered)
        if also or forwarders:
            jobs = [
                replace(j, settings=self.with_rules(j.settings, s.path, also, forwarders))
                for j, s in zip(jobs, sources, strict=True)
            ]
        return run_jobs(jobs, self.work_pool(), self.cache, on_file, self.entries)

    def with_rules(
        self,
        settings: LintSettings,
        path: Path,
        also: frozenset[str],
        forwarders: frozenset[str] = frozenset(),
    ) -> LintSettings:
        """`settings` with the selected rules among `also`, and `forwarders`."""
        selected = self.selector.settings_for(path).codes
        options = replace(settings.options, payload_forwarders=forwarders)
        return replace(settings, codes=settings.codes | (also & selected), options=options)

    def facts(self, sources: list[Source]) -> list[FileResult]:
        """Their facts (what the project step merges; nothing is reported)."""
        if self.cache is not None:
            for source in sources:
                self._facts_from_lint(self.cache, source)
        jobs = [Job(s.shown, s.data, self.facts_only, s.module, s.key) for s in sources]
        found = run_jobs(jobs, self.work_pool(), self.cache, entries=self.entries)
        self.facts_read.update((r.path, r) for r in found)
        return found

    def derived(self, results: list[FileResult]) -> list[FileResult]:
        """Results made in the main process from files no job reads (the
        project's configuration and deployment files), kept in the cache
        under their own content, so the run memo can replay a run that read
        them as it replays one whose results all came from jobs."""
        if self.cache is not None:
            for result in results:
                key = derived_key(result)
                if not self.cache.has(key):
                    self.cache.put(key, result)
                self.entries[id(result)] = (key, result)
        return results

    def _facts_from_lint(self, cache: ResultCache, source: Source) -> None:
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

    def _lint_settings_of(self, source: Source) -> list[LintSettings]:
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
        return [triggered, self.with_rules(triggered, source.path, self.follows_calls), every]

    def index(self, sources: list[Source]) -> list[FileResult]:
        """Their part of the project model, read with Python's `ast`."""
        fresh = [s for s in sources if (s.shown, s.key) not in self._unindexed]
        found = dict(zip((id(s) for s in fresh), self._index(fresh), strict=True))
        self._unindexed.update(
            ((s.shown, s.key), found[id(s)]) for s in fresh if found[id(s)].index is None
        )
        return [
            found[id(s)] if id(s) in found else self._unindexed[s.shown, s.key] for s in sources
        ]

    def _index(self, sources: list[Source]) -> list[FileResult]:
        # A test module's index tells no plain functions: production code is
        # settled without test code's index (with its facts, where production
        # imports the module), so what a finding asks of a test module is
        # read from its facts, as the index would otherwise say it need not be.
        tests = self.selector.test_code()
        jobs = [
            Job(
                s.shown,
                s.data,
                self.facts_only,
                s.module,
                s.key,
                index_only=True,
                tells_plain=not holds_tests(s, tests),
            )
            for s in sources
        ]
        found = run_jobs(jobs, self.work_pool(), self.cache, entries=self.entries)
        for source, result in zip(sources, found, strict=True):
            # Python parsed it: its syntax check is done (unless it is over
            # the size JL001 refuses, which `ast` doesn't mind).
            if result.parsed and budget.check_size(len(source.data)) is None:
                self.screener.parses(source.key, True)
        return found

    def lacks_rule(self, source: Source, *codes: str) -> bool:
        """Whether the first pass linted `source` without one of the selected
        rules `codes`."""
        settings = self.selector.settings_for(source.path)
        selected = settings.codes.intersection(codes)
        if not selected:
            return False
        screening = source.screening if self.options.use_prefilter else None
        # The file's text is searched only where the screening left one out.
        narrowed = _triggered(settings, screening)
        return not selected <= narrowed.codes and not self.calls_tasks(source)

    @property
    def follows_arguments(self) -> frozenset[str]:
        """The selected rules whose findings follow arguments into project functions."""
        return frozenset(code for code in self.selector.base if follows_arguments(code))

    @property
    def follows_calls(self) -> frozenset[str]:
        """The selected rules whose findings follow calls across modules."""
        return frozenset(code for code in self.selector.base if follows_calls(code))


def _screening_key(source: Source, depth: str) -> str:
    """The key its screening to `depth` is remembered under: a facts-only
    screening never stands for the full one."""
    return FACTS_KEY + source.key if depth == FACTS else source.key


def _triggered(settings: LintSettings, screening: Screening | None) -> LintSettings:
    """Only the rules whose triggers the screening found (and JL001); every
    rule without a screening that names them."""
    rules = screening.codes if screening is not None and screening.wanted else None
    if rules is None:
        return settings
    return replace(settings, codes=settings.codes & (rules | {UNPARSEABLE}))
