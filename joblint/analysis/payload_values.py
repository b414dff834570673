"""What an expression evaluates to, as far as a job's payload cares.

An ORM manager's fetch (`Order.objects.get(...)`, `filter(...)[0]`,
`get_object_or_404(Order, ...)`) or a session's (`session.query(Order).first()`,
`session.get(Order, pk)`) is a row or rows of a model; a value a library hands
the code is what it says; a call of a project helper is what the helper returns
and an instance of a class is one of the kinds the class may be, both pending
the project step (`ReturnsObject`, `ClassOfKind`).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import (
    BindingKind,
    dotted_parts,
    dotted_text,
    in_standard_library,
    unwrap,
)
from joblint.analysis.payload_issues import PayloadIssue, render
from joblint.analysis.payload_received import is_parameter, known_value, received_keyword
from joblint.knowledge import jobs
from joblint.knowledge import payloads as kb
from joblint.models import RETURNED, RETURNED_ITEM
from joblint.requirements import ClassOfKind, ReturnsObject


def value_issues(
    node: cst.BaseExpression, context: FileContext, unpack_index: int | None, iterated: bool
) -> list[PayloadIssue]:
    node = unwrap(node)
    for manager in kb.MANAGER_FETCHES:
        fetched = _manager_fetch(node, context, iterated, manager)
        if fetched is not None:
            return [fetched]
    for session in kb.SESSION_FETCHES:
        found = _session_fetch(node, context, iterated, session)
        if found is not None:
            return found
    if isinstance(node, cst.Call | cst.Subscript) and unpack_index is None and not iterated:
        known = known_value(node, context) or received_keyword(node, context)
        if known:
            return known
    if isinstance(node, cst.Call) and unpack_index is None:
        returned = returned_alternatives(node, context, iterated)
        if iterated:
            return returned
        return [*_class_alternatives(node.func, context), *returned]
    if isinstance(node, cst.Attribute) and unpack_index is None and not iterated:
        return classify_attribute(node, context)
    return []


def row_issues(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """The rows iterating over `node` gives: a queryset's, a session query's,
    a helper's returning rows; through a local bound once to one."""
    node = unwrap(node)
    if isinstance(node, cst.Name):
        binding = context.resolver.lookup(node.value)
        if binding is None or is_parameter(binding) or binding.expr is None:
            return []
        if binding.unpack_index is not None or binding.iterated:
            return []
        node = unwrap(binding.expr)
    if isinstance(node, cst.Name | cst.Attribute):
        return []
    return value_issues(node, context, None, True)


def classify_attribute(node: cst.Attribute, context: FileContext) -> list[PayloadIssue]:
    known = known_value(node, context)
    if known:
        return known
    parts = dotted_parts(node)
    if parts is None or len(parts) != 2:
        return []
    root = context.resolver.lookup(parts[0])
    # `Color.RED`: a member of a class the index may know as an enum.
    if root is not None and root.kind in (BindingKind.IMPORT, BindingKind.DEF):
        if not parts[1].isupper() or in_standard_library(root.qualname):
            return []
        requires = (ClassOfKind(root.qualname, frozenset({kb.ENUM})),)
        return [PayloadIssue(node, render(node), kb.ENUM, parts[0], requires)]
    return []


