"""What a function does with the rows a locking query returned.

A queue claim locks a row to write it: it updates, flags or deletes it as the
unit of work (`job.status = ...; job.save()`, `qs.update(...)`, `row.delete()`,
`X.objects.filter(pk__in=ids).update(...)`, `session.delete(row)`). A lock taken
to serialise (the next number after the last one, a read under lock) leaves the
row as it was. A find-or-create tests the lookup and creates a row of the same
model when it found none: its lock must wait, or two callers create two rows.

The rows are followed through the names they are bound to in the same function
(`x = <query>`, `for row in <query>`, `rows = list(<query>)`, `row = rows[0]`,
`stmt = select(...).with_for_update(); row = session.scalars(stmt).first()`,
`batch.append(row)`), not into other functions: rows the function returns
are handed back (`Use.RETURNED`), for the project model to find a caller
that claims them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum

import libcst as cst

from joblint.analysis.expressions import function_body, scope_nodes
from joblint.analysis.names import last_name, unwrap
from joblint.analysis.walk import children
from joblint.knowledge import locks


class Use(Enum):
    CLAIMED = "claimed"  # written or deleted: a claim
    READ = "read"  # left as it was
    FIND_OR_CREATE = "find-or-create"  # a missing row is created instead
    RETURNED = "returned"  # left as it was here, and handed back to the caller


class _Held(Enum):
    ROW = "row"  # one row
    ROWS = "rows"  # a query, a result, a list: iterating it gives rows


# The model a create call makes (`Job.objects.create(...)`, or a constructor
# `Job(...)` -> "app.models.Job").
ModelOf = Callable[[cst.Call], str | None]


@dataclass(slots=True)
class _Tracker:
    assignment_writes: bool
    model: str | None
    model_of: ModelOf
    held: dict[str, _Held] = field(default_factory=dict)
    claimed: bool = False
    returned: bool = False


def locked_rows_use(
    top: cst.BaseExpression,
    statement: cst.CSTNode | None,
    scope: cst.FunctionDef | cst.Module,
    *,
    fetches_one: bool,
    assignment_writes: bool,
    model: str | None,
    model_of: ModelOf,
) -> Use:
    """How the function `scope` uses the rows of the locking query `top`,
    written in `statement`; `fetches_one` when `top` itself returns one row."""
    tracker = _Tracker(assignment_writes, model, model_of)
    if statement is None:
        return Use.READ
    held = _ROW if fetches_one else _ROWS
    small = _small_statement(statement, top)
    _bind_result(tracker, small, top, held)
    if _write_mentions(small, lambda n: n is top):
        tracker.claimed = True
    nodes = list(scope_nodes(function_body(scope)))
    started = False
    for node in nodes:
        if node is small:
            started = True  # what follows in source order: its own body first
            _note_return(tracker, node, top)
        elif started:
            _follow(tracker, node)
            _note_return(tracker, node, top)
    # The lookup is tested where it may come before the fetch (`if rows: row =
    # rows.first() else: create`): through the name the query was read from too.
    _, root = _steps(top)
    if isinstance(root, cst.Name) and root.value not in tracker.held:
        tracker.held[root.value] = _ROWS
    if any(isinstance(n, cst.If) and _creates_when_missing(tracker, n) for n in nodes):
        return Use.FIND_OR_CREATE
    if tracker.claimed:
        return Use.CLAIMED
    return Use.RETURNED if tracker.returned else Use.READ


def _note_return(tracker: _Tracker, node: cst.CSTNode, top: cst.BaseExpression) -> None:
    """`return <query>.first()`, `return job`, `return list(rows)`, `return
    session.scalars(<query>).first()`: the rows go back to the caller."""
    if not isinstance(node, cst.Return) or node.value is None:
        return
    if _carried(tracker, node.value, top) is not None:
        tracker.returned = True


def _carried(tracker: _Tracker, value: cst.BaseExpression, top: cst.BaseExpression) -> _Held | None:
    """What `value` holds of the locked query `top`'s rows: `top` itself, a
    held name or a chain on it (`_derived`), or a chain on a call given
    `top` or rows of it (`session.scalars(<query>).first()`, `list(session.
    scalars(<query>))`; one row handed to a call, `Out(<rows>.first())`,
    makes something else)."""
    value = unwrap(value)
    if value is top:
        return _ROWS
    held = _derived(tracker, value)
    if held is not None:
        return held
    steps, _root = _steps(value)
    for step in steps:
        if held is None:
            if isinstance(step, cst.Call) and _given_query(tracker, step, top):
                held = _ROWS
            continue
        if held is _ROW:
            return None
        held = _step_result(step)
    return held


def _given_query(tracker: _Tracker, call: cst.Call, top: cst.BaseExpression) -> bool:
    for arg in call.args:
        if arg.star or arg.keyword is not None:
            continue
        if unwrap(arg.value) is top or _carried(tracker, arg.value, top) is _ROWS:
            return True
    return False


_ROW = _Held.ROW
_ROWS = _Held.ROWS


def _small_statement(statement: cst.CSTNode, top: cst.BaseExpression) -> cst.CSTNode:
    """The simple statement of a line that holds `top` (`a = 1; b = <top>`)."""
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if _contains(small, lambda n: n is top):
                return small
    return statement


def _bind_result(
    tracker: _Tracker, statement: cst.CSTNode, top: cst.BaseExpression, held: _Held
) -> None:
    """The names the statement binds the query's result to."""
    if isinstance(statement, cst.Assign | cst.AnnAssign) and statement.value is not None:
        value = unwrap(statement.value)
        kind = held if value is top else _ROWS  # `list(<query>)` holds its rows
        for target in _targets(statement):
            _bind(tracker, target, kind)
    elif isinstance(statement, cst.For):
        _bind(tracker, statement.target, _ROW)
    elif isinstance(statement, cst.With):
        for item in statement.items:
            if item.asname is not None and _contains(item.item, lambda n: n is top):
                _bind(tracker, item.asname.name, _ROWS)


