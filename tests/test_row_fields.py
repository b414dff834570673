"""What a task does with the row it loads by the key it is handed (`joblint.index.row_fields`)."""

from __future__ import annotations

import ast

from joblint.index.nodes import nodes_by_kind, own_nodes
from joblint.index.row_fields import row_uses
from joblint.models import RowUse


def _uses(source: str) -> tuple[RowUse, ...]:
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    parameters = frozenset(a.arg for a in function.args.args)
    return row_uses(nodes_by_kind(own_nodes(function.body)), parameters, ast.unparse)


def test_fields_read_and_saved_by_name() -> None:
    (use,) = _uses(
        """
def task(order_id):
    order = Order.objects.select_for_update().get(pk=str(order_id))
    if order is None:
        return
    order.total = order.subtotal + order.tax
    order.save(update_fields=["total"])
"""
    )
    assert use == RowUse("order_id", "Order", 3, ("subtotal", "tax"), ("total",))


def test_a_whole_row_save_and_a_row_handed_on() -> None:
    (use,) = _uses(
        """
def task(order_id):
    order = get_object_or_404(Order, id=order_id)
    order.save()
    notify(order)
"""
    )
    assert use.saves_all and use.handed_on and use.model == "Order"


def test_a_pinned_update_writes_the_fields_it_names() -> None:
    (use,) = _uses(
        """
def task(order_id):
    Order.objects.filter(pk=order_id).update(state="sent")
"""
    )
    assert use.writes == ("state",) and not use.handed_on


def test_a_row_bound_twice_or_loaded_by_another_column_is_not_followed() -> None:
    assert not _uses(
        """
def task(order_id, code):
    order = Order.objects.get(pk=order_id)
    order = order.parent
    other = Order.objects.get(code=code)
"""
    )
