"""What the project model needs loaded on demand: the names pending
findings depend on that no loaded file defines (a task, a class and its
bases, a queue object, a constant, what a module imports within reach),
and the functions and task decorators the calls they ask about lead to
that no loaded module's index summarises. The schedule reads the modules
that may define them (`candidate_modules`), round by round, until nothing
more is wanted. What each requirement type asks is keyed by its type.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from typing import Any

from joblint.knowledge import jobs
from joblint.knowledge.jobs import ENQUEUE_ON_CALL_LIBRARIES, may_be_project_code
from joblint.models import FileResult
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.hops import MAX_HOPS
from joblint.pipeline.project.project_index import ProjectIndex
from joblint.requirements import (
    ClaimedByCaller,
    ClassOfKind,
    DecoratorSets,
    EnqueuesNow,
    HandsToPayload,
    IsQueue,
    IsTask,
    JobTouches,
    LacksUniqueKey,
    LeadsToEffect,
    LeadsToEnqueue,
    LockKey,
    MayBeLibraryObject,
    OpensTransaction,
    PassedATask,
    ReachesLibrary,
    Receives,
    RegisteredView,
    RegistersTask,
    Requirement,
    RetriesHandedTask,
    RetriesWithHandedDelay,
    ReturnsArgument,
    ReturnsGrowth,
    ReturnsObject,
    RowDepends,
    RunByJob,
    RunsNow,
    TaskLacksParameter,
    UsedAsModel,
    WrittenInTransaction,
)


def wanted(
    results: list[FileResult], asked_of: Callable[[ProjectIndex], set[str]] | None = None
) -> tuple[set[str], set[str]]:
    """`wanted_names` and `wanted_functions` of `results`, with the calls
    `asked_of` the merged index, merging the results once for both."""
    with ProjectIndex.built(results) as index:
        asked = asked_of(index) if asked_of is not None else set()
        missing, receivers = _lookups(index.graph.calls, _asked_of_model(index, results, asked))
        functions, classes = _returns_lookups(index, results)
        return (
            _wanted_names(index, results, receivers, classes),
            _wanted_functions(index, results, missing | functions),
        )


def wanted_names(results: list[FileResult], asked: Iterable[str] = ()) -> set[str]:
    """Qualified names findings depend on that no loaded file defines: tasks,
    classes (and their bases), queue objects, functions, Celery constants;
    and the receivers of possible enqueues on the way from the calls `asked`
    (and the calls pending findings ask the project model about)."""
    with ProjectIndex.built(results) as index:
        receivers = _unknown_receivers(index.graph.calls, _asked_of_model(index, results, asked))
        return _wanted_names(index, results, receivers, _returns_lookups(index, results)[1])


def _wanted_names(
    index: ProjectIndex, results: list[FileResult], receivers: set[str], classes: set[str]
) -> set[str]:
    """`receivers`: the unknown receivers on the way from the calls asked;
    `classes`: those whose kinds decide what pending findings' calls return."""
    constants = {name for r in results for name, _ in r.facts.constants}
    wanted = set(receivers) | _connected_handlers(index, results)
    for name in classes:
        wanted |= index.unknown(name)
    for result in results:
        for pending in result.pending:
            for requirement in pending.requires:
                asks = _NAMES_ASKED.get(type(requirement))
                if asks is not None:
                    wanted |= asks(index, requirement)
        broker = result.facts.broker
        exprs = [
            *(c.value for c in broker.config),
            *(t.value for t in broker.time_limits),
            *(d.value for d in broker.delays),
        ]
        for expr in exprs:
            wanted.update(ref for ref in _expr_refs(expr) if ref not in constants)
    return wanted


def _library_in_reach(index: ProjectIndex, requirement: MayBeLibraryObject) -> set[str]:
    """What the module imports within reach, and the object's definition."""
    unreached = index.unreached(requirement.module) if requirement.in_reach else set()
    return unreached | index.unknown(requirement.name)


