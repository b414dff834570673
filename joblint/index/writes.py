"""What a function writes: the classes whose rows it writes, whether it
makes a write no summary names, whether it sets a field of a value it
didn't build, and which methods it calls on `super()`; for the project
model's writers (a request's or signal's transaction that writes what a
job it enqueued reads).

A write names its owner where the call does (`Order.objects.filter(...)
.update(...)`, a typed `order.save()`); `session.add(x)`, an untyped
`obj.save()` and a library's or an unknown value's write are blind. A
container the function builds itself (`seen = set()`) is no row.
"""

from __future__ import annotations

import ast
from typing import cast

from joblint.index.nodes import Function, dotted
from joblint.index.scope import RECEIVERS, Frame, ModuleScope
from joblint.knowledge import jobs, requests
from joblint.models import ProjectCall

_WRITE_NAMES = requests.ROW_WRITE_METHODS
_CONTAINER_LITERALS = (ast.Dict, ast.Set, ast.List, ast.DictComp, ast.SetComp, ast.ListComp)
_CONTAINER_MAKERS = frozenset({"dict", "set", "list", "frozenset"})
_MANAGER_PARTS = requests.MODEL_MANAGERS


def writes(
    scope: ModuleScope, node: Function, stack: list[Frame], calls: list[ProjectCall]
) -> tuple[tuple[str, ...], bool]:
    """What the function writes by the owner each write names (a model's
    `Order.objects.create()`, a typed `order.save()`), and whether it makes
    a write no summary names (`session.add(x)`, `obj.save()` of an
    untyped name, `obj.status = ...` on a value it was handed)."""
    found = {owner for call in calls if (owner := _written_owner(call.callee))}
    blind = False
    containers: frozenset[str] | None = None
    for inner in scope.of_kind(node, ast.Call):
        func = cast(ast.Call, inner).func
        if isinstance(func, ast.Attribute) and func.attr in _WRITE_NAMES:
            if isinstance(func.value, ast.Name):
                if containers is None:
                    containers = _containers(scope, node)
                if func.value.id in containers:
                    continue  # `seen.update(...)` of a set or dict it built
            receiver = (dotted(func.value) or [""])[-1]
            if not requests.writes_rows(func.attr, receiver):
                continue  # `search.execute()`: no cursor's
            callee = scope.callee(func, stack)  # `Order.objects.filter(...).update`, too
            project = callee is not None and jobs.may_be_project_code(callee[0])
            blind = blind or not project  # a library's or an unknown value's
    return tuple(sorted(found)), blind


def super_calls(scope: ModuleScope, node: Function) -> tuple[str, ...]:
    """The methods called on `super()` (`super().save(...)`), in order, once each."""
    found: dict[str, None] = {}
    for inner in scope.of_kind(node, ast.Call):
        func = cast(ast.Call, inner).func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super"
        ):
            found[func.attr] = None
    return tuple(found)


def sets_fields(scope: ModuleScope, node: Function) -> bool:
    """Whether the function sets a field of a value it didn't build
    itself (`row.status = ...`; not `self.x`, nor a dict it built)."""
    set_on: set[str] = set()  # the names a field of which is set
    for inner in scope.of_kind(node, ast.Assign, ast.AugAssign):
        if isinstance(inner, ast.Assign):
            targets = inner.targets
        else:
            targets = [cast(ast.AugAssign, inner).target]
        for target in targets:
            base = target.value if isinstance(target, ast.Attribute) else None
            if isinstance(base, ast.Name) and base.id not in RECEIVERS:
                set_on.add(base.id)
    return bool(set_on) and not set_on <= _containers(scope, node)


def _containers(scope: ModuleScope, node: Function) -> frozenset[str]:
    """The locals every assignment of the function binds to a dict, set
    or list it builds (`seen = set()`, `data = {}`): no rows."""
    built: set[str] = set()
    other: set[str] = set()
    for inner in scope.of_kind(node, ast.Assign):
        assign = cast(ast.Assign, inner)
        for target in assign.targets:
            if isinstance(target, ast.Name):
                (built if _builds_container(assign.value) else other).add(target.id)
    return frozenset(built - other)


def _builds_container(value: ast.expr) -> bool:
    if isinstance(value, _CONTAINER_LITERALS):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in _CONTAINER_MAKERS
    )


def _written_owner(callee: str) -> str:
    """The class a write names (`shop.models.Order` of
    `shop.models.Order.objects.filter.update` or `shop.models.Order.save`),
    "" for a call that is no such write."""
    parts = callee.split(".")
    if parts[-1] not in _WRITE_NAMES or len(parts) < 2:
        return ""
    for position, part in enumerate(parts[:-1]):
        if part in _MANAGER_PARTS and position:
            return ".".join(parts[:position])
    if parts[-1] in ("save", "delete") and parts[-2][:1].isupper():
        return ".".join(parts[:-1])
    return ""
