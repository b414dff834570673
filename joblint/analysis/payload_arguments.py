"""Which arguments of an enqueue end up in the job's payload.

Each queue library's enqueue method has a payload shape
(`knowledge.payloads.PAYLOAD_SHAPES`): the positions and keywords that hold
the job's arguments (`args=(...)`, `kwargs={...}`, the rest of the call) and
the options it reserves (`countdown=`, `queue=`). Also the place a called
function reads each argument from, and the task parameter each binds.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from joblint.knowledge import payloads as kb


def payload_arguments(call: cst.Call, shape: kb.PayloadShape) -> Iterator[cst.BaseExpression]:
    positional = [a for a in call.args if a.keyword is None]
    for index, arg in enumerate(positional):
        if index < shape.skip_positional:
            continue
        if index in (shape.args_position, shape.kwargs_position):
            yield from _container_items(arg.value)
        elif shape.rest_is_payload:
            yield arg.value
    for arg in call.args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name in (shape.args_keyword, shape.kwargs_keyword) and name:
            yield from _container_items(arg.value)
        elif shape.rest_is_payload and not _reserved(name, shape):
            yield arg.value


def dict_arguments(call: cst.Call, shape: kb.PayloadShape) -> set[int]:
    """The payload arguments that are dicts of keyword arguments: `**spread`
    into the call, or the call's `kwargs=`."""
    found = {id(a.value) for a in call.args if a.star == "**" and shape.rest_is_payload}
    positional = [a for a in call.args if a.keyword is None]
    for index, arg in enumerate(positional):
        if index == shape.kwargs_position and not arg.star:
            found.add(id(arg.value))
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == shape.kwargs_keyword:
            found.add(id(arg.value))
    return found


def _reserved(name: str, shape: kb.PayloadShape) -> bool:
    return name in shape.reserved or bool(
        shape.reserved_prefix and name.startswith(shape.reserved_prefix)
    )


def _container_items(node: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """Elements of an `args=(...)`/`kwargs={...}` literal; the expression itself otherwise."""
    if isinstance(node, cst.List | cst.Tuple):
        for element in node.elements:
            yield element.value
    elif isinstance(node, cst.Dict):
        for item in node.elements:
            yield item.value
    else:
        yield node


def task_places(
    call: cst.Call, shape: kb.PayloadShape
) -> Iterator[tuple[cst.BaseExpression, str, str]]:
    """The payload arguments of a task's enqueue with the task's parameter
    each binds: (value, position, "") or (value, "", keyword)."""
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return  # `*args`/`**kwargs`: positions no longer tell
    at = 0
    for index, arg in enumerate(positional):
        if index < shape.skip_positional:
            continue
        if index == shape.args_position:
            yield from _displayed_positions(arg.value)
        elif index == shape.kwargs_position:
            yield from _displayed_keywords(arg.value)
        elif shape.rest_is_payload:
            yield arg.value, str(at), ""
            at += 1
    for arg in call.args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name and name == shape.args_keyword:
            yield from _displayed_positions(arg.value)
        elif name and name == shape.kwargs_keyword:
            yield from _displayed_keywords(arg.value)
        elif shape.rest_is_payload and not _reserved(name, shape):
            yield arg.value, "", name


def _displayed_positions(
    node: cst.BaseExpression,
) -> Iterator[tuple[cst.BaseExpression, str, str]]:
    if isinstance(node, cst.List | cst.Tuple):
        for index, element in enumerate(node.elements):
            if isinstance(element, cst.StarredElement):
                return
            yield element.value, str(index), ""


def _displayed_keywords(
    node: cst.BaseExpression,
) -> Iterator[tuple[cst.BaseExpression, str, str]]:
    if isinstance(node, cst.Dict):
        for item in node.elements:
            if isinstance(item, cst.DictElement) and isinstance(item.key, cst.SimpleString):
                key = item.key.evaluated_value
                if isinstance(key, str):
                    yield item.value, "", key


def argument_places(call: cst.Call) -> Iterator[tuple[tuple[str, str], cst.Arg]]:
    """Each argument before the first `*`/`**`, with the place a callee reads
    it from: ("0", "") for the first positional, ("", "name") for `name=`."""
    position = 0
    for arg in call.args:
        if arg.star:
            return
        if arg.keyword is not None:
            yield ("", arg.keyword.value), arg
        else:
            yield (str(position), ""), arg
            position += 1