def _targets(statement: cst.Assign | cst.AnnAssign) -> list[cst.BaseExpression]:
    if isinstance(statement, cst.Assign):
        return [t.target for t in statement.targets]
    return [statement.target]


def _bind(tracker: _Tracker, target: cst.BaseExpression, held: _Held) -> None:
    if isinstance(target, cst.Name):
        tracker.held[target.value] = held


# --- following the rows ----------------------------------------------------------------


def _follow(tracker: _Tracker, node: cst.CSTNode) -> None:
    if isinstance(node, cst.Assign | cst.AnnAssign | cst.AugAssign):
        _follow_assignment(tracker, node)
    elif isinstance(node, cst.For):
        if _derived(tracker, node.iter) is not None:
            _bind(tracker, node.target, _ROW)
    elif isinstance(node, cst.Call):
        _follow_call(tracker, node)


def _follow_assignment(tracker: _Tracker, node: cst.Assign | cst.AnnAssign | cst.AugAssign) -> None:
    targets = [node.target] if isinstance(node, cst.AugAssign) else _targets(node)
    for target in targets:
        if isinstance(target, cst.Attribute) and _is_held(tracker, target.value):
            # `row.status = "running"`: a session that flushes changed objects writes it.
            tracker.claimed = tracker.claimed or tracker.assignment_writes
    if isinstance(node, cst.AugAssign) or node.value is None:
        return
    held = _derived(tracker, node.value)
    if held is not None:
        for target in targets:
            _bind(tracker, target, held)


def _follow_call(tracker: _Tracker, call: cst.Call) -> None:
    func = call.func
    method = func.attr.value if isinstance(func, cst.Attribute) else None
    receiver = func.value if isinstance(func, cst.Attribute) else None
    if receiver is not None and _is_held(tracker, receiver) and method in _ROW_WRITES:
        tracker.claimed = True  # `row.save()`, `rows.update(...)`, `row.delete()`
    collects = receiver is not None and method in locks.COLLECT_METHODS
    if (
        receiver is not None
        and collects
        and any(_mentions_held(tracker, a.value) for a in call.args)
    ):
        _bind(tracker, receiver, _ROWS)  # `batch.append(row)`
    if _write_mentions(call, lambda n: _is_held(tracker, n), only=True):
        tracker.claimed = True


_ROW_WRITES = locks.ROW_SAVE_METHODS | locks.ROW_WRITE_CALLS


def _is_held(tracker: _Tracker, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Name) and node.value in tracker.held


def _mentions_held(tracker: _Tracker, node: cst.CSTNode) -> bool:
    return _contains(node, lambda n: _is_held(tracker, n))


def _derived(tracker: _Tracker, value: cst.BaseExpression) -> _Held | None:
    """What `value` holds of the locked rows: an alias of a held name, a chain
    on a held query (`rows.first()`, `rows[0]`, `rows.filter(...)`), or a call
    given one (`list(rows)`, `session.scalars(stmt)`) and chains on that."""
    steps, root = _steps(unwrap(value))
    held = tracker.held.get(root.value) if isinstance(root, cst.Name) else None
    if held is _ROW:
        return _ROW if not steps else None  # an attribute of a row is another thing
    for step in steps:
        if held is None:
            if isinstance(step, cst.Call) and _given_rows(tracker, step):
                held = _ROWS
            continue
        if held is _ROW:
            return None
        held = _step_result(step)
    return held


