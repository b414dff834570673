"""Lint with JL101 where a framework's requests are transactions.

Takes the files a request's transaction may add JL101 findings to
(`Requested`) and the results and context so far. Where the project's
settings make a framework's requests transactions (or a dependency or a
hook commits after the handlers), any enqueue in a function may run inside
one: the run's own files that may enqueue and were skipped, or linted
without JL101 (its transaction trigger was missing), are linted with it,
their new results in place of the old. Gives no context: they are the
run's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from joblint.models import FileResult
from joblint.pipeline.schedule.requirements import ENQUEUE_IN_TRANSACTION, request_transactions
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run


@dataclass(slots=True)
class Requested:
    """The files a request's transaction may add JL101 findings to."""

    pool: list[Source]  # the skipped files not linted yet
    wanted: list[Source]  # the files the first pass linted
    linted: set[str]  # the run's own files (shown paths)


def lint_request_enqueues(
    run: Run,
    sources: Requested,
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
    if code not in run.selector.base or not request_transactions([*results, *context]):
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
