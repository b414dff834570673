"""Method chains (`Job.objects.filter(...).order_by("id")[:5]`) read link by link,
following a name the chain starts from to the chain it was assigned."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from joblint.analysis.names import unwrap
from joblint.analysis.sql import Lookup

_MAX_FOLLOW = 6


@dataclass(frozen=True, slots=True)
class Link:
    """One step of a chain: a method call or a subscript."""

    node: cst.Call | cst.Subscript
    method: str  # "" for a subscript
    lookup: Lookup  # where the link was written (to read its arguments)

    @property
    def call(self) -> cst.Call | None:
        return self.node if isinstance(self.node, cst.Call) else None

    @property
    def name_node(self) -> cst.Name | None:
        """The method's name (`select_for_update` in `qs.select_for_update()`)."""
        node = self.node
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            return node.func.attr
        return None


def chain_links(top: cst.BaseExpression, lookup: Lookup) -> list[Link]:
    """The links of the chain ending at `top`, first link first, with the chain a
    starting name was assigned (when assigned once) in front."""
    return _links(top, lookup, 0)


def _links(top: cst.BaseExpression, lookup: Lookup, depth: int) -> list[Link]:
    links: list[Link] = []
    node = unwrap(top)
    while True:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            links.append(Link(node, node.func.attr.value, lookup))
            node = unwrap(node.func.value)
        elif isinstance(node, cst.Subscript):
            links.append(Link(node, "", lookup))
            node = unwrap(node.value)
        elif isinstance(node, cst.Attribute) and not _is_self_attribute(node):
            node = unwrap(node.value)
        else:
            break
    links.reverse()
    if depth < _MAX_FOLLOW and isinstance(node, cst.Name | cst.Attribute):
        resolved = lookup.resolve(node)
        if resolved is not None:
            value, inner = resolved
            return [*_links(value, inner, depth + 1), *links]
    return links


def chain_nodes(top: cst.BaseExpression) -> list[cst.Call | cst.Subscript]:
    """The call/subscript nodes written in this expression's chain (not followed)."""
    found: list[cst.Call | cst.Subscript] = []
    node = unwrap(top)
    while True:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            found.append(node)
            node = unwrap(node.func.value)
        elif isinstance(node, cst.Subscript):
            found.append(node)
            node = unwrap(node.value)
        elif isinstance(node, cst.Attribute):
            node = unwrap(node.value)
        else:
            return found


def _is_self_attribute(node: cst.Attribute) -> bool:
    return isinstance(node.value, cst.Name) and node.value.value in ("self", "cls")
