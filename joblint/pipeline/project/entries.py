"""Which functions run inside a request's transaction: the request handlers
the project's modules define (`Entry`, read by `joblint.index.entries`)
whose framework the project's settings make transactional (Django's
`ATOMIC_REQUESTS`, Pyramid's `pyramid_tm`), and every function they reach
through the project's calls (a management command's handler through
`call_command("name")`, too). A call made inside a transaction of its own
(`with atomic():`) is not followed: the finding at that call covers it; a
call deferred to COMMIT is no call at all (the index leaves it out)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from joblint.knowledge import requests
from joblint.libraries import django, pyramid
from joblint.models import HOOK_AROUND, HOOK_SETTING, Entry, ProjectCall, Related, RequestHook, Span
from joblint.pipeline.project.call_graph import MAX_HOPS, CallGraph, Hop, hops_text
from joblint.pipeline.project.settings_scope import below, project_directory

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

_MAX_BASE_DEPTH = 8
# The subclasses of a mixin looked at for one deriving from a view.
_MAX_SUBCLASSES = 200


@dataclass(frozen=True, slots=True)
class Handler:
    """A request handler whose framework runs it inside the request's transaction."""

    entry: Entry
    path: str
    framework: str
    how: str

    # The class whose method it is ("" for a function).
    owner: str = ""
    # What commits its session after it returns, where that, not a settings
    # flag, makes it a transaction (a FastAPI dependency, a Flask teardown, a
    # middleware): path, line, and how a related location says so.
    committer: tuple[str, int, str] | None = None

    @property
    def name(self) -> str:
        method = self.entry.qualname.rsplit(".", 1)[-1]
        return f"{self.owner.rsplit('.', 1)[-1]}.{method}" if self.owner else method


@dataclass(frozen=True, slots=True)
class Reach:
    """How a function runs inside a transaction nobody wrote around it: the
    request handler reaching it (or the signal sent inside a transaction),
    and the calls from there down to the function (none: it is the handler)."""

    handler: Handler | None
    hops: tuple[Hop, ...]
    settings: tuple[str, ...] = ()  # the paths of the settings that turn it on
    # A receiver of a signal the framework sends inside its own transaction:
    # the connection (path, line) and the words naming that transaction.
    sent: tuple[str, int, str] | None = None

    @property
    def framework(self) -> str:
        """Whose transaction it is ("" where that can't be told)."""
        if self.handler is not None:
            return self.handler.framework
        return "django" if self.sent is not None else ""

    def text(self) -> str:
        """`a django-ninja operation (shop/api.py:12) run inside the
        request's transaction (ATOMIC_REQUESTS)`, or for a function it calls
        `which checkout(), a view run inside ..., calls: checkout() → ...`."""
        handler = self.handler
        if self.sent is not None:
            path, line, own = self.sent
            opens = f"the transaction it opens for {own}"
            said = f"connected at {path}:{line}, which Django sends inside {opens}"
            return f"{said}: {hops_text(self.hops)}" if self.hops else said
        if handler is None:
            first = self.hops[0]
            caller = first.function.rsplit(".", 1)[-1]
            where = f"{first.path}:{first.call.line}"
            return f"which {caller}() runs inside a transaction at {where}: {hops_text(self.hops)}"
        runs = requests.FRAMEWORK_TRANSACTIONS[handler.framework]
        if not self.hops:
            return f"{handler.how} ({handler.path}:{handler.entry.line}) run {runs}"
        return f"which {handler.name}(), {handler.how} run {runs}, calls: {hops_text(self.hops)}"

    def related(self) -> tuple[Related, ...]:
        found: list[Related] = []
        handler = self.handler
        if handler is not None:
            entry = handler.entry
            runs = requests.FRAMEWORK_TRANSACTIONS[handler.framework]
            found.append(Related(handler.path, _line(entry.line), f"{handler.name}() runs {runs}"))
            if entry.route and entry.route != entry.line:
                found.append(Related(handler.path, _line(entry.route), "its route"))
        if self.sent is not None:
            path, line, own = self.sent
            found.append(Related(path, _line(line), f"connected here; sent inside {own}"))
        if handler is not None and handler.committer is not None:
            path, line, said = handler.committer
            found.append(Related(path, _line(line), said))
        found.extend(Related(hop.path, _line(hop.call.line), hop.step()) for hop in self.hops)
        found.extend(
            Related(path, _line(1), "the settings that turn it on") for path in self.settings
        )
        return tuple(found)