def _row_model(index: ProjectIndex, requirement: RowDepends) -> set[str]:
    """The model the task loads the row of: the fields its saves set itself."""
    use = index.graph.payloads.row_use(requirement.task, requirement.position, requirement.keyword)
    if use is not None and use.model and use.writes:
        return index.unknown(use.model)
    return set()


# The names no loaded file may define that deciding a requirement reads: the
# definition it is about (a task, a class, a constant, ...), what a module
# imports within reach; the project model's requirements read indexes instead.
_NAMES_ASKED: dict[type[Requirement], Callable[[ProjectIndex, Any], set[str]]] = {
    IsTask: lambda index, r: index.unknown(r.task),
    MayBeLibraryObject: _library_in_reach,
    ReachesLibrary: lambda index, r: index.unreached(r.module) if r.prefixes else set(),
    IsQueue: lambda index, r: index.unknown(r.name),
    ClassOfKind: lambda index, r: index.unknown(r.name),
    TaskLacksParameter: lambda index, r: index.unknown(r.task),
    LacksUniqueKey: lambda index, r: index.unknown(r.model),
    LockKey: lambda index, r: index.unknown(r.constant),
    RegisteredView: lambda index, r: index.unknown(r.view),
    WrittenInTransaction: lambda index, r: index.unknown(r.model),
    Receives: lambda index, r: index.unknown(r.handler),
    RetriesWithHandedDelay: lambda index, r: index.unknown(r.function),
    RowDepends: _row_model,
}


def _connected_handlers(index: ProjectIndex, results: list[FileResult]) -> set[str]:
    """The names other modules connect receiver-shaped functions under, where
    no loaded file tells what they are (a re-export): telling whether one is
    a function a pending finding is in needs its module's facts."""
    asked = {
        requirement.handler.rsplit(".", 1)[-1]
        for result in results
        for pending in result.pending
        for requirement in pending.requires
        if isinstance(requirement, Receives)
    }
    if not asked:
        return set()
    return {
        unknown
        for result in results
        for fact in result.facts.receivers
        if fact.handler.rsplit(".", 1)[-1] in asked
        for unknown in index.unknown(fact.handler)
    }


def wanted_functions(results: list[FileResult], asked: Iterable[str] = ()) -> set[str]:
    """Qualified names the calls `asked` and the project model's pending
    requirements lead to that no loaded module's index summarises: their
    modules' index is read."""
    with ProjectIndex.built(results) as index:
        missing = _unresolved(index.graph.calls, _asked_of_model(index, results, asked))
        return _wanted_functions(index, results, missing | _returns_lookups(index, results)[0])


def _wanted_functions(
    index: ProjectIndex, results: list[FileResult], missing: set[str]
) -> set[str]:
    """`missing`: the unresolved names on the way from the calls asked and
    from pending findings' calls to what they return."""
    return missing | index.graph.decorators.unresolved_decorators(_asked_decorators(index, results))


# Requirements on what a call in a function reaches through what project
# functions return or do with what they are handed: their modules are read.
_RETURNS_ASKED = (
    ReturnsObject,
    ReturnsArgument,
    ReturnsGrowth,
    RetriesHandedTask,
    RetriesWithHandedDelay,
)


def _returns_lookups(index: ProjectIndex, results: list[FileResult]) -> tuple[set[str], set[str]]:
    """What telling what pending findings' calls return needs: the names of
    the functions on the way that no loaded module's index summarises, and
    the classes whose kinds decide."""
    missing: set[str] = set()
    classes: set[str] = set()
    for result in results:
        for pending in result.pending:
            for requirement in pending.requires:
                if isinstance(requirement, _RETURNS_ASKED):
                    function, text = requirement.function, requirement.call_text
                    index.returns.lookups(function, text, missing, classes)
    return missing, classes


# The helpers pending findings need a caller of, by requirement type.
_HELPERS: dict[type[Requirement], Callable[[Any], str]] = {
    PassedATask: lambda r: r.helper,
    ClaimedByCaller: lambda r: r.function,
    RunByJob: lambda r: r.function,
}


