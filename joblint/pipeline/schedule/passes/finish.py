"""The end of a run that ran its passes: the project step, and what is kept.

Takes, for each part of the run modelled apart (`subprojects`), its results
(its own files') and context (the rest of its project's facts and index),
and which files were named; saves what the next
run starts from (the screenings, the manifest, the cache's new entries),
hands every result to the project step (`outcome.settle`: pending findings
settled, test code's findings left out) and gives the `RunResult`. With a
cache, the run memo records the outcome (`Replay.remember`), and a full
cache drops its oldest entries; a cache that could not be written is one
warning (the run is whole without it).
"""

from __future__ import annotations

from joblint.pipeline.cache import prune_screenings
from joblint.pipeline.discover import Discovery
from joblint.pipeline.schedule.memo import Outcome
from joblint.pipeline.schedule.outcome import PartResults, RunResult, settle_apart
from joblint.pipeline.schedule.passes.replay import Replay
from joblint.pipeline.schedule.state import Run


def finish(
    run: Run,
    discovery: Discovery,
    parts: list[PartResults],
    named: frozenset[str] | None,
    replay: Replay,
) -> RunResult:
    """The run's outcome (`named`: the results of the files named, when only
    some were; they decide which project's settings apply)."""
    run.screener.save()
    run.manifest.save()
    if run.cache is not None:
        run.cache.flush()
    finished = settle_apart(
        parts,
        discovery.errors,
        run.selector.project_settings(named),
        len(discovery.files),
        tests=run.selector.test_code(),
    )
    results, context = finished.results, finished.context
    replay.remember(run, Outcome(results, context, named, finished.shapes), finished)
    if run.cache is not None:  # a bounded cache: old entries and records go
        run.cache.prune_if_full()
        if run.screener.saved:
            prune_screenings(run.cache.directory)
        if run.cache.unwritable is not None:  # one line: the run itself is whole
            finished.warnings.append(
                f"{run.cache.directory}: cannot write the cache ({run.cache.unwritable}):"
                " the run went on without it"
            )
    return finished
