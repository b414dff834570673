"""Live objects a library or a model signal hands the code by a name of its own.

`request.user`, `self.get_object()`, `form.save()`, `serializer.instance`
(`knowledge.payloads.PARAMETER_ATTRIBUTES`), and the instance a `post_save`
receiver the module connects is handed (`instance`, `kwargs["instance"]`):
what they are is known without the project's class index.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.context_state import Frame
from joblint.analysis.names import Binding, dotted_parts, unwrap
from joblint.analysis.payload_issues import PayloadIssue, issue_at, render
from joblint.knowledge import payloads as kb
from joblint.models import M2M


def is_parameter(binding: Binding | None) -> bool:
    return binding is not None and isinstance(binding.node, cst.Param)


def known_value(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """A value a library hands the code by a name of its own: `request.user`,
    `self.request.user`, `self.get_object()`, `form.save()`, `serializer.instance`
    (`knowledge.payloads.PARAMETER_ATTRIBUTES`)."""
    called = isinstance(node, cst.Call)
    parts = dotted_parts(node.func if isinstance(node, cst.Call) else node)
    if parts is None or len(parts) < 2:
        return []
    known = kb.PARAMETER_ATTRIBUTES.get((parts[0], ".".join(parts[1:])))
    if known is None or known.called != called:
        return []
    if called and parts[0] == "self" and parts[1] in context.own_methods:
        return []  # the class's own method: what it returns is the project model's to tell
    root = context.resolver.lookup(parts[0])
    if not (is_parameter(root) or (known.local_too and _bound_to_a_call(root))):
        return []
    return [PayloadIssue(node, render(node), known.kind, known.class_name)]


def _bound_to_a_call(binding: Binding | None) -> bool:
    """A local assigned the result of a call (`form = OrderForm(data)`)."""
    if binding is None or binding.expr is None or binding.unpack_index is not None:
        return False
    return not binding.iterated and isinstance(unwrap(binding.expr), cst.Call)


def received_instance(
    node: cst.Name, binding: Binding, context: FileContext, of: Frame | None = None
) -> PayloadIssue | None:
    """The instance a model signal hands its receiver (`instance` of a
    `post_save` receiver the module connects; `of`: the receiver's frame,
    known already)."""
    for frame in reversed(context.frames):
        function = frame.node
        if not isinstance(function, cst.FunctionDef):
            continue
        if of is None and not any(p is binding.node for p in _own_parameters(function)):
            continue
        if of is not None and frame is not of:
            continue
        receiving = frame.receiving
        if receiving is None or receiving.instance_keyword != node.value:
            return None
        if not receiving.instance_kind:
            return None
        # A many-to-many change hands either side's instance.
        model = receiving.model.rsplit(".", 1)[-1] if M2M not in receiving.writes else ""
        what = model or f"the instance {receiving.signal} sends"
        return PayloadIssue(node, node.value, receiving.instance_kind, what)
    return None


def received_keyword(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """`kwargs["instance"]`, `kwargs.get("instance")`: the instance a model
    signal hands its receiver, read from the receiver's `**kwargs`."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        owner, key = node.value, index.value if isinstance(index, cst.Index) else None
    elif (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and node.args
    ):
        owner, key = node.func.value, node.args[0].value
    else:
        return []
    if not (isinstance(owner, cst.Name) and isinstance(key, cst.SimpleString)):
        return []
    binding = context.resolver.lookup(owner.value)
    if binding is None:
        return []
    for frame in reversed(context.frames):
        function = frame.node
        if not isinstance(function, cst.FunctionDef):
            continue
        if function.params.star_kwarg is not binding.node:
            continue
        receiving = frame.receiving
        if receiving is None or key.evaluated_value != receiving.instance_keyword:
            return []
        issue = received_instance(cst.Name(receiving.instance_keyword), binding, context, frame)
        return [] if issue is None else [issue_at(issue, node)]
    return []


def _own_parameters(function: cst.FunctionDef) -> Iterator[cst.Param]:
    params = function.params
    yield from (*params.posonly_params, *params.params, *params.kwonly_params)