# A caller: its name, its file, the call, whether the call is made inside a
# transaction, and whether it is a signal's send (to the receiver it calls).
_Caller = tuple[str, str, ProjectCall, bool, bool]


@dataclass(frozen=True, slots=True)
class _Committing:
    """A function registered after or around request handlers that commits
    once they have returned (or a setting doing so)."""

    framework: str  # whose (`RequestHook.framework`)
    root: str  # the project directory of the module registering it: its handlers
    of: str  # the blueprint whose handlers alone it runs after ("" for all)
    where: tuple[str, int, str]  # path, line, how a related location says it


@dataclass(slots=True)
class RequestReach:
    """The request handlers of the loaded modules, and what they reach."""

    graph: CallGraph
    index: ProjectIndex
    _handlers: dict[str, list[Handler]] | None = None
    _callers: dict[str, list[_Caller]] | None = None
    _reached: dict[str, Reach | None] = field(default_factory=dict)
    _own_sent: dict[str, tuple[str, int, str]] | None = None
    _aliases: dict[str, str] | None = None
    _non_atomic: frozenset[str] | None = None
    _subclasses: dict[str, list[str]] | None = None
    _hooks: dict[str, list[_Committing]] | None = None

    def reached(self, qualname: str) -> Reach | None:
        """The nearest handler (fewest calls away) reaching the function `qualname`."""
        start = self.graph.resolve(qualname)
        if start is None:
            return None
        if start not in self._reached:
            self._reached[start] = self._search(start)
        return self._reached[start]

    def _search(self, start: str) -> Reach | None:
        """Breadth first, up the callers: a request handler, or a call inside
        a transaction on the way to a signal's send (a call inside one that
        reaches the function through plain calls has its own finding)."""
        handlers, callers = self._handlers_by_function(), self._callers_by_function()
        own_sent = self._own_transaction_receivers()
        # An async function runs only where it is awaited: in an async
        # handler of a framework that may run one inside a transaction.
        functions = self.graph.functions
        awaited = functions[start][0].asynchronous
        # Each function, the calls from it down to `start`, and whether a
        # signal's send is among them.
        frontier: list[tuple[str, tuple[Hop, ...], bool]] = [(start, (), False)]
        seen = {start}
        for depth in range(MAX_HOPS + 1):
            following: list[tuple[str, tuple[Hop, ...], bool]] = []
            for function, hops, signalled in frontier:
                found = handlers.get(function, [])
                if awaited and not functions[function][0].asynchronous:
                    found = []
                if found:
                    handler = found[0]
                    return Reach(handler, hops, self._settings(handler))
                sent = own_sent.get(function)
                if sent is not None:
                    return Reach(None, hops, sent=sent)
                if depth == MAX_HOPS:
                    continue
                for caller, where, call, inside, sends in callers.get(function, ()):
                    if hops and not self.graph.runs_after(function, call, hops[0].call):
                        continue  # the flags this call passes rule the next one out
                    step = (Hop(caller, where, call), *hops)
                    if inside:
                        if signalled or sends:
                            return Reach(None, step)
                        continue
                    if caller not in seen:
                        seen.add(caller)
                        following.append((caller, step, signalled or sends))
            frontier = following
        return None

    def called_inside_transaction(self, qualname: str) -> tuple[str, int, str] | None:
        """The nearest call made inside a library's transaction (fewest calls
        up) that leads, through plain calls, to the function `qualname`:
        where it is, and the name of the function making it."""
        start = self.graph.resolve(qualname)
        if start is None:
            return None
        callers = self._callers_by_function()
        frontier, seen = [start], {start}
        for _ in range(MAX_HOPS):
            following: list[str] = []
            for function in frontier:
                for caller, where, call, inside, _sends in callers.get(function, ()):
                    if inside:
                        return where, call.line, _short(caller)
                    if caller not in seen:
                        seen.add(caller)
                        following.append(caller)
            frontier = following
        return None

    def committed_before(self, reach: Reach, function: str, line: int) -> bool:
        """A function on the way commits the request's session itself
        (`db.commit()`) before its call on the way to the enqueue, or the
        enqueue's own `function` before the enqueue (`line`): the request's
        COMMIT holds nothing the job may need that was written before."""
        if reach.handler is None:
            return False
        steps = [(hop.function, hop.call.line) for hop in reach.hops]
        if not steps:
            steps = [(reach.handler.entry.qualname, line)]
        steps.append((function, line))
        graph = self.graph
        for name, cutoff in steps:
            found = graph.resolve(name)
            if found is not None and any(c < cutoff for c in graph.functions[found][0].commits):
                return True
        return False

    def depends(self, reach: Reach, task: str) -> bool:
        """Whether the job can depend on the request's transaction: it is
        another kind of reach (a signal's), the task's body is not known,
        what the request writes can't be told, or the task reads or writes
        a class the request writes. A request writing nothing, or nothing
        the task touches, races no job."""
        if reach.handler is None:
            return True
        return self.handler_depends(reach.handler.entry.qualname, task, reach.handler.framework)

    def handler_depends(self, handler: str, task: str, framework: str = "") -> bool:
        """`depends`, for the request handler `handler` enqueuing `task` ("":
        a job whose body isn't the project's to read). A request writing
        nothing races no job, whatever its body; one whose writes can be
        told races a job whose body reads or writes one of those classes,
        and any job whose body can't be read."""
        graph = self.graph
        function = graph.resolve(handler)
        if function is None:
            return True
        if not framework:
            found = self._handlers_by_function().get(function)
            framework = found[0].framework if found else ""
        fields_written = framework in requests.FIELD_SETS_WRITE
        written = self._written_under(function, fields_written)
        if written is None:
            return True
        if not written:
            return False
        start = graph.resolve(task) if task else None
        if start is None or graph.functions[start][0].stub:
            return True
        return graph.touches(task, frozenset(written))

    def _written_under(self, function: str, fields_written: bool) -> set[str] | None:
        """The classes the function and everything it calls write, or None
        where a write names none (`fields_written`: a field set is a write)
        or a call leads to a function of the project no summary tells. A
        call on an object of a type no summary tells (a library's object a
        module holds, an attribute of a class) writes only where its method
        is a write's (the summary's blind write)."""
        graph = self.graph
        found: set[str] = set()
        seen, todo = {function}, [function]
        for _ in range(MAX_HOPS):
            following: list[str] = []
            for name in todo:
                summary, path = graph.functions[name]
                if summary.blind_writes or (fields_written and summary.field_sets):
                    return None
                if self._writes_through_super(name, summary.super_calls):
                    return None  # the form's, view's or serializer's model
                # A form's or serializer's `save()` is no write of its own
                # class: the call is followed into the overrides it runs.
                writes = tuple(w for w in summary.writes if not self._saves_by_overrides(w))
                found.update(writes)
                for call in summary.calls:
                    if _written_owner_call(call.callee, writes):
                        continue
                    if graph.enqueued_by(call, path) is not None:
                        continue  # a job: it writes nothing of the request's
                    callees = self._callees(call) or graph.signal_receivers(call)
                    if not callees:
                        callee = self.index.canonical(call.callee)
                        if _on_the_request(callee):
                            continue  # the framework's request object: it reads
                        owner, _, method = callee.rpartition(".")
                        if requests.writes_rows(method, owner.rpartition(".")[2]):
                            return None  # `session.add(row)`, `self.form.save()`: unnamed
                        if self._unknown_project_function(callee):
                            return None
                        continue
                    for callee in callees:
                        if callee not in seen:
                            seen.add(callee)
                            following.append(callee)
            todo = following
        return None if todo else found

    def _writes_through_super(self, function: str, methods: tuple[str, ...]) -> bool:
        """A method calling, through `super()`, a library base's method that
        writes (`super().form_valid(form)` in a `CreateView`)."""
        owner = function.rpartition(".")[0]
        return any(
            method in django.SUPER_WRITES and self._derives(owner, django.SUPER_WRITES[method])
            for method in methods
        )

    def _saves_by_overrides(self, owner: str) -> bool:
        """The class is a library's saving class whose `save()` runs methods
        the project overrides (a DRF serializer's `create`/`update`)."""
        return self._derives(owner, tuple(django.CALLS_OVERRIDES))

    def _unknown_project_function(self, callee: str) -> bool:
        """A call of the project's code no loaded summary tells: not one on a
        class (`of_a_class`), on a task (`send.chunks(...)`), on what a
        function returns where it is of a known kind (`build().exclude`), on
        a module's object (`name = Maker()`) the project didn't write
        (`_ = TranslationStringFactory("h")`), nor a built-in value's method
        that changes nothing (`.items()`); a method of a service no loaded
        registration tells is one."""
        index, graph = self.index, self.graph
        if requests.names_service(callee):
            return True  # a service no loaded registration tells: the project's
        if not index.in_project(callee) or graph.of_a_class(callee):
            return False
        if callee.rpartition(".")[2] in requests.PURE_METHODS:
            return False  # `validate(data).items()`: a built-in value's, whatever it is
        parts = callee.split(".")
        for end in range(2, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if index.canonical(prefix) in index.tasks:
                return False  # a task's method (`send.chunks(...)`)
            returning = graph.resolve(prefix) if end < len(parts) else None
            if returning is not None:
                # A method of what the function returns: the library's where
                # the return is a known kind, else a type no summary tells.
                return not graph.returns_known(returning)
            maker = index.instances.get(prefix) or graph.instances.get(prefix)
            if maker is not None and not index.in_project(index.canonical(maker)):
                return False
            if prefix in index.constants:
                return False
        return True

    def _own_transaction_receivers(self) -> dict[str, tuple[str, int, str]]:
        """Functions connected to a signal the framework sends inside its own
        transaction (a receiver a factory builds, too): where, and which."""
        if self._own_sent is None:
            found: dict[str, tuple[str, int, str]] = {}
            graph = self.graph
            for path in sorted(graph.by_path):
                for signal, handler, line in graph.by_path[path].connections:
                    own = requests.OWN_TRANSACTION_SIGNALS.get(self.index.canonical(signal))
                    if own is None:
                        continue
                    for function in graph.connected_functions(handler):
                        found.setdefault(function, (path, line, own))
            self._own_sent = found
        return self._own_sent

    def _settings(self, handler: Handler) -> tuple[str, ...]:
        flag = requests.FRAMEWORK_FLAGS.get(handler.framework)
        if flag is None:
            return ()
        scopes = self.index.scopes
        setters = self.index.flags.get(flag, ())
        return tuple(
            sorted({s.path for s in setters if scopes.applies(s, handler.path) and s.path})
        )

    def _callers_by_function(self) -> dict[str, list[_Caller]]:
        """Who calls each function, and who sends a signal each receiver is
        connected to; inside a transaction or not."""
        if self._callers is None:
            found: dict[str, list[_Caller]] = {}
            graph = self.graph
            for name in sorted(graph.functions):
                summary, where = graph.functions[name]
                for call in summary.calls:
                    inside = graph.inside_transaction(call)
                    for receiver in graph.signal_receivers(call):
                        found.setdefault(receiver, []).append((name, where, call, inside, True))
                    for callee in self._callees(call):
                        if callee != name:
                            found.setdefault(callee, []).append((name, where, call, inside, False))
            for callers in found.values():
                callers.sort(key=lambda c: (not c[3], c[1], c[2].line))
            self._callers = found
        return self._callers

    def _callees(self, call: ProjectCall) -> list[str]:
        """What a call runs of the project's: the function it resolves to, or
        where it names a library method calling overridable ones (DRF's
        `serializer.save()`), the project class's overrides, or for a
        command runner's (`call_command("x")`), the command's handler."""
        graph = self.graph
        if call.command:
            return graph.command_handlers(call)
        resolved = graph.resolve(call.callee)
        if resolved is not None:
            return [resolved]
        owner, _, method = call.callee.rpartition(".")
        found: list[str] = []
        model, _, manager = owner.rpartition(".")
        if manager in requests.MODEL_MANAGERS and model:
            # `Order.objects.create(...)` runs the model's own `save()`.
            for name in requests.MANAGER_CALLS_INSTANCE.get(method, ()):
                resolved = graph.resolve(f"{model}.{name}")
                if resolved is not None:
                    found.append(resolved)
        for prefix, calls in django.CALLS_OVERRIDES.items():
            overrides = calls.get(method, ())
            if overrides and self._derives(owner, (prefix,)):
                found.extend(f for m in overrides if (f := graph.resolve(f"{owner}.{m}")))
        return found

    def _handlers_by_function(self) -> dict[str, list[Handler]]:
        if self._handlers is None:
            found: dict[str, list[Handler]] = {}
            for path in sorted(self.graph.by_path):
                for entry in self.graph.by_path[path].entries:
                    handler = self._handler(entry, path)
                    function = self.graph.resolve(entry.qualname) if handler else None
                    if handler is not None and function is not None:
                        found.setdefault(function, []).append(handler)
            self._handlers = found
        return self._handlers

    def _handler(self, entry: Entry, path: str) -> Handler | None:
        """The entry as a handler whose request is a transaction, if it is one."""
        framework, how = entry.framework, entry.how
        index = self.index
        if entry.needs == "router":
            made = index.instances.get(index.canonical(entry.of)) or self.graph.instances.get(
                index.canonical(entry.of), ""
            )
            handlers = requests.ROUTERS.get(made)
            if handlers is None:
                return None
            framework, how = handlers.framework, handlers.how
        elif entry.needs == "decorator":
            stands_for = self.registering_decorator(entry.of)
            if not stands_for:
                return None
            handlers = requests.DECORATORS[stands_for]
            framework, how = handlers.framework, handlers.how
        elif entry.needs == "url":
            view = index.canonical(entry.of)
            if not any(index.canonical(r) == view for r in index.url_views):
                return None
        elif entry.needs == "class" and not self._derives(entry.of, entry.bases):
            inheriting = self._inheriting_view(entry.of, entry.bases, entry.qualname)
            if inheriting is None:
                return None
            how = f"a method of the {self._kind_of_view(inheriting)} {_short(inheriting)}"
        owner = entry.qualname.rpartition(".")[0]
        owner = owner if owner in self.graph.classes else ""
        if framework in requests.DEPENDENCY_FRAMEWORKS:
            dependency = self._committing_dependency(entry)
            if dependency is not None:
                return Handler(entry, path, framework, how, owner, dependency)
        hooked = self._committing_hook(entry, path, framework)
        if hooked is not None:
            return Handler(entry, path, hooked.framework, how, owner, hooked.where)
        if framework in requests.DEPENDENCY_FRAMEWORKS or framework in requests.HOOKED_BY:
            return None
        if entry.asynchronous:
            return None  # Django runs async views outside ATOMIC_REQUESTS
        if framework == django.FRAMEWORK and owner and self._outside_request_transactions(owner):
            return None
        flag = requests.FRAMEWORK_FLAGS.get(framework)
        if flag is None or not index.flag_set(flag, path):
            return None
        return Handler(entry, path, framework, how, owner)

    def _committing_dependency(self, entry: Entry) -> tuple[str, int, str] | None:
        """The first of the handler's dependencies that yields and commits
        after its `yield` (`Annotated` aliases followed): where, and its name."""
        graph = self.graph
        if self._aliases is None:
            self._aliases = {
                alias: target
                for module in graph.by_path.values()
                for alias, target in module.dependency_aliases
            }
        for name in entry.depends:
            target = self._aliases.get(self.index.canonical(name), name)
            function = graph.resolve(target)
            if function is None:
                continue
            summary, path = graph.functions[function]
            if summary.commits_after_yield:
                name = function.rsplit(".", 1)[-1]
                return path, summary.line, f"{name}() commits after the handler returns"
        return None

    def _committing_hook(self, entry: Entry, path: str, framework: str) -> _Committing | None:
        """The first hook committing after the handler: one of a framework
        running after this framework's handlers, registered in the handler's
        project directory, for every handler or for its own blueprint."""
        if framework not in requests.HOOKED_BY:
            return None
        for hook in self._committing_hooks().get(framework, ()):
            if not below(path, hook.root):
                continue
            if hook.of and self.index.canonical(entry.of) != hook.of:
                continue
            return hook
        return None

    def _committing_hooks(self) -> dict[str, list[_Committing]]:
        """The hooks that commit after the handlers, by the framework of the
        handlers they run after."""
        if self._hooks is None:
            found: dict[str, list[_Committing]] = {}
            graph = self.graph
            for path in sorted(graph.by_path):
                module = graph.by_path[path]
                for hook in module.hooks:
                    where = self._commits_after(hook, path)
                    if where is None:
                        continue
                    root = project_directory(path, module.module)
                    committing = _Committing(hook.framework, root, self._blueprint(hook.of), where)
                    for handled, hooked in requests.HOOKED_BY.items():
                        if hook.framework in hooked:
                            found.setdefault(handled, []).append(committing)
            self._hooks = found
        return self._hooks

    def _commits_after(self, hook: RequestHook, path: str) -> tuple[str, int, str] | None:
        """Where the hook commits after the handler returned, if it does: a
        setting's line, a function committing anywhere in it, a middleware
        (its `dispatch`, `__call__`, or the function itself) committing
        after it ran the handler."""
        if hook.kind == HOOK_SETTING:
            return path, hook.line, f"{hook.target} commits the session after the handler returns"
        graph = self.graph
        names = [hook.target]
        if hook.kind == HOOK_AROUND:
            names.extend(f"{hook.target}.{m}" for m in requests.MIDDLEWARE_METHODS)
        for name in names:
            function = graph.resolve(self.index.canonical(name))
            if function is None:
                continue
            summary, where = graph.functions[function]
            if hook.kind == HOOK_AROUND:
                committing = self._middleware_commit(function)
            elif summary.commits and self._settings_set(summary.commit_settings, path):
                committing = function  # not only under a setting's test it never sets
            else:
                committing = None
            if committing is not None:
                line = graph.functions[committing][0].line
                said = f"{committing.rsplit('.', 1)[-1]}() commits after the handler returns"
                return where, line, said
        return None

    def _middleware_commit(self, function: str) -> str | None:
        """The function committing after a middleware ran the handler: the
        middleware's, after its call of the next app, or a function it
        defines (a `send` wrapper committing at the response's start)."""
        functions = self.graph.functions
        summary = functions[function][0]
        if summary.commits_after_handing_on:
            return function
        if not summary.hands_on:
            return None
        nested = f"{function}.<locals>."
        return next(
            (f for f, (s, _) in functions.items() if f.startswith(nested) and s.commits), None
        )

    def _settings_set(self, settings: tuple[str, ...], path: str) -> bool:
        """Whether a module of the project of the file at `path` sets one of
        the commit settings (none asked: yes)."""
        if not settings:
            return True
        return any(
            hook.kind == HOOK_SETTING
            and hook.target in settings
            and below(path, project_directory(where, module.module))
            for where, module in self.graph.by_path.items()
            for hook in module.hooks
        )

    def _blueprint(self, of: str) -> str:
        """`of`, canonical, where it is a blueprint (its hooks run after its
        own handlers alone); "" where it is an app or not known."""
        if not of:
            return ""
        name = self.index.canonical(of)
        made = self.index.instances.get(name) or self.graph.instances.get(name, "")
        return name if made in requests.BLUEPRINTS else ""

    def registering_decorator(self, qualname: str) -> str:
        """The framework decorator the project's decorator factory `qualname`
        stands for ("" for none): a function returning it or doing its work
        (`FunctionSummary.registers`), or a class whose `__call__` does, or
        that derives from it."""
        graph = self.graph
        name = self.index.canonical(graph.aliases.get(qualname, qualname))
        function = graph.resolve(name)
        if function is not None:
            return graph.functions[function][0].registers
        call = graph.resolve(f"{name}.__call__")
        if call is not None and graph.functions[call][0].registers:
            return graph.functions[call][0].registers
        return next((d for d in requests.DECORATORS if self._derives(name, (d,))), "")

    def _kind_of_view(self, qualname: str) -> str:
        return "model admin" if self._derives(qualname, django.ADMIN_CLASSES) else "view"

    def _inheriting_view(self, mixin: str, bases: tuple[str, ...], method: str) -> str | None:
        """Of the loaded classes deriving from `bases` (a view, a model admin)
        and from the mixin, whose requests run inside the request's
        transaction, the first by name of those calling the mixin's `method`
        themselves, else of them all: the mixin's methods are those views'
        (`class AssetAdmin(ReportMixin, ModelAdmin)` runs
        `ReportMixin.report(self, request, queryset)` as an admin action)."""
        if self._subclasses is None:
            found: dict[str, list[str]] = {}
            for name, direct in self.graph.classes.items():
                for base in direct:
                    found.setdefault(self.index.canonical(base), []).append(name)
            self._subclasses = found
        todo, seen = [self.index.canonical(mixin)], set[str]()
        views: list[str] = []
        while todo and len(seen) < _MAX_SUBCLASSES:
            name = todo.pop()
            for subclass in self._subclasses.get(name, ()):
                if subclass in seen:
                    continue
                seen.add(subclass)
                if not self._derives(subclass, bases):
                    todo.append(self.index.canonical(subclass))
                elif not self._outside_request_transactions(subclass):
                    views.append(subclass)
        if not views:
            return None
        function = self.graph.resolve(method)
        callers = self._callers_by_function().get(function or method, ())
        calling = {caller.rpartition(".")[0] for caller, *_ in callers}
        return min((v for v in views if v in calling), default=min(views))

    def _outside_request_transactions(self, owner: str) -> bool:
        """The view class is, or derives from, one marked
        `non_atomic_requests` as a whole (a mixin's `dispatch`)."""
        if self._non_atomic is None:
            self._non_atomic = frozenset(
                self.index.canonical(name)
                for module in self.graph.by_path.values()
                for name in module.non_atomic_classes
            )
        marked = self._non_atomic
        if not marked:
            return False
        return self.index.canonical(owner) in marked or self._derives(
            owner, (), lambda base: self.index.canonical(base) in marked
        )

    def _derives(
        self,
        qualname: str,
        prefixes: tuple[str, ...],
        matches: Callable[[str], bool] | None = None,
    ) -> bool:
        """Whether the class derives, through the bases the project shows,
        from a class whose qualified name starts with one of `prefixes` (or
        that `matches`)."""
        todo, seen = [qualname], {qualname}
        for _ in range(_MAX_BASE_DEPTH):
            following: list[str] = []
            for name in todo:
                name = self.index.canonical(name)
                facts = self.index.classes.get(name)
                bases = self.graph.classes.get(name) or (facts.bases if facts else ())
                for base in bases:
                    if (prefixes and base.startswith(prefixes)) or (matches and matches(base)):
                        return True
                    if base not in seen:
                        seen.add(base)
                        following.append(base)
            todo = following
        return False


def _on_the_request(callee: str) -> bool:
    """`self.request.route_url()`, `request.session.flash()`: a method of the
    request a handler is handed (its writes, `request.db.add()`, are blind
    writes of the function making them)."""
    return pyramid.REQUEST_NAME in callee.split(".")[1:-1]


def _written_owner_call(callee: str, writes: tuple[str, ...]) -> bool:
    """The call is one of the writes the summary already names."""
    return any(callee.startswith(f"{owner}.") for owner in writes)


def _short(qualname: str) -> str:
    return qualname.rpartition(".")[2]


def _line(line: int) -> Span:
    return Span(line, 1, line, 1)
