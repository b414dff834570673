"""Which expression a name (or `self.attr`) was assigned, when there is only one.

`FileContext`'s bindings keep a classification of a value, not the expression
itself. Rules that follow a SQL string into the call that runs it, or a Redis
client into the call that locks with it, need the expression and the scope it
was written in (to follow it further). Names assigned more than once, augmented
(`+=`), bound as parameters, loop targets, imports or by `global` are ambiguous:
their value isn't statically known, so lookups give None.

Tables are built lazily per scope; each `FileContext` holds one `Assignments`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from joblint.analysis.walk import children

ScopeNode = cst.Module | cst.FunctionDef


@dataclass(frozen=True, slots=True)
class Bound:
    """An expression bound to a name, with the scopes it must be read in."""

    value: cst.BaseExpression
    scopes: tuple[ScopeNode, ...]
    # `with <value> as name`: the name holds what `__enter__` returned.
    via_with: bool = False


@dataclass(slots=True)
class _Table:
    # name -> its one assignment, or None when it is bound but not known.
    names: dict[str, Bound | None] = field(default_factory=dict)
    annotations: dict[str, cst.BaseExpression] = field(default_factory=dict)


class Assignments:
    def __init__(self, module: cst.Module, walrus: bool = True) -> None:
        """`walrus`: the source may hold a `:=` (else no statement is searched for one)."""
        self.module = module
        self.walrus = walrus
        self._tables: dict[int, _Table] = {}
        self._classes: dict[str, cst.ClassDef | None] = {}
        self._class_tables: dict[str, _Table] = {}
        for node in _top_level(module.body):
            if isinstance(node, cst.ClassDef):
                name = node.name.value
                self._classes[name] = None if name in self._classes else node

    # --- lookups -----------------------------------------------------------------

    def name(self, name: str, scopes: Sequence[ScopeNode]) -> Bound | None:
        """The one expression `name` holds in the innermost scope binding it."""
        for index in range(len(scopes) - 1, -1, -1):
            table = self._table(scopes[index], scopes[: index + 1])
            if name in table.names:
                return table.names[name]
        return None

    def annotation(self, name: str, scopes: Sequence[ScopeNode]) -> cst.BaseExpression | None:
        """The annotation of a parameter (or annotated local) `name`, innermost first."""
        for index in range(len(scopes) - 1, -1, -1):
            table = self._table(scopes[index], scopes[: index + 1])
            if name in table.annotations:
                return table.annotations[name]
            if name in table.names:
                return None
        return None

    def attribute(self, class_name: str, attr: str) -> Bound | None:
        """The one expression `self.<attr>` (or a class attribute) is assigned in `class_name`."""
        table = self._class_table(class_name)
        return table.names.get(attr)

    def attribute_annotation(self, class_name: str, attr: str) -> cst.BaseExpression | None:
        return self._class_table(class_name).annotations.get(attr)

    # --- tables --------------------------------------------------------------------

    def _table(self, scope: ScopeNode, chain: Sequence[ScopeNode]) -> _Table:
        table = self._tables.get(id(scope))
        if table is None:
            table = _Table()
            scopes = tuple(chain)
            if isinstance(scope, cst.FunctionDef):
                _bind_parameters(table, scope.params)
                body: Sequence[cst.CSTNode] = (
                    scope.body.body if isinstance(scope.body, cst.IndentedBlock) else [scope.body]
                )
            else:
                body = scope.body
            for statement in _statements(body, self.walrus):
                _record(table, statement, scopes)
            self._tables[id(scope)] = table
        return table

    def _class_table(self, class_name: str) -> _Table:
        table = self._class_tables.get(class_name)
        if table is not None:
            return table
        table = _Table()
        node = self._classes.get(class_name)
        if node is not None and isinstance(node.body, cst.IndentedBlock):
            module_scope: tuple[ScopeNode, ...] = (self.module,)
            for statement in _statements(node.body.body, walrus=False):
                if isinstance(statement, cst.Assign | cst.AnnAssign):
                    _record(table, statement, module_scope)
            for method in node.body.body:
                if isinstance(method, cst.FunctionDef):
                    _record_self_attributes(table, method, (self.module, method))
        self._class_tables[class_name] = table
        return table


# --- recording -----------------------------------------------------------------------


def _set(table: _Table, name: str, bound: Bound | None) -> None:
    # A second assignment (even of the same text, e.g. in if/else) makes the
    # name ambiguous: which one ran isn't known statically.
    table.names[name] = None if name in table.names else bound


def _record(table: _Table, node: cst.CSTNode, scopes: tuple[ScopeNode, ...]) -> None:
    if isinstance(node, cst.Assign):
        single = len(node.targets) == 1
        for target in node.targets:
            _record_target(table, target.target, node.value if single else None, scopes)
    elif isinstance(node, cst.AnnAssign):
        if isinstance(node.target, cst.Name):
            table.annotations.setdefault(node.target.value, node.annotation.annotation)
            if node.value is not None:
                _record_target(table, node.target, node.value, scopes)
    elif isinstance(node, cst.AugAssign | cst.For):
        _record_target(table, node.target, None, scopes)
    elif isinstance(node, cst.With):
        for item in node.items:
            if item.asname is not None:
                bound_name = item.asname.name
                if isinstance(bound_name, cst.Name):
                    _set(table, bound_name.value, Bound(item.item, scopes, via_with=True))
                else:
                    _record_target(table, bound_name, None, scopes)
    elif isinstance(node, cst.Import | cst.ImportFrom):
        _record_import(table, node)
    elif isinstance(node, cst.Global | cst.Nonlocal):
        for name in node.names:
            table.names[name.name.value] = None
    elif isinstance(node, cst.FunctionDef | cst.ClassDef):
        table.names[node.name.value] = None
    elif isinstance(node, cst.NamedExpr):
        _record_target(table, node.target, None, scopes)
    elif isinstance(node, cst.ExceptHandler) and node.name is not None:
        _record_target(table, node.name.name, None, scopes)


def _record_target(
    table: _Table,
    target: cst.BaseExpression,
    value: cst.BaseExpression | None,
    scopes: tuple[ScopeNode, ...],
) -> None:
    if isinstance(target, cst.Name):
        _set(table, target.value, Bound(value, scopes) if value is not None else None)
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            _record_target(table, element.value, None, scopes)
    elif isinstance(target, cst.StarredElement):
        _record_target(table, target.value, None, scopes)


def _record_import(table: _Table, node: cst.Import | cst.ImportFrom) -> None:
    names = node.names
    if isinstance(names, cst.ImportStar):
        return
    for alias in names:
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            table.names[alias.asname.name.value] = None
        else:
            head: cst.BaseExpression = alias.name
            while isinstance(head, cst.Attribute):
                head = head.value
            if isinstance(head, cst.Name):
                table.names[head.value] = None


def _bind_parameters(table: _Table, params: cst.Parameters) -> None:
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        table.names[param.name.value] = None
        if param.annotation is not None:
            table.annotations[param.name.value] = param.annotation.annotation
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            table.names[star.name.value] = None


def _record_self_attributes(
    table: _Table, method: cst.FunctionDef, scopes: tuple[ScopeNode, ...]
) -> None:
    params = method.params.params
    if not params or not isinstance(method.body, cst.IndentedBlock):
        return
    receiver = params[0].name.value
    for statement in _statements(method.body.body, walrus=False):
        if isinstance(statement, cst.Assign):
            single = len(statement.targets) == 1
            for target in statement.targets:
                attr = _self_attribute(target.target, receiver)
                if attr is not None:
                    _set(table, attr, Bound(statement.value, scopes) if single else None)
        elif isinstance(statement, cst.AnnAssign):
            attr = _self_attribute(statement.target, receiver)
            if attr is not None:
                table.annotations.setdefault(attr, statement.annotation.annotation)
                if statement.value is not None:
                    _set(table, attr, Bound(statement.value, scopes))
        elif isinstance(statement, cst.AugAssign):
            attr = _self_attribute(statement.target, receiver)
            if attr is not None:
                _set(table, attr, None)


def _self_attribute(target: cst.BaseExpression, receiver: str) -> str | None:
    if (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == receiver
    ):
        return target.attr.value
    return None


# --- statement iteration ---------------------------------------------------------------


def _top_level(body: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        else:
            yield statement


def _statements(body: Sequence[cst.CSTNode], walrus: bool) -> Iterator[cst.CSTNode]:
    """Small statements and compound headers of one scope, at any block depth,
    not entering nested functions, classes or lambdas (their own scopes), and
    with `walrus` the `(x := ...)` inside small statements."""
    stack: list[cst.CSTNode] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            for small in node.body:
                yield small
                if walrus:
                    stack.extend(reversed(list(_walrus_targets(small))))
            continue
        yield node
        if isinstance(node, cst.FunctionDef | cst.ClassDef):
            continue
        if isinstance(node, cst.Try | cst.TryStar):
            stack.extend(reversed(node.handlers))
        for child in reversed(_blocks(node)):
            stack.extend(reversed(child))


def _blocks(node: cst.CSTNode) -> list[Sequence[cst.CSTNode]]:
    blocks: list[Sequence[cst.CSTNode]] = []
    for name in ("body", "orelse", "finalbody"):
        part = getattr(node, name, None)
        if part is None:
            continue
        if isinstance(part, cst.If):
            blocks.append([part])
            continue
        inner = getattr(part, "body", None)
        if isinstance(part, cst.IndentedBlock | cst.SimpleStatementSuite):
            blocks.append(part.body)
        elif isinstance(inner, cst.IndentedBlock | cst.SimpleStatementSuite):
            blocks.append(inner.body)
    if isinstance(node, cst.Match):
        for case in node.cases:
            blocks.extend(_blocks(case))
    return blocks


def _walrus_targets(node: cst.CSTNode) -> Iterator[cst.NamedExpr]:
    """`(x := ...)` inside an expression statement binds x in this scope."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        kind = type(current)  # not isinstance: LibCST's classes are slow ABCs
        if kind is cst.NamedExpr:
            yield cast(cst.NamedExpr, current)
        if kind is cst.Lambda or kind is cst.FunctionDef or kind is cst.ClassDef:
            continue
        stack.extend(children(current))
