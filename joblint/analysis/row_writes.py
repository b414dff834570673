"""Which instance's row a call writes, and which instances a payload carries.

`order.save()` writes `order`'s row, and so does
`Order.objects.filter(pk=order.pk).update(...)`; `task.delay(order.pk)`,
`task.delay(order)` and `task.delay(order_id=order.id)` carry `order`. Both
read as the instance's dotted text (`order`, `self.object`), compared by text.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from joblint.analysis.names import dotted_text, unwrap
from joblint.knowledge import jobs


def written_instance(call: cst.Call) -> str | None:
    """The instance whose row `call` writes (its dotted text), or None."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    if method in jobs.ROW_WRITE_METHODS and not _is_query(func.value):
        return dotted_text(func.value)
    if method in jobs.PINNED_WRITE_METHODS and isinstance(func.value, cst.Call):
        return _pinned_instance(func.value)
    return None


def carried_instances(arguments: Iterator[cst.BaseExpression]) -> frozenset[str]:
    """The instances a payload names: themselves or their key (`order.pk`)."""
    found = set()
    for argument in arguments:
        instance = instance_of(argument)
        if instance is not None:
            found.add(instance)
    return frozenset(found)


def loads_a_row(value: cst.BaseExpression) -> bool:
    """`Order.objects.get(pk=...)`, `qs.first()`, `get_object_or_404(...)`,
    `self.get_object()`: a row read from the database, with its fields as stored."""
    node = unwrap(value)
    if isinstance(node, cst.Await):
        node = unwrap(node.expression)
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else dotted_text(func)
    return name in jobs.ROW_LOADERS or name in jobs.ROW_LOADER_FUNCTIONS


def instance_of(node: cst.BaseExpression) -> str | None:
    """The instance an argument names: itself or its key (`order.pk`, `str(order.id)`)."""
    node = unwrap(node)
    if isinstance(node, cst.Call) and len(node.args) == 1 and dotted_text(node.func) == "str":
        node = unwrap(node.args[0].value)  # `str(order.pk)`
    if isinstance(node, cst.Attribute) and node.attr.value in jobs.ROW_KEY_ATTRIBUTES:
        return dotted_text(node.value)
    if isinstance(node, cst.Name | cst.Attribute):
        return dotted_text(node)
    return None


def _pinned_instance(query: cst.Call) -> str | None:
    """`X.objects.filter(pk=order.pk)` (the filter last before the write): `order`."""
    func = query.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in jobs.PINNING_FILTERS:
        return None
    for arg in query.args:
        if arg.keyword is not None and arg.keyword.value in jobs.KEY_LOOKUPS:
            value = unwrap(arg.value)
            if isinstance(value, cst.Attribute) and value.attr.value in jobs.ROW_KEY_ATTRIBUTES:
                return dotted_text(value.value)
    return None


def _is_query(node: cst.BaseExpression) -> bool:
    """`qs.filter(...).delete()`, `Order.objects.delete()`: a queryset, not an instance."""
    return isinstance(node, cst.Call) or (
        isinstance(node, cst.Attribute) and node.attr.value in jobs.MODEL_MANAGERS
    )
