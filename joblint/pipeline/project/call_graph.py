"""The project model: which of the project's functions lead to an enqueue,
and which open a transaction for their caller, across modules.

Built from every loaded module's `ModuleIndex` (`joblint.index`). A call's
qualified name means a summarised function when it names one, or names one
through a re-export, a method of a module-level instance, or a method a
class inherits from its bases.

A function leads to an enqueue when it performs one, or calls a project
function that leads to one. Which calls enqueue is decided from the tasks
and queue objects the project defines (`ProjectIndex`): a task's enqueue
method, a queue object's, a library's enqueue function, calling a task of a
library that enqueues on call. The search is breadth first, so the chain
named is a shortest one; it goes at most `MAX_HOPS` calls deep and never
round a cycle. A function opens a transaction when it opens a library's
(a `@contextmanager` yielding inside one, a decorator wrapping the call in
one, a function returning one) or one through another project function that
does, to the same depth.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from joblint.index import returns
from joblint.index.flags import FALSE_FLAG, PASSED_ON, TRUE_FLAG, UNKNOWN_PASSING
from joblint.knowledge import jobs, requests, retries, work
from joblint.knowledge.payloads import PAYLOAD_SHAPES
from joblint.models import (
    FileResult,
    FunctionSummary,
    ModuleIndex,
    ProjectCall,
    RowUse,
    ServiceRegistration,
    TaskDecorator,
)

if TYPE_CHECKING:
    from joblint.libraries.job_work import SideEffect
    from joblint.pipeline.project import ProjectIndex

# How many calls deep a chain may go (a view -> a service -> a mailer -> ...).
MAX_HOPS = 6
# How deep `CallGraph._forwards` follows hand-overs before it gives up
# (unremembered): well past the hops a finding may take.
_FORWARD_DEPTH = 4 * MAX_HOPS
# What `joblint.index.signals` calls the function a factory returns.
RETURNED_BY_FACTORY = "<returned>"
# How many names a call's qualified name may be followed through (re-exports,
# instances, bases) before it is taken to mean no summarised function.
_MAX_RESOLVE_STEPS = 24
# Helpers returning another helper's result, followed to the class of what they return.
_RETURN_HOPS = MAX_HOPS
_TASK_RECEIVERS = frozenset({jobs.Receiver.TASK, jobs.Receiver.TASK_LIKE, jobs.Receiver.ANY})
# The task classes whose methods run as a bound task, and each library's
# option that binds a decorated function (`bind=True`).
_TASK_BASES = {base: r.library for r in retries.TASK_RETRIES for base in r.task_bases}
_BIND_KEYWORDS = {
    r.library: r.method.bind_keyword
    for r in retries.TASK_RETRIES
    if r.method is not None and r.method.bind_keyword
}


# What ends a chain: the enqueue, or the side effect.
_End = TypeVar("_End")


@dataclass(frozen=True, slots=True)
class Hop:
    """A function on the way to the enqueue, and the call it makes next."""

    function: str  # qualified name
    path: str
    call: ProjectCall

    def step(self) -> str:
        """What happens at this hop: "`notify()` calls `mail.send()`"."""
        caller = self.function.rsplit(".", 1)[-1]
        return f"{caller}() calls {self.call.shown()}"


@dataclass(frozen=True, slots=True)
class Enqueued:
    """The enqueue at the end of a chain."""

    library: str
    subject: str  # "Celery task 'send_receipt'"


def hops_text(hops: tuple[Hop, ...]) -> str:
    """`notify() → mail.send() at shop/notify.py:12 → send.delay() at shop/mail.py:30`."""
    first = hops[0].function.rsplit(".", 1)[-1]
    steps = [f"{first}()"]
    steps.extend(f"{hop.call.shown()} at {hop.path}:{hop.call.line}" for hop in hops)
    return " → ".join(steps)


@dataclass(frozen=True, slots=True)
class Chain:
    hops: tuple[Hop, ...]
    enqueued: Enqueued
    # No hops: the call is the enqueue, on the queue object a project
    # function makes (`make_queue("mail").enqueue(...)`); this says which.
    made: str = ""

    def text(self) -> str:
        return hops_text(self.hops) if self.hops else self.made


@dataclass(frozen=True, slots=True)
class EffectChain:
    """The calls from a job's call to a side effect (none: the call is one)."""

    hops: tuple[Hop, ...]
    effect: SideEffect
    call: ProjectCall  # the side effect's own call

    def text(self) -> str:
        """`notify() → mail.send_mail() at shop/notify.py:12`."""
        return hops_text(self.hops) if self.hops else f"{self.call.text}()"


