"""Which parameters a helper retries as a job library's task (`def
retry_later(task, exc): raise task.retry(exc=exc)`), read from its `ast` for
the project model: a bound task handing itself there from inside an except
clause retries on whatever that clause caught (JL303), and a delay it hands
there with the task is the delay the task waits (JL301)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from joblint.knowledge import jobs, retries
from joblint.models import RetryDelayHanded

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Not walked: nested scopes, and except clauses (a retry there is of what they catch).
_SKIPPED = (*_SCOPES, ast.ExceptHandler)
# The retry methods of the job libraries' bound tasks (`self.retry`).
_RETRY_METHODS = frozenset(r.method.name for r in retries.TASK_RETRIES if r.method is not None)


def may_retry_a_parameter(function: _Function, attributes: list[ast.AST]) -> bool:
    """Whether any of the function's own attribute nodes is a parameter's
    retry method: the cheap test before `retried_parameters` walks it."""
    positional = {a.arg for a in (*function.args.posonlyargs, *function.args.args)}
    return any(
        isinstance(node, ast.Attribute)
        and node.attr in _RETRY_METHODS
        and isinstance(node.value, ast.Name)
        and node.value.id in positional
        for node in attributes
    )


def retried_parameters(function: _Function) -> tuple[str, ...]:
    """The positions of `function`'s positional parameters whose retry method
    it calls where every exception its caller handed it is retried: not in an
    except clause of its own (that retries what the clause catches) nor under
    a test reading another parameter (`if isinstance(exc, IOError):`)."""
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    found: set[str] = set()
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SKIPPED):
            continue
        if isinstance(node, ast.If | ast.IfExp | ast.While):
            tested = _names(node.test) & set(positional)
            partly = tested - _retried_names(node, positional)
            if partly and not _every_arm_retries(node, positional):
                continue  # it retries only some of what it was handed
        if isinstance(node, ast.Call):
            name = _retry_receiver(node)
            if name in positional:
                found.add(str(positional.index(name)))
        stack.extend(ast.iter_child_nodes(node))
    return tuple(sorted(found))


def _retry_receiver(call: ast.Call) -> str | None:
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in _RETRY_METHODS
        and isinstance(func.value, ast.Name)
    ):
        return func.value.id
    return None


def _retried_names(node: ast.AST, positional: list[str]) -> set[str]:
    """The parameters whose retry method `node` calls somewhere in it."""
    return {
        name
        for sub in ast.walk(node)
        if isinstance(sub, ast.Call)
        for name in [_retry_receiver(sub)]
        if name in positional
    }


def _every_arm_retries(node: ast.If | ast.IfExp | ast.While, positional: list[str]) -> set[str]:
    """The parameters every arm of an `if` retries (`if note is None:
    task.retry(...) else: task.retry(countdown=...)`): retried whatever the
    test reads, the test only picks how. A nested `if` counts when every arm
    of it does; an except clause or a nested scope does not."""
    if isinstance(node, ast.While):
        return set()
    if isinstance(node, ast.IfExp):
        arms: list[list[ast.AST]] = [[node.body], [node.orelse]]
    else:
        arms = [list(node.body), list(node.orelse)]
    common: set[str] | None = None
    for arm in arms:
        found: set[str] = set()
        for statement in arm:
            found |= _surely_retried(statement, positional)
        common = found if common is None else common & found
    return common or set()


def _surely_retried(node: ast.AST, positional: list[str]) -> set[str]:
    if isinstance(node, ast.If | ast.IfExp):
        return _every_arm_retries(node, positional)
    if isinstance(node, (*_SKIPPED, ast.While, ast.For, ast.AsyncFor)):
        return set()
    found: set[str] = set()
    if isinstance(node, ast.Call):
        found.add(_retry_receiver(node) or "")
    for child in ast.iter_child_nodes(node):
        found |= _surely_retried(child, positional)
    return found & set(positional)


def _names(node: ast.AST) -> set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}


def retry_delay_parameters(
    function: _Function, callee: Callable[[ast.expr], str | None]
) -> tuple[RetryDelayHanded, ...]:
    """Where `function` retries a task handed at a positional parameter with
    a delay another of its parameters gives: `task.retry(countdown=delay)`,
    or `task.retry(**build(countdown=delay))` where `build` (named as
    `callee` qualifies it) is a function of the project the project step
    must find returning a dict that holds it under a delay keyword. A caller
    handing a growing delay there makes the task's retry delay grow."""
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    parameters = {name: str(i) for i, name in enumerate(positional)}
    parameters.update((a.arg, "-1") for a in function.args.kwonlyargs)
    found: list[RetryDelayHanded] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):  # a retry in an except clause waits as long
            continue
        stack.extend(ast.iter_child_nodes(node))
        receiver = _retry_receiver(node) if isinstance(node, ast.Call) else None
        if receiver is None or receiver not in positional:
            continue
        assert isinstance(node, ast.Call)
        task = str(positional.index(receiver))
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg in retries.TASK_DELAY_KEYWORDS and isinstance(value, ast.Name):
                if value.id in parameters:
                    found.append(
                        RetryDelayHanded(task, parameters[value.id], value.id, node.lineno)
                    )
            elif keyword.arg is None and isinstance(value, ast.Call):
                found.extend(_built_delays(value, task, parameters, callee, node.lineno))
    return tuple(sorted(set(found), key=lambda f: (f.line, f.parameter)))


def _built_delays(
    built: ast.Call,
    task: str,
    parameters: dict[str, str],
    callee: Callable[[ast.expr], str | None],
    line: int,
) -> list[RetryDelayHanded]:
    """`**build(x, delay=d)`: each parameter handed to `build`, and where."""
    name = callee(built.func)
    if name is None or not jobs.may_be_project_code(name):
        return []
    found = [
        RetryDelayHanded(task, parameters[arg.id], arg.id, line, name, str(i), "")
        for i, arg in enumerate(built.args)
        if isinstance(arg, ast.Name) and arg.id in parameters
    ]
    found.extend(
        RetryDelayHanded(task, parameters[k.value.id], k.value.id, line, name, "", k.arg)
        for k in built.keywords
        if k.arg is not None and isinstance(k.value, ast.Name) and k.value.id in parameters
    )
    return found
