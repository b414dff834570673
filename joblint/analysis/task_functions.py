"""The task a function definition is, for rules about what a task's body
does (JL6): its library, the options its decorator gives it, and what the
project must confirm for it to be one."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from joblint.analysis.names import Resolver
from joblint.analysis.retry_options import decorator_options, made_task
from joblint.analysis.tasks import decorator_task_library
from joblint.knowledge import jobs, retries
from joblint.requirements import IsTask, RegistersTask, Requirement

# The libraries whose decorators register jobs.
_TASK_LIBRARIES = frozenset(
    lib.key for lib in jobs.LIBRARIES.values() if lib.task_decorators or lib.task_decorator_methods
)


@dataclass(frozen=True, slots=True)
class TaskDefinition:
    """A function registered as a task."""

    node: cst.FunctionDef
    decorator: cst.Decorator
    # The job library; "" when only the project step can tell (an app
    # imported from the project, a project's own task decorator).
    library: str
    # The decorator call's keywords (with those a task decorator built in
    # this module fixes), by name.
    options: dict[str, cst.Arg] = field(default_factory=dict)
    requires: tuple[Requirement, ...] = ()
    # A task decorator another module of the project builds: its qualified
    # name (the options it fixes are known to the project step only).
    project_decorator: str = ""
    # `@decorator(...)` was called.
    called: bool = False
    qualname: str = ""  # the task's, in its module

    @property
    def name(self) -> str:
        return self.node.name.value

    def literal(self, keyword: str) -> str | None:
        """An option's value as written when it is a literal (`True`, `3`,
        `()`), else None; "" when the option isn't given."""
        arg = self.options.get(keyword)
        if arg is None:
            return ""
        return literal_text(arg.value)


def literal_text(value: cst.BaseExpression) -> str | None:
    """`True`, `None`, `3`, `"x"`, `()`, `[]` as written; None for anything else."""
    if isinstance(value, cst.Name) and value.value in {"True", "False", "None"}:
        return value.value
    if isinstance(value, cst.Integer):
        return value.value
    if isinstance(value, cst.SimpleString):
        return value.value
    if isinstance(value, cst.Tuple | cst.List) and not value.elements:
        return "()" if isinstance(value, cst.Tuple) else "[]"
    return None


def task_definition(
    node: cst.FunctionDef, resolver: Resolver, made_by: cst.BaseExpression | None = None
) -> TaskDefinition | None:
    """The task `node` is: by the first of its decorators that is a job
    library's, else by one the project may build into a task decorator.
    `made_by`: the decorator a module-level call amounts to where it makes
    a task of the function (`made_tasks`); it stands for the decorators."""
    qualname = resolver.local_qualname(node.name.value)
    decorators = (cst.Decorator(made_by),) if made_by is not None else tuple(node.decorators)
    found: TaskDefinition | None = None
    for decorator in decorators:
        found = _library_task(node, decorator, resolver, qualname)
        if found is not None:
            break
    else:
        found = _by_project_decorator(node, decorators, resolver)
    return replace(found, qualname=qualname) if found is not None else None


def made_tasks(module: cst.Module) -> dict[str, cst.BaseExpression]:
    """The module's functions a module-level statement makes tasks of by a
    call (`sync_task = make_task(sync, acks_late=True)`,
    `job(acks_late=True)(push)`, `app.task(pull, acks_late=True)`), by name:
    the call as the decorator it amounts to. The project step confirms the
    callee builds tasks, as for a decorator."""
    defined = {
        statement.name.value
        for statement in module.body
        if isinstance(statement, cst.FunctionDef) and not statement.decorators
    }
    made: dict[str, cst.BaseExpression] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value = small.value if isinstance(small, cst.Assign | cst.Expr) else None
            found = made_task(value) if isinstance(value, cst.Call) else None
            if found is None:
                continue
            handed, decorator = found
            if isinstance(handed, cst.Name) and handed.value in defined:
                made.setdefault(handed.value, decorator)
    return made


def _library_task(
    node: cst.FunctionDef, decorator: cst.Decorator, resolver: Resolver, qualname: str
) -> TaskDefinition | None:
    expr = decorator.decorator
    call = expr if isinstance(expr, cst.Call) else None
    for task_retries in retries.TASK_RETRIES:
        found = decorator_options(decorator, node, task_retries, resolver)
        if found is None or found.decorator:
            continue  # a project's decorator: only when no library's is there
        options = {key: setting.node for key, setting in found.options.items()}
        return TaskDefinition(
            node,
            decorator,
            task_retries.library,
            {k: v for k, v in options.items() if isinstance(v, cst.Arg)},
            found.requires,
            "",
            call is not None,
        )
    library_and_receiver = decorator_task_library(decorator, resolver)
    if library_and_receiver is None:
        return None
    library = library_and_receiver[0]
    keywords = {a.keyword.value: a for a in call.args if a.keyword} if call else {}
    requires = () if library else (IsTask(qualname, _TASK_LIBRARIES),)
    return TaskDefinition(node, decorator, library, keywords, requires, "", call is not None)


def _by_project_decorator(
    node: cst.FunctionDef, decorators: tuple[cst.Decorator, ...], resolver: Resolver
) -> TaskDefinition | None:
    """A function decorated with a name a project module may build into a
    task decorator (`@retrying_task`): the project step tells."""
    for decorator in decorators:
        expr = decorator.decorator
        call = expr if isinstance(expr, cst.Call) else None
        name = resolver.qualified_name(call.func if call is not None else expr)
        if name is None or not jobs.may_be_project_code(name):
            continue
        called = ("called",) if call is not None else ()
        libraries = frozenset({*_TASK_LIBRARIES, ""})
        requirement = RegistersTask(name, libraries, bool(called))
        keywords = {a.keyword.value: a for a in call.args if a.keyword} if call else {}
        return TaskDefinition(node, decorator, "", keywords, (requirement,), name, bool(called))
    return None