def _given_rows(tracker: _Tracker, call: cst.Call) -> bool:
    """`list(rows)`, `session.scalars(stmt)`, `list(session.scalars(stmt).all())`:
    the rows as a positional argument (a keyword, `Invoice(previous=row)`,
    makes something else; so does one row, `serialize(rows.first())`)."""
    return any(
        not arg.star
        and arg.keyword is None
        and (_is_held(tracker, arg.value) or _derived(tracker, arg.value) is _ROWS)
        for arg in call.args
    )


def _step_result(step: cst.CSTNode) -> _Held | None:
    if isinstance(step, cst.Call) and isinstance(step.func, cst.Attribute):
        return _ROW if step.func.attr.value in locks.ROW_FETCH_METHODS else _ROWS
    if isinstance(step, cst.Subscript):
        return _ROWS if any(isinstance(e.slice, cst.Slice) for e in step.slice) else _ROW
    return None  # `rows.model`: not the rows


def _steps(node: cst.BaseExpression) -> tuple[list[cst.CSTNode], cst.BaseExpression]:
    """The calls, subscripts and attributes of a chain, innermost first, and its root."""
    steps: list[cst.CSTNode] = []
    while True:
        if isinstance(node, cst.Call):
            steps.append(node)
            if not isinstance(node.func, cst.Attribute):
                break
            node = unwrap(node.func.value)
        elif isinstance(node, cst.Subscript | cst.Attribute):
            steps.append(node)
            node = unwrap(node.value)
        else:
            break
    steps.reverse()
    return steps, node


# --- writes and creates ------------------------------------------------------------------


def _chain_names(call: cst.Call) -> Iterator[str]:
    """The method (and root function) names of the chain ending in `call`."""
    steps, _root = _steps(call)
    for step in steps:
        if isinstance(step, cst.Call):
            func = step.func
            if isinstance(func, cst.Attribute):
                yield func.attr.value
            elif isinstance(func, cst.Name):
                yield func.value


def _write_mentions(
    node: cst.CSTNode, wanted: Callable[[cst.CSTNode], bool], *, only: bool = False
) -> bool:
    """A write call (`update`, `delete`, `bulk_update`, also as the root of
    `update(Job).where(...)`) under `node` (or `node` itself when
    `only`) whose chain mentions a node `wanted` picks."""
    calls = [node] if only else [n for n in _nodes(node) if isinstance(n, cst.Call)]
    for call in calls:
        if not isinstance(call, cst.Call):
            continue
        if set(_chain_names(call)) & locks.ROW_WRITE_CALLS and _contains(call, wanted):
            return True
    return False


def _creates_when_missing(tracker: _Tracker, node: cst.If) -> bool:
    """`node` tests the lookup and, in its branch for "nothing found", creates a
    row of the locked query's model (`if not row: row = Job.objects.create()`)."""
    if tracker.model is None:
        return False
    missing = _missing_branch(tracker, node.test)
    if missing is None:
        return False
    branch: cst.CSTNode | None = node.body if missing else node.orelse
    return branch is not None and _creates_same_model(tracker, branch)


def _missing_branch(tracker: _Tracker, test: cst.BaseExpression) -> bool | None:
    """True when the `if` body runs if the lookup found nothing (`not row`,
    `row is None`), False when its `else` does (`if rows:`), None when unclear."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _missing_branch(tracker, test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
            return None
        if not _is_lookup(tracker, test.left):
            return None
        if isinstance(target.operator, cst.Is | cst.Equal):
            return True
        return False if isinstance(target.operator, cst.IsNot | cst.NotEqual) else None
    return False if _is_lookup(tracker, test) else None


def _is_lookup(tracker: _Tracker, node: cst.BaseExpression) -> bool:
    """A held name, or a chain on one (`rows.exists()`, `rows.first()`)."""
    _, root = _steps(unwrap(node))
    return _is_held(tracker, root)


def _creates_same_model(tracker: _Tracker, branch: cst.CSTNode) -> bool:
    """A create call of the locked query's model in `branch`, or its
    constructor (`row = Job(...)`, saved afterwards)."""
    for inner in _nodes(branch):
        if not isinstance(inner, cst.Call):
            continue
        func = inner.func
        creates = isinstance(func, cst.Attribute) and func.attr.value in locks.ROW_CREATE_METHODS
        name = last_name(func)
        constructs = name is not None and name[:1].isupper()
        if (creates or constructs) and tracker.model_of(inner) == tracker.model:
            return True
    return False


def _nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and everything under it, pre-order, except names that aren't
    references: an attribute's name (`x.job`) and a keyword's (`job=...`)."""
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, cst.Attribute | cst.Arg):
            stack.append(node.value)
        else:
            stack.extend(reversed(children(node)))


def _contains(root: cst.CSTNode, wanted: Callable[[cst.CSTNode], bool]) -> bool:
    return any(wanted(node) for node in _nodes(root))