def task_helpers(results: list[FileResult]) -> set[str]:
    """The unqualified names of the helpers pending findings need a caller
    of: a bound task calling one with itself, or a caller claiming the row
    one returns. The files naming one are read for their index."""
    return {
        helper(requirement).rsplit(".", 1)[-1]
        for result in results
        for pending in result.pending
        for requirement in pending.requires
        if (helper := _HELPERS.get(type(requirement))) is not None
    }


# The task decorators a requirement depends on, by requirement type: those
# it names, those of the tasks that may hand themselves to a helper, those of
# the functions that may run a function as a job.
_DECORATORS_ASKED: dict[type[Requirement], Callable[[ProjectIndex, Any], Iterable[str]]] = {
    RegistersTask: lambda index, r: (r.decorator,),
    DecoratorSets: lambda index, r: (r.decorator,),
    PassedATask: lambda index, r: index.graph.decorators.helper_callers(r.helper),
    RunByJob: lambda index, r: index.graph.decorators.callers_decorators(r.function),
}


def _asked_decorators(index: ProjectIndex, results: list[FileResult]) -> set[str]:
    """The task decorators pending findings depend on: the project's own
    that decorate a task, and those the requirements ask about."""
    found: set[str] = set()
    for result in results:
        found.update(task.decorator[0] for task in result.facts.tasks if task.decorator[0])
        for pending in result.pending:
            for requirement in pending.requires:
                asks = _DECORATORS_ASKED.get(type(requirement))
                if asks is not None:
                    found.update(asks(index, requirement))
    return found


# The calls the project model is asked about, by requirement type: the
# callable or function named, what the call at the finding calls, the task
# and the methods of its class deciding whether an enqueue is deferred.
_MODEL_ASKED: dict[type[Requirement], Callable[[ProjectIndex, Any, str, int], Iterable[str]]] = {
    OpensTransaction: lambda index, r, path, line: (r.opener,),
    LeadsToEnqueue: lambda index, r, path, line: index.graph.calls.callees_at(
        path, line, r.call_text
    ),
    LeadsToEffect: lambda index, r, path, line: index.graph.calls.callees_at(
        path, line, r.call_text
    ),
    EnqueuesNow: lambda index, r, path, line: index.graph.transactions.deferral_methods(r.enqueue),
    RunsNow: lambda index, r, path, line: (r.function,),
    JobTouches: lambda index, r, path, line: (r.task,),
    HandsToPayload: lambda index, r, path, line: (r.function,),
    UsedAsModel: lambda index, r, path, line: (r.task,),
    RowDepends: lambda index, r, path, line: (r.task,),
}


def _asked_of_model(
    index: ProjectIndex, results: list[FileResult], asked: Iterable[str]
) -> set[str]:
    found = set(asked)
    for result in results:
        for pending in result.pending:
            line = pending.finding.span.line
            for requirement in pending.requires:
                asks = _MODEL_ASKED.get(type(requirement))
                if asks is not None:
                    found.update(asks(index, requirement, result.path, line))
    return found


def _expr_refs(expr: object) -> Iterator[str]:
    if isinstance(expr, tuple) and expr:
        if expr[0] == "ref" and len(expr) == 2 and isinstance(expr[1], str):
            yield expr[1]
            return
        for part in expr[1:]:
            yield from _expr_refs(part)


def candidate_modules(
    names: set[str], known: Container[str], roots: Mapping[str, str] | None = None
) -> set[str]:
    """The modules that define `pkg.mod.Name` (or re-export it): of its
    prefixes, the longest that is a module of the project (`known`). Python
    imports `pkg.mod` from its own file whatever `pkg/__init__.py` holds, so
    the packages above it are not read for its names. A name none of whose
    prefixes is known is looked for under the package `roots` names for its
    first part (`package_roots`)."""
    modules: set[str] = set()
    for name in names:
        found = _longest_module(name, known)
        top, _, rest = name.partition(".")
        if found is None and roots and top in roots and rest:
            found = _longest_module(f"{roots[top]}.{rest}", known)
        if found is not None:
            modules.add(found)
    return modules


def _longest_module(name: str, known: Container[str]) -> str | None:
    module = name
    while "." in module:
        module = module.rpartition(".")[0]
        if module in known:
            return module
    return None


