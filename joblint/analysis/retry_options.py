"""Where retry settings are written: a call's arguments, a job library's task
options (decorator keywords or `Task` subclass attributes), a settings dict,
and which `<task>.retry(...)` calls are a running task's own. Shared by the
retry policy readers (`joblint.rules.retries._facts.retry_policies`); what each library
calls things comes from its `TaskRetries` declaration."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import first_parameter
from joblint.analysis.names import Binding, BindingKind, Resolver, dotted_parts
from joblint.analysis.project_calls import project_call_text
from joblint.analysis.scopes import bound_names, parameter_names
from joblint.analysis.tasks import task_decorator_library
from joblint.analysis.values import value_of
from joblint.knowledge.jobs import PARTIAL_FUNCTIONS, may_be_project_code
from joblint.libraries.retry_api import Param, TaskRetries, Unresolved
from joblint.requirements import (
    DecoratorSets,
    IsQueue,
    IsTask,
    PassedATask,
    RegistersTask,
    Requirement,
    RetriesHandedTask,
    RetriesWithHandedDelay,
)

# --- calls and keywords ----------


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def has_star_kwargs(call: cst.Call) -> bool:
    """`f(**options)`: any keyword may be hidden in there."""
    return any(arg.star == "**" for arg in call.args)


def positional(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def argument(call: cst.Call, name: str, position: int | None) -> cst.Arg | None:
    """The argument for parameter `name`, passed by keyword or at `position`."""
    found = keyword(call, name)
    if found is None and position is not None:
        args = positional(call)
        if len(args) > position:
            found = args[position]
    return found


def dict_element(node: cst.Dict, key: str) -> cst.DictElement | None:
    """The `"key": value` entry of a dict literal."""
    for element in node.elements:
        if (
            isinstance(element, cst.DictElement)
            and isinstance(element.key, cst.SimpleString)
            and element.key.evaluated_value == key
        ):
            return element
    return None


# --- settings: one parameter as the code sets it ----------


@dataclass(frozen=True, slots=True)
class Setting:
    """Where a parameter is set (the keyword argument, class attribute target
    or dict entry: what a finding points at) and its value."""

    node: cst.CSTNode
    value: cst.BaseExpression


class Settings(Protocol):
    """The parameters set in one place."""

    def find(self, param: Param) -> Setting | None: ...


@dataclass(frozen=True, slots=True)
class CallArguments:
    call: cst.Call

    def find(self, param: Param) -> Setting | None:
        found = argument(self.call, param.keyword, param.position)
        return None if found is None else Setting(found, found.value)


@dataclass(frozen=True, slots=True)
class DictEntries:
    """A settings dict literal (`Q_CLUSTER = {...}`)."""

    value: cst.Dict

    def find(self, param: Param) -> Setting | None:
        element = dict_element(self.value, param.keyword)
        return None if element is None else Setting(element, element.value)


@dataclass(slots=True)
class TaskOptions:
    """A job library's task options set in one place (a decorator call or a class body)."""

    options: dict[str, Setting] = field(default_factory=dict)
    # The project must confirm the decorator is the library's.
    requires: tuple[Requirement, ...] = ()
    # A task decorator another module of the project builds (its qualified
    # name): the options it fixes are judged there, and known here only
    # through the project step.
    decorator: str = ""

    def get(self, name: str) -> Setting | None:
        return self.options.get(name)

    def find(self, param: Param) -> Setting | None:
        if not param.within:
            return self.options.get(param.keyword)
        holder = self.options.get(param.within)
        if holder is None or not isinstance(holder.value, cst.Dict):
            return None
        return DictEntries(holder.value).find(Param(param.keyword))


def decorator_options(
    decorator: cst.Decorator, task: cst.FunctionDef, retries: TaskRetries, resolver: Resolver
) -> TaskOptions | None:
    """The options one of the library's task decorators sets on `task`
    (`@app.task(max_retries=None)`), or None when the decorator isn't one. An
    unresolved `@x.task(...)` counts, trusted or to be confirmed by the project
    as `retries.unresolved` says. A task decorator the project builds counts
    too: one this module binds (`retrying = shared_task(...)`, its options
    merged with the call's where Celery merges them), or one imported from
    another module of the project, which the project step must confirm."""
    expr = decorator.decorator
    call = expr if isinstance(expr, cst.Call) else None
    func = call.func if call is not None else expr
    requires = _library_decorator(func, retries, resolver, task)
    if requires is not None:
        return None if call is None else _with_keywords(TaskOptions(requires=requires), call)
    return _project_decorator_options(func, call, retries, resolver)


