"""What an ORM query chain filters on, condition by condition.

Reads the conditions of a chain from `joblint.analysis.chains` (keyword
lookups `filter(name=value)`, `Q(...)`; comparisons `where(Job.name == value)`,
`and_(...)`, column operators: the ORMs' `QUERY_APIS`), and which model
the chain queries.
Each condition is one of: the row's key (`id`, `pk`, `uuid`) by equality or IN;
an equality of one column with a value (constant or not); any other condition
(a range, a set, an OR, a join, an exclusion); or one that can't be read
(`**kwargs`, an expression built elsewhere).

The column side of a comparison is what a condition is about: in
`Message.queue_id == queue.id` the column is `queue_id` (the value's `id` pins
nothing). A column is an attribute of a class (`Job.status`, a capitalised
name: the documented heuristic) or of a Core table's `.c`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

import libcst as cst

from joblint.analysis.chains import Link
from joblint.analysis.names import Resolver, last_name
from joblint.knowledge import locks


class Kind(Enum):
    KEY = "key"
    EQUAL = "equal"
    OTHER = "other"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Condition:
    kind: Kind
    # For EQUAL: the column compared, the model it belongs to (qualified name,
    # None when not known or on a related model) and whether the value is a constant.
    column: str = ""
    model: str | None = None
    constant: bool = False


_KEY = Condition(Kind.KEY)
_OTHER = Condition(Kind.OTHER)
_UNKNOWN = Condition(Kind.UNKNOWN)


def chain_conditions(
    links: Sequence[Link], model: str | None, resolver: Resolver | None
) -> list[Condition]:
    """Every condition the chain's filter and exclude calls put on the rows."""
    found: list[Condition] = []
    for link in links:
        call = link.call
        if call is None:
            continue
        if link.method in locks.FILTER_METHODS:
            found.extend(_arguments(call.args, model, resolver))
        elif link.method in locks.EXCLUDE_METHODS:
            found.append(_OTHER)
    return found


# --- the queried model -----------------------------------------------------------------


def chain_model(links: Sequence[Link], resolver: Resolver | None) -> str | None:
    """The qualified name of the model a chain queries: the chain's root
    (`Job.objects...`), or the entity of a call naming it (`select(Job)...`,
    `session.query(Job)...`); None when unknown."""
    if not links or resolver is None:
        return None
    first = links[0]
    call = first.call
    if call is None or not isinstance(call.func, cst.Attribute):
        return None
    if first.method in locks.ENTITY_CALLS:
        return _entity(call, resolver)
    receiver = call.func.value
    if isinstance(receiver, cst.Call) and last_name(receiver.func) in locks.ENTITY_CALLS:
        return _entity(receiver, resolver)
    return _class_name(resolver.qualified_name(receiver), drop_attribute=True)


