"""What the project step learns from one file, gathered during the traversal.

The traversal (`joblint.analysis.context.FileContext`) is what rules query;
the facts it hands to the whole-project step come from the collectors here,
each called at the same few points (a module-level statement, a definition,
a function, a call, an assignment, a task's decorator or class) and each
contributing its own fields of `FileFacts`. Collectors read library data
(`joblint.knowledge`), never a library's name: a new kind of whole-project
fact is a new collector in `COLLECTORS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import libcst as cst

from joblint.analysis.broker_facts import BrokerCollector, Guard, SpanOf
from joblint.analysis.cache_settings import cache_backends
from joblint.analysis.classes import assigned_class_facts, class_facts, model_factory_kind
from joblint.analysis.constants import Expr, to_expr
from joblint.analysis.databases import (
    atomic_request_aliases,
    mirror_aliases,
    read_only_router_aliases,
    sets_atomic_requests,
)
from joblint.analysis.literals import string_value
from joblint.analysis.names import Binding, BindingKind, Resolver
from joblint.analysis.settings_model import settings_fields
from joblint.analysis.values import value_of
from joblint.knowledge import locks, work
from joblint.knowledge.brokers import (
    APP_CLASSES,
    LOADER_METHODS,
    TIME_LIMIT_LIBRARIES,
    UPDATE_METHODS,
)
from joblint.knowledge.jobs import APP_TASK_CLASS_OPTIONS, SETTINGS_FLAGS
from joblint.libraries import pyramid
from joblint.libraries.django import (
    AS_VIEW_METHOD,
    ATOMIC_REQUESTS_FLAG,
    DATABASES_SETTING,
    RUN_PYTHON_OPERATIONS,
    URL_FUNCTIONS,
    URL_VIEW_KEYWORD,
)
from joblint.libraries.django import INSTALLED_APPS_SETTING as INSTALLED_APPS
from joblint.libraries.django import RUN_PYTHON_FUNCTION_KEYWORDS as RUN_PYTHON_KEYWORDS
from joblint.libraries.django import SETTINGS_MODULE_VARIABLE as SETTINGS_VARIABLE
from joblint.models import ClassFacts, TaskDef


class Collector:
    """The points the traversal calls a collector at; each does nothing by default."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver

    def module_statement(self, statement: cst.CSTNode) -> None:
        """A module-level statement (also inside top-level if/try/with), once
        every module-level name is bound."""

    def module_guards(self, guards: Mapping[int, Guard]) -> None:
        """The tests of top-level `if` blocks, by id of the statements under them."""

    def definition(self, binding: Binding, receiver: str, params: tuple[str, ...]) -> None:
        """A module-level def or class (`receiver`: a task decorator's
        unresolved receiver; `params`: a function's parameter names)."""

    def function(self, qualname: str, params: tuple[str, ...]) -> None:
        """A module-level function or a method, by qualified name."""

    def task_decorator(self, name: str, decorator: cst.Decorator, library: str) -> None:
        """A function registered as a task of `library` by `decorator`."""

    def task_class(self, node: cst.ClassDef, library: str) -> None:
        """A class-based task of `library`."""

    def call(self, node: cst.Call) -> None:
        """Every call, in source order."""

    def assignment(self, node: cst.Assign) -> None:
        """Every single-target assignment statement, in source order."""

    @property
    def needs_positions(self) -> bool:
        """Whether the facts hold places that need positions."""
        return False

    def contribute(self, path: str, span_of: SpanOf | None) -> dict[str, Any]:
        """Its fields of `FileFacts` (`span_of` is None for a file with nothing
        to place: then no place may be asked for)."""
        return {}


