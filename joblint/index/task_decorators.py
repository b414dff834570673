"""Which names a module makes into task decorators, and which decorators
may register each function as a task: for the project model's tasks and
their options (JL301-JL303 read a task's retry options, also where the
project wraps the library's decorator).

The project builds decorators from the library's: `retrying =
shared_task(...)`, `task = app.task`, `partial(shared_task, ...)`, and a
function forwarding its `**kwargs` to one (`def task(**opts): return
shared_task(**opts)`, or a task maker `return app.task(**opts)(fn)`, or a
factory returning a nested decorator doing so). A function's decorator
may be a task decorator when it is a library's or may be the project's.
"""

from __future__ import annotations

import ast

from joblint.index.nodes import Function, assigned_names, decorated, is_name
from joblint.index.scope import Frame, ModuleScope
from joblint.knowledge import jobs
from joblint.models import DecoratorUse, TaskDecorator

_Options = tuple[tuple[str, str], ...]


class TaskDecoratorReader:
    """The task decorators a module builds, and the ones its functions use."""

    def __init__(self, scope: ModuleScope) -> None:
        self.scope = scope
        self.found: list[TaskDecorator] = []

    def note_task_decorator(self, statement: ast.Assign | ast.AnnAssign, value: ast.expr) -> None:
        """`retrying = shared_task(...)`, `task = app.task`, `partial(shared_task, ...)`."""
        found = self._built_decorator(value)
        if found is None:
            return
        via, options, takes_options = found
        for name in assigned_names(statement):
            decorator = TaskDecorator(
                self.scope.local(name), via, statement.lineno, options, takes_options
            )
            self.found.append(decorator)

    def _built_decorator(self, value: ast.expr) -> tuple[str, _Options, bool] | None:
        if not isinstance(value, ast.Call):
            name = self.scope.module_name(value)
            return None if name is None or not _may_decorate(name) else (name, (), True)
        callee = self.scope.module_name(value.func)
        if callee is None:
            return None
        if callee in jobs.PARTIAL_FUNCTIONS:
            if len(value.args) != 1 or isinstance(value.args[0], ast.Starred):
                return None
            inner = self.scope.module_name(value.args[0])
            if inner is None or not _may_decorate(inner):
                return None
            return inner, _options(value), True
        if value.args or not _library_decorator(callee):
            return None  # `app.task(fn)` registers `fn`; a project call may return anything
        return callee, _options(value), False

    def note_forwarding(self, node: Function) -> None:
        """`def task(*args, **kwargs): return shared_task(*args, **kwargs)`: a
        task decorator taking the options its callers pass (and those it adds).
        Also a task maker (`return app.task(**opts)(fn)`) and a decorator
        factory returning a nested decorator that makes the task with them
        (`def inner(fn): return shared_task(**opts)(wrapper)`; `return inner`)."""
        kwarg = node.args.kwarg
        if kwarg is None:
            return
        call = self._forwarding_call(node, kwarg.arg)
        if call is None:
            nested = {
                inner.name: inner
                for inner in self.scope.own(node)
                if isinstance(inner, Function) and inner.args.kwarg is None
            }
            for inner in self.scope.of_kind(node, ast.Return):
                assert isinstance(inner, ast.Return)
                value = inner.value
                if isinstance(value, ast.Name) and value.id in nested:
                    call = self._forwarding_call(nested[value.id], kwarg.arg)
                    if call is not None:
                        break
        if call is None:
            return
        callee = self.scope.module_name(call.func)
        assert callee is not None
        found = TaskDecorator(self.scope.local(node.name), callee, node.lineno, _options(call))
        self.found.append(found)

    def _forwarding_call(self, node: Function, kwarg: str) -> ast.Call | None:
        """The library decorator's call a `return` of `node` makes with the
        `**kwarg` it forwards, itself or applied to a function."""
        for inner in self.scope.of_kind(node, ast.Return):
            assert isinstance(inner, ast.Return)
            call = inner.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Call):
                call = call.func  # `app.task(**opts)(fn)`: the task made with them
            if not isinstance(call, ast.Call):
                continue
            callee = self.scope.module_name(call.func)
            if callee is None or not _may_decorate(callee):
                continue
            if any(k.arg is None and is_name(k.value, kwarg) for k in call.keywords):
                return call
        return None

    def decorator_uses(self, node: Function, stack: list[Frame]) -> tuple[DecoratorUse, ...]:
        """The decorators that may register the function as a task."""
        found = []
        for decorator in node.decorator_list:
            qualname = self.scope.qualify(decorated(decorator), stack)
            if qualname is None or not _may_decorate(qualname):
                continue
            called = isinstance(decorator, ast.Call)
            options = _options(decorator) if isinstance(decorator, ast.Call) else ()
            names = self._named_options(decorator, stack) if isinstance(decorator, ast.Call) else ()
            found.append(DecoratorUse(qualname, options, called, names))
        return tuple(found)

    def _named_options(
        self, decorator: ast.Call, stack: list[Frame]
    ) -> tuple[tuple[str, str], ...]:
        """The keywords whose value is a name, qualified (`base=OnCommitTask`)."""
        found = []
        for keyword in decorator.keywords:
            if keyword.arg is None or not isinstance(keyword.value, (ast.Name, ast.Attribute)):
                continue
            qualname = self.scope.qualify(keyword.value, stack)
            if qualname is not None:
                found.append((keyword.arg, qualname))
        return tuple(found)


def _library_decorator(qualname: str) -> bool:
    """A library's task decorator, or an app's task method (`shop.celery.app.task`)."""
    return qualname in jobs.TASK_DECORATORS or (
        "." in qualname and qualname.rsplit(".", 1)[1] in jobs.TASK_DECORATOR_METHODS
    )


def _may_decorate(qualname: str) -> bool:
    """A library's task decorator, or a project name that may be one."""
    return _library_decorator(qualname) or jobs.may_be_project_code(qualname)


def _options(call: ast.Call) -> _Options:
    """A call's keywords, each with its literal value ("" when it isn't one)."""
    return tuple((k.arg, _literal(k.value)) for k in call.keywords if k.arg is not None)


def _literal(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and (
        node.value is None or isinstance(node.value, bool | int | float)
    ):
        return repr(node.value)
    return ""
