"""The project's merged facts: every file's `FileFacts` (its tasks, queue
objects, classes, imports, settings flags, constants, URLconfs, signal
connections) merged into one `ProjectIndex`, with the call graph over the
modules' index (`call_graph.py`) and the views that settle the rest. It
tells what a name is (a task of which library, a queue object, the
project's own function or class, or nothing a loaded file defines: its
module is read on demand), which libraries a module reaches through the
project's imports, and which settings apply to a file; and it settles
pending findings' requirements by their type (`judging.py`), those on
these facts here.

Works on `FileResult`s only (never on CST), so per-file results can come
from a cache or a worker process.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from joblint.analysis.evaluation import Expr, evaluate
from joblint.knowledge import jobs, locks, payloads
from joblint.knowledge.jobs import may_be_project_code
from joblint.models import ClassFacts, FileResult, Finding, PendingFinding, ReceiverFact, TaskDef
from joblint.pipeline.project import judging
from joblint.pipeline.project.call_graph import CallGraph
from joblint.pipeline.project.class_kinds import ClassKinds
from joblint.pipeline.project.entries import RequestReach
from joblint.pipeline.project.judging import judges
from joblint.pipeline.project.returns_view import ReturnsView
from joblint.pipeline.project.settings_scope import Setter, SettingsScopes
from joblint.pipeline.project.writes import TransactionalWrites
from joblint.requirements import (
    CacheLockApi,
    FlagOff,
    FlagOn,
    IsQueue,
    IsTask,
    LockKey,
    MayBeLibraryObject,
    ReachesLibrary,
    RegisteredView,
    Requirement,
    TaskLacksParameter,
    WritableDatabase,
)

_MAX_ALIAS_HOPS = 8
# How many project imports away a library may be and still be "in reach"
# (`views` imports `jobs`, which imports `arq`: one hop).
_MAX_REACH_HOPS = 3
# The kinds of values a payload must not carry, as a function may return them.
_VALUE_KINDS = payloads.ORM_KINDS | payloads.ROWS_KINDS | payloads.RICH_KINDS
# The fields `build` fills with views that refer back to the index.
_VIEWS = ("graph", "returns", "writes", "reach", "class_kinds")


@dataclass(slots=True)
class ProjectIndex:
    """The project's merged facts, its call graph, and the views settling
    what pending findings ask of them."""

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
    class_kinds: ClassKinds = field(init=False)
    _top_levels: frozenset[str] | None = None

    @classmethod
    def build(
        cls, results: Iterable[FileResult], enqueue_functions: frozenset[str] = frozenset()
    ) -> ProjectIndex:
        index = cls()
        results = list(results)
        index.class_kinds = ClassKinds(index)
        index.graph = CallGraph.build(results, index, enqueue_functions)
        index.returns = ReturnsView(index.graph.calls, _VALUE_KINDS)
        index.writes = TransactionalWrites(index.graph.calls, index)
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

    @classmethod
    @contextmanager
    def built(
        cls, results: Iterable[FileResult], enqueue_functions: frozenset[str] = frozenset()
    ) -> Iterator[ProjectIndex]:
        """`build`, for the `with` block only: released after it."""
        index = cls.build(results, enqueue_functions)
        try:
            yield index
        finally:
            index.release()

    def release(self) -> None:
        """Drops the views of the index: they refer back to it, and with that
        cycle, the index and all they computed (about 10,000 objects in each
        of a monorepo's hundred builds) would be freed only when the cyclic
        collector walked them, not as soon as the caller drops the index. The
        index answers nothing of its views after this."""
        for view in _VIEWS:
            if hasattr(self, view):
                delattr(self, view)

    def _root_imports(self) -> None:
        """Imports written from a package's own import root (`from jobs
        import worker_task` in `workers/general/tasks.py`, run with `workers/`
        on the path, where `workers` is itself a package): the name is the
        project's `workers.jobs.worker_task`. Taken so only when no
        top-level module of the project is `jobs`, the library joblint
        knows or the standard library has none, the importing module is
        under the package, and the project defines the name there; the name
        as written then means it too, where every importer agrees."""
        modules = {
            *self.imports,
            *(m.module for m in self.graph.calls.by_path.values() if m.module),
        }
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
                self.graph.calls.aliases.setdefault(target, only)

    def _defines(self, name: str, modules: set[str]) -> bool:
        return (
            name in modules
            or name in self.aliases
            or name in self.graph.calls.aliases
            or name in self.graph.calls.functions
            or name in self.graph.calls.task_decorators
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
            modules = [*self.imports, *(m.module for m in self.graph.calls.by_path.values())]
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
            found = self.graph.decorators.task_decorator(decorator, called)
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
        if self.graph.decorators.task_decorator(decorator, called) is not None:
            return False
        return not self.graph.decorators.unresolved_decorators([decorator])

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


# --- the requirements on the merged facts ---------------------------------------------


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
    library = index.queue_library(name) or index.graph.calls.made_queue_library(name)
    return library in requirement.libraries


@judges(TaskLacksParameter)
def _lacks_parameter(
    index: ProjectIndex, requirement: TaskLacksParameter, path: str, line: int
) -> bool:
    params = index.function_params.get(index.canonical(requirement.task), ())
    return not set(params) & requirement.parameters


@judges(CacheLockApi)
def _cache_lock_api(index: ProjectIndex, requirement: CacheLockApi, path: str, line: int) -> bool:
    return _lock_api(index, requirement.alias, path) in requirement.apis


@judges(LockKey)
def _lock_key(index: ProjectIndex, requirement: LockKey, path: str, line: int) -> bool:
    return not _names_no_lock(index, requirement.constant)


@judges(RegisteredView)
def _registered_view(
    index: ProjectIndex, requirement: RegisteredView, path: str, line: int
) -> bool:
    view = index.canonical(requirement.view)
    return any(index.canonical(registered) == view for registered in index.url_views)


def _lock_api(index: ProjectIndex, alias: str, path: str) -> str:
    """The lock API (`locks.CACHE_LOCK_APIS`) of a Django cache alias when
    every CACHES setting that applies to `path` agrees on it, else
    `locks.UNKNOWN_CACHE_LOCK_API` (the alias "" stands for a CACHES that
    can't be read: any alias)."""
    unknown = locks.UNKNOWN_CACHE_LOCK_API
    settings = (*index.cache_backends.get(alias, ()), *index.cache_backends.get("", ()))
    backends = {backend for backend, setter in settings if index.scopes.applies(setter, path)}
    apis = {locks.CACHE_BACKEND_LOCK_APIS.get(backend, unknown) for backend in backends}
    return apis.pop() if len(apis) == 1 else unknown


def _names_no_lock(index: ProjectIndex, qualname: str) -> bool:
    """The module constant is a string whose words name no lock."""
    value = evaluate(index.constants.get(index.canonical(qualname)), index.constants)
    return isinstance(value, str) and not locks.names_a_lock(value)


def _project_directory(path: str, module: str) -> str:
    """The directory holding the top-level package of the module at `path`
    ("" for the current one): where its project's `manage.py` is."""
    parents = Path(path).parents
    depth = module.count(".") + 1
    return parents[depth - 1].as_posix() if module and depth <= len(parents) else ""


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


def _under(qualname: str, prefixes: tuple[str, ...]) -> bool:
    return any(qualname == p or qualname.startswith(f"{p}.") for p in prefixes)
