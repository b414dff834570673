"""Which nodes of a module or a function are its own, and in what order.

Every reader of the index asks its questions of a function's own nodes:
those that run when the function runs, not the bodies of the functions,
classes and lambdas it defines (`own_nodes`), grouped by kind once
(`nodes_by_kind`), or walked with the `with` items around each
(`walk_with_context`). The screen's `ast` checks walk as the index does
(`child_nodes`, `dotted`, `last_name`), so these walks are public.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import cast

# A function or method, the unit every summary is of.
Function = ast.FunctionDef | ast.AsyncFunctionDef
# `try` and, from Python 3.11, `try/except*`.
_TRY = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if isinstance(t, type))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def dotted(node: ast.expr) -> list[str] | None:
    """`a.b.c` -> ["a", "b", "c"]; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return parts


def last_name(node: ast.expr) -> str:
    """`a.b.c` -> "c", `c` -> "c"; "" for anything else (a call's result)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """Every node of a function's body that runs when it does, in source
    order: not the bodies of nested functions, classes or lambdas.
    (`child_nodes` written in, as most of a reader's walking is here: each
    node's children go on the stack last first, so they come off in order.)"""
    found: list[ast.AST] = []
    todo: list[ast.AST] = list(reversed(body))
    pop, push, visit = todo.pop, todo.extend, found.append
    while todo:
        node = pop()
        visit(node)
        kind = type(node)
        if kind in _SCOPE_KINDS:
            # Their decorators, defaults and bases run here; their bodies don't.
            push(reversed(_evaluated_here(node)))
            continue
        fields = _FIELDS_LAST_FIRST.get(kind)
        if fields is None:
            fields = _FIELDS_LAST_FIRST[kind] = tuple(reversed(_child_fields(kind)))
        for name in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                # Only a dict's `**` key and a missing keyword default are None.
                if None in value:
                    value = [item for item in value if item is not None]
                push(reversed(value))
            else:
                todo.append(value)
    return found


def nodes_by_kind(nodes: list[ast.AST]) -> dict[type[ast.AST], list[ast.AST]]:
    """`nodes` grouped by their class, each group in their order: a question
    about one kind of node reads only those (most nodes are names, attributes,
    constants and calls)."""
    found: dict[type[ast.AST], list[ast.AST]] = {}
    for node in nodes:
        kind = type(node)
        group = found.get(kind)
        if group is None:
            found[kind] = [node]
        else:
            group.append(node)
    return found


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes`, as a list and without the expression contexts
    (`Load`, `Store`: read from their owners, never visited)."""
    kind = type(node)
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = _child_fields(kind)
    found: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if value is None:
            continue
        if type(value) is list:
            # Only a dict's `**` key and a missing keyword default are None.
            if None in value:
                found.extend(item for item in value if item is not None)
            else:
                found += value
        else:
            found.append(value)
    return found


# Fields that never hold a node, by Python's grammar of its AST (names,
# strings, numbers, flags): looked at by no walk. `ctx` holds one that
# walks leave out.
_SCALAR_FIELDS = frozenset(
    {
        "ctx",
        "id",
        "attr",
        "name",
        "asname",
        "module",
        "level",
        "arg",
        "kind",
        "type_comment",
        "conversion",
        "is_async",
        "simple",
        "rest",
        "kwd_attrs",
        "tag",
    }
)
# Fields of one class that never hold a node.
_SCALAR_OF: dict[type[ast.AST], tuple[str, ...]] = {
    ast.Constant: ("value",),
    ast.MatchSingleton: ("value",),
    ast.Global: ("names",),
    ast.Nonlocal: ("names",),
}
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}
_FIELDS_LAST_FIRST: dict[type[ast.AST], tuple[str, ...]] = {}
_SCOPE_KINDS = frozenset(_SCOPES)


def _child_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    """The fields of an AST class that may hold nodes: every other field
    holds a node, a list of nodes (and None for a missing one) or None (a
    constant's value never does, nor do the names `global` declares)."""
    scalar = set(_SCALAR_OF.get(kind, ()))
    return tuple(f for f in kind._fields if f not in _SCALAR_FIELDS and f not in scalar)


def _evaluated_here(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Lambda):
        return [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    assert isinstance(node, Function)
    args = node.args
    return [*node.decorator_list, *args.defaults, *(d for d in args.kw_defaults if d is not None)]


def parameters(args: ast.arguments) -> list[ast.arg]:
    """Every parameter a function takes, `*args` and `**kwargs` last."""
    found = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    found.extend(a for a in (args.vararg, args.kwarg) if a is not None)
    return found


# The nodes around which `walk_with_context` walks otherwise than `own_nodes`.
CONTEXT_TYPES = frozenset({ast.With, ast.AsyncWith, ast.Lambda})
NOTHING_OPENED: list[ast.withitem] = []


def walk_with_context(
    function: Function,
    deferred: set[int] = frozenset(),  # type: ignore[assignment]
) -> Iterator[tuple[ast.AST, list[ast.withitem]]]:
    """The function's own nodes, lambdas' bodies included (a lambda may run
    at once) except those in `deferred`, each with the `with` items around it."""
    todo: list[tuple[ast.AST, list[ast.withitem]]] = [(s, []) for s in reversed(function.body)]
    while todo:
        node, opened = todo.pop()
        yield node, opened
        if id(node) in deferred:
            continue
        if isinstance(node, _SCOPES) and not isinstance(node, ast.Lambda):
            todo.extend((child, opened) for child in reversed(_evaluated_here(node)))
            continue
        if isinstance(node, ast.With | ast.AsyncWith):
            inside = [*opened, *node.items]
            todo.extend((item, opened) for item in reversed(node.items))
            todo.extend((statement, inside) for statement in reversed(node.body))
            continue
        todo.extend((child, opened) for child in reversed(child_nodes(node)))


def module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, also those inside top-level if/try/with blocks."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from module_statements([*statement.body, *statement.orelse])
        elif isinstance(statement, _TRY):
            block = cast(ast.Try, statement)  # `try/except*` has the same fields
            handlers = [s for h in block.handlers for s in h.body]
            yield from module_statements([*block.body, *handlers, *block.orelse, *block.finalbody])
        elif isinstance(statement, ast.With):
            yield from module_statements(statement.body)
        else:
            yield statement


def assigned_names(statement: ast.stmt) -> Iterator[str]:
    """The plain names an assignment (`x = ...`, `x: T = ...`) binds."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign):
        targets = [statement.target]
    else:
        return
    for target in targets:
        if isinstance(target, ast.Name):
            yield target.id


def is_name(node: ast.expr, name: str) -> bool:
    """`node` is the plain name `name`."""
    return isinstance(node, ast.Name) and node.id == name


def decorated(decorator: ast.expr) -> ast.expr:
    """What a decorator names: `deco` of `@deco` and of `@deco(...)`."""
    return decorator.func if isinstance(decorator, ast.Call) else decorator