def package_roots(modules: Iterable[str]) -> dict[str, str]:
    """`jobs` -> `workers.jobs` for a package of the project whose bare name
    is no top-level module of it, nor the standard library's or a library's
    joblint knows, when one package only ends so: code under `workers` run
    with that directory on the import path imports it as `jobs`."""
    names = set(modules)
    tops = {m.split(".")[0] for m in names}
    found: dict[str, set[str]] = {}
    for module in names:
        head, _, last = module.rpartition(".")
        if head and last not in tops and may_be_project_code(last):
            found.setdefault(last, set()).add(module)
    return {last: next(iter(packages)) for last, packages in found.items() if len(packages) == 1}


def job_names(results: list[FileResult]) -> tuple[set[str], set[str]]:
    """The unqualified names of the project's tasks whose call enqueues them
    (Huey's), and of all its tasks and queue objects."""
    with ProjectIndex.built(results) as index:
        on_call = {
            qualname.rsplit(".", 1)[-1]
            for qualname in index.tasks
            if index.task_library(qualname) in ENQUEUE_ON_CALL_LIBRARIES
        }
        every = {q.rsplit(".", 1)[-1] for q in (*index.tasks, *index.queue_objects)}
        return on_call, every


# --- what the calls asked about lead to -----------------------------------------------


def _unresolved(calls: Calls, qualnames: Iterable[str]) -> set[str]:
    """The names the calls on the way from `qualnames` were looked up as
    when they mean no loaded module's function: the modules that may
    define them are read on demand."""
    missing: set[str] = set()
    for _ in _reachable(calls, qualnames, missing):
        pass
    return missing


def _unknown_receivers(calls: Calls, qualnames: Iterable[str]) -> set[str]:
    """Receivers of possible enqueues on the way from the calls `qualnames`
    (`x.delay()`) that the project's tasks and queue objects don't tell
    apart yet (one walk for them all: what each reaches within the bound)."""
    starts = set(qualnames)
    wanted: set[str] = set()
    for qualname in starts:  # the call may be an enqueue itself
        wanted |= _unknown_receiver(calls, qualname)
    for name in _reachable(calls, starts, set()):
        for call in calls.functions[name][0].calls:
            wanted |= _unknown_receiver(calls, call.callee)
    return wanted


def _lookups(calls: Calls, qualnames: Iterable[str]) -> tuple[set[str], set[str]]:
    """`_unresolved` and `_unknown_receivers` of the calls `qualnames`, in one walk."""
    starts = set(qualnames)
    missing: set[str] = set()
    receivers: set[str] = set()
    for qualname in starts:
        receivers |= _unknown_receiver(calls, qualname)
    for name in _reachable(calls, starts, missing):
        for call in calls.functions[name][0].calls:
            receivers |= _unknown_receiver(calls, call.callee)
    return missing, receivers


def _unknown_receiver(calls: Calls, callee: str) -> set[str]:
    owner, _, method = callee.rpartition(".")
    if owner and method in jobs.ENQUEUE_METHODS:
        return calls.index.unknown(owner)
    return set()


def _reachable(calls: Calls, qualnames: Iterable[str], missing: set[str]) -> Iterable[str]:
    """The summarised functions `qualnames` mean and those they call, up
    to `MAX_HOPS` deep; `missing` gets the names of calls that mean none."""
    seen: set[str] = set()
    frontier: list[str] = []
    for qualname in qualnames:
        _step(calls, qualname, seen, frontier, missing)
    for _ in range(MAX_HOPS + 1):
        following: list[str] = []
        for name in frontier:
            yield name
            for call in calls.functions[name][0].calls:
                _step(calls, call.callee, seen, following, missing)
        frontier = following


def _step(
    calls: Calls, qualname: str, seen: set[str], frontier: list[str], missing: set[str]
) -> None:
    tried: set[str] = set()
    found = calls.resolve(qualname, tried)
    if found is None:
        missing |= tried
    elif found not in seen:
        seen.add(found)
        frontier.append(found)
