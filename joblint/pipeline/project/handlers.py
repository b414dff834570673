"""Which functions are request handlers a framework runs inside the
request's transaction: the entries the project's modules define (`Entry`,
read by `joblint.index.entries`) whose framework the settings that apply to
their file make transactional (Django's `ATOMIC_REQUESTS`, Pyramid's
`pyramid_tm`), or that a dependency (FastAPI's) or a function the app runs
after or around its handlers (a Flask teardown, a middleware) commits
after; a view class deriving from one marked `non_atomic_requests` is
none, and a mixin's request-taking methods are those of the views deriving
from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from joblint.knowledge import requests
from joblint.libraries import django
from joblint.models import HOOK_AROUND, HOOK_SETTING, Entry, RequestHook
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.indirect_calls import IndirectCalls
from joblint.pipeline.project.settings_scope import below, project_directory

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

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
class _Committing:
    """A function registered after or around request handlers that commits
    once they have returned (or a setting doing so)."""

    framework: str  # whose (`RequestHook.framework`)
    root: str  # the project directory of the module registering it: its handlers
    of: str  # the blueprint whose handlers alone it runs after ("" for all)
    where: tuple[str, int, str]  # path, line, how a related location says it


@dataclass(slots=True)
class RequestHandlers:
    """The request handlers of the loaded modules whose request is a transaction."""

    calls: Calls
    indirect: IndirectCalls
    index: ProjectIndex
    _handlers: dict[str, list[Handler]] | None = None
    _aliases: dict[str, str] | None = None
    _non_atomic: frozenset[str] | None = None
    _subclasses: dict[str, list[str]] | None = None
    _hooks: dict[str, list[_Committing]] | None = None

    def by_function(self) -> dict[str, list[Handler]]:
        """The handlers whose request is a transaction, by the function each is."""
        if self._handlers is None:
            found: dict[str, list[Handler]] = {}
            for path in sorted(self.calls.by_path):
                for entry in self.calls.by_path[path].entries:
                    handler = self._handler(entry, path)
                    function = self.calls.resolve(entry.qualname) if handler else None
                    if handler is not None and function is not None:
                        found.setdefault(function, []).append(handler)
            self._handlers = found
        return self._handlers

    def settings(self, handler: Handler) -> tuple[str, ...]:
        """The paths of the settings turning on the handler's request transactions."""
        flag = requests.FRAMEWORK_FLAGS.get(handler.framework)
        if flag is None:
            return ()
        scopes = self.index.scopes
        setters = self.index.flags.get(flag, ())
        return tuple(
            sorted({s.path for s in setters if scopes.applies(s, handler.path) and s.path})
        )

    def _handler(self, entry: Entry, path: str) -> Handler | None:
        """The entry as a handler whose request is a transaction, if it is one."""
        framework, how = entry.framework, entry.how
        index = self.index
        if entry.needs == "router":
            made = index.instances.get(index.canonical(entry.of)) or self.calls.instances.get(
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
        elif entry.needs == "class" and not self.calls.derives(entry.of, entry.bases):
            inheriting = self._inheriting_view(entry.of, entry.bases, entry.qualname)
            if inheriting is None:
                return None
            how = f"a method of the {self._kind_of_view(inheriting)} {_short(inheriting)}"
        owner = entry.qualname.rpartition(".")[0]
        owner = owner if owner in self.calls.classes else ""
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
        calls = self.calls
        if self._aliases is None:
            self._aliases = {
                alias: target
                for module in calls.by_path.values()
                for alias, target in module.dependency_aliases
            }
        for name in entry.depends:
            target = self._aliases.get(self.index.canonical(name), name)
            function = calls.resolve(target)
            if function is None:
                continue
            summary, path = calls.functions[function]
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
            calls = self.calls
            for path in sorted(calls.by_path):
                module = calls.by_path[path]
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
        calls = self.calls
        names = [hook.target]
        if hook.kind == HOOK_AROUND:
            names.extend(f"{hook.target}.{m}" for m in requests.MIDDLEWARE_METHODS)
        for name in names:
            function = calls.resolve(self.index.canonical(name))
            if function is None:
                continue
            summary, where = calls.functions[function]
            if hook.kind == HOOK_AROUND:
                committing = self._middleware_commit(function)
            elif summary.commits and self._settings_set(summary.commit_settings, path):
                committing = function  # not only under a setting's test it never sets
            else:
                committing = None
            if committing is not None:
                line = calls.functions[committing][0].line
                said = f"{committing.rsplit('.', 1)[-1]}() commits after the handler returns"
                return where, line, said
        return None

    def _middleware_commit(self, function: str) -> str | None:
        """The function committing after a middleware ran the handler: the
        middleware's, after its call of the next app, or a function it
        defines (a `send` wrapper committing at the response's start)."""
        functions = self.calls.functions
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
            for where, module in self.calls.by_path.items()
            for hook in module.hooks
        )

    def _blueprint(self, of: str) -> str:
        """`of`, canonical, where it is a blueprint (its hooks run after its
        own handlers alone); "" where it is an app or not known."""
        if not of:
            return ""
        name = self.index.canonical(of)
        made = self.index.instances.get(name) or self.calls.instances.get(name, "")
        return name if made in requests.BLUEPRINTS else ""

    def registering_decorator(self, qualname: str) -> str:
        """The framework decorator the project's decorator factory `qualname`
        stands for ("" for none): a function returning it or doing its work
        (`FunctionSummary.registers`), or a class whose `__call__` does, or
        that derives from it."""
        calls = self.calls
        name = self.index.canonical(calls.aliases.get(qualname, qualname))
        function = calls.resolve(name)
        if function is not None:
            return calls.functions[function][0].registers
        call = calls.resolve(f"{name}.__call__")
        if call is not None and calls.functions[call][0].registers:
            return calls.functions[call][0].registers
        return next((d for d in requests.DECORATORS if self.calls.derives(name, (d,))), "")

    def _kind_of_view(self, qualname: str) -> str:
        return "model admin" if self.calls.derives(qualname, django.ADMIN_CLASSES) else "view"

    def _inheriting_view(self, mixin: str, bases: tuple[str, ...], method: str) -> str | None:
        """Of the loaded classes deriving from `bases` (a view, a model admin)
        and from the mixin, whose requests run inside the request's
        transaction, the first by name of those calling the mixin's `method`
        themselves, else of them all: the mixin's methods are those views'
        (`class AssetAdmin(ReportMixin, ModelAdmin)` runs
        `ReportMixin.report(self, request, queryset)` as an admin action)."""
        if self._subclasses is None:
            found: dict[str, list[str]] = {}
            for name, direct in self.calls.classes.items():
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
                if not self.calls.derives(subclass, bases):
                    todo.append(self.index.canonical(subclass))
                elif not self._outside_request_transactions(subclass):
                    views.append(subclass)
        if not views:
            return None
        function = self.calls.resolve(method)
        callers = self.indirect.callers().get(function or method, ())
        calling = {caller.rpartition(".")[0] for caller, *_ in callers}
        return min((v for v in views if v in calling), default=min(views))

    def _outside_request_transactions(self, owner: str) -> bool:
        """The view class is, or derives from, one marked
        `non_atomic_requests` as a whole (a mixin's `dispatch`)."""
        if self._non_atomic is None:
            self._non_atomic = frozenset(
                self.index.canonical(name)
                for module in self.calls.by_path.values()
                for name in module.non_atomic_classes
            )
        marked = self._non_atomic
        if not marked:
            return False
        return self.index.canonical(owner) in marked or self.calls.derives(
            owner, (), lambda base: self.index.canonical(base) in marked
        )


def _short(qualname: str) -> str:
    return qualname.rpartition(".")[2]
