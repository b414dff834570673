"""What a call expression produces (a queue object, a Celery signature, a DB
connection), decided from the library tables and local bindings."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.literals import string_value
from joblint.analysis.names import BindingKind, Resolver, Value, dotted_parts, unwrap
from joblint.analysis.targets import task_like_target
from joblint.knowledge import jobs


def first_string_arg(call: cst.Call) -> str | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value != "service_name":
            continue
        if isinstance(arg.value, cst.SimpleString):
            value = string_value(arg.value)
            return value if isinstance(value, str) else None
        return None
    return None


def value_of_name(name: str, resolver: Resolver) -> Value | None:
    binding = resolver.lookup(name)
    if binding is not None and binding.kind is BindingKind.VALUE:
        return binding.value
    return None


def value_of(node: cst.BaseExpression, resolver: Resolver) -> Value | None:
    """Classify an expression; None when it is nothing the rules care about."""
    node = unwrap(node)
    if isinstance(node, cst.Name):
        return value_of_name(node.value, resolver)
    if isinstance(node, cst.Subscript):
        return None
    if isinstance(node, cst.Attribute) and is_self(node.value):
        return resolver.self_value(node.attr.value)
    if not isinstance(node, cst.Call):
        return None
    return value_of_call(node, resolver)


def is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def value_of_call(call: cst.Call, resolver: Resolver) -> Value | None:
    qualname = resolver.qualified_name(call.func)
    if qualname is not None:
        found = _value_of_qualified_call(call, qualname)
        if found is not None:
            return found
    if isinstance(call.func, cst.Attribute):
        return _value_of_method_call(call, call.func, resolver)
    return None


def _value_of_qualified_call(call: cst.Call, qualname: str) -> Value | None:
    library = jobs.queue_constructor_library(qualname)
    if library is not None:
        return Value("queue", library)
    if qualname in jobs.SIGNATURE_FUNCTIONS:
        return Value("signature", jobs.SIGNATURE_FUNCTIONS[qualname])
    family = jobs.CONNECT_FUNCTIONS.get(qualname)
    if family is not None:
        return Value("connection", family.value)
    service = first_string_arg(call)
    if service is not None:
        client = jobs.SERVICE_CLIENTS.get((qualname, service))
        if client is not None:
            return Value("queue", client)
        resource = jobs.SERVICE_RESOURCES.get((qualname, service))
        if resource is not None:
            return Value("resource", resource)
    return None


def _value_of_method_call(call: cst.Call, func: cst.Attribute, resolver: Resolver) -> Value | None:
    method = func.attr.value
    receiver = value_of(func.value, resolver)
    is_resource = receiver is not None and receiver.kind == "resource"
    if method in jobs.RESOURCE_QUEUE_METHODS and receiver is not None and is_resource:
        return Value("queue", receiver.library)
    if method in jobs.PRODUCER_METHODS:
        return Value("queue", jobs.PRODUCER_METHODS[method])
    if method in jobs.SIGNATURE_METHODS and _is_task_like(func.value, resolver):
        return Value("signature", jobs.SIGNATURE_METHODS[method])
    if method == "client" and receiver is None:
        # `session.client("sqs")` on a boto3 Session.
        parts = dotted_parts(func.value)
        service = first_string_arg(call)
        if parts is not None and service is not None and parts[-1].lower().endswith("session"):
            library = jobs.SERVICE_CLIENTS.get(("boto3.client", service))
            if library is not None:
                return Value("queue", library)
    return None


def _is_task_like(node: cst.BaseExpression, resolver: Resolver) -> bool:
    """A signature receiver: something `task_like_target` would accept, or a signature."""
    if value_of(node, resolver) is not None:
        return True
    return task_like_target(node, resolver) is not None
