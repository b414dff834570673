"""Screening: which of the run's files the rules may report in.

Takes the files read; gives `Screened`: the run's files to lint (each with
only the rules whose triggers its screening found, in the lint pass) and
those skipped. On the way it learns which of the project's tasks enqueue
when called (Huey's: such a call has no token of its own to screen for),
and starts JL001's syntax checks of the skipped files in the moments the
worker pool would idle.
"""

from __future__ import annotations

from dataclasses import dataclass

from joblint.pipeline.project import job_names
from joblint.pipeline.schedule.passes.read import Files
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run
from joblint.pipeline.schedule.words import word_finder
from joblint.pipeline.schedule.workers import FACTS, FULL, Job
from joblint.pipeline.screen.verdicts import Screening
from joblint.pipeline.source import UNPARSEABLE


@dataclass(slots=True)
class Screened:
    """The run's own files, to lint and skipped."""

    wanted: list[Source]
    skipped: list[Source]


def screen(run: Run, files: Files) -> Screened:
    """Screen the run's files in full, the rest of the project for its facts."""
    sources, others = files.sources, files.others
    if run.options.use_prefilter:
        # JL001's syntax check of skipped files comes last (the syntax pass).
        run.screen_all(sources, FULL)
        run.screen_all(others, FACTS)
    _learn_call_enqueues(run, [*sources, *others])
    wanted, skipped = run.screened_in(sources)
    _check_syntax_meanwhile(run, skipped)
    return Screened(wanted, skipped)


def _learn_call_enqueues(run: Run, sources: list[Source]) -> None:
    """Which of the project's tasks enqueue when called (Huey's), from the
    files that name Huey: calls of other functions are then never taken
    for enqueues, which spares a pending finding per argument of every call."""
    defining = [s for s in sources if run.screen(s).on_call]
    on_call, _ = job_names(run.facts(defining)) if defining else (set(), set())
    run.selector.learn_call_enqueues(frozenset(on_call))
    run.calls = word_finder(on_call)


def _check_syntax_meanwhile(run: Run, skipped: list[Source]) -> None:
    """Start the syntax checks JL001 will ask of the skipped files in the
    moments the pool would idle (`WorkerPool.meanwhile`), of those a later
    step is least likely to parse anyway (test code first): files that name
    no job library, neither open nor commit a transaction and hold no gated
    trigger are linted or indexed only where a call leads to them. The
    others are checked by the syntax pass, after the passes that may parse
    them (a background that reached them parsed more than half of the
    monorepo's indexed files twice)."""
    if UNPARSEABLE not in run.selector.base:
        return
    screenings = {
        s.shown: screening
        for s in skipped
        if (screening := run.screen(s)).parses is None and not _may_be_parsed_later(screening)
    }
    unknown = [s for s in skipped if s.shown in screenings]
    tests = run.selector.test_code()  # rarely indexed: a production file calls none
    unknown.sort(key=lambda s: s.shown not in tests)

    def not_parsed_yet(job: Job) -> bool:  # the index parses files too
        return screenings[job.path].parses is None

    run.work_pool().meanwhile(run.make_jobs(unknown, syntax_only=True), not_parsed_yet)


def _may_be_parsed_later(screening: Screening) -> bool:
    """Whether a later step of the run may lint or index a skipped file."""
    return (
        screening.defines_jobs
        or screening.gated
        or screening.on_call
        or screening.transactional
        or screening.commits
    )
