"""Lint again where the project model says a call leads to an enqueue (the
rules that follow calls across modules: JL101 and its kin).

Takes every file read, the pool of files not linted, the files the first
pass linted and the results and context so far. The run's own files that
were skipped, or linted without those rules (their triggers weren't in the
file, though a transaction or a commit is), are indexed where they open or
commit a transaction (or name a function that opens one; a request
handler's or a signal receiver's shape alone is for the searches up to the
handlers and to the writes, `passes.request_callers` and `passes.writers`);
the modules their calls inside it lead to are read on demand, and those
the call graph says report (`CallGraph.reports_in`) are linted with the
rules that follow calls, their new results in place of the old. Gives the
index and facts it read, as context.
"""

from __future__ import annotations

from dataclasses import dataclass

from joblint.models import FileResult
from joblint.pipeline.project import ProjectIndex
from joblint.pipeline.project.call_graph import MAX_HOPS
from joblint.pipeline.schedule.on_demand import read_on_demand
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run
from joblint.pipeline.schedule.words import word_finder
from joblint.pipeline.screen.prefilter import Prefilter


@dataclass(slots=True)
class ModelFiles:
    """What the project model step of a run works over."""

    everything: list[Source]  # every file read, named or not
    pool: list[Source]  # the skipped files not linted yet
    wanted: list[Source]  # the files the first pass linted
    linted: set[str]  # the run's own files (shown paths)
    named_files: bool


def lint_call_following(
    run: Run, model: ModelFiles, results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """Where the run selects rules that follow calls, the files the project
    model says they report in, linted with them (the module's docstring says
    which)."""
    if not run.follows_calls:
        return []
    partly = [s for s in model.wanted if _lacks_call_following(run, s)]
    return _project_model(run, model, partly, results, context)


def _project_model(
    run: Run,
    model: ModelFiles,
    partly: list[Source],
    results: list[FileResult],
    context: list[FileResult],
) -> list[FileResult]:
    """Lint, with the rules that follow calls, the run's own files that were
    skipped or linted without those rules, where a call inside a transaction
    (a library's, or one a project callable opens), or before a commit in
    the same function, enqueues a job or leads to an enqueue
    (`CallGraph.reports_in`), with what that needs read on demand; a file
    linted before gets its new result in place of the old. Candidates: those
    files that open a transaction or commit one, and those naming a function
    that opens one (a run over some files takes every one it
    names; `partly`: the files linted without those rules). Returns the
    results that are not the run's own (context)."""
    pool, everything = model.pool, model.everything
    own = [*(s for s in pool if s.shown in model.linted), *partly]
    described = []
    if run.options.follow_every_call:
        described = [s for s in everything if s.shown in model.linted]
    if not own and not described:
        return []
    indexed = {r.path for r in [*results, *context] if r.index is not None}
    loaded: list[FileResult] = []

    def read(batch: list[Source]) -> None:
        fresh = [s for s in batch if s.shown not in indexed]
        indexed.update(s.shown for s in fresh)
        loaded.extend(run.index(fresh))

    if model.named_files:
        read([*own, *described])
    else:
        read([s for s in own if run.screen(s).opens_transaction or run.screen(s).commits])
        looked_for: set[str] = set()
        for _ in range(MAX_HOPS):  # a function opening a transaction through another
            with ProjectIndex.built([*results, *context, *loaded]) as index:
                found = index.graph.openers()
            openers = word_finder(found - looked_for)  # files were searched for the others
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

    loaded.extend(read_on_demand(run, everything, pool, results, [*context, *loaded], asked))
    with ProjectIndex.built([*results, *context, *loaded]) as index:
        chosen = [s for s in own if s.shown in candidates and index.graph.reports_in(s.shown)]
    taken = {id(s) for s in chosen}
    pool[:] = [s for s in pool if id(s) not in taken]
    again = {s.shown for s in chosen}
    results[:] = [r for r in results if r.path not in again]
    results.extend(run.lint(chosen, counted=True, triggered=True, also=run.follows_calls))
    loaded.extend(read_on_demand(run, everything, pool, results, [*context, *loaded]))
    return loaded


def _lacks_call_following(run: Run, source: Source) -> bool:
    """Whether the first pass linted `source` without a selected rule that
    follows calls (its triggers weren't in the file) though the file holds
    what that rule needs besides an enqueue (a transaction, a commit): a
    call in it may still lead to an enqueue."""
    selected = run.selector.settings_for(source.path).codes & run.follows_calls
    missing = selected - run.settings_of(source, triggered=True).codes
    lowered = source.data.lower()
    return any(Prefilter.has_context(code, lowered) for code in missing)
