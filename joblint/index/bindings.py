"""What each name a function binds holds, for every reader that resolves
the function's calls and values (`ModuleScope.qualify` reads a `Frame`).

A parameter holds an instance of its annotation's class, or of the project
class it is named after where the module binds that name (`order_line` for
`OrderLine`); a local holds what every assignment gives it: an import, a
nested function, an instance a call makes, a library's row
(`Order.objects.get(...)`, the row of a loop over a queryset or of
`get_or_create`'s pair), the object `with maker(...) as x:` makes. A name
bound to anything else is opaque: no summary follows it. The methods of a
class tell its instance attributes' types the same way
(`self.order = order`, `self.mailer = Mailer()`).
"""

from __future__ import annotations

import ast
from typing import cast

from joblint.index.nodes import Function, parameters
from joblint.index.returns import PAIR, ROWS
from joblint.index.scope import RECEIVERS, Frame, ModuleScope
from joblint.knowledge import jobs, work

# The nodes that may bind a name in a function (`bind_locals`), besides names.
_BINDERS = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.withitem,
    ast.For,
    ast.AsyncFor,
    ast.ExceptHandler,
)


def bind_locals(scope: ModuleScope, frame: Frame, outer: list[Frame]) -> None:
    """Fills `frame` with what its function's names hold (`outer`: the
    functions around it), and its steady parameters: those no statement
    assigns."""
    node = frame.node
    for param in parameters(node.args):
        annotated = scope.annotation(param.annotation, [*outer, frame])
        if annotated is None and param.annotation is None:
            annotated = _class_named_like(scope, param.arg)
        if annotated is not None:
            frame.resolved[param.arg] = annotated
        elif param.arg not in RECEIVERS or not frame.class_qualname:
            frame.opaque.add(param.arg)
    assigned: dict[str, set[str | None]] = {}
    targets: set[int] = set()  # the names assignments bind, read with their values
    for inner in scope.of_kind(node, *_BINDERS):
        if isinstance(inner, ast.Import | ast.ImportFrom):
            for local, target in scope.imports(inner):
                assigned.setdefault(local, set()).add(target)
        elif isinstance(inner, Function | ast.ClassDef) and inner is not node:
            nested = f"{frame.key}.<locals>.{inner.name}"
            assigned.setdefault(inner.name, set()).add(scope.local(nested))
        elif isinstance(inner, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets.update(_bind_assignment(scope, inner, frame, outer, assigned))
        elif isinstance(inner, ast.withitem) and isinstance(inner.optional_vars, ast.Name):
            entered = _entered_value(scope, inner.context_expr, [*outer, frame])
            if entered is not None:  # `with smtplib.SMTP(host) as smtp:` is the SMTP
                assigned.setdefault(inner.optional_vars.id, set()).add(entered)
                targets.add(id(inner.optional_vars))
        elif isinstance(inner, ast.For | ast.AsyncFor) and isinstance(inner.target, ast.Name):
            row = scope.fetched(inner.iter, [*outer, frame], ROWS)
            if row is not None:  # `for order in Order.objects.filter(...)`: one row each time
                assigned.setdefault(inner.target.id, set()).add(row)
                targets.add(id(inner.target))
        elif isinstance(inner, ast.ExceptHandler) and inner.name:
            assigned.setdefault(inner.name, set()).add(None)
    # Names last: a name an assignment binds is read with the value it is
    # assigned (`targets`), and an assignment's target is one of its own nodes.
    for found in scope.of_kind(node, ast.Name):
        stored = cast(ast.Name, found)
        if type(stored.ctx) is ast.Store and id(stored) not in targets:  # loops, walrus
            assigned.setdefault(stored.id, set()).add(None)
    frame.steady = frame.parameters - assigned.keys()
    for name, values in assigned.items():
        if len(values) == 1 and None not in values:
            frame.resolved[name] = next(iter(values))  # type: ignore[assignment]
            frame.opaque.discard(name)
        else:
            frame.resolved.pop(name, None)
            frame.opaque.add(name)


def _bind_assignment(
    scope: ModuleScope,
    node: ast.Assign | ast.AnnAssign | ast.AugAssign,
    frame: Frame,
    outer: list[Frame],
    assigned: dict[str, set[str | None]],
) -> set[int]:
    """Binds the plain names `node` assigns; returns their nodes."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    stack = [*outer, frame]
    value_type: str | None = None
    if isinstance(node, ast.AnnAssign):
        value_type = scope.annotation(node.annotation, stack)
    if value_type is None and not isinstance(node, ast.AugAssign) and node.value is not None:
        value_type = scope.value_type(node.value, stack)
    bound: set[int] = set()
    for target in targets:
        if isinstance(target, ast.Name):
            assigned.setdefault(target.id, set()).add(value_type)
            bound.add(id(target))
        elif (
            isinstance(target, ast.Tuple)
            and target.elts
            and isinstance(target.elts[0], ast.Name)
            and node.value is not None
        ):  # `order, created = Order.objects.get_or_create(...)`: the row first
            row = scope.fetched(node.value, stack, PAIR)
            if row is not None:
                assigned.setdefault(target.elts[0].id, set()).add(row)
                bound.add(id(target.elts[0]))
    # Other targets' names (tuples, starred) are Store names own_nodes yields.
    return bound


def _class_named_like(scope: ModuleScope, parameter: str) -> str | None:
    """The project class an unannotated parameter is named after, where
    the module binds that name (`org` in a module importing `Org`,
    `order_line` for `OrderLine`)."""
    if parameter in RECEIVERS or not parameter.islower() or parameter.startswith("_"):
        return None
    class_name = "".join(part.capitalize() for part in parameter.split("_"))
    qualname = scope.names.get(class_name)
    return qualname if qualname is not None and jobs.may_be_project_code(qualname) else None


def _entered_value(scope: ModuleScope, value: ast.expr, stack: list[Frame]) -> str | None:
    """What `with value as x:` binds `x` to, when it is the object the
    call makes (a maker whose `__enter__` returns the object itself)."""
    if not isinstance(value, ast.Call):
        return None
    maker = scope.qualify(value.func, stack)
    return maker if maker in work.ENTERED_MAKERS else None


def note_attributes(
    scope: ModuleScope, frame: Frame, stack: list[Frame], attributes: dict[str, set[str | None]]
) -> None:
    """What a method assigns to its instance's attributes (`self.order = order`
    with `order: Order`, `self.mailer = Mailer()`, a manager's row)."""
    node = frame.node
    receiver = node.args.posonlyargs[:1] or node.args.args[:1]
    if not receiver:
        return
    own = receiver[0].arg
    for inner in scope.of_kind(node, ast.Assign, ast.AnnAssign):
        assert isinstance(inner, ast.Assign | ast.AnnAssign)
        if inner.value is None:
            continue
        targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == own
            ):
                attributes.setdefault(target.attr, set()).add(_held(scope, inner, stack))


def _held(scope: ModuleScope, node: ast.Assign | ast.AnnAssign, stack: list[Frame]) -> str | None:
    if isinstance(node, ast.AnnAssign):
        annotated = scope.annotation(node.annotation, stack)
        if annotated is not None:
            return annotated
    value = node.value
    if isinstance(value, ast.Name):  # a typed parameter or local
        return scope.qualify(value, stack)
    return scope.value_type(value, stack) if value is not None else None
