"""Reading what findings depend on, on demand (`read_on_demand`): the facts
of the files whose module holds a name a finding depends on, and the index
of the modules the project model's calls lead to, round by round until
nothing is missing. Every pass that adds results or asks the project model
to follow more calls reads through it; `Indexer` reads the index of
sources none was read of, each once."""

from __future__ import annotations

from collections.abc import Callable

from joblint.knowledge import requests
from joblint.models import FileResult, ModuleIndex
from joblint.pipeline.project import ProjectIndex, candidate_modules, wanted
from joblint.pipeline.project.call_graph import MAX_HOPS
from joblint.pipeline.schedule.by_module import ByModule
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run

# Rounds of loading facts on demand (a class's base may live in yet another module).
MAX_FACT_ROUNDS = 6


def read_on_demand(
    run: Run,
    everything: list[Source],
    pool: list[Source],
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
    remaining = ByModule([s for s in pool if s.shown not in read])
    modules = run.grouped(everything)
    indexed = {r.path for r in [*results, *context] if r.index is not None}
    registrars: list[Source] | None = None  # searched for once, when a service is called
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


def _service_registrars(everything: list[Source]) -> list[Source]:
    """The files that may register a service a call is made on
    (`config.register_service_factory(...)`, usually in an `includeme`): no
    name of the call leads to them, the key it is found by does."""
    words = requests.SERVICE_REGISTRATION_WORDS
    return [s for s in everything if any(word in s.data for word in words)]


def _plain(index: ModuleIndex) -> tuple[str, ...]:
    return (*index.plain_functions, *index.plain_classes)


class Indexer:
    """Reads the index of sources the results so far have none of, each
    once; what it read, in order (`loaded`)."""

    def __init__(self, run: Run, have: list[FileResult]) -> None:
        self._run = run
        self._indexed = {r.path for r in have if r.index is not None}
        self.loaded: list[FileResult] = []

    def read(self, batch: list[Source]) -> list[FileResult]:
        fresh = [s for s in batch if s.shown not in self._indexed]
        self._indexed.update(s.shown for s in fresh)
        found = self._run.index(fresh)
        self.loaded.extend(found)
        return found
