"""JL001 for the run's skipped files Python can't parse, checked last.

Takes the files the screening skipped and the pool of those no later pass
linted; gives a JL001 result for each that doesn't parse (those a later
pass linted have theirs from the lint, and those the index or an AST check
parsed are known to parse). Most were checked already, in the moments the
worker pool idled (`WorkerPool.meanwhile`): their results are taken then.
"""

from __future__ import annotations

from joblint.models import FileResult
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run
from joblint.pipeline.schedule.workers import run_jobs
from joblint.pipeline.source import UNPARSEABLE


def syntax_errors(run: Run, skipped: list[Source], pool: list[Source]) -> list[FileResult]:
    """JL001 for the run's skipped files Python can't parse, checked last:
    those a later pass linted have theirs from the lint, and those the index
    or an AST check parsed are known to parse."""
    if UNPARSEABLE not in run.selector.base:
        return []
    left = {s.shown for s in pool}
    return _check_syntax(run, [s for s in skipped if s.shown in left])


def _check_syntax(run: Run, sources: list[Source]) -> list[FileResult]:
    """JL001 for skipped files Python can't parse (or not known to)."""
    unknown = [s for s in sources if run.screen(s).parses is not True]
    found = run_jobs(
        run.make_jobs(unknown, syntax_only=True),
        run.work_pool(),
        run.cache,
        entries=run.entries,
        ready=run.work_pool().done_meanwhile({s.shown for s in unknown}),
    )
    for source, result in zip(unknown, found, strict=True):
        run.screener.parses(source.key, result.parsed)
    return [r for r in found if r.findings]
