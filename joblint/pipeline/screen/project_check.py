"""The confirm step every family may name: a task the project's own decorator makes.

A project may build its task decorator (`@retrying`, imported from its own
code); the rules about task bodies then read a function no library names as
a task. `@` alone is an ordinary word, so a file with no job library goes
to LibCST for them only when this step, on Python's own `ast`, shows a
module-level function decorated by a name the project may define.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from joblint.index.ast_walk import body_nodes
from joblint.knowledge import jobs
from joblint.knowledge.confirm import confirm_step


@confirm_step("project-decorated-function")
def project_decorated_function(tree: ast.Module, lowered: bytes) -> bool:
    """A module-level function (tasks are) decorated by a name the file
    imports from what may be the project's own code (a relative import, or a
    module of no library joblint knows): a task decorator the project
    builds, perhaps (`@retrying`). Not in a module of tests (a task defined
    there by a project's decorator goes unseen; its findings would be test
    code's, shown only with `--include-tests`)."""
    imported: dict[str, str] = {}
    for node in body_nodes(tree, ()):
        if isinstance(node, ast.ImportFrom):
            module = "." if node.level else (node.module or "")
            imported.update((a.asname or a.name, module) for a in node.names)
        elif isinstance(node, ast.Import):
            imported.update((a.asname or a.name.split(".")[0], a.name) for a in node.names)
    project = {name for name, module in imported.items() if _may_be_project(module)}
    if not project or _is_test_module(tree):
        return False
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(_root_name(d) in project for d in node.decorator_list)
        for node in _module_level(tree.body)
    )


def _is_test_module(tree: ast.Module) -> bool:
    """A module of tests (`def test_...`, `class Test...`): its decorated
    functions are tests (`@freeze_time`, a project's fixtures), not tasks."""
    return any(
        (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"))
        or (isinstance(node, ast.ClassDef) and node.name.startswith("Test"))
        for node in tree.body
    )


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, inside top-level `if`/`try` blocks too."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If | ast.Try):
            yield from _module_level([*statement.body, *statement.orelse])


def _may_be_project(module: str) -> bool:
    return module == "." or jobs.may_be_project_code(module)


def _root_name(decorator: ast.expr) -> str:
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""
