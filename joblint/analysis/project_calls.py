"""Calls that may be of the project's own code, as the project model knows them."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import Binding, BindingKind, dotted_parts
from joblint.knowledge.jobs import may_be_project_code

_INSTANCE_NAMES = frozenset({"self", "cls"})


def project_call_text(context: FileContext, node: cst.Call) -> str | None:
    """The call as written, when it may call the project's own code (a name
    imported from a project module or defined here, `self.`, a local): the
    text the project model's index records the call under, a method of what
    another call returns included (`Mailer().send`)."""
    return _callee_text(context, node.func)


def _callee_text(context: FileContext, func: cst.BaseExpression) -> str | None:
    parts = dotted_parts(func)
    if parts is None:
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
            inner = _callee_text(context, func.value.func)
            return f"{inner}().{func.attr.value}" if inner is not None else None
        return None
    binding = context.resolver.lookup(parts[0])
    if binding is None:
        return None  # a builtin
    if _untyped_parameter(binding) and parts[0] not in _INSTANCE_NAMES:
        return None  # nothing tells the project model what it holds
    if binding.qualname and not may_be_project_code(binding.qualname):
        return None
    return ".".join(parts)


def _untyped_parameter(binding: Binding) -> bool:
    return binding.kind is BindingKind.OTHER and binding.expr is None and binding.annotation is None
