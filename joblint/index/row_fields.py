"""Which fields of a row a job reads and writes, where it loads the row by
the key a parameter hands it (`order = Order.objects.get(pk=order_id)`):
for the project model, which tells a caller's write whether the job it
enqueued depends on it (`FunctionSummary.row_uses`).

A job enqueued before its caller writes the row depends on that write only
through what it does with the row: a field it reads that the write sets (it
may read the old value), a field it writes that the write saves again (the
caller's save puts the old value back), or the whole row it saves back. The
load is read where the function binds it to a name once; each use of that
name is a field read (`order.total`), a field set (`order.state = ...`), a
save (`order.save(update_fields=[...])`, or the whole row), a method the
library's data calls plain, or a test of it (`if order:`). Any other use
hands the row on (to a call, a return, a container, a method of the
project's), and then what the job does with it is not known. A pinned
queryset write (`Order.objects.filter(pk=order_id).update(state=...)`)
writes the fields it names.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import cast

from joblint.index.row_uses import bound_once, chain_links
from joblint.knowledge import jobs
from joblint.models import RowUse

_Kinds = Mapping[type[ast.AST], list[ast.AST]]
Qualify = Callable[[ast.expr], "str | None"]

# Calls that turn a key into text or a number: the key is the same.
_KEY_CONVERSIONS = frozenset({"str", "int", "UUID"})


@dataclass(slots=True)
class _Row:
    parameter: str
    model: str
    line: int
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    saves_all: bool = False
    handed_on: bool = False

    def frozen(self) -> RowUse:
        return RowUse(
            self.parameter,
            self.model,
            self.line,
            tuple(sorted(self.reads)),
            tuple(sorted(self.writes)),
            self.saves_all,
            self.handed_on,
        )


def row_uses(kinds: _Kinds, parameters: frozenset[str], qualify: Qualify) -> tuple[RowUse, ...]:
    """The rows a function loads by its `parameters`' keys (among its own
    nodes, grouped by kind), and what it does with their fields."""
    calls = cast(list[ast.Call], kinds.get(ast.Call, []))
    if not parameters or not calls:
        return ()
    loads = _loads(kinds, calls, parameters, qualify)
    pinned = list(_pinned_writes(calls, parameters, qualify))
    if not loads and not pinned:
        return ()
    rows: dict[str, _Row] = {}
    for name, row in loads.items():
        rows[name] = row
        _follow(name, row, kinds, calls)
    found = [row.frozen() for row in rows.values()]
    found.extend(row.frozen() for row in pinned)
    return tuple(found)


def _loads(
    kinds: _Kinds, calls: list[ast.Call], parameters: frozenset[str], qualify: Qualify
) -> dict[str, _Row]:
    """Names bound once to a row loaded by a parameter's key."""
    candidates = {id(c): c for c in calls if _is_load(c)}
    if not candidates:
        return {}
    bound: dict[str, _Row] = {}
    for node in kinds.get(ast.Assign, []):
        assign = cast(ast.Assign, node)
        value = assign.value.value if isinstance(assign.value, ast.Await) else assign.value
        if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
            continue
        if id(value) not in candidates:
            continue
        keyed = _keyed_parameter(cast(ast.Call, value), parameters)
        if keyed is not None:
            model = _model_of(cast(ast.Call, value), qualify)
            bound[assign.targets[0].id] = _Row(keyed, model, assign.lineno)
    if not bound:
        return {}
    once = bound_once(kinds)  # a name bound again may hold another row
    return {name: row for name, row in bound.items() if name in once}