@dataclass(slots=True)
class CallGraph:
    index: ProjectIndex
    functions: dict[str, tuple[FunctionSummary, str]] = field(default_factory=dict)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    instances: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    # Each loaded module's index, by the path of its file.
    by_path: dict[str, ModuleIndex] = field(default_factory=dict)
    enqueue_functions: frozenset[str] = frozenset()
    task_decorators: dict[str, TaskDecorator] = field(default_factory=dict)
    # The services the loaded modules register with a service locator.
    services: list[ServiceRegistration] = field(default_factory=list)
    _modules: set[str] = field(default_factory=set)
    _chains: dict[tuple[str, str, _Flags], Chain | None] = field(default_factory=dict)
    _uncommitted: dict[tuple[str, str, _Flags], Chain | None] = field(default_factory=dict)
    _opens: dict[str, bool] = field(default_factory=dict)
    # Function -> the calls of it the loaded functions make (built when first asked).
    _callers: dict[str, list[Hop]] | None = None
    # Signal -> the names connected to it (built when first asked).
    _receivers: dict[str, list[str]] | None = None
    # Command name -> the loaded modules defining it (built when first asked).
    _commands: dict[str, list[str]] | None = None
    # What each name resolves to, and every name it was looked up as (the
    # graph doesn't change once built; a project step resolves each call many times).
    # By qualified name and the return hops left (`_resolve_within`).
    _resolved: dict[tuple[str, int], tuple[str | None, frozenset[str]]] = field(
        default_factory=dict
    )

    @classmethod
    def build(
        cls,
        results: Iterable[FileResult],
        index: ProjectIndex,
        enqueue_functions: frozenset[str] = frozenset(),
    ) -> CallGraph:
        graph = cls(index, enqueue_functions=enqueue_functions)
        for result in results:
            module = result.index
            # A file's own result comes first: a re-linted file's new index wins
            # over the one the run read before.
            if module is None or result.path in graph.by_path:
                continue
            graph.by_path[result.path] = module
            for summary in module.functions:
                graph.functions[summary.qualname] = (summary, result.path)
            graph.classes.update(module.classes)
            graph.instances.update(module.instances)
            graph.aliases.update(module.aliases)
            graph.task_decorators.update((d.qualname, d) for d in module.task_decorators)
            graph.services.extend(module.services)
        return graph

    def resolve(self, qualname: str, tried: set[str] | None = None) -> str | None:
        """The summarised function a call's qualified name means, if any
        (`tried`: gets every name it was looked up as)."""
        found, seen = self._resolve_within(qualname, _RETURN_HOPS)
        if tried is not None:
            tried |= seen
        return found

    def _resolve_within(self, qualname: str, hops: int) -> tuple[str | None, frozenset[str]]:
        """`resolve` following helpers' returns at most `hops` deep. Every
        nested look-up has fewer hops left, so a helper that returns a call
        of itself (`return f.apply(...)` in `f`) or a cycle of them ends."""
        key = (qualname, hops)
        known = self._resolved.get(key)
        if known is None:
            seen: set[str] = set()
            known = self._resolved[key] = (self._resolve(qualname, seen, hops), frozenset(seen))
        return known

    def _resolve(self, qualname: str, seen: set[str], hops: int) -> str | None:
        todo = [qualname]
        while todo and len(seen) < _MAX_RESOLVE_STEPS:
            name = todo.pop(0)
            if name in seen:
                continue
            seen.add(name)
            if name in self.functions:
                return name
            alias = self.aliases.get(name)
            if alias is not None:
                todo.append(alias)
                continue
            owner, _, attribute = name.rpartition(".")
            if not owner:
                continue
            owner = self.aliases.get(owner, owner)
            service = self._service_class(owner, hops, seen)  # `request.find_service(...).send()`
            if service is not None:
                todo.append(f"{service}.{attribute}")
                continue
            made_by = self.instances.get(owner)  # `mailer.send()` on `mailer = Mailer()`
            if made_by is not None:
                todo.append(f"{made_by}.{attribute}")
            returned = self._returned_class(owner, hops)  # `load(pk).cancel()`
            if returned is None and hops > 0 and owner not in self.functions:
                # What a method returns (`kind = registry.add_kind(...)`, then
                # `kind.commit()`): the method found first, then its return.
                method = self._resolve_within(owner, hops - 1)[0]
                if method is not None and method != owner:
                    returned = self._returned_class(method, hops - 1)
            if returned is not None:
                todo.append(f"{returned}.{attribute}")
            if owner != name.rpartition(".")[0]:
                # The class an alias names defines the method before its bases do.
                todo.append(f"{owner}.{attribute}")
            todo.extend(f"{base}.{attribute}" for base in self.classes.get(owner, ()))
        return None

    def returns_known(self, function: str) -> bool:
        """Whether every `return` of the summarised `function` gives a value
        of a kind the project model knows: a library's fetch of rows (a
        queryset, a row), an instance of a class, what a library's call
        makes. A method called on it that no summary tells is then the
        library's (`build().exclude()`, `search().aggs.metric()`)."""
        summary = self.functions.get(function)
        if summary is None or not summary[0].returns:
            return False
        return all(
            fact.how in (returns.ROW, returns.ROWS)
            or (
                fact.how == returns.CALL
                and (self._class_of(fact.name) or not self.index.in_project(fact.name))
            )
            for fact in summary[0].returns
            if not fact.key
        )

    def _returned_class(self, function: str, hops: int) -> str | None:
        """The class every return of a summarised function gives an instance
        of (a manager's row, a constructor, another such function's result,
        followed `hops` deep); None when they disagree or any is something else."""
        summary = self.functions.get(function)
        if summary is None or hops == 0:
            return None
        found: set[str | None] = set()
        for fact in summary[0].returns:
            if fact.key:
                continue
            if fact.how == returns.ROW or (fact.how == returns.CALL and self._class_of(fact.name)):
                found.add(fact.name)  # a manager's row, a new instance, a library's queue
            elif fact.how == returns.CALL:
                target = self._resolve_within(fact.name, hops - 1)[0]
                found.add(self._returned_class(target, hops - 1) if target else None)
            else:
                found.add(None)
        only = next(iter(found)) if len(found) == 1 else None
        return only

    def _service_class(self, owner: str, hops: int, seen: set[str]) -> str | None:
        """The class of the service a find keyed `owner` returns (a
        `requests.service_key`), when the registrations it may find agree on
        one; `seen` gets the names looked up on the way (a factory no loaded
        module defines: its module is read)."""
        key = requests.service_of(owner)
        if key is None or hops == 0:
            return None
        found = {self._service_made(r, hops, seen) for r in self._registrations(*key)}
        return next(iter(found)) if len(found) == 1 else None

    def _registrations(self, interface: str, name: str) -> list[ServiceRegistration]:
        """The registrations a find keyed (`interface`, `name`) may return:
        the same name, and the same interface unless the find names none."""
        wanted = self.index.canonical(interface) if interface else ""
        return [
            r
            for r in self.services
            if r.name == name
            and (not wanted or self.index.canonical(r.interface) == wanted)
            and (wanted or not r.interface or requests.SERVICE_ANY_INTERFACE)
        ]

    def _service_made(
        self, registration: ServiceRegistration, hops: int, seen: set[str]
    ) -> str | None:
        """The class of what a registration gives a find: the registered
        instance's, the factory class itself, or the class every return of
        the factory function makes."""
        made = self.index.canonical(self.aliases.get(registration.made, registration.made))
        if registration.instance:
            made = self.instances.get(made) or self.index.instances.get(made) or made
        if made in self.classes:
            return made
        target, tried = self._resolve_within(made, hops - 1)
        seen |= tried
        return self._returned_class(target, hops - 1) if target is not None else None

    def _class_of(self, made: str) -> bool:
        """Whether calling `made` makes an instance of it: a project class,
        or a library's queue object (`rq.Queue`, `django_rq.get_queue`)."""
        return made in self.classes or jobs.queue_constructor_library(made) is not None

    def made_queue_library(self, name: str) -> str | None:
        """The library of the queue object a project function makes, when
        `name` is bound to its call (`queue = make_queue("mail")`)."""
        found = self._queue_maker(name)
        return jobs.queue_constructor_library(found[1]) if found is not None else None

    def _queue_maker(self, owner: str) -> tuple[str, str] | None:
        """The project function that makes the library queue object `owner`
        is, and the queue's constructor: `owner` is such a function
        (`make_queue`), or a module-level name bound to its call (`queue =
        make_queue("mail")`)."""
        maker = self.instances.get(owner) or self.index.instances.get(owner)
        for candidate in (owner, maker):
            target = self.resolve(candidate) if candidate else None
            made = self._returned_class(target, _RETURN_HOPS) if target else None
            if target and made and jobs.queue_constructor_library(made) is not None:
                return target, made
        return None

    # --- transactions ------------------------------------------------------------

    def opens_transaction(self, qualname: str) -> bool:
        """Whether calling `qualname` (`with it():`, `@it`, `@it(...)`) opens a transaction."""
        return self._opens_within(qualname, MAX_HOPS)

    def _opens_within(self, qualname: str, depth: int) -> bool:
        found = self.resolve(qualname) or self._enter_method(qualname)
        if found is None or depth == 0:
            return False
        if found in self._opens:
            return self._opens[found]
        self._opens[found] = False  # a cycle opens nothing
        opens = self.functions[found][0].opens
        result = opens is not None and (
            not opens.via or any(self._opens_within(via, depth - 1) for via in opens.via)
        )
        self._opens[found] = result
        return result

    def _enter_method(self, qualname: str) -> str | None:
        """The `__enter__` (or `__aenter__`) `with Cls():` runs, when `qualname` is a class."""
        if not self.is_class(qualname):
            return None
        for method in sorted(jobs.ENTER_METHODS):
            found = self.resolve(f"{qualname}.{method}")
            if found is not None:
                return found
        return None

    # --- enqueues ----------------------------------------------------------------

    def callees_at(self, path: str, line: int, text: str) -> list[str]:
        """What the call written `text` at `line` of the file at `path` calls,
        as the file's index qualifies it (through imports, locals' types, `self.`)."""
        return sorted({call.callee for call in self._calls_at(path, line, text)})

    def _calls_at(self, path: str, line: int, text: str) -> list[ProjectCall]:
        """The calls written `text` at `line` of the file at `path`, as its index records them."""
        module = self.by_path.get(path)
        if module is None:
            return []
        found = {
            call
            for summary in module.functions
            for call in summary.calls
            if call.line == line and call.text == text
        }
        return sorted(found, key=lambda call: call.callee)

    def chain_at(self, path: str, line: int, text: str, uncommitted: bool = False) -> Chain | None:
        """The chain from the call written `text` at `line` of `path` to an
        enqueue (`uncommitted`: see `chain`)."""
        for call in self._calls_at(path, line, text):
            made = self._made_by(call.callee)
            enqueued = self.enqueued_by(call, path) if made else None
            found = Chain((), enqueued, made) if enqueued is not None else None
            found = found or self.chain(call.callee, path, uncommitted, call)
            if found is not None:
                return found
        return None

    def _made_by(self, method: str) -> str:
        """`make_queue() at shop/jobs.py:4 returns Queue()` when `method` is a
        method of the queue object a project function makes, else ""."""
        owner = self.index.canonical(method.rpartition(".")[0])
        found = self._queue_maker(owner)
        if found is None:
            return ""
        function, made = found
        summary, where = self.functions[function]
        return f"{short_name(function)}() at {where}:{summary.line} returns {short_name(made)}()"

    def chain(
        self, qualname: str, path: str, uncommitted: bool = False, call: ProjectCall | None = None
    ) -> Chain | None:
        """The shortest chain of calls from `qualname` to an enqueue (settings
        that apply to the file at `path` may make a library's enqueue
        transactional). `uncommitted`: only through calls each function on
        the way makes before a commit of its own (after one, what the caller
        wrote is committed). `call`: the call of it, whose flags say which of
        its calls are made."""
        start = self.resolve(qualname)
        if start is None:
            return None
        flags = self._bound(start, call, {})
        key = (start, path, tuple(sorted(flags.items())))
        chains = self._uncommitted if uncommitted else self._chains
        if key not in chains:
            chains[key] = self._search(start, path, uncommitted, flags)
        return chains[key]

    def _search(
        self, start: str, path: str, uncommitted: bool, flags: dict[str, bool]
    ) -> Chain | None:
        def calls_of(summary: FunctionSummary) -> tuple[ProjectCall, ...]:
            return _before_commit(summary) if uncommitted else summary.calls

        def ends(call: ProjectCall) -> Enqueued | None:
            return self.enqueued_by(call, path)

        found = self._breadth_first(start, calls_of, ends, flags)
        return Chain(*found) if found is not None else None

    def _breadth_first(
        self,
        start: str,
        calls_of: Callable[[FunctionSummary], tuple[ProjectCall, ...]],
        ends: Callable[[ProjectCall], _End | None],
        flags: dict[str, bool] | None = None,
    ) -> tuple[tuple[Hop, ...], _End] | None:
        """The shortest chain of calls from the function `start` to a call
        `ends` says ends it (with what it says), through the calls
        `calls_of` gives of each function on the way that its flags let run
        (`flags`: those of `start`), at most `MAX_HOPS` deep and never round
        a cycle."""
        frontier: list[tuple[str, tuple[Hop, ...], dict[str, bool]]] = [(start, (), flags or {})]
        seen = {start}
        for _ in range(MAX_HOPS):
            following: list[tuple[str, tuple[Hop, ...], dict[str, bool]]] = []
            for name, hops, known in frontier:
                summary, where = self.functions[name]
                calls = [c for c in calls_of(summary) if _runs(c, known)]
                for call in calls:
                    end = ends(call)
                    if end is not None:
                        return (*hops, Hop(name, where, call)), end
                for call in calls:
                    callee = self.resolve(call.callee)
                    if callee is not None and callee not in seen:
                        seen.add(callee)
                        step = (*hops, Hop(name, where, call))
                        following.append((callee, step, self._bound(callee, call, known)))
            frontier = following
        return None

    def runs_after(self, function: str, call: ProjectCall, then: ProjectCall) -> bool:
        """Whether `function`, called by `call`, makes its call `then`: the
        flags `call` passes may rule it out (`f(save=False)` and `if save:`)."""
        return _runs(then, self._bound(function, call, {}))

    def _bound(
        self, function: str, call: ProjectCall | None, known: dict[str, bool]
    ) -> dict[str, bool]:
        """The truth of `function`'s parameters that `call` of it fixes
        (`known`: the caller's): the literals it passes, the caller's flags it
        hands on, and the literal defaults of those it passes nothing for,
        where nothing else (`*args`, `**kwargs`, positions that can't be told
        apart) may pass them."""
        if call is None:
            return {}
        summary = self.functions[function][0]
        names = _positions(summary, call.text)
        passed = dict(call.flags)
        positional = any(key.isdigit() for key in passed)
        found: dict[str, bool] = {}
        if UNKNOWN_PASSING not in passed and (names is not None or not positional):
            found.update(summary.defaults)
        for key, value in call.flags:
            if key == UNKNOWN_PASSING:
                continue
            name = key
            if key.isdigit():
                at = int(key)
                if names is None or at >= len(names):
                    continue
                name = names[at]
            truth = _truth(value, known)
            if truth is None:
                found.pop(name, None)
            else:
                found[name] = truth
        return found

    # --- side effects ------------------------------------------------------------

    def effect_chain_at(self, path: str, line: int, text: str) -> EffectChain | None:
        """The chain from the call written `text` at `line` of `path` to a
        side effect no function on the way claims first (`FunctionSummary.claims`)."""
        for call in self._calls_at(path, line, text):
            effect = self.effect_of(call)
            if effect is not None:
                return EffectChain((), effect, call)
            start = self.resolve(call.callee)
            found = self._effect_search(start) if start is not None else None
            if found is not None:
                return found
        return None

    def _effect_search(self, start: str) -> EffectChain | None:
        def calls_of(summary: FunctionSummary) -> tuple[ProjectCall, ...]:
            return () if summary.claims else summary.calls  # what it does, it does once

        found = self._breadth_first(start, calls_of, self.effect_of)
        if found is None:
            return None
        hops, effect = found
        return EffectChain(hops, effect, hops[-1].call)

    def effect_of(self, call: ProjectCall) -> SideEffect | None:
        """The side effect `call` has, unless it passes an idempotency key:
        a library's call, or a method of a module-level object one of its
        makers made (`ses = boto3.client("ses")` ... `ses.send_email()`)."""
        if call.idempotent:
            return None
        qualname = self.index.canonical(call.callee)
        found = work.effect_of(qualname)
        if found is not None:
            return found
        owner, _, method = qualname.rpartition(".")
        maker = self.instances.get(owner) or self.index.instances.get(owner)
        return work.effect_of(f"{maker}.{method}") if maker else None

    def enqueued_by(self, call: ProjectCall, path: str) -> Enqueued | None:
        """The job `call` enqueues, when the project says it is an enqueue."""
        index = self.index
        qualname = index.canonical(call.callee)
        if qualname in self.enqueue_functions:
            return Enqueued("user", f"'{qualname.rsplit('.', 1)[-1]}'")
        library = jobs.ENQUEUE_FUNCTIONS.get(qualname) or jobs.queue_method_library(qualname)
        if library is not None:
            return self._unless_transactional(library, "", path)
        owner, _, method = qualname.rpartition(".")
        shapes = jobs.ENQUEUE_METHODS.get(method, ())
        if owner and shapes and self.deferred(qualname):
            return None
        if owner and shapes:
            found = self._method_enqueue(index.canonical(owner), method, path)
            if found is not None:
                return found
        library = index.task_library(qualname)
        if library is not None and library in jobs.ENQUEUE_ON_CALL_LIBRARIES:
            return self._unless_transactional(library, short_name(qualname), path)
        return None

    def _method_enqueue(self, owner: str, method: str, path: str) -> Enqueued | None:
        index = self.index
        library = index.task_library(owner)
        if library is not None:
            for shape in jobs.ENQUEUE_METHODS.get(method, ()):
                if shape.receiver not in _TASK_RECEIVERS:
                    continue
                # A task whose library the project can't tell: the method names it.
                unknown = not library and shape.receiver is jobs.Receiver.TASK_LIKE
                if library in shape.libraries or unknown:
                    return self._unless_transactional(library, short_name(owner), path)
        # A queue object the project binds, or one a project function makes.
        queue = index.queue_objects.get(owner) or self.made_queue_library(owner)
        if queue is not None and jobs.enqueues_on_queue(queue, method):
            return self._unless_transactional(queue, "", path)
        return None

    def deferred(self, enqueue: str) -> bool:
        """Whether the enqueue method `enqueue` (`shop.tasks.send.delay`) of a
        project task is deferred to COMMIT by the class the task is built on
        (`@app.task(base=OnCommitTask)` whose `apply_async` registers on commit)."""
        task, _, method = self.index.canonical(enqueue).rpartition(".")
        return any(
            self._registers_on_commit(f"{cls}.{name}")
            for cls, names in self._task_classes(task, method)
            for name in names
        )

    def defers_argument(self, function: str, position: str, keyword: str) -> bool:
        """Whether the project function `function` hands the argument a call
        passes at `position` (a digit string, "" for none) or as `keyword`
        to an on-commit hook (`def on_commit_delay(func): transaction.on_commit(func)`)."""
        found = self.resolve(function)
        if found is None:
            return False
        summary = self.functions[found][0]
        if not summary.defers:
            return False
        if keyword:
            return keyword in summary.defers
        parameters = list(summary.parameters)
        if parameters[:1] and parameters[0] in ("self", "cls"):
            parameters = parameters[1:]  # a method called on its instance or class
        index = int(position) if position.isdigit() else -1
        return 0 <= index < len(parameters) and parameters[index] in summary.defers

    # --- payloads -----------------------------------------------------------------

    def hands_to_payload(
        self, function: str, position: str, keyword: str
    ) -> tuple[Hop, ...] | None:
        """How the project function `function` hands the argument a call
        passes it at `position` (a digit string, "" for none) or as `keyword`
        on to an enqueue's payload: the hops, the last one's call the enqueue
        (itself, or through the project functions it passes it to)."""
        return self._handing(function, position, keyword, MAX_HOPS, set())

    def _handing(
        self, function: str, position: str, keyword: str, depth: int, seen: set[str]
    ) -> tuple[Hop, ...] | None:
        found = self.resolve(function)
        if found is None or found in seen or depth == 0:
            return None
        seen.add(found)
        summary, path = self.functions[found]
        parameter = _parameter_at(summary, position, keyword)
        if parameter is None:
            return None
        for call in summary.calls:
            direct = [place for place, value in call.flags if value == PASSED_ON + parameter]
            held = [place for place, name in call.held if name == parameter]
            if not direct and not held:
                continue
            hop = Hop(found, path, call)
            if self.enqueued_by(call, path) is not None:
                if _in_payload(call.callee, direct, held):
                    return (hop,)
                continue
            for place in direct:
                at, named = (place, "") if place.isdigit() else ("", place)
                rest = self._handing(call.callee, at, named, depth - 1, seen)
                if rest is not None:
                    return (hop, *rest)
        return None

    def payload_forwarders(self) -> dict[str, frozenset[tuple[str, str]]]:
        """The names (last part) of the loaded functions that hand one of
        their parameters on to a job's payload, themselves or through others
        (`hands_to_payload`), each with the places a caller passes such a
        parameter at ((position, ""), ("", keyword)): their callers may pass
        them a live object there."""
        found: dict[str, set[tuple[str, str]]] = {}
        known: dict[tuple[str, str], bool] = {}
        for function, (summary, _) in self.functions.items():
            handed = {value[len(PASSED_ON) :] for call in summary.calls for _, value in call.flags}
            handed |= {name for call in summary.calls for _, name in call.held}
            handed.discard("")
            parameters = [p for p in summary.parameters if p not in ("self", "cls")]
            short = function.rsplit(".", 1)[-1]
            for parameter in sorted(handed):
                if parameter in parameters:
                    at = str(parameters.index(parameter))
                    if self._forwards(function, at, "", known, set())[0]:
                        found.setdefault(short, set()).update({(at, ""), ("", parameter)})
                elif self._forwards(function, "", parameter, known, set())[0]:
                    found.setdefault(short, set()).add(("", parameter))
        return {name: frozenset(places) for name, places in found.items()}

    def _forwards(
        self,
        function: str,
        position: str,
        keyword: str,
        known: dict[tuple[str, str], bool],
        active: set[tuple[str, str]],
    ) -> tuple[bool, bool]:
        """`hands_to_payload` as yes or no, each function's parameter searched
        once for all the callers asking (`known`): whether it hands the
        argument on, and whether that answer holds everywhere (a search cut
        short by a function already being searched is not remembered). It may
        say yes where `hands_to_payload`'s hop limit would not: it only
        chooses the callers to read, and each finding is checked with
        `hands_to_payload` itself."""
        found = self.resolve(function)
        if found is None:
            return False, True
        summary, path = self.functions[found]
        parameter = _parameter_at(summary, position, keyword)
        if parameter is None:
            return False, True
        key = (found, parameter)
        if key in known:
            return known[key], True
        if key in active or len(active) > _FORWARD_DEPTH:
            return False, False
        active.add(key)
        exact = True
        try:
            for call in summary.calls:
                direct = [place for place, value in call.flags if value == PASSED_ON + parameter]
                held = [place for place, name in call.held if name == parameter]
                if not direct and not held:
                    continue
                if self.enqueued_by(call, path) is not None:
                    if _in_payload(call.callee, direct, held):
                        known[key] = True
                        return True, True
                    continue
                for place in direct:
                    at, named = (place, "") if place.isdigit() else ("", place)
                    hands, sure = self._forwards(call.callee, at, named, known, active)
                    if hands:
                        known[key] = True
                        return True, True
                    exact = exact and sure
        finally:
            active.discard(key)
        if exact:
            known[key] = False
        return False, exact

    def model_use(self, task: str, position: str, keyword: str) -> tuple[str, int, str] | None:
        """Where the task `task` uses the argument an enqueue passes it at
        `position` or as `keyword` as a model instance: (path, line, how it reads)."""
        found = self.resolve(task)
        if found is None:
            return None
        summary, path = self.functions[found]
        parameter = _parameter_at(summary, position, keyword)
        use = next((u for u in summary.model_uses if u[0] == parameter), None)
        return (path, use[1], use[2]) if use is not None else None

    def row_use(self, task: str, position: str, keyword: str) -> RowUse | None:
        """What the task `task` does with the row whose key an enqueue passes
        it at `position` or as `keyword`, where it loads that row itself
        (its loads and writes by that key, merged)."""
        found = self.resolve(task)
        if found is None:
            return None
        summary = self.functions[found][0]
        parameter = _parameter_at(summary, position, keyword)
        uses = [u for u in summary.row_uses if u.parameter == parameter]
        if not uses:
            return None
        return RowUse(
            uses[0].parameter,
            next((u.model for u in uses if u.model), ""),
            uses[0].line,
            tuple(sorted({f for u in uses for f in u.reads})),
            tuple(sorted({f for u in uses for f in u.writes})),
            any(u.saves_all for u in uses),
            any(u.handed_on for u in uses),
        )

    def deferral_methods(self, enqueue: str) -> set[str]:
        """The task and the methods of its class `deferred` looks up: what it
        needs loaded."""
        task, _, method = self.index.canonical(enqueue).rpartition(".")
        found = {task}
        for cls, names in self._task_classes(task, method):
            found.update(f"{cls}.{name}" for name in names)
        return found

    def _task_classes(self, task: str, method: str) -> Iterable[tuple[str, tuple[str, ...]]]:
        """The classes the task is built on, each with its methods that decide
        the enqueue `method`: its decorator's `base=`, else its app's default."""
        found = self.resolve(task)
        if found is None:
            return
        decorators = self.functions[found][0].decorators
        for decorator in decorators:
            for keyword, value in decorator.names:
                names = jobs.TASK_CLASS_OPTIONS.get(keyword, {}).get(method)
                if names:
                    yield value, names
        path = self.functions[found][1]
        for option in jobs.APP_TASK_CLASS_OPTIONS:
            names = jobs.TASK_CLASS_OPTIONS[option.keyword].get(method)
            for decorator in decorators:
                # `task = app.task` in the app's module: `@task` is the app's.
                root = self._decorator_root(decorator.qualname, decorator.called)
                via, fixed = root if root is not None else (decorator.qualname, {})
                named = {k for k, _ in (*decorator.names, *decorator.options)} | fixed.keys()
                default = self._app_task_class(via, option, path)
                if names and default is not None and option.keyword not in named:
                    yield default, names

    def _app_task_class(
        self, decorator: str, option: jobs.TaskClassOption, path: str
    ) -> str | None:
        """The class the app whose decorator `decorator` is (`app.task`)
        builds tasks on by default; for a decorator of every app
        (`shared_task`, in the file at `path`), the one class the apps of the
        task's project name (the apps whose top-level package sits in a
        directory holding the task's file)."""
        defaults = self.index.app_task_classes
        if decorator in option.shared_decorators:
            classes = {
                cls for cls, root in defaults.values() if not root or path.startswith(f"{root}/")
            }
            return next(iter(classes)) if len(classes) == 1 else None
        app = decorator.rpartition(".")[0]
        found = defaults.get(self.index.canonical(app)) if app else None
        return found[0] if found is not None else None

    def _registers_on_commit(self, qualname: str) -> bool:
        found = self.resolve(qualname)
        return found is not None and self.functions[found][0].on_commit

    def _unless_transactional(self, library: str, name: str, path: str) -> Enqueued | None:
        """None where the project's settings make the library's queue part of the
        transaction (django-q's ORM broker)."""
        flag = jobs.TRANSACTIONAL_WHEN_FLAG.get(library)
        if flag is not None and self.index.flag_set(flag, path):
            return None
        return Enqueued(library, jobs.job_subject(library, name))

    def reports_in(self, path: str) -> bool:
        """Whether a call the file at `path` makes inside a transaction (a
        library's, or one a project callable opens) enqueues a job or leads to
        an enqueue: then the rules that follow calls run on it."""
        in_transaction = any(
            self._inside_opened(call)
            and (self.enqueued_by(call, path) is not None or self.chain(call.callee, path))
            for call in self._transaction_calls(path)
        )
        return in_transaction or any(
            self.enqueued_by(call, path) is not None or self.chain(call.callee, path, True)
            for call in self._commit_calls(path)
        )

    def transaction_callees(self, path: str) -> set[str]:
        """What the file at `path` calls inside transactions (and the project
        callables that may open them) or before a commit in the same
        function: what `reports_in` needs loaded."""
        found: set[str] = set()
        for call in self._transaction_calls(path):
            found.add(call.callee)
            found.update(call.transaction or ())
        found.update(call.callee for call in self._commit_calls(path))
        return found

    def _commit_calls(self, path: str) -> list[ProjectCall]:
        """The calls outside transactions the file at `path` makes before a
        later commit in the same function (JL102's)."""
        module = self.by_path.get(path)
        if module is None:
            return []
        return [
            call
            for summary in module.functions
            if summary.commits
            for call in summary.calls
            if call.transaction is None and call.line < max(summary.commits)
        ]

    def callees(self, path: str) -> set[str]:
        """Everything the file at `path` calls that may be the project's code."""
        module = self.by_path.get(path)
        if module is None:
            return set()
        return {call.callee for summary in module.functions for call in summary.calls}

    def openers(self) -> set[str]:
        """The unqualified names of the loaded functions that open a transaction
        (for an `__enter__` that does, its class's: `with Cls():` names that)."""
        found = set()
        for name, (summary, _) in self.functions.items():
            if summary.opens is not None and self.opens_transaction(name):
                owner, _, last = name.rpartition(".")
                found.add(owner.rsplit(".", 1)[-1] if last in jobs.ENTER_METHODS else last)
        return found

    def _transaction_calls(self, path: str) -> Iterable[ProjectCall]:
        module = self.by_path.get(path)
        if module is None:
            return ()
        return [c for s in module.functions for c in s.calls if c.transaction is not None]

    def touches(self, task: str, models: frozenset[str]) -> bool:
        """Whether the function `task` (through the project's calls) reads or
        writes one of `models`, or can't be told: it isn't loaded, it is a
        stub, or it calls project code the loaded modules don't summarise."""
        start = self.resolve(task)
        if start is None or self.functions[start][0].stub:
            return True
        prefixes = tuple(f"{self.index.canonical(m)}." for m in models)

        def ends(call: ProjectCall) -> bool | None:
            callee = self.index.canonical(call.callee)
            if callee.startswith(prefixes) or callee in models:
                return True
            unknown = self.resolve(call.callee) is None and (
                self.index.in_project(callee) or requests.names_service(callee)
            )
            return True if unknown and not self.of_a_class(callee) else None

        return self._breadth_first(start, lambda summary: summary.calls, ends) is not None

    def of_a_class(self, callee: str) -> bool:
        """A call of or on a class the project knows, not an unknown function:
        `Vat.objects.get` (a model of another table), `NotFound(...)` (an
        exception it raises), `View.form.validate` (an object a class holds
        in an attribute, of a type no summary tells)."""
        parts = callee.split(".")
        return any(self.is_class(".".join(parts[:end])) for end in range(2, len(parts) + 1))

    def is_class(self, name: str) -> bool:
        """Whether `name` (a re-export, too) is a class the project knows."""
        name = self._through_imports(name)
        return (
            name in self.classes or name in self.index.classes or bool(self.index.class_kinds(name))
        )

    def _through_imports(self, name: str) -> str:
        """The name a re-export stands for, through the imports of the
        modules read with facts and of those only indexed."""
        seen = {name}
        while len(seen) < _MAX_RESOLVE_STEPS:
            target = self.index.canonical(self.aliases.get(name, name))
            if target in seen:
                return target
            seen.add(target)
            name = target
        return name

    def signal_receivers(self, call: ProjectCall) -> list[str]:
        """The functions a call of a signal's send method runs, as the loaded
        modules connect them (`joblint.index.signals`); [] for any other call."""
        owner, _, method = call.callee.rpartition(".")
        if method not in requests.SEND_METHODS or not owner:
            return []
        if self._receivers is None:
            self._receivers = self._connected()
        handlers = self._receivers.get(self.index.canonical(owner), ())
        found: list[str] = []
        for handler in handlers:
            found.extend(self.connected_functions(handler))
        return sorted(set(found))

    def command_handlers(self, call: ProjectCall) -> list[str]:
        """The handlers a command runner's call runs (`call_command("x")`: the
        `Command.handle` of each loaded `<app>.management.commands.x`; one,
        unless apps share the name, when Django runs the first app's); [] for
        any other call."""
        if not call.command:
            return []
        if self._commands is None:
            self._commands = {}
            for module in sorted(m.module for m in self.by_path.values()):
                name = requests.command_name(module)
                if name:
                    self._commands.setdefault(name, []).append(module)
        modules = self._commands.get(call.command, ())
        return [f for m in modules if (f := self.resolve(requests.command_handler(m)))]

    def _connected(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for module in self.by_path.values():
            for signal, handler, _ in module.connections:
                found.setdefault(self.index.canonical(signal), []).append(handler)
        return found

    def connected_functions(self, handler: str) -> list[str]:
        """What a connected name is: a summarised function, or for a
        factory's result the functions the factory defines."""
        factory, _, tail = handler.rpartition(".")
        if tail == RETURNED_BY_FACTORY:
            start = self.resolve(factory)
            if start is None:
                return []
            nested = f"{start}.<locals>."
            return [
                name
                for name in self.functions
                if name.startswith(nested) and "." not in name[len(nested) :]
            ]
        resolved = self.resolve(handler)
        return [resolved] if resolved is not None else []

    def inside_transaction(self, call: ProjectCall) -> bool:
        """Whether the call is made inside a transaction: a library's, or one
        a project callable (or a framework's hook) opens."""
        return self._inside_opened(call)

    def _inside_opened(self, call: ProjectCall) -> bool:
        via = call.transaction
        return via is not None and (
            not via or any(self.opens_transaction(q) or self._runs_hooks(q) for q in via)
        )

    def _runs_hooks(self, qualname: str, depth: int = MAX_HOPS) -> bool:
        """Whether `qualname` is a class whose hooks a framework runs in its
        own transaction (a project's admin base): through the bases the
        loaded indexes give, or the class index."""
        if qualname in jobs.ATOMIC_HOOKS or self.index.class_kinds(qualname) & jobs.HOOK_KINDS:
            return True
        bases = self.classes.get(self.aliases.get(qualname, qualname), ())
        return depth > 0 and any(self._runs_hooks(base, depth - 1) for base in bases)

    # --- task decorators the project builds, and the tasks they bind ------------

    def task_decorator(self, qualname: str, called: bool = False) -> TaskDecorating | None:
        """What `@qualname` (`@qualname(...)` when `called`) registers: the
        library's task ("" for an app's task method on an object the project
        doesn't tell) and the options the project's decorators on the way fix
        (the nearest wins, as a `partial`'s call overrides it). None: no task
        decorator, as far as the loaded modules tell."""
        found = self._decorator_root(qualname, called)
        if found is None:
            return None
        name, options = found
        library = jobs.TASK_DECORATORS.get(name)
        if library is not None:
            return TaskDecorating(library, options)
        owner, _, method = name.rpartition(".")
        if not owner or method not in jobs.TASK_DECORATOR_METHODS or self._defined(name):
            return None
        return TaskDecorating(self._app_library(owner), options)

    def _decorator_root(self, qualname: str, called: bool) -> tuple[str, dict[str, str]] | None:
        """What `@qualname` is built from, followed through the project's
        stored decorators and aliases (`task = app.task`): the name reached,
        and the options fixed on the way (the nearest wins). None: a stored
        decorator called with options, or a cycle."""
        options: dict[str, str] = {}
        name = qualname
        seen: set[str] = set()
        while name not in seen and len(seen) < _MAX_RESOLVE_STEPS:
            seen.add(name)
            if name in jobs.TASK_DECORATORS:
                return name, options
            built = self.task_decorators.get(name)
            if built is not None:
                if called and not built.takes_options:
                    return None  # a stored decorator takes only the function
                for key, value in built.options:
                    options.setdefault(key, value)
                name = built.via
                continue
            alias = self.aliases.get(name) or self.index.aliases.get(name)
            if alias is None:
                return name, options
            name = alias
        return None

    def _defined(self, name: str) -> bool:
        """A function, class or other module-level name of a loaded module:
        not an app's task method."""
        if self.resolve(name) is not None or name in self.classes:
            return True
        if not self._modules:
            self._modules.update(module.module for module in self.by_path.values())
        return name.rpartition(".")[0] in self._modules

    def _app_library(self, owner: str) -> str:
        """The library of the app object `owner` names ("" when not known)."""
        owner = self.index.canonical(self.aliases.get(owner, owner))
        library = self.index.queue_objects.get(owner)
        if library is None:
            library = jobs.QUEUE_CONSTRUCTORS.get(self.instances.get(owner, ""))
        return library or ""

    def passing_task(
        self, helper: str, parameter: tuple[str, ...], libraries: frozenset[str]
    ) -> Hop | None:
        """A bound task of one of `libraries` that passes itself to the
        function `helper` at `parameter` ((position, name)): the call it makes."""
        target = self.resolve(helper)
        if target is None:
            return None
        for caller, (summary, path) in sorted(self.functions.items()):
            for call in summary.calls:
                if not call.receiver_at or call.receiver_at not in parameter:
                    continue
                if self.resolve(call.callee) == target and self._bound_task(caller, libraries):
                    return Hop(caller, path, call)
        return None

    def claiming_caller(self, helper: str, uses: frozenset[str]) -> Hop | None:
        """A function that calls `helper` and claims what it returns (its
        `ProjectCall.result_use` is one of `uses`): the call it makes."""
        target = self.resolve(helper)
        if target is None:
            return None
        for caller, (summary, path) in sorted(self.functions.items()):
            for call in summary.calls:
                if call.result_use in uses and self.resolve(call.callee) == target:
                    return Hop(caller, path, call)
        return None

    def job_reaching(self, function: str) -> tuple[Hop, ...] | None:
        """The calls from the nearest task (fewest calls up, at most
        `MAX_HOPS`) down to the project function `function`; None when no
        task of the loaded modules reaches it."""
        start = self.resolve(function)
        if start is None:
            return None
        frontier: list[tuple[str, tuple[Hop, ...]]] = [(start, ())]
        seen = {start}
        for _ in range(MAX_HOPS):
            following: list[tuple[str, tuple[Hop, ...]]] = []
            for name, hops in frontier:
                for hop in self._callers_of(name):
                    step = (hop, *hops)
                    if self.runs_as_job(hop.function):
                        return step
                    if hop.function not in seen:
                        seen.add(hop.function)
                        following.append((hop.function, step))
            frontier = following
        return None

    def callers_decorators(self, function: str) -> set[str]:
        """The decorators of the functions calling `function`, up to
        `MAX_HOPS` calls up: what telling whether one is a task needs loaded."""
        start = self.resolve(function)
        found: set[str] = set()
        frontier = [start] if start is not None else []
        seen = set(frontier)
        for _ in range(MAX_HOPS):
            callers = {hop.function for name in frontier for hop in self._callers_of(name)}
            found.update(use.qualname for c in callers for use in self.functions[c][0].decorators)
            frontier = sorted(callers - seen)
            seen |= callers
        return found

    def runs_as_job(self, function: str) -> bool:
        """A task: a function a job library's decorator (or the project's task
        decorator) registers, or a method of a library's task class."""
        if self.index.task_library(function) is not None:
            return True
        summary = self.functions[function][0]
        for use in summary.decorators:
            if self.task_decorator(use.qualname, use.called) is not None:
                return True
        owner = function.rpartition(".")[0]
        return owner in self.classes and self._task_class_library(owner) is not None

    def _callers_of(self, function: str) -> list[Hop]:
        if self._callers is None:
            found: dict[str, list[Hop]] = {}
            for name in sorted(self.functions):
                summary, path = self.functions[name]
                for call in summary.calls:
                    target = self.resolve(call.callee)
                    if target is not None and target != name:
                        found.setdefault(target, []).append(Hop(name, path, call))
            self._callers = found
        return self._callers.get(function, [])

    def retrying_helper(self, function: str, text: str, position: str) -> Hop | None:
        """The call written `text` in `function` of a helper that retries the
        task it is handed at `position` (`FunctionSummary.retries_handed`)."""
        found = self.functions.get(function)
        if found is None:
            return None
        summary, path = found
        for call in summary.calls:
            if call.text != text:
                continue
            target = self.resolve(call.callee)
            if target is not None and position in self.functions[target][0].retries_handed:
                return Hop(function, path, call)
        return None

    def _bound_task(self, function: str, libraries: frozenset[str]) -> bool:
        """A method of one of the libraries' task classes, or a function one of
        their task decorators registers with the binding option set."""
        owner = function.rpartition(".")[0]
        if owner in self.classes and self._task_class_library(owner) in libraries:
            return True
        keywords = {_BIND_KEYWORDS.get(library, "") for library in libraries} - {""}
        for use in self.functions[function][0].decorators:
            found = self.task_decorator(use.qualname, use.called)
            if found is None or found.library not in libraries:
                continue
            options = {**found.options, **dict(use.options)}
            if any(options.get(keyword) == "True" for keyword in keywords):
                return True
        return False

    def _task_class_library(self, qualname: str) -> str | None:
        todo = [qualname]
        seen: set[str] = set()
        while todo and len(seen) < _MAX_RESOLVE_STEPS:
            base = todo.pop(0)
            name = self.index.canonical(self.aliases.get(base, base))
            if name in seen:
                continue
            seen.add(name)
            if name in _TASK_BASES:
                return _TASK_BASES[name]
            todo.extend(self.classes.get(name, ()))
        return None

    def unresolved_decorators(self, qualnames: Iterable[str]) -> set[str]:
        """The project names on the way from the decorators `qualnames` that
        no loaded module tells: the modules that may define them are read."""
        missing: set[str] = set()
        for qualname in qualnames:
            name = qualname
            seen: set[str] = set()
            while name not in seen and len(seen) < _MAX_RESOLVE_STEPS:
                seen.add(name)
                built = self.task_decorators.get(name)
                alias = self.aliases.get(name) or self.index.aliases.get(name)
                if name in jobs.TASK_DECORATORS:
                    break
                if built is not None or alias is not None:
                    name = built.via if built is not None else str(alias)
                    continue
                if not jobs.may_be_project_code(name) or self.resolve(name) is not None:
                    break
                owner, _, method = name.rpartition(".")
                if method in jobs.TASK_DECORATOR_METHODS and self._app_library(owner):
                    break
                # A module-level name of a module not read yet, or an app's
                # method (`shop.celery.app.task`): the module may tell.
                missing.add(name)
                break
        return missing

    def helper_callers(self, helper: str) -> set[str]:
        """The decorators of the functions passing their first parameter to
        `helper`: what telling whether they are bound tasks needs loaded."""
        target = self.resolve(helper)
        found: set[str] = set()
        for summary, _ in self.functions.values():
            if any(c.receiver_at and self.resolve(c.callee) == target for c in summary.calls):
                found.update(use.qualname for use in summary.decorators)
        return found

    # --- what to load ------------------------------------------------------------

    def unresolved(self, qualnames: Iterable[str]) -> set[str]:
        """The names the calls on the way from `qualnames` were looked up as
        when they mean no loaded module's function: the modules that may
        define them are read on demand."""
        missing: set[str] = set()
        for _ in self._reachable(qualnames, missing):
            pass
        return missing

    def unknown_receivers(self, qualnames: Iterable[str]) -> set[str]:
        """Receivers of possible enqueues on the way from the calls `qualnames`
        (`x.delay()`) that the project's tasks and queue objects don't tell
        apart yet (one walk for them all: what each reaches within the bound)."""
        starts = set(qualnames)
        wanted: set[str] = set()
        for qualname in starts:  # the call may be an enqueue itself
            wanted |= self._unknown_receiver(qualname)
        for name in self._reachable(starts, set()):
            for call in self.functions[name][0].calls:
                wanted |= self._unknown_receiver(call.callee)
        return wanted

    def lookups(self, qualnames: Iterable[str]) -> tuple[set[str], set[str]]:
        """`unresolved` and `unknown_receivers` of the calls `qualnames`, in one walk."""
        starts = set(qualnames)
        missing: set[str] = set()
        receivers: set[str] = set()
        for qualname in starts:
            receivers |= self._unknown_receiver(qualname)
        for name in self._reachable(starts, missing):
            for call in self.functions[name][0].calls:
                receivers |= self._unknown_receiver(call.callee)
        return missing, receivers

    def _unknown_receiver(self, callee: str) -> set[str]:
        owner, _, method = callee.rpartition(".")
        if owner and method in jobs.ENQUEUE_METHODS:
            return self.index.unknown(owner)
        return set()

    def _reachable(self, qualnames: Iterable[str], missing: set[str]) -> Iterable[str]:
        """The summarised functions `qualnames` mean and those they call, up
        to `MAX_HOPS` deep; `missing` gets the names of calls that mean none."""
        seen: set[str] = set()
        frontier: list[str] = []
        for qualname in qualnames:
            self._step(qualname, seen, frontier, missing)
        for _ in range(MAX_HOPS + 1):
            following: list[str] = []
            for name in frontier:
                yield name
                for call in self.functions[name][0].calls:
                    self._step(call.callee, seen, following, missing)
            frontier = following

    def _step(self, qualname: str, seen: set[str], frontier: list[str], missing: set[str]) -> None:
        tried: set[str] = set()
        found = self.resolve(qualname, tried)
        if found is None:
            missing |= tried
        elif found not in seen:
            seen.add(found)
            frontier.append(found)


@dataclass(frozen=True, slots=True)
class TaskDecorating:
    """What a task decorator registers: its library's task ("" when the
    project doesn't tell which), with the options the decorators fix."""

    library: str
    options: dict[str, str]


def _parameter_at(summary: FunctionSummary, position: str, keyword: str) -> str | None:
    """The parameter of the function an argument at `position` or named
    `keyword` binds (a method's own `self`/`cls` is not passed)."""
    if keyword:
        return keyword
    parameters = list(summary.parameters)
    if parameters[:1] and parameters[0] in ("self", "cls"):
        parameters = parameters[1:]
    index = int(position) if position.isdigit() else -1
    return parameters[index] if 0 <= index < len(parameters) else None


def _in_payload(callee: str, direct: list[str], held: list[str]) -> bool:
    """Whether an enqueue's argument at one of the places `direct` (the value
    itself) or `held` (inside a display there) is in the job's payload."""
    method = callee.rsplit(".", 1)[-1]
    shape = PAYLOAD_SHAPES.get(method) or PAYLOAD_SHAPES["__call__"]
    containers = {shape.args_keyword, shape.kwargs_keyword} - {""}
    positions = {shape.args_position, shape.kwargs_position}

    def passed(place: str, inside: bool) -> bool:
        if place.isdigit():
            index = int(place)
            if index in positions:
                return inside
            return shape.rest_is_payload and index >= shape.skip_positional
        if place in containers:
            return inside
        reserved = place in shape.reserved or bool(
            shape.reserved_prefix and place.startswith(shape.reserved_prefix)
        )
        return shape.rest_is_payload and not reserved

    return any(passed(p, False) for p in direct) or any(passed(p, True) for p in held)


def _before_commit(summary: FunctionSummary) -> tuple[ProjectCall, ...]:
    """The calls a function makes before its first commit (all, with none)."""
    if not summary.commits:
        return summary.calls
    first = min(summary.commits)
    return tuple(call for call in summary.calls if call.line < first)


def short_name(qualname: str) -> str:
    """A qualified name's last part: how a message names a function."""
    return qualname.rsplit(".", 1)[-1]


_Flags = tuple[tuple[str, bool], ...]
_INSTANCE_PARAMETERS = ("self", "cls")


def _runs(call: ProjectCall, known: dict[str, bool]) -> bool:
    """Whether the flags known let the call be made (`if flag:` around it)."""
    return all(known.get(name, need) == need for name, need in call.guard)


def _truth(value: str, known: dict[str, bool]) -> bool | None:
    """What a call passes, as a flag's truth (None: not known)."""
    if value == TRUE_FLAG:
        return True
    if value == FALSE_FLAG:
        return False
    if value.startswith(PASSED_ON):
        return known.get(value[len(PASSED_ON) :])
    return None


def _positions(summary: FunctionSummary, text: str) -> tuple[str, ...] | None:
    """The parameters a call written `text` passes its positional arguments
    to: past `self` on an instance (`order.cancel(False)`) and past `cls`;
    None where that can't be told (a method called on its class)."""
    parameters = summary.parameters
    if not parameters or parameters[0] not in _INSTANCE_PARAMETERS:
        return parameters
    receiver = text.rpartition(".")[0].rpartition(".")[2]
    instance = receiver.endswith(")") or (bool(receiver) and not receiver[0].isupper())
    return parameters[1:] if parameters[0] == "cls" or instance else None
