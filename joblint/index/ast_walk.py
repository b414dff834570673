"""Python's own `ast`, as the screen's confirm steps read it: parsed without the
warnings it prints about the user's code, and walked scope by scope (a walk of a
function's own nodes doesn't enter the functions, classes and lambdas inside it)."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator

from joblint.index.summaries import child_nodes


def quiet_ast_parse(source: str | bytes) -> ast.Module:
    """`ast.parse` without the SyntaxWarnings it prints about the user's code."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source)


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
