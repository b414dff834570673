"""Recognising retry configuration: Celery task options (decorator keywords or
`Task` subclass attributes), bound Celery tasks and their `self.retry(...)`,
keyword lookup on calls, broad exception types. Shared by the JL3 rules; the
library names live in `joblint.knowledge.retries`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import first_parameter
from joblint.analysis.names import BindingKind, Resolver, dotted_parts
from joblint.analysis.tasks import decorator_task_library
from joblint.analysis.values import value_of
from joblint.knowledge import retries as facts

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


def qualified_callee(call: cst.Call, resolver: Resolver) -> str | None:
    return resolver.qualified_name(call.func)


# --- broad exceptions ----------


def broad_exceptions(node: cst.BaseExpression, resolver: Resolver) -> list[cst.BaseExpression]:
    """`Exception`/`BaseException` in `node` (a name or a tuple/list of them)."""
    if isinstance(node, cst.Tuple | cst.List):
        found: list[cst.BaseExpression] = []
        for element in node.elements:
            found.extend(broad_exceptions(element.value, resolver))
        return found
    if _is_broad(node, resolver):
        return [node]
    return []


def _is_broad(node: cst.BaseExpression, resolver: Resolver) -> bool:
    if isinstance(node, cst.Name):
        if resolver.lookup(node.value) is not None:
            return False  # shadowed or imported under that name: not the builtin
        return node.value in facts.BROAD_EXCEPTIONS
    name = resolver.qualified_name(node)
    return name is not None and name in facts.BROAD_EXCEPTIONS


# --- Celery ----------


@dataclass(slots=True)
class Option:
    """One task option: where to report it and its value."""

    node: cst.CSTNode  # the keyword argument or the class attribute's target
    value: cst.BaseExpression


@dataclass(slots=True)
class TaskOptions:
    """Celery task options set in one place (a decorator call or a class body)."""

    options: dict[str, Option] = field(default_factory=dict)
    # `**options` or something else that may set any option.
    open_ended: bool = False

    def get(self, name: str) -> Option | None:
        return self.options.get(name)


def decorator_options(decorator: cst.Decorator, resolver: Resolver) -> TaskOptions | None:
    """The options of a Celery task decorator call (`@app.task(max_retries=None)`),
    or None when the decorator isn't one. An unresolved `@x.task(...)` counts:
    the option names themselves are Celery's."""
    call = decorator.decorator
    if not isinstance(call, cst.Call):
        return None
    found = decorator_task_library(decorator, resolver)
    if found is None:
        return None
    library = found[0]
    if library == "":
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        if func.attr.value not in facts.CELERY_DECORATOR_METHODS:
            return None
    elif library != "celery":
        return None
    options = TaskOptions(open_ended=has_star_kwargs(call))
    for arg in call.args:
        if arg.keyword is not None:
            options.options[arg.keyword.value] = Option(arg, arg.value)
    return options


def is_celery_task_class(node: cst.ClassDef, resolver: Resolver) -> bool:
    for base in node.bases:
        name = resolver.qualified_name(base.value)
        if name is not None and name in facts.CELERY_TASK_BASES:
            return True
        value = base.value
        if isinstance(value, cst.Attribute) and value.attr.value == facts.CELERY_APP_TASK_ATTRIBUTE:
            app = value_of(value.value, resolver)
            if app is not None and app.kind == "queue" and app.library == "celery":
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
                options.options[target.value] = Option(target, value)
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


def function_task_options(node: cst.FunctionDef, resolver: Resolver) -> Iterator[TaskOptions]:
    for decorator in node.decorators:
        options = decorator_options(decorator, resolver)
        if options is not None:
            yield options


def is_celery_retry_count(node: cst.BaseExpression) -> bool:
    """`<task>.request.retries`."""
    parts = dotted_parts(node)
    return parts is not None and len(parts) >= 3 and tuple(parts[-2:]) == facts.CELERY_RETRY_COUNT


class CeleryScopes:
    """Tracks the Celery `Task` subclasses being visited, to tell a task's
    `self.retry(...)` from any other object's `retry` method."""

    def __init__(self) -> None:
        self._classes: list[tuple[cst.ClassDef, bool]] = []

    def enter_class(self, node: cst.ClassDef, resolver: Resolver) -> None:
        self._classes.append((node, is_celery_task_class(node, resolver)))

    def leave_class(self, node: cst.ClassDef) -> None:
        if self._classes and self._classes[-1][0] is node:
            self._classes.pop()

    def is_task_retry(self, call: cst.Call, context: FileContext) -> bool:
        """`self.retry(...)` in a bound Celery task (`bind=True` or a method of a
        Task subclass), `task.retry(...)` in a helper whose parameter `task` is
        annotated as a Celery `Task`, or `<task>.retry(...)` on a Celery task
        defined here."""
        receiver = task_retry_receiver(call)
        if receiver is None:
            return False
        function = context.frame.node
        if isinstance(function, cst.FunctionDef):
            if _annotated_as_task(function, receiver, context.resolver):
                return True
            if receiver == first_parameter(function):
                return self._is_bound_task(function, context)
        binding = context.resolver.lookup(receiver)
        return (
            binding is not None
            and binding.kind is BindingKind.DEF
            and binding.task_library == "celery"
        )

    def _is_bound_task(self, function: cst.FunctionDef, context: FileContext) -> bool:
        for options in function_task_options(function, context.resolver):
            bind = options.get(facts.CELERY_BIND_KEYWORD)
            if bind is not None and isinstance(bind.value, cst.Name) and bind.value.value == "True":
                return True
        in_class = bool(context.frame.class_name) and bool(self._classes)
        return in_class and self._classes[-1][1]


def task_retry_receiver(call: cst.Call) -> str | None:
    """`task` of `task.retry(...)`, as the code names it (`self`, `task`, `celery_task`)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != facts.CELERY_RETRY_METHOD:
        return None
    return func.value.value if isinstance(func.value, cst.Name) else None


def _annotated_as_task(function: cst.FunctionDef, name: str, resolver: Resolver) -> bool:
    """`def retry_later(task: Task, ...)`: the parameter is a Celery task."""
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name and param.annotation is not None:
            annotation = resolver.qualified_name(param.annotation.annotation)
            return annotation is not None and annotation in facts.CELERY_TASK_BASES
    return False