class DefinitionCollector(Collector):
    """The module's definitions other files look up by name: tasks, classes,
    functions' parameters, constants, queue objects, instances, imports."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self.tasks: list[TaskDef] = []
        self.classes: list[ClassFacts] = []
        self.model_factories: list[tuple[str, str]] = []
        self.function_params: list[tuple[str, tuple[str, ...]]] = []
        self.constants: list[tuple[str, Expr]] = []
        self.instances: list[tuple[str, str]] = []
        self.app_task_classes: list[tuple[str, str]] = []

    def definition(self, binding: Binding, receiver: str, params: tuple[str, ...]) -> None:
        if binding.task_library is not None:
            self.tasks.append(TaskDef(binding.qualname, binding.task_library, receiver, params))
        elif binding.task_decorator:
            decorator = (binding.task_decorator, binding.task_decorator_called)
            self.tasks.append(TaskDef(binding.qualname, "", "", params, decorator))

    def function(self, qualname: str, params: tuple[str, ...]) -> None:
        self.function_params.append((qualname, params))

    def module_statement(self, statement: cst.CSTNode) -> None:
        if isinstance(statement, cst.ClassDef):
            qualname = self.resolver.local_qualname(statement.name.value)
            self.classes.append(class_facts(statement, qualname, self.resolver))
            self.constants.extend(settings_fields(statement, qualname, self.resolver))
            return
        value = _assigned_value(statement)
        if value is None:
            return
        for name in _assigned_names(statement):
            qualname = self.resolver.local_qualname(name)
            self._assigned(qualname, value)

    def _assigned(self, qualname: str, value: cst.BaseExpression) -> None:
        found = assigned_class_facts(qualname, value, self.resolver)
        if found is not None:
            self.classes.append(found)
        factory = model_factory_kind(value, self.resolver)
        if factory is not None:
            self.model_factories.append((qualname, factory))
        callee = _callee(value, self.resolver)
        if callee is not None:
            self.instances.append((qualname, callee))
        if isinstance(value, cst.Call) and self.resolver.qualified_name(value.func) in APP_CLASSES:
            for option in APP_TASK_CLASS_OPTIONS:
                for arg in value.args:
                    if arg.keyword is not None and arg.keyword.value == option.app_keyword:
                        self._app_task_class(qualname, arg.value)
        expr = to_expr(value, self.resolver)
        if expr is not None:
            self.constants.append((qualname, expr))

    def assignment(self, node: cst.Assign) -> None:
        """`app.Task = OnCommitTask`: the app's tasks are built on it."""
        target = node.targets[0].target
        if not isinstance(target, cst.Attribute):
            return
        if any(target.attr.value == option.app_attribute for option in APP_TASK_CLASS_OPTIONS):
            app = self.resolver.qualified_name(target.value)
            if app is not None:
                self._app_task_class(app, node.value)

    def _app_task_class(self, app: str, value: cst.BaseExpression) -> None:
        named = _string(value)  # "proj.tasks:OnCommitTask" or "proj.tasks.OnCommitTask"
        cls = named.replace(":", ".") if named else self.resolver.qualified_name(value)
        if cls:
            self.app_task_classes.append((app, cls))

    def contribute(self, path: str, span_of: SpanOf | None) -> dict[str, Any]:
        scope = self.resolver.module_scope
        bindings = scope.names.values()
        return {
            "tasks": tuple(self.tasks),
            "classes": tuple(self.classes),
            "model_factories": tuple(self.model_factories),
            "function_params": tuple(self.function_params),
            "constants": tuple(self.constants),
            "instances": tuple(self.instances),
            "app_task_classes": tuple(self.app_task_classes),
            "queue_objects": tuple(
                sorted(
                    (b.qualname, b.value.library)
                    for b in bindings
                    if b.kind is BindingKind.VALUE
                    and b.value is not None
                    and b.value.kind == "queue"
                )
            ),
            "plain_definitions": tuple(
                sorted(
                    b.qualname
                    for b in bindings
                    if b.kind is BindingKind.DEF and b.task_library is None and not b.decorated
                )
            ),
            "aliases": tuple(
                sorted(
                    (self.resolver.local_qualname(name), b.qualname)
                    for name, b in scope.names.items()
                    if b.kind is BindingKind.IMPORT
                )
            ),
        }


