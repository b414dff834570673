"""Where the project writes the models a signal's receiver hears of, inside
a transaction.

Takes every file read and the results and context so far. Where a pending
finding depends on the project writing a model inside a transaction (a
model signal's receiver), gives, as context, the index of every project
file naming such a model that opens a transaction or registers the model
with a framework that writes it in one, named or not (of every file opening
a transaction where a receiver takes any model's writes); and where a
library call creates a row of the model (actstream's `action.send`), of the
files making such a call and of their callers up to `MAX_HOPS` calls up.
"""

from __future__ import annotations

from joblint.knowledge import requests
from joblint.models import FileResult
from joblint.pipeline.project import candidate_modules
from joblint.pipeline.project.call_graph import MAX_HOPS
from joblint.pipeline.schedule.on_demand import Indexer
from joblint.pipeline.schedule.requirements import callers_named, function_names
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run
from joblint.pipeline.schedule.words import word_finder
from joblint.requirements import Receives, WrittenInTransaction


def read_writers(
    run: Run, everything: list[Source], results: list[FileResult], context: list[FileResult]
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
    named = None if "" in models else word_finder(models)
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
    run: Run, everything: list[Source], have: list[FileResult], models: set[str]
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
    modules = run.grouped(everything)
    reader = Indexer(run, have)
    read, loaded = reader.read, reader.loaded

    tails = {".".join(c.split(".")[-2:]).encode() for c in calls}  # `action.send`
    making = read([s for s in everything if any(t in s.data for t in tails)])
    asked = {
        name
        for r in [*have, *making]
        if r.index is not None
        for summary in r.index.functions
        if any(call.callee in calls for call in summary.calls)
        for name in function_names(summary.qualname)
    }
    looked_for: set[str] = set()
    for _ in range(MAX_HOPS):
        names = word_finder(asked - looked_for, rb"\s*\(")
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
        asked |= callers_named(calling, looked_for, set())
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
