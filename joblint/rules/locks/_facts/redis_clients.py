"""Is this expression a Redis client, a pipeline, a framework cache? And the
argument reading the lock analysis shares.

A receiver counts as a Redis client when it is (or a name assigned once is, or
`self.X` assigned once in the class is) a call of a known client constructor
(`locks.REDIS_CLIENT_CONSTRUCTORS`: `redis.Redis(...)`, `Redis.from_url(...)`,
...), a `.pipeline()` of one, or a parameter annotated with a client class.
A cache is one of the frameworks' cache objects (`cache`, `caches["x"]`) or a
name annotated with a cache class; a response cache (`response_cache`) is
known by its qualified name. Anything else is unknown.
"""

from __future__ import annotations

from enum import Enum

import libcst as cst

from joblint.analysis.names import Resolver, unwrap
from joblint.analysis.sql import Lookup
from joblint.knowledge import locks

_MAX_FOLLOW = 6


class Tri(Enum):
    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


def _qualified(node: cst.BaseExpression, lookup: Lookup) -> str | None:
    resolver: Resolver | None = lookup.resolver
    return resolver.qualified_name(node) if resolver is not None else None


def client_kind(node: cst.BaseExpression, lookup: Lookup, depth: int = 0) -> str | None:
    """ "client", "pipeline" or None (unknown / not Redis)."""
    node = unwrap(node)
    if depth > _MAX_FOLLOW:
        return None
    if isinstance(node, cst.Call):
        return _call_kind(node, lookup, depth)
    if isinstance(node, cst.Name | cst.Attribute):
        return _name_kind(node, lookup, depth)
    return None


def _call_kind(node: cst.Call, lookup: Lookup, depth: int) -> str | None:
    qualname = _qualified(node.func, lookup)
    if qualname in locks.REDIS_CLIENT_CONSTRUCTORS:
        return "client"
    func = node.func
    if (
        isinstance(func, cst.Attribute)
        and func.attr.value in locks.PIPELINE_METHODS
        and client_kind(func.value, lookup, depth + 1) is not None
    ):
        return "pipeline"
    return None


def _name_kind(node: cst.Name | cst.Attribute, lookup: Lookup, depth: int) -> str | None:
    annotation = _annotation(node, lookup)
    if annotation is not None and _is_client_annotation(annotation, lookup):
        return "client"
    bound = _bound(node, lookup)
    if bound is None:
        return None
    value, inner, via_with = bound
    kind = client_kind(value, inner, depth + 1)
    # `with r.pipeline() as pipe`: Pipeline.__enter__ returns the pipeline.
    if via_with and kind != "pipeline":
        return None
    return kind


def _bound(
    node: cst.Name | cst.Attribute, lookup: Lookup
) -> tuple[cst.BaseExpression, Lookup, bool] | None:
    assignments = lookup.assignments
    if isinstance(node, cst.Name):
        found = assignments.name(node.value, lookup.scopes)
    elif _is_self_attribute(node) and lookup.class_name:
        found = assignments.attribute(lookup.class_name, node.attr.value)
    else:
        return None
    if found is None:
        return None
    inner = Lookup(assignments, found.scopes, lookup.class_name, lookup.resolver)
    return found.value, inner, found.via_with


def _annotation(node: cst.Name | cst.Attribute, lookup: Lookup) -> cst.BaseExpression | None:
    if isinstance(node, cst.Name):
        return lookup.assignments.annotation(node.value, lookup.scopes)
    if _is_self_attribute(node) and lookup.class_name:
        return lookup.assignments.attribute_annotation(lookup.class_name, node.attr.value)
    return None


def _is_client_annotation(node: cst.BaseExpression, lookup: Lookup) -> bool:
    """`Redis`, `redis.Redis`, `Optional[Redis]`, `Redis | None`, `"Redis"` is not read."""
    if isinstance(node, cst.Subscript):
        return any(
            isinstance(e.slice, cst.Index) and _is_client_annotation(e.slice.value, lookup)
            for e in node.slice
        )
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return _is_client_annotation(node.left, lookup) or _is_client_annotation(node.right, lookup)
    return _qualified(node, lookup) in locks.REDIS_CLIENT_CLASSES


def _is_self_attribute(node: cst.Attribute) -> bool:
    return isinstance(node.value, cst.Name) and node.value.value in ("self", "cls")


def is_cache(node: cst.BaseExpression, lookup: Lookup) -> bool:
    """A framework's cache object (`cache`, `caches["x"]`), or a name annotated
    with a cache class."""
    node = unwrap(node)
    if isinstance(node, cst.Subscript):
        node = node.value
    return _qualified(node, lookup) in locks.CACHE_OBJECTS or bool(cache_class(node, lookup))


def response_cache(node: cst.BaseExpression, resolver: Resolver) -> locks.ResponseCache | None:
    """The shared cache `node` names whose reads answer with a response
    (`TieredCache`, by its qualified name), else None."""
    qualname = resolver.qualified_name(unwrap(node))
    return locks.RESPONSE_CACHES.get(qualname) if qualname else None


def cache_class(node: cst.BaseExpression, lookup: Lookup) -> str:
    """The cache backend class a parameter, name or `self.X` is annotated with
    (`cache: RedisCache`), else ""."""
    node = unwrap(node)
    if not isinstance(node, cst.Name | cst.Attribute):
        return ""
    annotation = _annotation(node, lookup)
    if annotation is None:
        return ""
    qualname = _qualified(annotation, lookup) or ""
    return qualname if qualname in locks.CACHE_CLASSES else ""


def cache_alias(node: cst.BaseExpression, lookup: Lookup) -> str | None:
    """The cache alias of `cache` ("default") or `caches["x"]` ("x"); "" for
    `caches[name]` or an annotated name; None when `node` isn't a cache."""
    if not is_cache(node, lookup):
        return None
    node = unwrap(node)
    if cache_class(node, lookup):
        return ""
    if not isinstance(node, cst.Subscript):
        return locks.DEFAULT_CACHE_ALIAS
    index = node.slice[0].slice if len(node.slice) == 1 else None
    if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
        value = index.value.evaluated_value
        return value if isinstance(value, str) else ""
    return ""


def receiver(call: cst.Call) -> cst.BaseExpression | None:
    return call.func.value if isinstance(call.func, cst.Attribute) else None


def method_name(call: cst.Call) -> str | None:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


# --- arguments ----------------------------------------------------------------------


def literal(node: cst.BaseExpression) -> Tri:
    """YES for True / a non-zero number or string, NO for False/None/0, else UNKNOWN."""
    node = unwrap(node)
    if isinstance(node, cst.Name):
        if node.value == "True":
            return Tri.YES
        if node.value in ("False", "None"):
            return Tri.NO
        return Tri.UNKNOWN
    if isinstance(node, cst.Integer | cst.Float):
        return Tri.NO if float(node.value.replace("_", "")) == 0 else Tri.YES
    return Tri.UNKNOWN


def is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def has_star(call: cst.Call) -> bool:
    return any(arg.star for arg in call.args)


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [arg.value for arg in call.args if arg.keyword is None and not arg.star]


def key_code(node: cst.BaseExpression) -> str:
    """Source text of a key expression, for "the same key" comparisons."""
    return " ".join(cst.Module(body=[]).code_for_node(unwrap(node)).split())
