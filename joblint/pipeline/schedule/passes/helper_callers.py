"""The callers of the helpers a pending finding needs a bound task handed to.

Takes every file read and the results and context so far; gives, as
context, the index of the files calling a helper that a pending finding
needs a bound task to hand itself to (`def retry_later(task, exc)`), and,
for a function a task may run through others (`RunByJob`), of their
callers too, hop by hop up to a function a decorator may make a task.
"""

from __future__ import annotations

from joblint.models import FileResult
from joblint.pipeline.project import task_helpers
from joblint.pipeline.project.call_graph import MAX_HOPS
from joblint.pipeline.schedule.on_demand import Indexer
from joblint.pipeline.schedule.requirements import requirements
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run
from joblint.pipeline.schedule.words import word_finder
from joblint.requirements import RunByJob


def read_helper_callers(
    run: Run, everything: list[Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """The index of the files naming a helper that a pending finding needs a
    bound task to hand itself to (`def retry_later(task, exc)`): the callers."""
    helpers = task_helpers(results)
    if not helpers:
        return []
    reader = Indexer(run, [*results, *context])
    # A function a task may run through others (`RunByJob`): their callers
    # too, hop by hop, up to a function a decorator may make a task.
    run_by_jobs = {r.function.rsplit(".", 1)[-1] for r in requirements(results, RunByJob)}
    asked: set[str] = set(helpers)
    looked_for: set[str] = set()
    for _ in range(MAX_HOPS):
        names = word_finder(asked - looked_for, rb"\s*\(")  # a call of one
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
