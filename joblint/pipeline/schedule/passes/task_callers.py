"""The second lint pass: skipped files that may still enqueue by naming a task.

Calling a Huey task enqueues it (there is no token to look for), and
`x.send(...)` or `q.enqueue(...)` enqueue only on a task or queue object,
so the screening can't tell such a file from any other. Takes the pool of
skipped files, the run's own files (shown paths) and the results so far;
lints the run's own skipped files that name one of the project's tasks or
queue objects (adding their results, taking them out of the pool), and
gives the facts it read of the rest of the project's task-defining files,
as context.
"""

from __future__ import annotations

from joblint.models import FileResult
from joblint.pipeline.project import job_names
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run
from joblint.pipeline.schedule.words import word_finder
from joblint.pipeline.schedule.workers import FULL


def lint_task_callers(
    run: Run, pool: list[Source], linted: set[str], results: list[FileResult]
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
    callers: list[Source] = []
    names = word_finder(every)
    if names is not None:
        calls = word_finder(on_call)
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


def _calls_task(run: Run, source: Source) -> bool:
    """It names one of the project's tasks whose call enqueues them (Huey's)."""
    return run.calls is not None and run.calls.search(source.data)


def _may_call_task(run: Run, source: Source) -> bool:
    """It may enqueue through a task or queue object the project defines: a
    call of a Huey task, or a gated trigger (`x.send(...)`)."""
    return run.screen(source).gated or _calls_task(run, source)
