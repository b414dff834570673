"""Walking a Python `ast` for the screen's checks without entering nested scopes."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from joblint.index.nodes import child_nodes

# What a walk of a scope's own nodes does not enter.
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def body_nodes(node: ast.AST, scopes: tuple[type[ast.AST], ...] = SCOPES) -> Iterator[ast.AST]:
    """The nodes under `node`, not entering nested functions, classes or
    lambdas (or whatever else `scopes` names)."""
    stack = child_nodes(node)
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, scopes):
            stack.extend(child_nodes(child))
