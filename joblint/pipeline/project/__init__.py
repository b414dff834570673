"""The whole-project step: merge per-file facts and settle pending findings.

Works on `FileResult`s only (never on CST), so per-file results can come from
a cache or a worker process.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

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
    CLAIMED_BY_CALLER,
    CLAIMER,
    ENQUEUES_NOW,
    HANDED,
    HANDS_TO_PAYLOAD,
    JOB_RUNNER,
    JOB_TOUCHES,
    LEADS_TO_EFFECT,
    LEADS_TO_ENQUEUE,
    MODEL_REQUIREMENTS,
    OPENS_TRANSACTION,
    PASSED_A_TASK,
    REACHED,
    REACHED_FROM,
    RECEIVED,
    RECEIVES,
    REQUEST_DEPENDS,
    RESULT_SET,
    RESULT_WRITTEN,
    RETRIES_HANDED_TASK,
    RETRY_DELAY_HANDED,
    RETURNED,
    RETURNED_ITEM,
    RETURNED_PARAMETER,
    RETURNS_GROWTH,
    RETURNS_OBJECT,
    ROW_DEPENDS,
    RUN_BY_JOB,
    RUNS_NOW,
    SAVE,
    TASK_DECORATOR,
    TASK_DECORATOR_RERUNS,
    TASK_DECORATOR_SETS,
    UNCOMMITTED,
    URL_VIEW,
    USED,
    USED_AS_MODEL,
    WHOLE_ROW,
    WRITE_VERBS,
    WRITTEN,
    WRITTEN_IN_TRANSACTION,
    BrokerFacts,
    ClassFacts,
    FileResult,
    Finding,
    PendingFinding,
    ReceiverFact,
    Related,
    Requirement,
    Span,
    TaskDef,
)
from joblint.pipeline.project.call_graph import CallGraph, Chain, Hop, hops_text
from joblint.pipeline.project.entries import RequestReach
from joblint.pipeline.project.returns_view import ReturnsView
from joblint.pipeline.project.settings_scope import Setter, SettingsScopes
from joblint.pipeline.project.writes import TransactionalWrites, Written
from joblint.registry import is_project_rule, yielding_codes

_MAX_ALIAS_HOPS = 8
# Where a JL101 message's fix hint starts.
BEFORE_COMMIT = "before COMMIT. "
# How many project imports away a library may be and still be "in reach"
# (`views` imports `jobs`, which imports `arq`: one hop).
_MAX_REACH_HOPS = 3
# Requirements on what a call in a function reaches through what project
# functions return or do with what they are handed: their modules are read.
_RETURNS_KINDS = frozenset(
    {RETURNS_OBJECT, RETURNS_GROWTH, RETRIES_HANDED_TASK, RETRY_DELAY_HANDED}
)
_NO_BROKER_FACTS = BrokerFacts()
# Requirement kinds whose `qualname` names no definition to load on demand.
_NOT_A_NAME = frozenset(
    {
        "flag-off",
        "flag-on",
        REACHED,
        REQUEST_DEPENDS,
        "reaches",
        "writable-database",
        locks.CACHE_LOCK_API_REQUIREMENT,
    }
)
# Requirements the project model (`CallGraph`) settles: their names are
# functions, whose modules' index is read on demand.
_MODEL_KINDS = MODEL_REQUIREMENTS
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

    def _row_depends(self, requirement: Requirement) -> bool:
        """`ROW_DEPENDS`: whether the job may depend on the write that follows its enqueue."""
        position, keyword, how = requirement.reach
        use = self.graph.row_use(requirement.qualname, position, keyword)
        if use is None or use.handed_on:
            return True  # what the job does with the row is not known
        written = requirement.libraries
        if use.reads and (ANY_FIELD in written or not written.isdisjoint(use.reads)):
            return True  # it may read a field before the write sets it
        if use.saves_all and written:
            return True  # its save may put back what the write set
        rewritten = set(use.writes) - self.self_set_fields(use.model)
        if how == WHOLE_ROW or ANY_FIELD in written:
            return bool(rewritten)  # the write saves its old values back
        return not rewritten.isdisjoint(written)

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
        if requirement.kind == "task":
            return self.task_library(requirement.qualname) in requirement.libraries
        if requirement.kind == "library-object":
            return self._library_object(requirement)
        if requirement.kind == "reaches":
            return self.reaches(requirement.module, requirement.reach)
        if requirement.kind == "flag-off":
            return not self.flag_set(requirement.qualname, path)
        if requirement.kind == "flag-on":
            return self.flag_set(requirement.qualname, path)
        if requirement.kind == "writable-database":
            setters = self.read_only.get(requirement.qualname, ())
            return not any(self.scopes.applies(setter, path) for setter in setters)
        if requirement.kind == "queue":
            name = self.canonical(requirement.qualname)
            library = self.queue_library(name) or self.graph.made_queue_library(name)
            return library in requirement.libraries
        if requirement.kind == "class":
            return bool(self.class_kinds(requirement.qualname) & requirement.libraries)
        if requirement.kind == "lacks-unique":
            pinned = requirement.libraries
            return not any(key <= pinned for key in self.unique_keys(requirement.qualname))
        if requirement.kind == "task-lacks-param":
            params = self.function_params.get(self.canonical(requirement.qualname), ())
            return not set(params) & requirement.libraries
        if requirement.kind == locks.CACHE_LOCK_API_REQUIREMENT:
            return self.cache_lock_api(requirement.qualname, path) in requirement.libraries
        if requirement.kind == locks.LOCK_KEY_REQUIREMENT:
            return not self.names_no_lock(requirement.qualname)
        if requirement.kind == LEADS_TO_ENQUEUE:
            return self._chain(requirement, path, line) is not None
        if requirement.kind == OPENS_TRANSACTION:
            return self.graph.opens_transaction(requirement.qualname)
        if requirement.kind == ENQUEUES_NOW:
            return not self.graph.deferred(requirement.qualname)
        if requirement.kind == RUNS_NOW:
            position, keyword = requirement.reach
            return not self.graph.defers_argument(requirement.qualname, position, keyword)
        if requirement.kind == TASK_DECORATOR:
            called = "called" in requirement.reach
            found = self.graph.task_decorator(requirement.qualname, called)
            return found is not None and found.library in requirement.libraries
        if requirement.kind == TASK_DECORATOR_SETS:
            found = self.graph.task_decorator(requirement.qualname)
            return found is not None and all(
                found.options.get(key) == value
                for key, _, value in (option.partition("=") for option in requirement.libraries)
            )
        if requirement.kind == PASSED_A_TASK:
            return self._passing_task(requirement) is not None
        if requirement.kind == CLAIMED_BY_CALLER:
            return self._claiming_caller(requirement) is not None
        if requirement.kind == RUN_BY_JOB:
            return self.graph.job_reaching(requirement.qualname) is not None
        if requirement.kind == LEADS_TO_EFFECT:
            return self.graph.effect_chain_at(path, line, requirement.qualname) is not None
        if requirement.kind == TASK_DECORATOR_RERUNS:
            called = "called" in requirement.reach
            built = self.graph.task_decorator(requirement.qualname, called)
            return built is not None and bool(work.reruns_by_options(built.library, built.options))
        if requirement.kind == RETURNS_OBJECT:
            return self.returned(requirement) is not None
        if requirement.kind == RETURNS_GROWTH:
            return self._growing(requirement) is not None
        if requirement.kind == RETRIES_HANDED_TASK:
            text, position = requirement.reach
            return self.graph.retrying_helper(requirement.qualname, text, position) is not None
        if requirement.kind == RETRY_DELAY_HANDED:
            return self.returns.delay_helper(requirement.qualname, *requirement.reach) is not None
        if requirement.kind == HANDS_TO_PAYLOAD:
            return self.graph.hands_to_payload(requirement.qualname, *requirement.reach) is not None
        if requirement.kind == USED_AS_MODEL:
            return self.graph.model_use(requirement.qualname, *requirement.reach) is not None
        if requirement.kind == WRITTEN_IN_TRANSACTION:
            return self._written(requirement) is not None
        if requirement.kind == URL_VIEW:
            view = self.canonical(requirement.qualname)
            return any(self.canonical(registered) == view for registered in self.url_views)
        if requirement.kind == RECEIVES:
            return self._received(requirement.qualname, requirement.libraries) is not None
        if requirement.kind == JOB_TOUCHES:
            return self.graph.touches(requirement.qualname, requirement.libraries)
        if requirement.kind == ROW_DEPENDS:
            return self._row_depends(requirement)
        if requirement.kind == REQUEST_DEPENDS:
            task = next(iter(requirement.libraries), "")
            return self.reach.handler_depends(requirement.qualname, task)
        if requirement.kind == REACHED:
            reach = self.reach.reached(requirement.qualname)
            task = next(iter(requirement.libraries), "")
            if reach is None or self.reach.committed_before(reach, requirement.qualname, line):
                return False
            return self.reach.depends(reach, task)
        raise ValueError(f"unknown requirement kind {requirement.kind!r}")

    def finish(self, pending: PendingFinding, path: str) -> Finding:
        """A pending finding that holds, its message naming the chain of calls
        (with the places of its hops) where it says `CHAIN`."""
        finding = self._naming_write(pending)
        reached = next((r for r in pending.requires if r.kind == REACHED), None)
        if reached is not None and REACHED_FROM in finding.message:
            return self._naming_handler(finding, reached)
        handing = next((r for r in pending.requires if r.kind == HANDS_TO_PAYLOAD), None)
        if handing is not None and HANDED in finding.message:
            finding = self._naming_enqueue(finding, handing)
        used = next((r for r in pending.requires if r.kind == USED_AS_MODEL), None)
        if used is not None and USED in finding.message:
            return self._naming_use(finding, used)
        returning = next((r for r in pending.requires if r.kind == RETURNS_OBJECT), None)
        if returning is not None and RETURNED in finding.message:
            return self._naming_helper(finding, returning)
        growing = next((r for r in pending.requires if r.kind == RETURNS_GROWTH), None)
        if growing is not None and RETURNED in finding.message:
            return self._naming_growth(finding, growing)
        delaying = next((r for r in pending.requires if r.kind == RETRY_DELAY_HANDED), None)
        if delaying is not None and RETURNED in finding.message:
            return self._naming_delay_helper(finding, delaying)
        if handing is not None:
            return finding
        helper = next((r for r in pending.requires if r.kind == PASSED_A_TASK), None)
        if helper is not None and CALLER in finding.message:
            return self._naming_caller(finding, helper)
        picker = next((r for r in pending.requires if r.kind == CLAIMED_BY_CALLER), None)
        if picker is not None and CLAIMER in finding.message:
            return self._naming_claimer(finding, picker)
        runner = next((r for r in pending.requires if r.kind == RUN_BY_JOB), None)
        if runner is not None and JOB_RUNNER in finding.message:
            return self._naming_job(finding, runner)
        effect = next((r for r in pending.requires if r.kind == LEADS_TO_EFFECT), None)
        if effect is not None and CHAIN in finding.message:
            return self._naming_effect(finding, effect, path)
        site = next((r for r in pending.requires if r.kind == LEADS_TO_ENQUEUE), None)
        if site is None or CHAIN not in finding.message:
            return finding
        chain = self._chain(site, path, finding.span.line)
        if chain is None:
            return finding
        return _naming_chain(finding, f"{chain.enqueued.subject} ({chain.text()})", chain.hops)

    def _naming_handler(self, finding: Finding, requirement: Requirement) -> Finding:
        """The message names the request handler reaching the enqueue, and the chain."""
        reach = self.reach.reached(requirement.qualname)
        if reach is None:
            return finding
        message = finding.message.replace(REACHED_FROM, reach.text())
        hint = requests.FRAMEWORK_FIX_HINTS.get(reach.framework)
        head, said, tail = message.partition(BEFORE_COMMIT)
        if hint is None and reach.framework == "django" and tail == FIX_HINTS[TxFamily.GENERIC]:
            hint = FIX_HINTS[TxFamily.DJANGO]  # no on-commit variant of its own
        if hint is not None and said:
            message = f"{head}{said}{hint}"
        return replace(finding, message=message, related=(*reach.related(), *finding.related))

    def _naming_effect(self, finding: Finding, requirement: Requirement, path: str) -> Finding:
        """The message names the side effect a call leads to, and the chain."""
        chain = self.graph.effect_chain_at(path, finding.span.line, requirement.qualname)
        if chain is None:
            return finding
        return _naming_chain(finding, f"{chain.text()}, which {chain.effect.what}", chain.hops)

    def _written(self, requirement: Requirement) -> Written | None:
        m2m_field = requirement.reach[0] if requirement.reach else ""
        return self.writes.first(requirement.qualname, requirement.libraries, m2m_field)

    def _received(
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

    def _naming_write(self, pending: PendingFinding) -> Finding:
        """The message names the transactional write that makes a receiver's
        enqueue one inside a transaction, where it says `WRITTEN`."""
        finding = pending.finding
        receives = next((r for r in pending.requires if r.kind == RECEIVES), None)
        if receives is not None and RECEIVED in finding.message:
            received = self._received(receives.qualname, receives.libraries)
            if received is not None:
                text, places = received
                message = finding.message.replace(RECEIVED, text)
                return replace(finding, message=message, related=(*finding.related, *places))
        requirement = next((r for r in pending.requires if r.kind == WRITTEN_IN_TRANSACTION), None)
        if requirement is None or WRITTEN not in finding.message:
            return finding
        written = self._written(requirement)
        if written is None:
            return finding
        message = finding.message.replace(WRITTEN, written.describe(requirement.qualname))
        related = Related(written.path, _line(written.line), written.step(requirement.qualname))
        return replace(finding, message=message, related=(*finding.related, related))

    def returned(self, requirement: Requirement) -> tuple[str, Related] | None:
        """How a `RETURNS_OBJECT` requirement holds: the words naming the
        helper and where it returns the value, and that place."""
        text, mode, *parameter = requirement.reach
        if mode == RETURNED_PARAMETER:
            position, keyword = (*parameter, "", "")[:2]
            hop = self.returns.parameter_at(requirement.qualname, text, position, keyword)
            if hop is None:
                return None
            where = f"{hop.path}:{hop.line}"
            step = f"{hop.function.rsplit('.', 1)[-1]}() puts it in the dict it returns"
            return f"through {text}() at {where}", Related(hop.path, _line(hop.line), step)
        item = mode == RETURNED_ITEM
        found = self.returns.at(requirement.qualname, text, item)
        chosen = next((r for r in found if r.kind in requirement.libraries), None)
        if chosen is None:
            return None
        source = chosen.hops[-1]
        step = f"{source.function.rsplit('.', 1)[-1]}() returns it"
        return chosen.text(text, item), Related(source.path, _line(source.line), step)

    def _growing(self, requirement: Requirement) -> tuple[str, Related] | None:
        """How a `RETURNS_GROWTH` requirement holds: the words naming the
        function returning the growing delay and where, and that place."""
        text, position, keyword = requirement.reach
        if not position and not keyword:
            return self._growing_schedule(requirement.qualname, text)
        found = self.returns.growth_at(requirement.qualname, text, position, keyword)
        if found is None:
            return None
        hop, parameter = found
        where = f"{hop.path}:{hop.line}"
        step = f"{hop.function.rsplit('.', 1)[-1]}() returns a delay growing with {parameter}"
        said = f"{text}() returns it at {where}, growing with its parameter {parameter}"
        return said, Related(hop.path, _line(hop.line), step)

    def _growing_schedule(self, function: str, text: str) -> tuple[str, Related] | None:
        """A project function returning a growing list of waits: the words
        naming where it is built, and that place."""
        hops = self.returns.schedule_at(function, text)
        if hops is None:
            return None
        built = hops[-1]
        name = built.function.rsplit(".", 1)[-1]
        where = f"{built.path}:{built.line}"
        step = f"{name}() returns a list of waits growing with their position"
        through = f"{text}() returns {name}()'s list" if len(hops) > 1 else f"{text}() returns it"
        said = f"{through}, growing with its position at {where}"
        return said, Related(built.path, _line(built.line), step)

    def _naming_growth(self, finding: Finding, requirement: Requirement) -> Finding:
        found = self._growing(requirement)
        if found is None:
            return finding
        text, related = found
        return replace(finding, message=finding.message.replace(RETURNED, text), related=(related,))

    def _naming_delay_helper(self, finding: Finding, requirement: Requirement) -> Finding:
        """The message names the helper retrying the task with the delay."""
        text = requirement.reach[0]
        found = self.returns.delay_helper(requirement.qualname, *requirement.reach)
        if found is None:
            return finding
        hop, parameter = found
        where = f"{hop.path}:{hop.line}"
        said = f"{text}() retries the task with it as {parameter} at {where}"
        step = f"{hop.function.rsplit('.', 1)[-1]}() retries the task with {parameter}"
        related = Related(hop.path, _line(hop.line), step)
        message = finding.message.replace(RETURNED, said)
        return replace(finding, message=message, related=(*finding.related, related))

    def _naming_helper(self, finding: Finding, requirement: Requirement) -> Finding:
        found = self.returned(requirement)
        if found is None:
            return finding
        text, related = found
        message = finding.message.replace(RETURNED, text)
        return replace(finding, message=message, related=(*finding.related, related))

    def _naming_enqueue(self, finding: Finding, requirement: Requirement) -> Finding:
        """The message names the enqueue the helper hands the value to, and
        the hops there (the enqueue the last)."""
        hops = self.graph.hands_to_payload(requirement.qualname, *requirement.reach)
        if hops is None:
            return finding
        last = hops[-1]
        where = f"{last.call.shown()} at {last.path}:{last.call.line}"
        text = where if len(hops) == 1 else f"{where} ({hops_text(hops)})"
        related = tuple(
            Related(hop.path, _line(hop.call.line), f"{hop.step()}, handing it on") for hop in hops
        )
        message = finding.message.replace(HANDED, text)
        return replace(finding, message=message, related=(*finding.related, *related))

    def _naming_use(self, finding: Finding, requirement: Requirement) -> Finding:
        """The message names where the task uses the argument as a model instance."""
        use = self.graph.model_use(requirement.qualname, *requirement.reach)
        if use is None:
            return finding
        path, line, how = use
        message = finding.message.replace(USED, f"{how} at {path}:{line}")
        related = Related(path, _line(line), f"the task uses it as a model instance: {how}")
        return replace(finding, message=message, related=(*finding.related, related))

    def _chain(self, requirement: Requirement, path: str, line: int) -> Chain | None:
        """The chain a LEADS_TO_ENQUEUE requirement asks for."""
        uncommitted = UNCOMMITTED in requirement.reach
        return self.graph.chain_at(path, line, requirement.qualname, uncommitted)

    def _passing_task(self, requirement: Requirement) -> Hop | None:
        return self.graph.passing_task(
            requirement.qualname, requirement.reach, requirement.libraries
        )

    def _naming_caller(self, finding: Finding, requirement: Requirement) -> Finding:
        """The message names a task that hands itself to the helper, and where."""
        hop = self._passing_task(requirement)
        if hop is None:
            return finding
        task = self._shown(hop.function)
        text = f"'{task}' passes itself at {hop.path}:{hop.call.line}"
        step = f"{task}() passes itself to {hop.call.text}()"
        related = (Related(hop.path, Span(hop.call.line, 1, hop.call.line, 1), step),)
        return replace(finding, message=finding.message.replace(CALLER, text), related=related)

    def _shown(self, function: str) -> str:
        """How a message names a function: `send`, or `Mailer.send` for a method."""
        owner, _, name = function.rpartition(".")
        return f"{owner.rsplit('.', 1)[-1]}.{name}" if owner in self.graph.classes else name

    def _claiming_caller(self, requirement: Requirement) -> Hop | None:
        uses = frozenset({RESULT_WRITTEN, *(u for u in requirement.reach if u == RESULT_SET)})
        return self.graph.claiming_caller(requirement.qualname, uses)

    def _naming_claimer(self, finding: Finding, requirement: Requirement) -> Finding:
        """The message names a caller that claims the row the helper returns, and where."""
        hop = self._claiming_caller(requirement)
        if hop is None:
            return finding
        caller = self._shown(hop.function)
        text = f"its caller '{caller}' claims it at {hop.path}:{hop.call.line}"
        step = f"{caller}() claims what {hop.call.text}() returns"
        related = (Related(hop.path, _line(hop.call.line), step),)
        return replace(finding, message=finding.message.replace(CLAIMER, text), related=related)

    def _naming_job(self, finding: Finding, requirement: Requirement) -> Finding:
        """The message names the task running the function, and the calls down to it."""
        hops = self.graph.job_reaching(requirement.qualname)
        if not hops:
            return finding
        task = self._shown(hops[0].function)
        text = f"the job '{task}' ({hops_text(hops)})"
        related = tuple(Related(hop.path, _line(hop.call.line), hop.step()) for hop in hops)
        return replace(finding, message=finding.message.replace(JOB_RUNNER, text), related=related)

    def _library_object(self, requirement: Requirement) -> bool:
        library = self.object_library(requirement.qualname, requirement.queue)
        if library is None:
            return False
        if library:
            return not requirement.libraries or library in requirement.libraries
        return not requirement.reach or self.reaches(requirement.module, requirement.reach)


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
                if requirement.reach and requirement.kind not in _MODEL_KINDS | {REACHED}:
                    wanted |= index.unreached(requirement.module)
                if requirement.kind not in _NOT_A_NAME | _MODEL_KINDS:
                    wanted |= index.unknown(requirement.qualname)
                elif requirement.kind == ROW_DEPENDS:  # the fields its model sets itself
                    use = index.graph.row_use(requirement.qualname, *requirement.reach[:2])
                    if use is not None and use.model and use.writes:
                        wanted |= index.unknown(use.model)
        broker = result.facts.broker
        exprs = [
            *(c.value for c in broker.config),
            *(t.value for t in broker.time_limits),
            *(d.value for d in broker.delays),
        ]
        for expr in exprs:
            wanted.update(ref for ref in _expr_refs(expr) if ref not in constants)
    return wanted


def _connected_handlers(index: ProjectIndex, results: list[FileResult]) -> set[str]:
    """The names other modules connect receiver-shaped functions under, where
    no loaded file tells what they are (a re-export): telling whether one is
    a function a pending finding is in needs its module's facts."""
    asked = {
        requirement.qualname.rsplit(".", 1)[-1]
        for result in results
        for pending in result.pending
        for requirement in pending.requires
        if requirement.kind == RECEIVES
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


def _returns_lookups(index: ProjectIndex, results: list[FileResult]) -> tuple[set[str], set[str]]:
    """What telling what pending findings' calls return needs: the names of
    the functions on the way that no loaded module's index summarises, and
    the classes whose kinds decide."""
    missing: set[str] = set()
    classes: set[str] = set()
    for result in results:
        for pending in result.pending:
            for requirement in pending.requires:
                if requirement.kind in _RETURNS_KINDS:
                    text = requirement.reach[0]
                    index.returns.lookups(requirement.qualname, text, missing, classes)
    return missing, classes


def task_helpers(results: list[FileResult]) -> set[str]:
    """The unqualified names of the helpers pending findings need a caller
    of: a bound task calling one with itself, or a caller claiming the row
    one returns. The files naming one are read for their index."""
    return {
        requirement.qualname.rsplit(".", 1)[-1]
        for result in results
        for pending in result.pending
        for requirement in pending.requires
        if requirement.kind in (PASSED_A_TASK, CLAIMED_BY_CALLER, RUN_BY_JOB)
    }


def _asked_decorators(index: ProjectIndex, results: list[FileResult]) -> set[str]:
    """The task decorators pending findings depend on: the project's own
    that decorate a task, and those of the tasks handing themselves to a helper."""
    found: set[str] = set()
    for result in results:
        found.update(task.decorator[0] for task in result.facts.tasks if task.decorator[0])
        for pending in result.pending:
            for requirement in pending.requires:
                if requirement.kind in (TASK_DECORATOR, TASK_DECORATOR_SETS):
                    found.add(requirement.qualname)
                elif requirement.kind == PASSED_A_TASK:
                    found |= index.graph.helper_callers(requirement.qualname)
                elif requirement.kind == RUN_BY_JOB:
                    found |= index.graph.callers_decorators(requirement.qualname)
    return found


def _asked_of_model(
    index: ProjectIndex, results: list[FileResult], asked: Iterable[str]
) -> set[str]:
    found = set(asked)
    for result in results:
        for pending in result.pending:
            line = pending.finding.span.line
            for requirement in pending.requires:
                if requirement.kind == OPENS_TRANSACTION:
                    found.add(requirement.qualname)
                elif requirement.kind in (LEADS_TO_ENQUEUE, LEADS_TO_EFFECT):
                    found.update(index.graph.callees_at(result.path, line, requirement.qualname))
                elif requirement.kind == ENQUEUES_NOW:
                    found.update(index.graph.deferral_methods(requirement.qualname))
                elif requirement.kind in (
                    RUNS_NOW,
                    JOB_TOUCHES,
                    HANDS_TO_PAYLOAD,
                    USED_AS_MODEL,
                    ROW_DEPENDS,
                ):
                    found.add(requirement.qualname)
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
                is_reached = any(r.kind == REACHED for r in pending.requires)
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