def _with_keywords(options: TaskOptions, call: cst.Call | None) -> TaskOptions:
    if call is not None:
        for arg in call.args:
            if arg.keyword is not None:
                options.options[arg.keyword.value] = Setting(arg, arg.value)
    return options


def _library_decorator(
    func: cst.BaseExpression,
    retries: TaskRetries,
    resolver: Resolver,
    task: cst.FunctionDef | None = None,
) -> tuple[Requirement, ...] | None:
    """What must hold for `func` to be one of the library's task decorators
    (`shared_task`, `app.task`), or None when it can't be. For an unresolved
    receiver to be confirmed, the project must know the decorated function as
    the library's task (or, with no function, the receiver as its app)."""
    found = task_decorator_library(func, resolver)
    if found is None:
        return None
    library, receiver = found
    if library not in ("", retries.library):
        return None
    method = func.attr.value if isinstance(func, cst.Attribute) else None
    if (library == "" or not retries.every_decorator) and method not in retries.decorator_methods:
        return None
    if library != "" or not _needs_confirmation(receiver, retries):
        return ()
    libraries = frozenset({retries.library})
    if task is None:
        return (IsQueue(receiver, libraries),)
    return (IsTask(resolver.local_qualname(task.name.value), libraries),)


@dataclass(frozen=True, slots=True)
class BuiltDecorator:
    """A task decorator the code builds from one of the library's: the
    options it fixes and whether `@it(...)` passes options of its own on (a
    stored `shared_task(...)` takes only the function)."""

    options: TaskOptions
    takes_options: bool


def built_decorator(
    value: cst.BaseExpression, retries: TaskRetries, resolver: Resolver
) -> BuiltDecorator | None:
    """`shared_task(max_retries=None)`, `app.task(...)` (stored decorators),
    `functools.partial(shared_task, ...)` or `app.task` (an alias)."""
    if not isinstance(value, cst.Call):
        requires = _library_decorator(value, retries, resolver)
        return None if requires is None else BuiltDecorator(TaskOptions(requires=requires), True)
    if resolver.qualified_name(value.func) in PARTIAL_FUNCTIONS:
        args = positional(value)
        requires = _library_decorator(args[0].value, retries, resolver) if args else None
        if requires is None or len(args) > 1:
            return None
        return BuiltDecorator(_with_keywords(TaskOptions(requires=requires), value), True)
    requires = _library_decorator(value.func, retries, resolver)
    if requires is None or positional(value):
        return None  # `app.task(fn)` registers `fn`: no decorator is built
    return BuiltDecorator(_with_keywords(TaskOptions(requires=requires), value), False)


def factory_options(call: cst.Call, retries: TaskRetries, resolver: Resolver) -> TaskOptions | None:
    """The options a call of one of the library's task decorators (or a
    `partial` of one) sets where it isn't written as a decorator:
    `retrying = shared_task(max_retries=None)`, `app.task(fn, max_retries=3)`."""
    if resolver.qualified_name(call.func) in PARTIAL_FUNCTIONS:
        built = built_decorator(call, retries, resolver)
        return None if built is None else built.options
    requires = _library_decorator(call.func, retries, resolver)
    return None if requires is None else _with_keywords(TaskOptions(requires=requires), call)