def _is_load(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr in jobs.ROW_LOADERS or func.attr in jobs.ROW_LOADER_FUNCTIONS
    return isinstance(func, ast.Name) and func.id in jobs.ROW_LOADER_FUNCTIONS


def _keyed_parameter(call: ast.Call, parameters: frozenset[str]) -> str | None:
    """The parameter whose key a link of the chain `call` ends compares
    (`.get(pk=order_id)`, `.filter(id=order_id).first()`)."""
    for link in chain_links(call):
        for keyword in link.keywords:
            if keyword.arg in jobs.KEY_LOOKUPS:
                name = _key_name(keyword.value)
                if name in parameters:
                    return name
    return None


def _key_name(node: ast.expr) -> str | None:
    if (
        isinstance(node, ast.Call)
        and len(node.args) == 1
        and isinstance(node.func, ast.Name)
        and node.func.id in _KEY_CONVERSIONS
    ):
        node = node.args[0]
    return node.id if isinstance(node, ast.Name) else None


def _model_of(call: ast.Call, qualify: Qualify) -> str:
    """The model class a load names: the root of its chain before a manager
    (`Order.objects...`), or a loader function's first argument."""
    func = call.func
    if (isinstance(func, ast.Name) and func.id in jobs.ROW_LOADER_FUNCTIONS) or (
        isinstance(func, ast.Attribute) and func.attr in jobs.ROW_LOADER_FUNCTIONS
    ):
        return (qualify(call.args[0]) or "") if call.args else ""
    node: ast.expr = call
    while isinstance(node, ast.Call | ast.Attribute):
        if isinstance(node, ast.Attribute) and node.attr in jobs.MODEL_MANAGERS:
            return qualify(node.value) or ""
        node = node.func if isinstance(node, ast.Call) else node.value
    return ""


def _pinned_writes(
    calls: list[ast.Call], parameters: frozenset[str], qualify: Qualify
) -> Iterator[_Row]:
    """`Order.objects.filter(pk=order_id).update(state=...)`: the fields it sets."""
    for call in calls:
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in jobs.PINNED_WRITE_METHODS):
            continue
        if not isinstance(func.value, ast.Call):
            continue
        keyed = _keyed_parameter(func.value, parameters)
        if keyed is None:
            continue
        row = _Row(keyed, _model_of(func.value, qualify), call.lineno)
        fields = {k.arg for k in call.keywords if k.arg is not None}
        if fields and all(k.arg is not None for k in call.keywords):
            row.writes = fields
        else:
            row.handed_on = True  # a delete, or `update(**values)`
        yield row


def _follow(name: str, row: _Row, kinds: _Kinds, calls: list[ast.Call]) -> None:
    """Read each use of the name bound to the row into `row`."""
    methods = {id(c.func): c for c in calls}
    placed: set[int] = set()
    for node in kinds.get(ast.Attribute, []):
        attribute = cast(ast.Attribute, node)
        owner = attribute.value
        if not (isinstance(owner, ast.Name) and owner.id == name):
            continue
        placed.add(id(owner))
        if isinstance(attribute.ctx, ast.Store | ast.Del):
            row.writes.add(attribute.attr)
        elif id(attribute) in methods:
            _method_use(row, attribute.attr, methods[id(attribute)])
        else:
            row.reads.add(attribute.attr)
    placed.update(_tested_names(kinds, name))
    for node in kinds.get(ast.Name, []):
        use = cast(ast.Name, node)
        if use.id == name and isinstance(use.ctx, ast.Load) and id(use) not in placed:
            row.handed_on = True
            return


def _method_use(row: _Row, method: str, call: ast.Call) -> None:
    if method in jobs.ROW_PLAIN_METHODS:
        return
    if method in jobs.ROW_SAVE_METHODS:
        only = _only_fields(call)
        if only is None:
            row.saves_all = True
        else:
            row.writes.update(only)
        return
    row.handed_on = True  # a delete, or a method of the project's


def _only_fields(call: ast.Call) -> set[str] | None:
    """The fields a save names (`update_fields=["state"]`); None: every field."""
    for keyword in call.keywords:
        if keyword.arg in jobs.ONLY_FIELDS_KEYWORDS:
            value = keyword.value
            if isinstance(value, ast.List | ast.Tuple | ast.Set) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
            ):
                return {cast(str, cast(ast.Constant, e).value) for e in value.elts}
            return None
    return None


def _tested_names(kinds: _Kinds, name: str) -> Iterator[int]:
    """The uses of `name` that only test it (`if order:`, `if order is None:`,
    `if not order:`): they hand nothing on."""
    for kind in (ast.If, ast.While, ast.IfExp, ast.Assert):
        for node in kinds.get(kind, []):
            test = cast(ast.If, node).test
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test = test.operand
            if isinstance(test, ast.Compare) and all(
                isinstance(c, ast.Constant) and c.value is None for c in test.comparators
            ):
                test = test.left
            if isinstance(test, ast.Name) and test.id == name:
                yield id(test)
