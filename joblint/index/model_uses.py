"""Which of a function's parameters it uses as a model instance, the first
use of each (`order.refresh_from_db()`, `order.save()`, `order._meta`): for
the payload rule (JL201), which says a task handed a live object where the
task uses it as a model instance.

Only steady parameters count (those no statement of the function assigns):
the use is of what the caller passed.
"""

from __future__ import annotations

import ast
from typing import cast

from joblint.index.nodes import Function
from joblint.index.scope import Frame, ModuleScope
from joblint.knowledge import payloads

# The attributes and methods of a parameter that use it as a model instance.
_MODEL_USE_WORDS = payloads.MODEL_INSTANCE_ATTRIBUTES | payloads.MODEL_INSTANCE_METHODS


def model_uses(
    scope: ModuleScope, node: Function, frame: Frame
) -> tuple[tuple[str, int, str], ...]:
    """Its steady parameters it uses as a model instance, the first use of
    each (`order.refresh_from_db()`, `order.save()`, `order._meta`)."""
    if not frame.steady:
        return ()
    found: dict[str, tuple[str, int, str]] = {}
    candidates = [
        attribute
        for attribute in cast(list[ast.Attribute], scope.of_kind(node, ast.Attribute))
        if isinstance(attribute.value, ast.Name)
        and attribute.value.id in frame.steady
        and attribute.attr in _MODEL_USE_WORDS
    ]
    if not candidates:
        return ()
    methods = {
        id(call.func)
        for call in cast(list[ast.Call], scope.of_kind(node, ast.Call))
        if not call.args
    }
    for attribute in candidates:
        owner = cast(ast.Name, attribute.value)
        if attribute.attr in payloads.MODEL_INSTANCE_ATTRIBUTES:
            how = f"{owner.id}.{attribute.attr}"
        elif attribute.attr in payloads.MODEL_INSTANCE_METHODS and id(attribute) in methods:
            how = f"{owner.id}.{attribute.attr}()"
        else:
            continue
        use = (owner.id, attribute.lineno, how)
        if owner.id not in found or use[1] < found[owner.id][1]:
            found[owner.id] = use
    return tuple(sorted(found.values()))