def _project_decorator_options(
    func: cst.BaseExpression, call: cst.Call | None, retries: TaskRetries, resolver: Resolver
) -> TaskOptions | None:
    parts = dotted_parts(func)
    binding = resolver.lookup(parts[0]) if parts else None
    if binding is None or parts is None:
        return None
    if len(parts) == 1 and _module_value(binding):
        assert binding.expr is not None
        built = built_decorator(binding.expr, retries, resolver)
        if built is None or (call is not None and not built.takes_options):
            return None  # a stored decorator called with options is no task
        merged = TaskOptions(dict(built.options.options), built.options.requires)
        return _with_keywords(merged, call)
    qualname = resolver.qualified_name(func)
    if binding.kind not in _PROJECT_CALLABLES or qualname is None:
        return None
    if not may_be_project_code(qualname):
        return None
    libraries = {retries.library}
    if retries.unresolved is Unresolved.TRUSTED:
        libraries.add("")  # as for `@x.task`: an app the project can't tell is trusted
    requirement = RegistersTask(qualname, frozenset(libraries), call is not None)
    return _with_keywords(TaskOptions(requires=(requirement,), decorator=qualname), call)


def maker_options(call: cst.Call, retries: TaskRetries, resolver: Resolver) -> TaskOptions | None:
    """The options a call of a project function making a task of the
    function it is handed sets (`make_task(sync, max_retries=None)` where
    `def make_task(fn, **opts): return app.task(**opts)(fn)`), or a decorator
    factory's decorator applied by a call (`job(max_retries=None)(sync)`),
    for the project step to confirm it is one; None for a call that can't be."""
    made = made_task(call)
    if made is None:
        return None
    _, decorator = made
    if not isinstance(decorator, cst.Call):
        return None
    if not any(arg.keyword is not None for arg in decorator.args):
        return None
    parts = dotted_parts(decorator.func)
    if parts is None or len(parts) != 1:
        return None
    binding = resolver.lookup(parts[0])
    if binding is None or binding.kind not in _PROJECT_CALLABLES:
        return None
    return _project_decorator_options(decorator.func, decorator, retries, resolver)


def made_task(call: cst.Call) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """The function a call may make a task of, and the call as the
    decorator it amounts to: `make_task(sync, acks_late=True)` and
    `app.task(sync, acks_late=True)` -> `sync` and `make_task(acks_late=True)`
    (`app.task(acks_late=True)`); `make_task(sync)` -> `sync` and `make_task`
    (a decorator used bare); `job(acks_late=True)(sync)` -> `sync` and
    `job(acks_late=True)`. None where no function is handed first."""
    func = call.func
    if isinstance(func, cst.Call):
        if len(call.args) != 1 or not _handed(call.args[0]) or positional(func):
            return None
        return call.args[0].value, func
    if not call.args or not _handed(call.args[0]):
        return None
    rest = call.args[1:]
    return call.args[0].value, call.with_changes(args=rest) if rest else func


def _handed(arg: cst.Arg) -> bool:
    return arg.keyword is None and not arg.star


# Names a module binds to the project's own callables: imported, or defined here.
_PROJECT_CALLABLES = (BindingKind.IMPORT, BindingKind.DEF)


def _module_value(binding: Binding) -> bool:
    """A module-level name this module assigns (`retrying = shared_task(...)`)."""
    return (
        binding.kind in (BindingKind.VALUE, BindingKind.OTHER)
        and bool(binding.qualname)
        and binding.expr is not None
        and binding.unpack_index is None
        and not binding.iterated
    )


def _needs_confirmation(receiver: str, retries: TaskRetries) -> bool:
    """An unresolved receiver: the project must know the decorated function as
    one of the library's tasks, unless the receiver comes from the library."""
    if retries.unresolved is Unresolved.TRUSTED:
        return False
    return not any(receiver.startswith(f"{module}.") for module in retries.modules)


def function_options(
    node: cst.FunctionDef, retries: TaskRetries, resolver: Resolver
) -> Iterator[TaskOptions]:
    for decorator in node.decorators:
        options = decorator_options(decorator, node, retries, resolver)
        if options is not None:
            yield options


def is_task_class(node: cst.ClassDef, retries: TaskRetries, resolver: Resolver) -> bool:
    """A subclass of one of the library's `Task` classes (also `app.Task` on an app of it)."""
    for base in node.bases:
        name = resolver.qualified_name(base.value)
        if name is not None and name in retries.task_bases:
            return True
        value = base.value
        if (
            retries.app_task_attribute
            and isinstance(value, cst.Attribute)
            and value.attr.value == retries.app_task_attribute
        ):
            app = value_of(value.value, resolver)
            if app is not None and app.kind == "queue" and app.library == retries.library:
                return True
    return False


