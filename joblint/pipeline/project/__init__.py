"""The whole-project step: merge per-file facts and settle pending findings.

Works on `FileResult`s only (never on CST), so per-file results can come from
a cache or a worker process.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from joblint.analysis.evaluation import Expr, evaluate
from joblint.knowledge import jobs, locks, payloads, requests, work
from joblint.knowledge.jobs import (
    ENQUEUE_ON_CALL_LIBRARIES,
    FIX_HINTS,
    TxFamily,
    may_be_project_code,
)
from joblint.models import (
    ANY_FIELD,
    CALLER,
    CHAIN,
    CLAIMER,
    CREATE,
    HANDED,
    JOB_RUNNER,
    REACHED_FROM,
    RECEIVED,
    RESULT_SET,
    RESULT_WRITTEN,
    RETURNED,
    SAVE,
    USED,
    WRITE_VERBS,
    WRITTEN,
    BrokerFacts,
    ClassFacts,
    FileResult,
    Finding,
    PendingFinding,
    ReceiverFact,
    Related,
    Span,
    TaskDef,
)
from joblint.pipeline.project import judging
from joblint.pipeline.project.call_graph import CallGraph, Chain, Hop, hops_text
from joblint.pipeline.project.entries import RequestReach
from joblint.pipeline.project.judging import judges, names
from joblint.pipeline.project.returns_view import Returning, ReturnsView
from joblint.pipeline.project.settings_scope import Setter, SettingsScopes
from joblint.pipeline.project.writes import TransactionalWrites, Written
from joblint.registry import is_project_rule, yielding_codes
from joblint.requirements import (
    CacheLockApi,
    ClaimedByCaller,
    ClassOfKind,
    DecoratorReruns,
    DecoratorSets,
    EnqueuesNow,
    FlagOff,
    FlagOn,
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
    Reached,
    ReachesLibrary,
    Receives,
    RegisteredView,
    RegistersTask,
    RequestDepends,
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
    WritableDatabase,
    WrittenInTransaction,
)

_MAX_ALIAS_HOPS = 8
# Where a JL101 message's fix hint starts.
BEFORE_COMMIT = "before COMMIT. "
# How many project imports away a library may be and still be "in reach"
# (`views` imports `jobs`, which imports `arq`: one hop).
_MAX_REACH_HOPS = 3
_NO_BROKER_FACTS = BrokerFacts()
# The kinds of values a payload must not carry, as a function may return them.
_VALUE_KINDS = payloads.ORM_KINDS | payloads.ROWS_KINDS | payloads.RICH_KINDS


@dataclass(slots=True)
class ProjectIndex:
    tasks: dict[str, TaskDef] = field(default_factory=dict)
    queue_objects: dict[str, str] = field(default_factory=dict)
    plain: set[str] = field(default_factory=set)
    # Project-wide switches, each with the settings modules that set it.
    flags: dict[str, list[Setter]] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    classes: dict[str, ClassFacts] = field(default_factory=dict)
    model_factories: dict[str, str] = field(default_factory=dict)
    # Views the project's URLconfs register.
    url_views: set[str] = field(default_factory=set)
    # Functions connected to model signals by other modules: handler -> (fact, path).
    receivers: dict[str, list[tuple[ReceiverFact, str]]] = field(default_factory=dict)
    # Each Celery app's default task class (`Celery(task_cls=...)`), with the
    # directory of its project (the one holding the app's top-level package).
    app_task_classes: dict[str, tuple[str, str]] = field(default_factory=dict)
    function_params: dict[str, tuple[str, ...]] = field(default_factory=dict)
    instances: dict[str, str] = field(default_factory=dict)
    # Module -> the qualified names its module-level imports bind.
    imports: dict[str, frozenset[str]] = field(default_factory=dict)
    constants: dict[str, Expr] = field(default_factory=dict)
    # Django cache alias -> the backends the project's settings give it.
    cache_backends: dict[str, list[tuple[str, Setter]]] = field(default_factory=dict)
    scopes: SettingsScopes = field(default_factory=SettingsScopes)
    # Django database aliases that take no writes, each with where that was said.
    read_only: dict[str, list[Setter]] = field(default_factory=dict)
    graph: CallGraph = field(init=False)
    returns: ReturnsView = field(init=False)
    writes: TransactionalWrites = field(init=False)
    reach: RequestReach = field(init=False)
    _kinds: dict[str, frozenset[str]] = field(default_factory=dict)
    _top_levels: frozenset[str] | None = None
    _unique_keys: dict[str, frozenset[frozenset[str]]] = field(default_factory=dict)

    @classmethod
    def build(
        cls, results: Iterable[FileResult], enqueue_functions: frozenset[str] = frozenset()
    ) -> ProjectIndex:
        index = cls()
        results = list(results)
        index.graph = CallGraph.build(results, index, enqueue_functions)
        index.returns = ReturnsView(index.graph, _VALUE_KINDS)
        index.writes = TransactionalWrites(index.graph, index)
        index.reach = RequestReach(index.graph, index)
        index.scopes = SettingsScopes.build(results)
        for result in results:
            facts = result.facts
            setter = Setter(facts.module, result.path)
            for flag in facts.flags:
                index.flags.setdefault(flag, []).append(setter)
            for alias in facts.read_only_databases:
                index.read_only.setdefault(alias, []).append(setter)
            for task in facts.tasks:
                index.tasks[task.qualname] = task
            index.queue_objects.update(facts.queue_objects)
            index.plain.update(facts.plain_definitions)
            if result.index is not None:  # the same names, where the index tells
                index.plain.update(result.index.plain_functions)
            index.aliases.update(facts.aliases)
            index.classes.update((c.qualname, c) for c in facts.classes)
            index.model_factories.update(facts.model_factories)
            index.function_params.update(facts.function_params)
            index.instances.update(facts.instances)
            index.url_views.update(facts.url_views)
            for receiver in facts.receivers:
                index.receivers.setdefault(receiver.handler, []).append((receiver, result.path))
            for app, task_class in facts.app_task_classes:
                root = _project_directory(result.path, facts.module)
                index.app_task_classes[app] = (task_class, root)
            if facts.module:
                index.imports[facts.module] = frozenset(t for _, t in facts.aliases)
            index.constants.update(facts.constants)
            for alias, backend in facts.cache_backends:
                index.cache_backends.setdefault(alias, []).append((backend, setter))
        index._add_plain_classes(results)
        index._root_imports()
        return index

    def _root_imports(self) -> None:
        """Imports written from a package's own import root (`from jobs
        import worker_task` in `workers/general/tasks.py`, run with `workers/`
        on the path, where `workers` is itself a package): the name is the
        project's `workers.jobs.worker_task`. Taken so only when no
        top-level module of the project is `jobs`, the library joblint
        knows or the standard library has none, the importing module is
        under the package, and the project defines the name there; the name
        as written then means it too, where every importer agrees."""
        modules = {*self.imports, *(m.module for m in self.graph.by_path.values() if m.module)}
        tops = {m.split(".")[0] for m in modules}
        # The names a package below the top ends with: the only first parts
        # such an import can have (most imports are libraries': one look-up).
        inner = {m.rpartition(".")[2] for m in modules if "." in m} - tops
        written: dict[str, set[str]] = {}
        for module, targets in self.imports.items():
            for target in targets:
                if target.partition(".")[0] not in inner:
                    continue
                rooted = _rooted(target, module, modules, tops)
                if rooted is not None and self._defines(rooted, modules):
                    written.setdefault(target, set()).add(rooted)
        for target, found in written.items():
            if len(found) == 1:
                only = next(iter(found))
                self.aliases.setdefault(target, only)
                self.graph.aliases.setdefault(target, only)

    def _defines(self, name: str, modules: set[str]) -> bool:
        return (
            name in modules
            or name in self.aliases
            or name in self.graph.aliases
            or name in self.graph.functions
            or name in self.graph.task_decorators
            or name in self.tasks
            or name in self.classes
            or name in self.plain
            or name in self.constants
        )

    def _add_plain_classes(self, results: list[FileResult]) -> None:
        """The classes the index tells are plain, where no facts tell more:
        what their facts would say (`ModuleIndex.plain_classes`)."""
        for result in results:
            if result.index is None or not result.index.plain_classes:
                continue
            bases = dict(result.index.classes)
            for qualname in result.index.plain_classes:
                if qualname not in self.classes:
                    self.classes[qualname] = ClassFacts(qualname, bases[qualname])
                    self.plain.add(qualname)

    def cache_lock_api(self, alias: str, path: str = "") -> str:
        """The lock API (`locks.CACHE_LOCK_APIS`) of a Django cache alias when
        every CACHES setting that applies to `path` agrees on it, else
        `locks.UNKNOWN_CACHE_LOCK_API` (the alias "" stands for a CACHES that
        can't be read: any alias)."""
        unknown = locks.UNKNOWN_CACHE_LOCK_API
        settings = (*self.cache_backends.get(alias, ()), *self.cache_backends.get("", ()))
        backends = {backend for backend, setter in settings if self.scopes.applies(setter, path)}
        apis = {locks.CACHE_BACKEND_LOCK_APIS.get(backend, unknown) for backend in backends}
        return apis.pop() if len(apis) == 1 else unknown

    def names_no_lock(self, qualname: str) -> bool:
        """The module constant is a string whose words name no lock."""
        value = evaluate(self.constants.get(self.canonical(qualname)), self.constants)
        return isinstance(value, str) and not locks.names_a_lock(value)

    def class_kinds(self, qualname: str) -> frozenset[str]:
        """Kinds of a class, following its bases through the whole project."""
        qualname = self.canonical(qualname)
        if qualname not in self._kinds:
            self._kinds[qualname] = frozenset()  # breaks inheritance cycles
            self._kinds[qualname] = self._compute_kinds(qualname)
        return self._kinds[qualname]

    def _compute_kinds(self, qualname: str) -> frozenset[str]:
        facts = self.classes.get(qualname)
        if facts is None:
            return self._unindexed_kinds(qualname)
        kinds = set(facts.kinds)
        for base in facts.bases:
            kinds |= self.class_kinds(base)
        return frozenset(kinds)

    def unique_keys(self, qualname: str) -> frozenset[frozenset[str]]:
        """The column sets that identify one row of a model class, its bases' included."""
        qualname = self.canonical(qualname)
        if qualname not in self._unique_keys:
            self._unique_keys[qualname] = frozenset()  # breaks inheritance cycles
            facts = self.classes.get(qualname)
            keys: set[frozenset[str]] = set()
            if facts is not None:
                keys.update(frozenset(key) for key in facts.unique_keys)
                for base in facts.bases:
                    keys |= self.unique_keys(base)
            self._unique_keys[qualname] = frozenset(keys)
        return self._unique_keys[qualname]

    def self_set_fields(self, qualname: str, seen: frozenset[str] = frozenset()) -> set[str]:
        """The fields every save of a model class sets itself, its bases' included."""
        qualname = self.canonical(qualname)
        facts = self.classes.get(qualname)
        if facts is None or qualname in seen:
            return set()
        found = set(facts.self_set_fields)
        for base in facts.bases:
            found |= self.self_set_fields(base, seen | {qualname})
        return found

    def _unindexed_kinds(self, qualname: str) -> frozenset[str]:
        owner, _, attribute = qualname.rpartition(".")
        if attribute == "Model" and self.canonical(owner) in self.model_factories:
            return frozenset({self.model_factories[self.canonical(owner)]})
        kind = self._kind_by_module_name(qualname)
        return frozenset({kind}) if kind else frozenset()

    def _kind_by_module_name(self, qualname: str) -> str:
        """The documented fallback: an unknown class from a module named `models`
        (`payloads.UNRESOLVED_MODEL_MODULES`) is a model."""
        module, _, name = qualname.rpartition(".")
        known = qualname in self.plain or qualname in self.tasks
        if known or not name[:1].isupper():
            return ""
        parts = module.split(".")
        return next((k for m, k in payloads.UNRESOLVED_MODEL_MODULES.items() if m in parts), "")

    def canonical(self, qualname: str) -> str:
        """Follow re-exports (`pkg/__init__.py: from .tasks import send`)."""
        for _ in range(_MAX_ALIAS_HOPS):
            target = self.aliases.get(qualname)
            if target is None or target == qualname:
                return qualname
            qualname = target
        return qualname

    def unknown(self, qualname: str, depth: int = 0) -> set[str]:
        """`qualname` if no loaded file defines it; else its classes' unknown bases."""
        name = self.canonical(qualname)
        facts = self.classes.get(name)
        if facts is not None:
            if depth > _MAX_ALIAS_HOPS:
                return set()
            return {b for base in facts.bases for b in self.unknown(base, depth + 1)}
        task = self.tasks.get(name)
        if task is not None and not task.library and not task.decorator[0] and task.receiver:
            # `@app.task` of an app another module makes: that module tells the library.
            if depth > _MAX_ALIAS_HOPS:
                return set()
            return self.unknown(task.receiver, depth + 1)
        known = (
            name in self.tasks
            or name in self.plain
            or self.queue_library(name) is not None
            or name in self.function_params
            or name in self.model_factories
            or name in self.instances
            or name in self.constants
        )
        return set() if known else {qualname, name}

    def unreached(self, module: str) -> set[str]:
        """What `module` imports that no loaded file defines, within reach."""
        missing: set[str] = set()
        for imported in self._reachable_modules(module):
            for target in self.imports.get(imported, ()):
                if target.split(".", 1)[0] not in sys.stdlib_module_names and not self._loaded(
                    target
                ):
                    missing.add(target)
        return missing

    def _loaded(self, target: str) -> bool:
        return self._project_module(target) is not None

    def _reachable_modules(self, module: str) -> list[str]:
        """`module` and the project modules it imports, up to `_MAX_REACH_HOPS` away."""
        seen = [module]
        frontier = [module]
        for _ in range(_MAX_REACH_HOPS):
            following = []
            for current in frontier:
                for target in self.imports.get(current, ()):
                    found = self._project_module(target)
                    if found is not None and found not in seen:
                        seen.append(found)
                        following.append(found)
            frontier = following
        return seen

    def in_project(self, qualname: str) -> bool:
        """Whether a name is under one of the project's top-level packages
        (those of the modules read): not a library's."""
        if self._top_levels is None:
            modules = [*self.imports, *(m.module for m in self.graph.by_path.values())]
            self._top_levels = frozenset(m.split(".")[0] for m in modules if m)
        return qualname.split(".")[0] in self._top_levels

    def _project_module(self, target: str) -> str | None:
        """The loaded project module an import target is (`shop.jobs`) or is a
        name of (`shop.jobs.send`); a loaded package says nothing of the
        modules below it."""
        if target in self.imports:
            return target
        parent = target.rpartition(".")[0]
        return parent if parent in self.imports else None

    def reaches(self, module: str, prefixes: tuple[str, ...]) -> bool:
        """Whether `module`, or a project module it imports, imports a library."""
        return any(
            _under(target, prefixes)
            for imported in self._reachable_modules(module)
            for target in self.imports.get(imported, ())
        )

    def object_library(self, qualname: str, queue: bool) -> str | None:
        """The library of the task (or, with `queue`, of the queue object)
        `qualname` names: "" when the project doesn't tell, None when it is
        the project's own function, class or object."""
        name = self.canonical(qualname)
        found = self.queue_library(name) if queue else self.task_library(name)
        if found is not None:
            return found
        if name in self.plain or name in self.classes or self._decorated_plainly(name):
            return None
        callee = self.instances.get(name)
        if callee is not None:
            made_by = self.canonical(callee)
            if made_by in self.tasks:
                return self.task_library(made_by)
            if made_by in self.classes or made_by in self.plain:
                return None
        return ""

    def task_library(self, qualname: str) -> str | None:
        task = self.tasks.get(self.canonical(qualname))
        if task is None:
            return None
        if task.library:
            return task.library
        decorator, called = task.decorator
        if decorator:  # a task only if the project's decorator registers one
            found = self.graph.task_decorator(decorator, called)
            return found.library if found is not None else None
        return self.queue_library(task.receiver) or ""

    def queue_library(self, qualname: str) -> str | None:
        """The library of the queue object `qualname` names: the project's
        (`huey = RedisHuey()`), or one a library makes itself (djhuey's `HUEY`)."""
        name = self.canonical(qualname)
        return self.queue_objects.get(name) or jobs.QUEUE_OBJECTS.get(name)

    def _decorated_plainly(self, qualname: str) -> bool:
        """A function whose project decorator the loaded modules show to be
        no task decorator."""
        task = self.tasks.get(qualname)
        if task is None or not task.decorator[0]:
            return False
        decorator, called = task.decorator
        if self.graph.task_decorator(decorator, called) is not None:
            return False
        return not self.graph.unresolved_decorators([decorator])

    def flag_set(self, flag: str, path: str) -> bool:
        """Whether settings that apply to the file at `path` set `flag`."""
        return any(self.scopes.applies(setter, path) for setter in self.flags.get(flag, ()))

    def holds(self, requirement: Requirement, path: str = "", line: int = 0) -> bool:
        """Whether `requirement` holds for a finding in the file at `path`, at
        `line` (settings apply to the files of the project that loads them)."""
        return judging.holds(self, requirement, path, line)

    def finish(self, pending: PendingFinding, path: str) -> Finding:
        """A pending finding that holds, its message naming the chain of calls
        (with the places of its hops) where it says `CHAIN`."""
        return judging.finish(self, pending, path)

    def received(
        self, handler: str, only: frozenset[str] = frozenset()
    ) -> tuple[str, tuple[Related, ...]] | None:
        """How the function `handler`, connected to a model signal by another
        module, runs inside a transaction: the words saying so, and where
        it is connected (and the write that makes it transactional)."""
        # Connected under any name that is the handler's (a re-export, too).
        defined = self.canonical(handler)
        connections = [
            connection
            for name, named in self.receivers.items()
            if self.canonical(name) == defined
            for connection in named
        ]
        for fact, path in sorted(connections, key=lambda c: (c[1], c[0].line)):
            model = fact.model.rsplit(".", 1)[-1]
            whose = f"{model}'s " if model else ""
            where = Related(path, _line(fact.line), f"{whose}{fact.signal} connected here")
            connected = f"{whose}{fact.signal} (connected at {path}:{fact.line})"
            if fact.own_transaction:
                opens = f"the transaction it opens for {fact.own_transaction}"
                sent = f"which Django sends inside {opens}"
                return f"{connected}, {sent}", (where,)
            field_name = (fact.m2m_field,) if fact.m2m_field else ()
            kinds = frozenset(fact.writes)
            if only and SAVE in kinds:  # its enqueue only runs on some saves (`if created:`)
                kinds = (kinds - {SAVE}) | only
            written = self.writes.first(fact.model, kinds, *field_name)
            if written is not None:
                verb = " or ".join(sorted(WRITE_VERBS[w] for w in kinds))
                which = f"the {model}" if model else "a model"
                sent = f"sent inside the transaction that {verb} {which}"
                text = f"{connected}, {sent} ({written.describe(fact.model)})"
                step = written.step(fact.model)
                return text, (where, Related(written.path, _line(written.line), step))
        return None

    def shown(self, function: str) -> str:
        """How a message names a function: `send`, or `Mailer.send` for a method."""
        owner, _, name = function.rpartition(".")
        return f"{owner.rsplit('.', 1)[-1]}.{name}" if owner in self.graph.classes else name


# --- what the merged facts tell -----------------------------------------------------


@judges(IsTask)
def _is_task(index: ProjectIndex, requirement: IsTask, path: str, line: int) -> bool:
    return index.task_library(requirement.task) in requirement.libraries


@judges(MayBeLibraryObject)
def _library_object(
    index: ProjectIndex, requirement: MayBeLibraryObject, path: str, line: int
) -> bool:
    library = index.object_library(requirement.name, requirement.queue)
    if library is None:
        return False
    if library:
        return not requirement.libraries or library in requirement.libraries
    return not requirement.in_reach or index.reaches(requirement.module, requirement.in_reach)


@judges(ReachesLibrary)
def _reaches(index: ProjectIndex, requirement: ReachesLibrary, path: str, line: int) -> bool:
    return index.reaches(requirement.module, requirement.prefixes)


@judges(FlagOff)
def _flag_off(index: ProjectIndex, requirement: FlagOff, path: str, line: int) -> bool:
    return not index.flag_set(requirement.flag, path)


@judges(FlagOn)
def _flag_on(index: ProjectIndex, requirement: FlagOn, path: str, line: int) -> bool:
    return index.flag_set(requirement.flag, path)


@judges(WritableDatabase)
def _writable(index: ProjectIndex, requirement: WritableDatabase, path: str, line: int) -> bool:
    setters = index.read_only.get(requirement.alias, ())
    return not any(index.scopes.applies(setter, path) for setter in setters)


@judges(IsQueue)
def _is_queue(index: ProjectIndex, requirement: IsQueue, path: str, line: int) -> bool:
    name = index.canonical(requirement.name)
    library = index.queue_library(name) or index.graph.made_queue_library(name)
    return library in requirement.libraries


@judges(ClassOfKind)
def _class_of_kind(index: ProjectIndex, requirement: ClassOfKind, path: str, line: int) -> bool:
    return bool(index.class_kinds(requirement.name) & requirement.kinds)


@judges(LacksUniqueKey)
def _lacks_unique(index: ProjectIndex, requirement: LacksUniqueKey, path: str, line: int) -> bool:
    pinned = requirement.pinned
    return not any(key <= pinned for key in index.unique_keys(requirement.model))


@judges(TaskLacksParameter)
def _lacks_parameter(
    index: ProjectIndex, requirement: TaskLacksParameter, path: str, line: int
) -> bool:
    params = index.function_params.get(index.canonical(requirement.task), ())
    return not set(params) & requirement.parameters


@judges(CacheLockApi)
def _cache_lock_api(index: ProjectIndex, requirement: CacheLockApi, path: str, line: int) -> bool:
    return index.cache_lock_api(requirement.alias, path) in requirement.apis


@judges(LockKey)
def _lock_key(index: ProjectIndex, requirement: LockKey, path: str, line: int) -> bool:
    return not index.names_no_lock(requirement.constant)


@judges(RegisteredView)
def _registered_view(
    index: ProjectIndex, requirement: RegisteredView, path: str, line: int
) -> bool:
    view = index.canonical(requirement.view)
    return any(index.canonical(registered) == view for registered in index.url_views)


# --- chains of calls to an enqueue or a side effect ------------------------------------


def _chain(index: ProjectIndex, requirement: LeadsToEnqueue, path: str, line: int) -> Chain | None:
    """The chain a `LeadsToEnqueue` requirement asks for."""
    return index.graph.chain_at(path, line, requirement.call_text, requirement.uncommitted)


@judges(LeadsToEnqueue)
def _leads_to_enqueue(
    index: ProjectIndex, requirement: LeadsToEnqueue, path: str, line: int
) -> bool:
    return _chain(index, requirement, path, line) is not None


@names(LeadsToEnqueue, placeholder=CHAIN)
def _naming_chain_to_enqueue(
    index: ProjectIndex, finding: Finding, requirement: LeadsToEnqueue, path: str
) -> Finding | None:
    chain = _chain(index, requirement, path, finding.span.line)
    if chain is None:
        return None
    return _naming_chain(finding, f"{chain.enqueued.subject} ({chain.text()})", chain.hops)


@judges(LeadsToEffect)
def _leads_to_effect(index: ProjectIndex, requirement: LeadsToEffect, path: str, line: int) -> bool:
    return index.graph.effect_chain_at(path, line, requirement.call_text) is not None


@names(LeadsToEffect, placeholder=CHAIN)
def _naming_effect(
    index: ProjectIndex, finding: Finding, requirement: LeadsToEffect, path: str
) -> Finding | None:
    """The message names the side effect a call leads to, and the chain."""
    chain = index.graph.effect_chain_at(path, finding.span.line, requirement.call_text)
    if chain is None:
        return None
    return _naming_chain(finding, f"{chain.text()}, which {chain.effect.what}", chain.hops)


@judges(OpensTransaction)
def _opens_transaction(
    index: ProjectIndex, requirement: OpensTransaction, path: str, line: int
) -> bool:
    return index.graph.opens_transaction(requirement.opener)


@judges(EnqueuesNow)
def _enqueues_now(index: ProjectIndex, requirement: EnqueuesNow, path: str, line: int) -> bool:
    return not index.graph.deferred(requirement.enqueue)


@judges(RunsNow)
def _runs_now(index: ProjectIndex, requirement: RunsNow, path: str, line: int) -> bool:
    function, position, keyword = requirement.function, requirement.position, requirement.keyword
    return not index.graph.defers_argument(function, position, keyword)


@judges(JobTouches)
def _job_touches(index: ProjectIndex, requirement: JobTouches, path: str, line: int) -> bool:
    return index.graph.touches(requirement.task, requirement.models)


# --- task decorators, and the callers of a helper ---------------------------------------


@judges(RegistersTask)
def _registers_task(index: ProjectIndex, requirement: RegistersTask, path: str, line: int) -> bool:
    found = index.graph.task_decorator(requirement.decorator, requirement.called)
    return found is not None and found.library in requirement.libraries


@judges(DecoratorSets)
def _decorator_sets(index: ProjectIndex, requirement: DecoratorSets, path: str, line: int) -> bool:
    found = index.graph.task_decorator(requirement.decorator)
    return found is not None and all(
        found.options.get(key) == value
        for key, _, value in (option.partition("=") for option in requirement.options)
    )


@judges(DecoratorReruns)
def _decorator_reruns(
    index: ProjectIndex, requirement: DecoratorReruns, path: str, line: int
) -> bool:
    built = index.graph.task_decorator(requirement.decorator, requirement.called)
    return built is not None and bool(work.reruns_by_options(built.library, built.options))


def _passing_task(index: ProjectIndex, requirement: PassedATask) -> Hop | None:
    parameter = (requirement.position, requirement.parameter)
    return index.graph.passing_task(requirement.helper, parameter, requirement.libraries)


@judges(PassedATask)
def _passed_a_task(index: ProjectIndex, requirement: PassedATask, path: str, line: int) -> bool:
    return _passing_task(index, requirement) is not None


@names(PassedATask, placeholder=CALLER)
def _naming_caller(
    index: ProjectIndex, finding: Finding, requirement: PassedATask, path: str
) -> Finding | None:
    """The message names a task that hands itself to the helper, and where."""
    hop = _passing_task(index, requirement)
    if hop is None:
        return None
    task = index.shown(hop.function)
    text = f"'{task}' passes itself at {hop.path}:{hop.call.line}"
    step = f"{task}() passes itself to {hop.call.text}()"
    related = (Related(hop.path, Span(hop.call.line, 1, hop.call.line, 1), step),)
    return replace(finding, message=finding.message.replace(CALLER, text), related=related)


def _claiming_caller(index: ProjectIndex, requirement: ClaimedByCaller) -> Hop | None:
    uses = frozenset({RESULT_WRITTEN, RESULT_SET} if requirement.set_claims else {RESULT_WRITTEN})
    return index.graph.claiming_caller(requirement.function, uses)


@judges(ClaimedByCaller)
def _claimed_by_caller(
    index: ProjectIndex, requirement: ClaimedByCaller, path: str, line: int
) -> bool:
    return _claiming_caller(index, requirement) is not None


@names(ClaimedByCaller, placeholder=CLAIMER)
def _naming_claimer(
    index: ProjectIndex, finding: Finding, requirement: ClaimedByCaller, path: str
) -> Finding | None:
    """The message names a caller that claims the row the helper returns, and where."""
    hop = _claiming_caller(index, requirement)
    if hop is None:
        return None
    caller = index.shown(hop.function)
    text = f"its caller '{caller}' claims it at {hop.path}:{hop.call.line}"
    step = f"{caller}() claims what {hop.call.text}() returns"
    related = (Related(hop.path, _line(hop.call.line), step),)
    return replace(finding, message=finding.message.replace(CLAIMER, text), related=related)


@judges(RunByJob)
def _run_by_job(index: ProjectIndex, requirement: RunByJob, path: str, line: int) -> bool:
    return index.graph.job_reaching(requirement.function) is not None


@names(RunByJob, placeholder=JOB_RUNNER)
def _naming_job(
    index: ProjectIndex, finding: Finding, requirement: RunByJob, path: str
) -> Finding | None:
    """The message names the task running the function, and the calls down to it."""
    hops = index.graph.job_reaching(requirement.function)
    if not hops:
        return None
    task = index.shown(hops[0].function)
    text = f"the job '{task}' ({hops_text(hops)})"
    related = tuple(Related(hop.path, _line(hop.call.line), hop.step()) for hop in hops)
    return replace(finding, message=finding.message.replace(JOB_RUNNER, text), related=related)


@judges(RetriesHandedTask)
def _retries_handed_task(
    index: ProjectIndex, requirement: RetriesHandedTask, path: str, line: int
) -> bool:
    found = index.graph.retrying_helper(
        requirement.function, requirement.call_text, requirement.task_position
    )
    return found is not None


# --- what calls return ----------------------------------------------------------------


def _delay_helper(
    index: ProjectIndex, requirement: RetriesWithHandedDelay
) -> tuple[Returning, str] | None:
    return index.returns.delay_helper(
        requirement.function,
        requirement.call_text,
        requirement.task_position,
        requirement.delay_position,
        requirement.delay_keyword,
    )


@judges(RetriesWithHandedDelay)
def _retries_with_handed_delay(
    index: ProjectIndex, requirement: RetriesWithHandedDelay, path: str, line: int
) -> bool:
    return _delay_helper(index, requirement) is not None


@names(RetriesWithHandedDelay, placeholder=RETURNED)
def _naming_delay_helper(
    index: ProjectIndex, finding: Finding, requirement: RetriesWithHandedDelay, path: str
) -> Finding | None:
    """The message names the helper retrying the task with the delay."""
    text = requirement.call_text
    found = _delay_helper(index, requirement)
    if found is None:
        return None
    hop, parameter = found
    where = f"{hop.path}:{hop.line}"
    said = f"{text}() retries the task with it as {parameter} at {where}"
    step = f"{hop.function.rsplit('.', 1)[-1]}() retries the task with {parameter}"
    related = Related(hop.path, _line(hop.line), step)
    message = finding.message.replace(RETURNED, said)
    return replace(finding, message=message, related=(*finding.related, related))


def _returned(
    index: ProjectIndex, requirement: ReturnsObject | ReturnsArgument
) -> tuple[str, Related] | None:
    """How a `ReturnsObject` or `ReturnsArgument` requirement holds: the
    words naming the helper and where it returns the value, and that place."""
    text = requirement.call_text
    if isinstance(requirement, ReturnsArgument):
        hop = index.returns.parameter_at(
            requirement.function, text, requirement.position, requirement.keyword
        )
        if hop is None:
            return None
        where = f"{hop.path}:{hop.line}"
        step = f"{hop.function.rsplit('.', 1)[-1]}() puts it in the dict it returns"
        return f"through {text}() at {where}", Related(hop.path, _line(hop.line), step)
    item = requirement.in_dict
    found = index.returns.at(requirement.function, text, item)
    chosen = next((r for r in found if r.kind in requirement.kinds), None)
    if chosen is None:
        return None
    source = chosen.hops[-1]
    step = f"{source.function.rsplit('.', 1)[-1]}() returns it"
    return chosen.text(text, item), Related(source.path, _line(source.line), step)


@judges(ReturnsObject, ReturnsArgument)
def _returns_object(
    index: ProjectIndex, requirement: ReturnsObject | ReturnsArgument, path: str, line: int
) -> bool:
    return _returned(index, requirement) is not None


@names(ReturnsObject, ReturnsArgument, placeholder=RETURNED)
def _naming_helper(
    index: ProjectIndex, finding: Finding, requirement: ReturnsObject | ReturnsArgument, path: str
) -> Finding | None:
    found = _returned(index, requirement)
    if found is None:
        return None
    text, related = found
    message = finding.message.replace(RETURNED, text)
    return replace(finding, message=message, related=(*finding.related, related))


def _growing(index: ProjectIndex, requirement: ReturnsGrowth) -> tuple[str, Related] | None:
    """How a `ReturnsGrowth` requirement holds: the words naming the
    function returning the growing delay and where, and that place."""
    text, position, keyword = requirement.call_text, requirement.position, requirement.keyword
    if requirement.schedule:
        return _growing_schedule(index, requirement.function, text)
    found = index.returns.growth_at(requirement.function, text, position, keyword)
    if found is None:
        return None
    hop, parameter = found
    where = f"{hop.path}:{hop.line}"
    step = f"{hop.function.rsplit('.', 1)[-1]}() returns a delay growing with {parameter}"
    said = f"{text}() returns it at {where}, growing with its parameter {parameter}"
    return said, Related(hop.path, _line(hop.line), step)


def _growing_schedule(index: ProjectIndex, function: str, text: str) -> tuple[str, Related] | None:
    """A project function returning a growing list of waits: the words
    naming where it is built, and that place."""
    hops = index.returns.schedule_at(function, text)
    if hops is None:
        return None
    built = hops[-1]
    name = built.function.rsplit(".", 1)[-1]
    where = f"{built.path}:{built.line}"
    step = f"{name}() returns a list of waits growing with their position"
    through = f"{text}() returns {name}()'s list" if len(hops) > 1 else f"{text}() returns it"
    said = f"{through}, growing with its position at {where}"
    return said, Related(built.path, _line(built.line), step)


@judges(ReturnsGrowth)
def _returns_growth(index: ProjectIndex, requirement: ReturnsGrowth, path: str, line: int) -> bool:
    return _growing(index, requirement) is not None


@names(ReturnsGrowth, placeholder=RETURNED)
def _naming_growth(
    index: ProjectIndex, finding: Finding, requirement: ReturnsGrowth, path: str
) -> Finding | None:
    found = _growing(index, requirement)
    if found is None:
        return None
    text, related = found
    return replace(finding, message=finding.message.replace(RETURNED, text), related=(related,))


# --- values handed on to a payload, used as a model, a row's key ------------------------


@judges(HandsToPayload)
def _hands_to_payload(
    index: ProjectIndex, requirement: HandsToPayload, path: str, line: int
) -> bool:
    hops = index.graph.hands_to_payload(
        requirement.function, requirement.position, requirement.keyword
    )
    return hops is not None


@names(HandsToPayload, placeholder=HANDED, last=False)
def _naming_enqueue(
    index: ProjectIndex, finding: Finding, requirement: HandsToPayload, path: str
) -> Finding | None:
    """The message names the enqueue the helper hands the value to, and
    the hops there (the enqueue the last)."""
    hops = index.graph.hands_to_payload(
        requirement.function, requirement.position, requirement.keyword
    )
    if hops is None:
        return None
    last = hops[-1]
    where = f"{last.call.shown()} at {last.path}:{last.call.line}"
    text = where if len(hops) == 1 else f"{where} ({hops_text(hops)})"
    related = tuple(
        Related(hop.path, _line(hop.call.line), f"{hop.step()}, handing it on") for hop in hops
    )
    message = finding.message.replace(HANDED, text)
    return replace(finding, message=message, related=(*finding.related, *related))


@judges(UsedAsModel)
def _used_as_model(index: ProjectIndex, requirement: UsedAsModel, path: str, line: int) -> bool:
    use = index.graph.model_use(requirement.task, requirement.position, requirement.keyword)
    return use is not None


@names(UsedAsModel, placeholder=USED)
def _naming_use(
    index: ProjectIndex, finding: Finding, requirement: UsedAsModel, path: str
) -> Finding | None:
    """The message names where the task uses the argument as a model instance."""
    use = index.graph.model_use(requirement.task, requirement.position, requirement.keyword)
    if use is None:
        return None
    where, line, how = use
    message = finding.message.replace(USED, f"{how} at {where}:{line}")
    related = Related(where, _line(line), f"the task uses it as a model instance: {how}")
    return replace(finding, message=message, related=(*finding.related, related))


@judges(RowDepends)
def _row_depends(index: ProjectIndex, requirement: RowDepends, path: str, line: int) -> bool:
    """Whether the job may depend on the write that follows its enqueue."""
    use = index.graph.row_use(requirement.task, requirement.position, requirement.keyword)
    if use is None or use.handed_on:
        return True  # what the job does with the row is not known
    written = requirement.fields
    if use.reads and (ANY_FIELD in written or not written.isdisjoint(use.reads)):
        return True  # it may read a field before the write sets it
    if use.saves_all and written:
        return True  # its save may put back what the write set
    rewritten = set(use.writes) - index.self_set_fields(use.model)
    if requirement.whole_row or ANY_FIELD in written:
        return bool(rewritten)  # the write saves its old values back
    return not rewritten.isdisjoint(written)


# --- transactional writes, and receivers of the signals they send -----------------------


def _written(index: ProjectIndex, requirement: WrittenInTransaction) -> Written | None:
    return index.writes.first(requirement.model, requirement.ways, requirement.m2m_field)


@judges(WrittenInTransaction)
def _written_in_transaction(
    index: ProjectIndex, requirement: WrittenInTransaction, path: str, line: int
) -> bool:
    return _written(index, requirement) is not None


@names(WrittenInTransaction, placeholder=WRITTEN, last=False)
def _naming_write(
    index: ProjectIndex, finding: Finding, requirement: WrittenInTransaction, path: str
) -> Finding | None:
    """The message names the transactional write that makes a receiver's
    enqueue one inside a transaction."""
    written = _written(index, requirement)
    if written is None:
        return None
    message = finding.message.replace(WRITTEN, written.describe(requirement.model))
    related = Related(written.path, _line(written.line), written.step(requirement.model))
    return replace(finding, message=message, related=(*finding.related, related))


def _received_by(
    index: ProjectIndex, requirement: Receives
) -> tuple[str, tuple[Related, ...]] | None:
    only = frozenset({CREATE}) if requirement.on_create_only else frozenset()
    return index.received(requirement.handler, only)


@judges(Receives)
def _receives(index: ProjectIndex, requirement: Receives, path: str, line: int) -> bool:
    return _received_by(index, requirement) is not None


@names(Receives, placeholder=RECEIVED, last=False, covers=(WrittenInTransaction,))
def _naming_received(
    index: ProjectIndex, finding: Finding, requirement: Receives, path: str
) -> Finding | None:
    """The message names the signal a receiver receives, where it is
    connected, and the write that makes it transactional."""
    received = _received_by(index, requirement)
    if received is None:
        return None
    text, places = received
    message = finding.message.replace(RECEIVED, text)
    return replace(finding, message=message, related=(*finding.related, *places))


# --- request handlers reaching a function ----------------------------------------------


@judges(RequestDepends)
def _request_depends(
    index: ProjectIndex, requirement: RequestDepends, path: str, line: int
) -> bool:
    return index.reach.handler_depends(requirement.handler, requirement.task)


@judges(Reached)
def _reached(index: ProjectIndex, requirement: Reached, path: str, line: int) -> bool:
    reach = index.reach.reached(requirement.function)
    if reach is None or index.reach.committed_before(reach, requirement.function, line):
        return False
    return index.reach.depends(reach, requirement.task)


@names(Reached, placeholder=REACHED_FROM)
def _naming_handler(
    index: ProjectIndex, finding: Finding, requirement: Reached, path: str
) -> Finding | None:
    """The message names the request handler reaching the enqueue, and the chain."""
    reach = index.reach.reached(requirement.function)
    if reach is None:
        return None
    message = finding.message.replace(REACHED_FROM, reach.text())
    hint = requests.FRAMEWORK_FIX_HINTS.get(reach.framework)
    head, said, tail = message.partition(BEFORE_COMMIT)
    if hint is None and reach.framework == "django" and tail == FIX_HINTS[TxFamily.GENERIC]:
        hint = FIX_HINTS[TxFamily.DJANGO]  # no on-commit variant of its own
    if hint is not None and said:
        message = f"{head}{said}{hint}"
    return replace(finding, message=message, related=(*reach.related(), *finding.related))


def _line(line: int) -> Span:
    return Span(line, 1, line, 1)


def _under(qualname: str, prefixes: tuple[str, ...]) -> bool:
    return any(qualname == p or qualname.startswith(f"{p}.") for p in prefixes)


def _expr_refs(expr: object) -> Iterator[str]:
    if isinstance(expr, tuple) and expr:
        if expr[0] == "ref" and len(expr) == 2 and isinstance(expr[1], str):
            yield expr[1]
            return
        for part in expr[1:]:
            yield from _expr_refs(part)


def wanted(
    results: list[FileResult], asked_of: Callable[[ProjectIndex], set[str]] | None = None
) -> tuple[set[str], set[str]]:
    """`wanted_names` and `wanted_functions` of `results`, with the calls
    `asked_of` the merged index, merging the results once for both."""
    index = ProjectIndex.build(results)
    asked = asked_of(index) if asked_of is not None else set()
    missing, receivers = index.graph.lookups(_asked_of_model(index, results, asked))
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
    index = ProjectIndex.build(results)
    receivers = index.graph.unknown_receivers(_asked_of_model(index, results, asked))
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
    use = index.graph.row_use(requirement.task, requirement.position, requirement.keyword)
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
    index = ProjectIndex.build(results)
    missing = index.graph.unresolved(_asked_of_model(index, results, asked))
    return _wanted_functions(index, results, missing | _returns_lookups(index, results)[0])


def _wanted_functions(
    index: ProjectIndex, results: list[FileResult], missing: set[str]
) -> set[str]:
    """`missing`: the unresolved names on the way from the calls asked and
    from pending findings' calls to what they return."""
    return missing | index.graph.unresolved_decorators(_asked_decorators(index, results))


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
    PassedATask: lambda index, r: index.graph.helper_callers(r.helper),
    RunByJob: lambda index, r: index.graph.callers_decorators(r.function),
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
    LeadsToEnqueue: lambda index, r, path, line: index.graph.callees_at(path, line, r.call_text),
    LeadsToEffect: lambda index, r, path, line: index.graph.callees_at(path, line, r.call_text),
    EnqueuesNow: lambda index, r, path, line: index.graph.deferral_methods(r.enqueue),
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


def _rooted(target: str, module: str, modules: set[str], tops: set[str]) -> str | None:
    """`target` imported in `module` from an import root above it: the
    nearest package `P` holding `module` with `P.<first part of target>` a
    module of the project."""
    top = target.partition(".")[0]
    if top in tops or not may_be_project_code(top):
        return None
    package = module.rpartition(".")[0]
    while package:
        if f"{package}.{top}" in modules:
            return f"{package}.{target}"
        package = package.rpartition(".")[0]
    return None


def job_names(results: list[FileResult]) -> tuple[set[str], set[str]]:
    """The unqualified names of the project's tasks whose call enqueues them
    (Huey's), and of all its tasks and queue objects."""
    index = ProjectIndex.build(results)
    on_call = {
        qualname.rsplit(".", 1)[-1]
        for qualname in index.tasks
        if index.task_library(qualname) in ENQUEUE_ON_CALL_LIBRARIES
    }
    every = {q.rsplit(".", 1)[-1] for q in (*index.tasks, *index.queue_objects)}
    return on_call, every


@dataclass(frozen=True, slots=True)
class ProjectSettings:
    codes: frozenset[str]
    margin: float = 60.0
    # In a run that names only some files: their paths. Whole-project findings
    # are kept when a place they involve is one of them. None: the whole project.
    named: frozenset[str] | None = None
    # `extend-enqueue-functions`: the project model takes their calls for enqueues.
    enqueue_functions: frozenset[str] = frozenset()
    # Under hierarchical configuration: a path's own (codes, margin). A
    # whole-project finding stands where its file's configuration selects its
    # code, judged with that configuration's margin. None: `codes` and `margin`.
    for_path: Callable[[str], tuple[frozenset[str], float]] | None = None
    # `broker`: the transport the project deploys with, where its code reads
    # the broker URL from the environment ("" for none).
    broker: str = ""


def _project_directory(path: str, module: str) -> str:
    """The directory holding the top-level package of the module at `path`
    ("" for the current one): where its project's `manage.py` is."""
    parents = Path(path).parents
    depth = module.count(".") + 1
    return parents[depth - 1].as_posix() if module and depth <= len(parents) else ""


def settle(
    results: list[FileResult],
    settings: ProjectSettings | None = None,
    context: Iterable[FileResult] = (),
) -> list[Finding]:
    """Every finding of the run: the certain ones, the pending ones that hold, and
    the whole-project rules' findings. `context` results only contribute facts."""
    context = list(context)
    enqueue_functions = settings.enqueue_functions if settings is not None else frozenset()
    index = ProjectIndex.build([*results, *context], enqueue_functions)
    findings: list[Finding] = []
    # A place another finding covers keeps that one: its message names the
    # transaction in the file itself.
    reached: list[Finding] = []
    for result in results:
        findings.extend(result.findings)
        for pending in result.pending:
            line = pending.finding.span.line
            if all(index.holds(r, result.path, line) for r in pending.requires):
                found = index.finish(pending, result.path)
                is_reached = any(isinstance(r, Reached) for r in pending.requires)
                (reached if is_reached else findings).append(found)
    taken = {(f.path, f.span, f.code) for f in findings}
    findings.extend(f for f in reached if (f.path, f.span, f.code) not in taken)
    if settings is not None:
        findings.extend(_project_findings([*results, *context], settings))
    findings.sort(key=lambda f: f.sort_key)
    return _one_per_place(findings)


def _project_findings(results: list[FileResult], settings: ProjectSettings) -> list[Finding]:
    codes = {code for code in settings.codes if is_project_rule(code)}
    # Whole-project rules see only the project's Celery facts (`ProjectView`):
    # with none there is nothing to find. With some, only those rules' modules
    # are imported, none of which imports LibCST (a cached run parses nothing).
    if not codes or all(r.facts.broker == _NO_BROKER_FACTS for r in results):
        return []
    from joblint.analysis.broker_view import BrokerView
    from joblint.registry import load
    from joblint.rule import ProjectRule, ProjectView
    from joblint.suppressions import Suppressions

    chosen = (load(code) for code in sorted(codes))
    rules = [rule for rule in chosen if rule is not None and issubclass(rule, ProjectRule)]
    scopes = SettingsScopes.build(results)

    def applies(module: str, path: str) -> bool:
        return scopes.applies(Setter(module, ""), path)

    brokers = BrokerView.build(((r.path, r.facts) for r in results), applies, settings.broker)
    own = settings.for_path
    margins = {settings.margin} if own is None else {own(r.path)[1] for r in results}
    suppressions = {r.path: Suppressions.from_compact(r.facts.suppressions) for r in results}
    found = []
    for margin in sorted(margins):
        view = ProjectView(brokers, margin)
        for rule in rules:
            for finding, involved in rule.check(view):
                if settings.named is not None and not involved & settings.named:
                    continue
                if own is not None:
                    selected, its_margin = own(finding.path)
                    if its_margin != margin or finding.code not in selected:
                        continue
                sups = suppressions.get(finding.path)
                line = finding.span.line
                if sups is None or not sups.suppresses(finding.code, (line,), (line - 1,)):
                    found.append(finding)
    return found


def _naming_chain(finding: Finding, text: str, hops: tuple[Hop, ...]) -> Finding:
    """The message says `text` where it says `CHAIN`; each hop is a related location."""
    related = tuple(
        Related(hop.path, Span(hop.call.line, 1, hop.call.line, 1), hop.step()) for hop in hops
    )
    message = finding.message.replace(CHAIN, text)
    return replace(finding, message=message, related=(*related, *finding.related))


def _one_per_place(findings: list[Finding]) -> list[Finding]:
    """Alternatives for one node (a class that is both a dataclass and pydantic)
    must not report twice: keep the first finding per (path, span, code), and
    none of a rule that yields to another rule's finding at that place."""
    yields = yielding_codes()
    codes_at: dict[tuple[str, object], set[str]] = {}
    for finding in findings:
        codes_at.setdefault((finding.path, finding.span), set()).add(finding.code)
    seen: set[tuple[str, object, str]] = set()
    unique = []
    for finding in findings:
        key = (finding.path, finding.span, finding.code)
        if key in seen or yields.get(finding.code, frozenset()) & codes_at[key[:2]]:
            continue
        seen.add(key)
        unique.append(finding)
    return unique
