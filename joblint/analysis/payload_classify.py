"""Which live objects one payload argument holds.

An argument is classified by what it is: a literal container's values, a name
(a parameter, a local bound to a fetch, a dict the function fills, a
comprehension's loop variable), an attribute, a collection built from rows
(`list(qs)`, `[o for o in qs]`), a call or subscript evaluated
(`joblint.analysis.payload_values`), or a helper's dict spread into the enqueue.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from joblint.analysis.comprehensions import binds, comprehension_source, loop_source
from joblint.analysis.context import FileContext
from joblint.analysis.names import BindingKind, unwrap
from joblint.analysis.payload_arguments import argument_places
from joblint.analysis.payload_issues import REQUEST, SELF, PayloadIssue, held_in, issue_at
from joblint.analysis.payload_received import (
    is_parameter,
    known_value,
    received_instance,
    received_keyword,
)
from joblint.analysis.payload_values import (
    annotation_issues,
    classify_attribute,
    helper_site,
    returned_alternatives,
    row_issues,
    value_issues,
)
from joblint.analysis.walk import children
from joblint.models import RETURNED, RETURNED_ITEM
from joblint.requirements import ReturnsArgument


def classify(
    node: cst.BaseExpression, context: FileContext, as_dict: bool = False, held: bool = False
) -> list[PayloadIssue]:
    """`as_dict`: the value is a dict of keyword arguments the enqueue
    spreads (`**params`, `kwargs=params`): a helper's dict counts too.
    `held`: a value inside a local container (whose own locals are not
    opened again: a dict may hold itself)."""
    node = unwrap(node)
    if isinstance(node, cst.List | cst.Tuple | cst.Set):
        return [i for e in node.elements for i in classify(e.value, context, held=held)]
    if isinstance(node, cst.Dict):
        return [i for e in node.elements for i in classify(e.value, context, held=held)]
    built = _dict_call(node)
    if built is not None:
        return [i for a in built.args for i in classify(a.value, context, held=held)]
    collected = _collection_issues(node, context)
    if collected is not None:
        return [held_in(i, node) for i in collected]
    if isinstance(node, cst.Name):
        return _classify_name(node, context, as_dict, held)
    if isinstance(node, cst.Attribute):
        return classify_attribute(node, context)
    known = known_value(node, context) or received_keyword(node, context)
    if known:
        return known
    if isinstance(node, cst.Call | cst.Subscript):
        issues = [issue_at(i, node) for i in value_issues(node, context, None, False)]
        if as_dict and isinstance(node, cst.Call):
            issues.extend(_built_by_helper(node, context))
        return issues
    return []


def _classify_name(
    node: cst.Name, context: FileContext, as_dict: bool = False, held: bool = False
) -> list[PayloadIssue]:
    name = node.value
    source = comprehension_source(node, context)
    if source is not None:
        return [issue_at(i, node) for i in row_issues(source, context)]
    binding = context.resolver.lookup(name)
    if name == "self" and context.frame.class_name and is_parameter(binding):
        return [PayloadIssue(node, name, SELF, context.frame.class_name)]
    if binding is None or binding.kind not in (BindingKind.OTHER, BindingKind.VALUE):
        return []
    if is_parameter(binding):
        if name == "request":
            return [PayloadIssue(node, name, REQUEST)]
        received = received_instance(node, binding, context)
        if received is not None:
            return [received]
        if binding.annotation is not None:
            return [issue_at(i, node) for i in annotation_issues(binding.annotation, context)]
        return []
    if binding.expr is None:
        return []
    whole = binding.unpack_index is None and not binding.iterated
    if whole and _is_container(binding.expr):
        if held:
            return []
        return [held_in(i, node) for i in _container_issues(name, binding.expr, context)]
    collected = _collection_issues(binding.expr, context) if whole else None
    if collected is not None:
        return [] if held else [held_in(i, node) for i in collected]
    issues = value_issues(binding.expr, context, binding.unpack_index, binding.iterated)
    found = [issue_at(i, node) for i in issues]
    expr = unwrap(binding.expr)
    if as_dict and whole and isinstance(expr, cst.Call):
        found.extend(held_in(i, node) for i in _built_by_helper(expr, context))
    return found


def _is_container(node: cst.BaseExpression) -> bool:
    node = unwrap(node)
    return isinstance(node, cst.Dict | cst.List | cst.Tuple) or _dict_call(node) is not None


def _dict_call(node: cst.BaseExpression) -> cst.Call | None:
    """`dict(order=order)`: the builtin, not shadowed."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
        return None
    if node.func.value == "dict" and not any(a.keyword is None for a in node.args):
        return node
    return None