def class_options(node: cst.ClassDef) -> TaskOptions:
    """Class-level `name = value` assignments of a Task subclass body."""
    options = TaskOptions()
    if not isinstance(node.body, cst.IndentedBlock):
        return options
    for statement in node.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            target, value = _simple_assignment(small)
            if target is not None and value is not None:
                options.options[target.value] = Setting(target, value)
    return options


def _simple_assignment(
    node: cst.BaseSmallStatement,
) -> tuple[cst.Name | None, cst.BaseExpression | None]:
    if isinstance(node, cst.Assign) and len(node.targets) == 1:
        target = node.targets[0].target
        if isinstance(target, cst.Name):
            return target, node.value
    if (
        isinstance(node, cst.AnnAssign)
        and node.value is not None
        and isinstance(node.target, cst.Name)
    ):
        return node.target, node.value
    return None, None


# --- a running task's own retry method ----------


def is_attempt_count(node: cst.BaseExpression, path: tuple[str, ...]) -> bool:
    """`<task>.request.retries` for the path `("request", "retries")`."""
    parts = dotted_parts(node)
    return parts is not None and len(parts) > len(path) and tuple(parts[-len(path) :]) == path


def retry_receiver(call: cst.Call, method: str) -> str | None:
    """`task` of `task.retry(...)`, as the code names it (`self`, `task`, `job`)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != method:
        return None
    return func.value.value if isinstance(func.value, cst.Name) else None


@dataclass(frozen=True, slots=True)
class HandedTask:
    """A bound task handing itself to a project function (`retry_later(self,
    exc)`): the task's name, the argument's position, the call as written,
    the calling function as the project model's index names it, and what
    must hold for the caller to be a bound task."""

    task: str
    position: int
    text: str
    function: str
    bound: tuple[Requirement, ...]

    def retried(self) -> Requirement:
        """The helper must retry the task on whatever it is handed."""
        return RetriesHandedTask(self.function, self.text, str(self.position))

    def delayed(self, position: str, keyword: str) -> Requirement:
        """The helper must retry the task with the delay handed at `position`
        (or as `keyword`)."""
        task_position = str(self.position)
        return RetriesWithHandedDelay(self.function, self.text, task_position, position, keyword)

    @property
    def written(self) -> str:
        return f"{self.text}({self.task}, ...)"


class TaskScopes:
    """Tracks the job libraries' `Task` subclasses being visited, to tell a
    task's `self.retry(...)` from any other object's `retry` method."""

    def __init__(self) -> None:
        # Each class being visited, with the libraries whose task class it is.
        self._classes: list[tuple[cst.ClassDef, frozenset[str]]] = []

    def enter_class(self, node: cst.ClassDef, libraries: frozenset[str]) -> None:
        self._classes.append((node, libraries))

    def leave_class(self, node: cst.ClassDef) -> None:
        if self._classes and self._classes[-1][0] is node:
            self._classes.pop()

    def task_retry(
        self, call: cst.Call, retries: TaskRetries, context: FileContext
    ) -> tuple[Requirement, ...] | None:
        """What must hold for `call` to be a running task's own retry (None:
        it isn't one): `self.retry(...)` in a bound task (`bind=True` or a
        method of a Task subclass), `task.retry(...)` in a helper whose
        parameter `task` is annotated as a `Task` or, unannotated, is handed
        a bound task by a caller the project knows, or `<task>.retry(...)` on
        a task of the library defined here."""
        method = retries.method
        receiver = None if method is None else retry_receiver(call, method.name)
        if method is None or receiver is None:
            return None
        function = context.frame.node
        if isinstance(function, cst.FunctionDef):
            if _annotated_as_task(function, receiver, retries, context.resolver):
                return ()
            if receiver == first_parameter(function):
                bound = self._bound_task(function, retries, context)
                if bound is not None:
                    return bound
            helper = self._helper_parameter(function, receiver, retries, context)
            if helper is not None:
                return helper
            enclosing = self._enclosing_task(function, receiver, retries, context)
            if enclosing is not None:
                return enclosing
        binding = context.resolver.lookup(receiver)
        if (
            binding is not None
            and binding.kind is BindingKind.DEF
            and binding.task_library == retries.library
        ):
            return ()
        return None

    def handed_task(
        self, call: cst.Call, retries: TaskRetries, context: FileContext
    ) -> HandedTask | None:
        """`retry_later(self, exc)` in a bound task: the call hands the task to
        a project function, which the project step must find retrying it.
        None for any other call."""
        function = context.frame.node
        key = context.frame.key
        if retries.method is None or not isinstance(function, cst.FunctionDef) or not key:
            return None
        task = first_parameter(function)
        position = next(
            (
                i
                for i, arg in enumerate(call.args)
                if arg.keyword is None
                and not arg.star
                and isinstance(arg.value, cst.Name)
                and arg.value.value == task
            ),
            None,
        )
        if task is None or position is None or any(a.star for a in call.args[:position]):
            return None
        text = project_call_text(context, call)
        if text is None or text.split(".")[0] == task:
            return None  # `self.helper(self)` is no hand-over of the task
        bound = self._bound_task(function, retries, context)
        if bound is None:
            return None
        function_name = context.resolver.local_qualname(key)
        return HandedTask(task, position, text, function_name, bound)

    def _enclosing_task(
        self, function: cst.FunctionDef, receiver: str, retries: TaskRetries, context: FileContext
    ) -> tuple[Requirement, ...] | None:
        """`self.retry(...)` in a function nested in a bound task, `self` the
        task's own (not a name of the nested function): the task's retry."""
        if receiver in _names_bound_in(function):
            return None
        for frame in reversed(context.frames[:-1]):
            outer = frame.node
            if not isinstance(outer, cst.FunctionDef):
                return None
            if receiver == first_parameter(outer):
                return self._bound_task(outer, retries, context, frame.class_name)
            if receiver in _names_bound_in(outer):
                return None
        return None

    def _bound_task(
        self,
        function: cst.FunctionDef,
        retries: TaskRetries,
        context: FileContext,
        class_name: str | None = None,
    ) -> tuple[Requirement, ...] | None:
        bind_keyword = retries.method.bind_keyword if retries.method else ""
        for options in function_options(function, retries, context.resolver):
            bind = options.get(bind_keyword) if bind_keyword else None
            if bind is not None:
                if isinstance(bind.value, cst.Name) and bind.value.value == "True":
                    return options.requires
                continue
            if options.decorator and bind_keyword:
                # The project's decorator may bind its tasks itself.
                sets = frozenset({f"{bind_keyword}=True"})
                binds = DecoratorSets(options.decorator, sets)
                return (*options.requires, binds)
        owner = context.frame.class_name if class_name is None else class_name
        in_class = bool(owner) and bool(self._classes)
        if in_class and retries.library in self._classes[-1][1]:
            return ()
        return None

    def _helper_parameter(
        self, function: cst.FunctionDef, receiver: str, retries: TaskRetries, context: FileContext
    ) -> tuple[Requirement, ...] | None:
        """`def retry_later(task, exc): raise task.retry(...)`, a module-level
        function: a retry of the task a caller hands it, if a bound task
        passes itself there (the project step finds the caller)."""
        if len(context.frames) != 2 or context.frame.class_name or function.decorators:
            return None
        params = function.params
        for position, param in enumerate((*params.posonly_params, *params.params)):
            if param.name.value == receiver:
                qualname = context.resolver.local_qualname(function.name.value)
                libraries = frozenset({retries.library})
                needs = PassedATask(qualname, libraries, str(position), receiver)
                return (needs,)
        return None


def _annotated_as_task(
    function: cst.FunctionDef, name: str, retries: TaskRetries, resolver: Resolver
) -> bool:
    """`def retry_later(task: Task, ...)`: the parameter is one of the library's tasks."""
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name and param.annotation is not None:
            annotation = resolver.qualified_name(param.annotation.annotation)
            return annotation is not None and annotation in retries.task_bases
    return False


def _names_bound_in(function: cst.FunctionDef) -> set[str]:
    """The parameters of `function` and the names its own body binds."""
    return set(parameter_names(function.params)) | bound_names(function.body)
