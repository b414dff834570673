"""Lint again where a call of a project function may pass a live object on
to a job's payload (the rules that follow arguments: JL201, JL202).

Takes the run's own files, every file read, the pool of files not linted
and the results and context so far. From the index of the files those rules
ran on (and, where some files were named, of the modules of the functions
they call), the project model names the functions handing a parameter on
to a payload (`CallGraph.payload_forwarders`); the run's own files where
Python's AST says a call of one may pass a live object are linted again
with those names, and their new results replace the old. Gives whether it
linted any (the context grows by the index it read).
"""

from __future__ import annotations

from itertools import repeat

from joblint.models import FileResult, ModuleIndex
from joblint.pipeline.project import ProjectIndex, candidate_modules
from joblint.pipeline.schedule.on_demand import read_on_demand
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run
from joblint.pipeline.schedule.words import Words
from joblint.rules.payloads._screen.payload_check import Forwarders, source_may_hand_object


def lint_forwarder_callers(
    run: Run,
    sources: list[Source],
    everything: list[Source],
    pool: list[Source],
    results: list[FileResult],
    context: list[FileResult],
) -> bool:
    """Lint again, with the rules that follow arguments and the names of
    the project functions handing a parameter on to a job's payload
    (`CallGraph.payload_forwarders`, from the index of the files those rules
    ran on), the run's own files where a call of one may pass a live object:
    it is reported at the caller. The first pass reads no such call (it
    can't know the functions), so a file linted then gets its new result in
    place of the old (`context` gets the index read). Whether it linted any."""
    codes = run.follows_arguments
    if not codes:
        return False
    pooled = {id(s) for s in pool}  # by identity: sources compare by their data
    lacking = {id(s) for s in sources if id(s) in pooled or run.lacks_rule(s, *codes)}
    ran = [s for s in sources if id(s) not in lacking]
    have = {r.path for r in [*results, *context] if r.index is not None}
    context.extend(run.index([s for s in ran if s.shown not in have]))
    if len(everything) > len(sources):  # some files named: the functions they call
        found = _callee_modules(run, sources, everything, lacking, context)
        context.extend(found)
        callees = {name for r in found if r.index is not None for name in _calls_made(r.index)}
        context.extend(read_on_demand(run, everything, pool, results, context, lambda _: callees))
    with ProjectIndex.built([*results, *context]) as index:
        names = index.graph.payload_forwarders()
    if not names:
        return False
    words = Words(set(names), rb"\s*\(", calls=True)
    tests = run.selector.test_code()
    naming = [
        s
        for s in sources
        # What test code hands a helper is hidden from the report anyway.
        if (s.shown not in tests or tests.includes(s.shown)) and words.search(s.data)
    ]
    chosen = _handing_objects(run, naming, names)
    if not chosen:
        return False
    taken = {id(s) for s in chosen}
    pool[:] = [s for s in pool if id(s) not in taken]
    again = {s.shown for s in chosen}
    results[:] = [r for r in results if r.path not in again]
    handing = frozenset(names)
    results.extend(run.lint(chosen, counted=True, triggered=True, also=codes, forwarders=handing))
    return True


def _handing_objects(run: Run, sources: list[Source], names: Forwarders) -> list[Source]:
    """The files where Python's AST says a call of one of `names` may pass a
    live object (what the rules would read there), decided in the workers."""
    pool = run.work_pool()
    if pool.started and len(sources) > 1:
        with pool.batch() as executor:
            verdicts = list(
                executor.map(source_may_hand_object, [s.data for s in sources], repeat(names))
            )
    else:
        verdicts = [source_may_hand_object(s.data, names) for s in sources]
    return [s for s, verdict in zip(sources, verdicts, strict=True) if verdict]


def _callee_modules(
    run: Run,
    sources: list[Source],
    everything: list[Source],
    lacking: set[int],
    context: list[FileResult],
) -> list[FileResult]:
    """The index of the named files lacking the rules that follow arguments,
    and of the modules of the project functions they call (which may hand
    an argument on to a job), where none was read."""
    have = {r.path for r in context if r.index is not None}
    named = run.index([s for s in sources if id(s) in lacking and s.shown not in have])
    have |= {s.shown for s in sources}
    modules = run.grouped(everything)
    callees = {name for r in named if r.index is not None for name in _calls_made(r.index)}
    wanted = [
        s
        for s in modules.of(candidate_modules(callees, modules, modules.roots))
        if s.shown not in have
    ]
    return [*named, *run.index(wanted)]


def _calls_made(index: ModuleIndex) -> set[str]:
    """What the module's functions call (qualified names)."""
    return {call.callee for function in index.functions for call in function.calls}