def _entity(call: cst.Call, resolver: Resolver) -> str | None:
    """The model named by the first argument of `select(...)`/`query(...)`."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if not positional:
        return None
    node = positional[0]
    while isinstance(node, cst.Attribute) and not _is_class_like(node):
        node = node.value  # `select(Job.id)` queries Job
    return _class_name(resolver.qualified_name(node), drop_attribute=False)


def constructed_model(call: cst.Call, resolver: Resolver | None) -> str | None:
    """The qualified name of the class a constructor call makes
    (`Job(state="new")`), when its callee is class-like; else None."""
    if resolver is None or not _is_class_like(call.func):
        return None
    return _class_name(resolver.qualified_name(call.func), drop_attribute=False)


def _is_class_like(node: cst.BaseExpression) -> bool:
    last = last_name(node)
    return last is not None and last[:1].isupper()


def _class_name(qualname: str | None, *, drop_attribute: bool) -> str | None:
    """`app.models.Job` (or `app.models.Job.objects`, a manager, when
    `drop_attribute`): the class-like dotted name, else None."""
    if qualname is None:
        return None
    parts = qualname.split(".")
    if drop_attribute and len(parts) > 1 and not parts[-1][:1].isupper():
        parts = parts[:-1]
    return ".".join(parts) if parts[-1][:1].isupper() else None


# --- conditions ------------------------------------------------------------------------


def _arguments(
    args: Sequence[cst.Arg], model: str | None, resolver: Resolver | None
) -> Iterator[Condition]:
    for arg in args:
        if arg.star:
            yield _UNKNOWN  # `filter(**conditions)`: built elsewhere
        elif arg.keyword is not None:
            yield _keyword(arg.keyword.value, arg.value, model)
        else:
            yield from _expression(arg.value, model, resolver)


def _keyword(key: str, value: cst.BaseExpression, model: str | None) -> Condition:
    """A keyword lookup (`name=`, `name__lt=`, `user__pk=`) or a plain keyword
    (`filter_by(name=)`): a column of the queried model."""
    if locks.keyword_pins_key(key):
        return _KEY
    parts, lookup = locks.keyword_lookup(key)
    if lookup not in locks.EQUALITY_LOOKUPS or _is_column_reference(value):
        return _OTHER
    if len(parts) == 2 and parts[1] in locks.RELATED_KEY_LOOKUPS:
        parts = parts[:1]  # `user__pk=u` compares the foreign key `user`
    if len(parts) == 1:
        return Condition(Kind.EQUAL, parts[0], model, is_constant(value))
    return Condition(Kind.EQUAL, key, None, is_constant(value))  # a related model's column


def _expression(
    node: cst.BaseExpression, model: str | None, resolver: Resolver | None
) -> Iterator[Condition]:
    """A positional condition: a comparison, `Q(...)`, `and_(...)`, a column
    operator (`Job.id.in_(...)`, `Job.state.notin_(...)`), `&`, `|`, `~`."""
    if isinstance(node, cst.Comparison):
        yield _comparison(node, resolver)
    elif isinstance(node, cst.Call):
        yield from _call_condition(node, model, resolver)
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitAnd):
        yield from _expression(node.left, model, resolver)
        yield from _expression(node.right, model, resolver)
    elif isinstance(node, cst.BinaryOperation | cst.UnaryOperation):
        yield _OTHER  # `Q(...) | Q(...)`, `~Q(...)`: never one row
    else:
        yield _UNKNOWN


def _call_condition(
    node: cst.Call, model: str | None, resolver: Resolver | None
) -> Iterator[Condition]:
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in locks.IN_METHODS:
        yield _KEY if _column_name(func.value) in locks.KEY_COLUMNS else _OTHER
        return
    if isinstance(func, cst.Attribute) and func.attr.value in locks.COLUMN_OPERATOR_METHODS:
        yield _OTHER
        return
    name = last_name(func)
    if name in locks.AND_CALLS:
        yield from _arguments(node.args, model, resolver)
    elif name in locks.OR_CALLS:
        yield _OTHER
    else:
        yield _UNKNOWN


def _comparison(node: cst.Comparison, resolver: Resolver | None) -> Condition:
    if len(node.comparisons) != 1:
        return _OTHER
    target = node.comparisons[0]
    left, right = node.left, target.comparator
    left_column, right_column = _is_column(left), _is_column(right)
    if left_column and right_column:
        return _OTHER  # a join condition
    # The column side; written the other way round only when the left isn't one.
    column, value = (right, left) if right_column and not left_column else (left, right)
    name = _column_name(column)
    if isinstance(target.operator, cst.In):
        return _KEY if name in locks.KEY_COLUMNS else _OTHER
    if not isinstance(target.operator, cst.Equal) or name is None:
        return _OTHER
    if name in locks.KEY_COLUMNS:
        return _KEY
    if _is_column_reference(value):
        return _OTHER
    return Condition(Kind.EQUAL, name, _column_model(column, resolver), is_constant(value))


def _is_column(node: cst.BaseExpression) -> bool:
    """`Job.status` (an attribute of a class) or `jobs.c.status` (a Core table's)."""
    if not isinstance(node, cst.Attribute):
        return False
    owner = node.value
    if isinstance(owner, cst.Attribute) and owner.attr.value in locks.TABLE_COLUMNS_ATTRIBUTES:
        return True
    return _is_class_like(owner)


def _column_name(node: cst.BaseExpression) -> str | None:
    return node.attr.value if isinstance(node, cst.Attribute) else None


def _column_model(column: cst.BaseExpression, resolver: Resolver | None) -> str | None:
    if resolver is None or not isinstance(column, cst.Attribute):
        return None
    owner = column.value
    if not _is_class_like(owner):
        return None
    return _class_name(resolver.qualified_name(owner), drop_attribute=False)


def _is_column_reference(node: cst.BaseExpression) -> bool:
    """`F("other")`, `OuterRef("pk")`: another column, not a value."""
    return isinstance(node, cst.Call) and last_name(node.func) in locks.COLUMN_REFERENCE_CALLS


def is_constant(node: cst.BaseExpression) -> bool:
    """A value fixed in the code: a literal, a module constant (`QUEUED`), a
    class attribute (`Status.QUEUED`, `JobState.queued`), a tuple of those."""
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString | cst.Integer | cst.Float):
        return True
    if isinstance(node, cst.FormattedString):
        return not any(isinstance(p, cst.FormattedStringExpression) for p in node.parts)
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None") or node.value.isupper()
    if isinstance(node, cst.Attribute):
        root: cst.BaseExpression = node
        while isinstance(root, cst.Attribute):
            root = root.value
        return node.attr.value.isupper() or (
            isinstance(root, cst.Name) and root.value[:1].isupper()
        )
    if isinstance(node, cst.UnaryOperation):
        return is_constant(node.expression)
    if isinstance(node, cst.Tuple | cst.List):
        return all(
            not isinstance(e, cst.StarredElement) and is_constant(e.value) for e in node.elements
        )
    return False