def annotation_issues(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """`order: Order`, `Optional[Order]`, `Order | None`."""
    if isinstance(node, cst.Subscript) and dotted_text(node.value) in {
        "Optional",
        "typing.Optional",
    }:
        element = node.slice[0].slice
        if isinstance(element, cst.Index):
            return annotation_issues(element.value, context)
        return []
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        for side in (node.left, node.right):
            if not (isinstance(side, cst.Name) and side.value == "None"):
                return annotation_issues(side, context)
        return []
    return _class_alternatives(node, context)


def _class_alternatives(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """An instance of the class `node` names: one pending issue per possible kind."""
    qualname = context.resolver.qualified_name(node)
    parts = dotted_parts(node)
    if qualname is None or parts is None or in_standard_library(qualname):
        return []
    return [
        PayloadIssue(
            node,
            render(node),
            kind,
            parts[-1],
            (ClassOfKind(qualname, frozenset({kind})),),
        )
        for kind in sorted(kb.ORM_KINDS | kb.RICH_KINDS)
    ]


def helper_site(call: cst.Call, context: FileContext) -> tuple[str, str] | None:
    """(the function the call is made in, as the index names it; the call's
    text) when the call may be of a project function."""
    text = dotted_text(call.func)
    key = context.frame.key
    if text is None or not key:
        return None
    root = context.resolver.lookup(text.split(".")[0])
    if root is None:
        return None  # a builtin, or a global no module binds
    qualname = context.resolver.qualified_name(call.func)
    if qualname is not None and not jobs.may_be_project_code(qualname):
        return None
    return context.resolver.local_qualname(key), text


def returned_alternatives(
    call: cst.Call, context: FileContext, iterated: bool, mode: str = ""
) -> list[PayloadIssue]:
    """What a project helper the call calls returns: one pending issue per
    kind it may be (iterated: a row of the rows it returns)."""
    site = helper_site(call, context)
    if site is None:
        return []
    function, text = site
    if iterated:
        kinds = [(f.row_kind, f.rows_kind) for f in kb.MANAGER_FETCHES]
    else:
        kinds = [(k, k) for k in sorted(kb.ORM_KINDS | kb.ROWS_KINDS | kb.RICH_KINDS)]
    return [
        PayloadIssue(
            call,
            "",
            kind,
            RETURNED,
            (ReturnsObject(function, text, frozenset({returned}), mode == RETURNED_ITEM),),
            fixable=not mode,
            holder=render(call) if mode else "",
        )
        for kind, returned in kinds
    ]


def _method_chain(
    node: cst.BaseExpression,
) -> tuple[list[tuple[str, cst.Call]], cst.BaseExpression]:
    """`a.b(x).c(y)` -> ([("c", call), ("b", call)], a): outermost call first."""
    chain: list[tuple[str, cst.Call]] = []
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        chain.append((node.func.attr.value, node))
        node = node.func.value
    return chain, node


def _manager_fetch(
    node: cst.BaseExpression, context: FileContext, iterated: bool, fetches: kb.ManagerFetches
) -> PayloadIssue | None:
    """`Order.objects.get(...)`, `Order.objects.filter(...)[0]`, `get_object_or_404(Order, ...)`."""
    indexed = False
    if isinstance(node, cst.Subscript):
        indexed = not any(isinstance(e.slice, cst.Slice) for e in node.slice)
        node = node.value
    if isinstance(node, cst.Call):
        shortcut = _fetch_function(node, context, fetches)
        if shortcut is not None:
            kind, model = shortcut
            if kind == fetches.rows_kind and (indexed or iterated):
                kind = fetches.row_kind
            return PayloadIssue(node, "", kind, model)
    chain, root = _method_chain(node)
    if not (isinstance(root, cst.Attribute) and root.attr.value == fetches.manager_attribute):
        return None
    model = (dotted_parts(root.value) or ["?"])[-1]
    last = chain[0][0] if chain else None  # the manager itself: all its rows
    if last in fetches.row_methods:
        return PayloadIssue(node, "", fetches.row_kind, model)
    if last is not None and last not in fetches.rows_methods:
        return None  # count(), exists(), aggregate(): plain values
    values = any(name in fetches.plain_methods for name, _ in chain)
    if indexed or iterated:
        return None if values else PayloadIssue(node, "", fetches.row_kind, model)
    return PayloadIssue(node, "", fetches.rows_kind, model)


def _fetch_function(
    call: cst.Call, context: FileContext, fetches: kb.ManagerFetches
) -> tuple[str, str] | None:
    qualname = context.resolver.qualified_name(call.func)
    if qualname is None or not call.args:
        return None
    model = (dotted_parts(call.args[0].value) or ["?"])[-1]
    if qualname in fetches.row_functions:
        return fetches.row_kind, model
    if qualname in fetches.rows_functions:
        return fetches.rows_kind, model
    return None


def _session_fetch(
    node: cst.BaseExpression, context: FileContext, iterated: bool, fetches: kb.SessionFetches
) -> list[PayloadIssue] | None:
    """`session.query(Order).first()`, `session.scalars(select(Order)).all()`,
    `session.get(Order, pk)`."""
    chain, _ = _method_chain(node)
    if not chain:
        return None
    last, last_call = chain[0]
    if last in fetches.get_methods and len(chain) == 1:
        return _session_get(last_call, context, fetches)
    model = _queried_model(chain, context, fetches)
    if model is None:
        return None
    if last in fetches.row_methods or (iterated and last in fetches.rows_methods):
        return [PayloadIssue(node, "", fetches.row_kind, model)]
    if last in fetches.rows_methods:
        return [PayloadIssue(node, "", fetches.rows_kind, model)]
    return None


def _session_get(
    call: cst.Call, context: FileContext, fetches: kb.SessionFetches
) -> list[PayloadIssue] | None:
    """`session.get(Order, pk)`: an instance if the index knows `Order` as a model."""
    if len(call.args) < 2 or call.args[0].keyword is not None:
        return None
    first = call.args[0].value
    qualname = context.resolver.qualified_name(first)
    parts = dotted_parts(first)
    if qualname is None or parts is None:
        return None
    requires = (ClassOfKind(qualname, frozenset({fetches.row_kind})),)
    return [PayloadIssue(call, "", fetches.row_kind, parts[-1], requires)]


def _queried_model(
    chain: Sequence[tuple[str, cst.Call]], context: FileContext, fetches: kb.SessionFetches
) -> str | None:
    """The model `session.query(X)` / `session.scalars(select(X))` fetches."""
    for name, call in reversed(chain):  # innermost first
        takes_entity = name in fetches.entity_methods
        if not (takes_entity or name in fetches.statement_methods) or not call.args:
            continue
        entity: cst.BaseExpression | None = unwrap(call.args[0].value)
        if not takes_entity and entity is not None:
            entity = _selected_entity(entity, context, fetches)
        if isinstance(entity, cst.Name) and entity.value[:1].isupper():
            return entity.value
        return None
    return None


def _selected_entity(
    node: cst.BaseExpression, context: FileContext, fetches: kb.SessionFetches
) -> cst.BaseExpression | None:
    """`select(X).where(...)` -> X."""
    _, call = _method_chain(node)
    if not isinstance(call, cst.Call) or not call.args:
        return None
    name = context.resolver.qualified_name(call.func) or dotted_text(call.func) or ""
    if name.rsplit(".", 1)[-1] not in fetches.select_functions:
        return None
    return call.args[0].value