def _container_issues(
    name: str, node: cst.BaseExpression, context: FileContext
) -> list[PayloadIssue]:
    """The values a local dict or list holds: its literal's, and those the
    function stores in it (`params["order"] = order`)."""
    node = unwrap(node)
    built = _dict_call(node)
    values: list[cst.BaseExpression] = []
    if built is not None:
        values.extend(a.value for a in built.args)
    elif isinstance(node, cst.Dict | cst.List | cst.Tuple):
        values.extend(e.value for e in node.elements)
    function = context.frame.node
    if isinstance(function, cst.FunctionDef):
        stores = context.memo("stored-items", function, lambda: _stored_items(function))
        values.extend(stores.get(name, ()))
    return [i for value in values for i in classify(value, context, held=True)]


def _stored_items(function: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """The values `name[...] = value` statements of the function store, by
    `name` (not those of the functions and lambdas it defines: they store
    when they run). One pass over the function for every name asked."""
    stores: dict[str, list[cst.BaseExpression]] = {}
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.FunctionDef | cst.Lambda):
            continue
        if isinstance(node, cst.Assign):
            for target in node.targets:
                subscript = target.target
                if isinstance(subscript, cst.Subscript) and isinstance(subscript.value, cst.Name):
                    stores.setdefault(subscript.value.value, []).append(node.value)
        stack.extend(reversed(children(node)))
    return stores


def _built_by_helper(call: cst.Call, context: FileContext) -> list[PayloadIssue]:
    """A helper's dict spread into the enqueue: the values of a kind it holds
    (the project step tells, `RETURNED_ITEM`), and the helper's arguments of
    a kind that it puts in the dict (`ReturnsArgument`)."""
    found = returned_alternatives(call, context, False, RETURNED_ITEM)
    site = helper_site(call, context)
    if site is None:
        return found
    function, text = site
    for place, arg in argument_places(call):
        for issue in classify(arg.value, context):
            requirement = ReturnsArgument(function, text, *place)
            # A value a helper returned is named by where it comes from.
            named = RETURNED in issue.class_name
            found.append(
                PayloadIssue(
                    issue.node,
                    issue.text,
                    issue.kind,
                    issue.class_name if named else f"{issue.class_name}, {RETURNED}",
                    (*issue.requires, requirement),
                    fixable=False,
                )
            )
    return found


# Builtins that collect what they iterate over (`list(qs)`: the rows).
_COLLECTING_BUILTINS = frozenset({"list", "tuple", "set", "frozenset", "sorted"})


def _collection_issues(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue] | None:
    """What a collection built from an iteration holds: `list(qs)`, `[o for o
    in qs]`, `(t for t in qs)`, a dict comprehension's values; None when
    `node` is no such collection."""
    node = unwrap(node)
    if isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp):
        element = node.value if isinstance(node, cst.DictComp) else node.elt
        return _element_issues(unwrap(element), node.for_in, context)
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
        return None
    if node.func.value not in _COLLECTING_BUILTINS or context.resolver.lookup(node.func.value):
        return None
    if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
        return None
    issues = row_issues(node.args[0].value, context)
    return [replace(i, text="", fixable=False) for i in issues]


def _element_issues(
    element: cst.BaseExpression, loops: cst.CompFor, context: FileContext
) -> list[PayloadIssue]:
    """A comprehension's element: a target of its loops (the rows iterated)
    or any value the payload rules read (`Order.objects.get(pk=p)`)."""
    if isinstance(element, cst.Name):
        source = loop_source(element.value, loops)
        if source is not None:
            return [
                replace(i, text=element.value, fixable=False) for i in row_issues(source, context)
            ]
        if binds(loops, element.value):
            return []  # a target of a loop unpacking, or a nested loop's
    return [replace(i, fixable=False) for i in classify(element, context, held=True)]