class SettingsCollector(Collector):
    """What a settings module or an entry point says of the project: the
    flags its settings switch on, its cache backends and read-only databases,
    the settings modules it loads, and the functions its migrations run."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self.flags: set[str] = set()
        self.cache_backends: list[tuple[str, str]] = []
        self.read_only_databases: list[str] = []
        self.loads_settings: list[str] = []
        self.run_python: list[str] = []
        self.url_views: list[str] = []
        self.installed_apps: list[str] = []
        # The module's dicts by name: a setting may name one (`DATABASES =
        # {"default": _default_config}`).
        self._dicts: dict[str, cst.Dict] = {}

    def module_statement(self, statement: cst.CSTNode) -> None:
        if isinstance(statement, cst.AugAssign) and _is_name(statement.target, INSTALLED_APPS):
            self.installed_apps.extend(_strings(statement.value))
        if isinstance(statement, cst.ClassDef):
            self.read_only_databases.extend(read_only_router_aliases(statement))
            return
        value = _assigned_value(statement)
        if value is None:
            return
        names = set(_assigned_names(statement))
        if isinstance(value, cst.Dict):
            self._dicts.update((name, value) for name in names)
        if INSTALLED_APPS in names:
            self.installed_apps.extend(_strings(value))
        if DATABASES_SETTING in names:
            self.read_only_databases.extend(mirror_aliases(value))
            if atomic_request_aliases(value, self._dicts):
                self.flags.add(ATOMIC_REQUESTS_FLAG)
        if locks.CACHES_SETTING in names:
            self.cache_backends.extend(cache_backends(value))
        self._rerun_settings(names, value)
        for flag in SETTINGS_FLAGS:
            if flag.setting in names and isinstance(value, cst.Dict):
                keys = (getattr(element, "key", None) for element in value.elements)
                if any(_string(key) == flag.key for key in keys if key is not None):
                    self.flags.add(flag.flag)

    def _rerun_settings(self, names: Iterable[str], value: cst.BaseExpression) -> None:
        """`CELERY_TASK_ACKS_LATE = True`, `app.conf.task_acks_late = True`:
        a setting that redelivers every task of the project."""
        if not (isinstance(value, cst.Name) and value.value == "True"):
            return
        for name in names:
            flag = work.RERUN_SETTINGS.get(name)
            if flag:
                self.flags.add(flag)

    def call(self, node: cst.Call) -> None:
        self._run_python(node)
        self._conf_update(node)
        self._settings_module(node)
        self._url_view(node)
        self._includes_tm(node)

    def _includes_tm(self, call: cst.Call) -> None:
        """`config.include("pyramid_tm")`: the app's views run in its transaction."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value != pyramid.INCLUDE_METHOD:
            return
        if call.args and _string(call.args[0].value) == pyramid.TM_PACKAGE:
            self.flags.add(pyramid.TM_FLAG)

    def _url_view(self, call: cst.Call) -> None:
        """`path("x/", views.checkout)`, `re_path(r"^y/$", Checkout.as_view())`."""
        func = call.func
        last = func.attr if isinstance(func, cst.Attribute) else func
        if not isinstance(last, cst.Name) or last.value not in _URL_NAMES:
            return  # the cheap test first: this runs for every call
        if self.resolver.qualified_name(func) not in URL_FUNCTIONS:
            return
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keyword = [a.value for a in call.args if a.keyword and a.keyword.value == URL_VIEW_KEYWORD]
        views = positional[1:2] or keyword
        if not views:
            return
        view = views[0]
        called = view.func if isinstance(view, cst.Call) else None
        if isinstance(called, cst.Attribute) and called.attr.value == AS_VIEW_METHOD:
            view = called.value  # `Checkout.as_view()`: the class's methods are views
        qualname = self.resolver.qualified_name(view)
        if qualname is not None:
            self.url_views.append(qualname)

    def _conf_update(self, call: cst.Call) -> None:
        """`app.conf.update(task_acks_late=True)`."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in UPDATE_METHODS:
            return
        for arg in call.args:
            if arg.keyword is not None:
                self._rerun_settings((arg.keyword.value,), arg.value)

    def assignment(self, node: cst.Assign) -> None:
        """`os.environ["DJANGO_SETTINGS_MODULE"] = "shop.settings"`,
        `DATABASES["default"]["ATOMIC_REQUESTS"] = True`, `app.conf.task_acks_late = True`."""
        named = _string(node.value)
        for target in node.targets:
            if isinstance(target.target, cst.Attribute):
                self._rerun_settings((target.target.attr.value,), node.value)
            if sets_atomic_requests(target.target, node.value):
                self.flags.add(ATOMIC_REQUESTS_FLAG)
            subscript = target.target
            if not isinstance(subscript, cst.Subscript) or len(subscript.slice) != 1:
                continue
            index = subscript.slice[0].slice
            if isinstance(index, cst.Index) and _string(index.value) == SETTINGS_VARIABLE and named:
                self.loads_settings.append(named)

    def _settings_module(self, call: cst.Call) -> None:
        """`os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")`,
        `app.config_from_object("shop.celeryconfig")`: the settings this
        entry point's project loads."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return
        strings = [_string(a.value) for a in call.args[:2] if a.keyword is None]
        method = func.attr.value
        if method == "setdefault" and len(strings) == 2 and strings[0] == SETTINGS_VARIABLE:
            named = strings[1]
        elif method in LOADER_METHODS and strings and ":" not in (strings[0] or ":"):
            named = strings[0]
        else:
            return
        if named:
            self.loads_settings.append(named)

    def _run_python(self, call: cst.Call) -> None:
        """The functions a migration's `RunPython(...)` runs, by qualified name."""
        func = call.func
        last = func.attr if isinstance(func, cst.Attribute) else func
        if not isinstance(last, cst.Name) or last.value != "RunPython":
            return  # the cheap test first: this runs for every call
        if self.resolver.qualified_name(func) not in RUN_PYTHON_OPERATIONS:
            return
        for index, arg in enumerate(call.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if (keyword is None and index > 1) or keyword not in (None, *RUN_PYTHON_KEYWORDS):
                continue
            qualname = self.resolver.qualified_name(arg.value)
            if qualname is not None:
                self.run_python.append(qualname)

    def contribute(self, path: str, span_of: SpanOf | None) -> dict[str, Any]:
        return {
            "flags": tuple(sorted(self.flags)),
            "cache_backends": tuple(self.cache_backends),
            "read_only_databases": tuple(sorted(set(self.read_only_databases))),
            "loads_settings": tuple(sorted(set(self.loads_settings))),
            "url_views": tuple(sorted(set(self.url_views))),
            "installed_apps": tuple(sorted(set(self.installed_apps))),
        }


class BrokerSettingsCollector(Collector):
    """Broker settings, job time limits and delays (`joblint.analysis.broker_facts`)."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self.brokers = BrokerCollector(resolver)
        self.guards: Mapping[int, Guard] = {}

    def module_guards(self, guards: Mapping[int, Guard]) -> None:
        self.guards = guards

    def module_statement(self, statement: cst.CSTNode) -> None:
        self.brokers.module_statement(statement)
        value = _assigned_value(statement)
        if value is not None:
            guard = self.guards.get(id(statement))
            for name in _assigned_names(statement):
                self.brokers.module_assignment(name, value, guard)
            if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
                target = statement.targets[0].target
                self.brokers.module_item_assignment(target, value, guard)

    def task_decorator(self, name: str, decorator: cst.Decorator, library: str) -> None:
        if library in TIME_LIMIT_LIBRARIES:
            self.brokers.task_decorator(name, decorator)

    def task_class(self, node: cst.ClassDef, library: str) -> None:
        if library in TIME_LIMIT_LIBRARIES:
            self.brokers.task_class(node)

    def call(self, node: cst.Call) -> None:
        self.brokers.call(node)

    def assignment(self, node: cst.Assign) -> None:
        self.brokers.assignment(node.targets[0].target, node.value)

    @property
    def needs_positions(self) -> bool:
        return self.brokers.nodes

    def contribute(self, path: str, span_of: SpanOf | None) -> dict[str, Any]:
        if span_of is not None:
            return {"broker": self.brokers.finish(path, span_of)}
        return {"broker": self.brokers.unplaced()}


COLLECTORS: tuple[Callable[[Resolver], Collector], ...] = (
    DefinitionCollector,
    SettingsCollector,
    BrokerSettingsCollector,
)


_URL_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in URL_FUNCTIONS)


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _strings(value: cst.BaseExpression) -> list[str]:
    """The literal strings of a list or tuple (`["shop", "django.contrib.admin"]`),
    also of a sum of them."""
    if isinstance(value, cst.BinaryOperation):
        return [*_strings(value.left), *_strings(value.right)]
    if not isinstance(value, cst.List | cst.Tuple):
        return []
    found = (_string(element.value) for element in value.elements)
    return [s for s in found if s]


def _assigned_value(statement: cst.CSTNode) -> cst.BaseExpression | None:
    if isinstance(statement, cst.Assign | cst.AnnAssign):
        return statement.value
    return None


def _assigned_names(statement: cst.CSTNode) -> Iterator[str]:
    if isinstance(statement, cst.Assign):
        targets = [t.target for t in statement.targets]
    elif isinstance(statement, cst.AnnAssign):
        targets = [statement.target]
    else:
        return
    for target in targets:
        if isinstance(target, cst.Name):
            yield target.value


def _callee(value: cst.BaseExpression, resolver: Resolver) -> str | None:
    """What a module-level `name = Callee(...)` calls, when it resolves (and
    isn't a queue object, which the queue index holds)."""
    if not isinstance(value, cst.Call) or value_of(value, resolver) is not None:
        return None
    return resolver.qualified_name(value.func)


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
        return value if isinstance(value, str) else None
    return None
