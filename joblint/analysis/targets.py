"""What a name used as a job's receiver refers to: a task defined here, or an
imported name the project step resolves (`send_receipt.delay`, `tasks.x.delay`)."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from joblint.analysis.names import Binding, BindingKind, Resolver, dotted_parts, unwrap
from joblint.libraries import celery, django


@dataclass(frozen=True, slots=True)
class TaskRef:
    """A reference to something that may be a task."""

    qualname: str
    display: str
    # Library when defined in this file and known; "" when unknown; None when
    # the name is imported (the project index decides).
    library: str | None


def task_like_target(
    node: cst.BaseExpression, resolver: Resolver, *, follow_locals: bool = True
) -> TaskRef | None:
    """The task a receiver names, if it is an imported name or a task defined here.

    A local bound straight to such a name (`task = tasks.send_receipt`) counts
    too, and a task looked up by its dotted path (`import_string("shop.tasks.send")`)
    or by its name in Celery's registry (`current_app.tasks["shop.tasks.send"]`).
    """
    looked_up = _looked_up(unwrap(node), resolver)
    if looked_up is not None:
        return looked_up
    picked = _picked(unwrap(node), resolver) if follow_locals else None
    if picked is not None:
        return picked
    parts = dotted_parts(unwrap(node))
    if parts is None:
        return None
    binding = resolver.lookup(parts[0])
    if binding is None:
        return None
    if binding.kind is BindingKind.IMPORT:
        return TaskRef(".".join([binding.qualname, *parts[1:]]), parts[-1], None)
    if binding.kind is BindingKind.DEF and len(parts) == 1 and binding.task_library is not None:
        return TaskRef(binding.qualname, parts[0], binding.task_library)
    if binding.kind is BindingKind.DEF and len(parts) == 1 and binding.task_decorator:
        # A task if the project decorator registers one: the project step tells.
        return TaskRef(binding.qualname, parts[0], "")
    if _is_plain_alias(binding) and len(parts) == 1 and follow_locals and binding.expr is not None:
        return task_like_target(binding.expr, resolver, follow_locals=False)
    if _is_single_binding(binding) and len(parts) == 1 and follow_locals:
        assert binding.expr is not None
        return _looked_up(binding.expr, resolver)
    return None


def _picked(node: cst.BaseExpression, resolver: Resolver) -> TaskRef | None:
    """`builders[kind]` where `builders = {"csv": build_csv, "pdf": build_pdf}`
    is bound once here: a task picked at run time from a dict of them. One
    of its library when every value is a task of it defined here; else, when
    every value names something the project step may tell is a task, the
    first of them stands for all (they are read alike); the display names
    the lookup."""
    if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name):
        return None
    binding = resolver.lookup(node.value.value)
    if binding is None or binding.kind is not BindingKind.OTHER or binding.iterated:
        return None
    table = unwrap(binding.expr) if binding.expr is not None else None
    if binding.unpack_index is not None or not isinstance(table, cst.Dict) or not table.elements:
        return None
    refs = []
    for element in table.elements:
        if not isinstance(element, cst.DictElement):
            return None
        ref = task_like_target(element.value, resolver, follow_locals=False)
        if ref is None:
            return None
        refs.append(ref)
    libraries = {ref.library for ref in refs}
    if len(libraries) != 1:
        return None
    return TaskRef(refs[0].qualname, f"{node.value.value}[...]", refs[0].library)


def _looked_up(node: cst.BaseExpression, resolver: Resolver) -> TaskRef | None:
    """`import_string("shop.tasks.send")`, `current_app.tasks["shop.tasks.send"]`:
    what the literal dotted path or task name names (the project step tells
    whether it is a task)."""
    path: cst.BaseExpression | None = None
    if isinstance(node, cst.Call) and node.args:
        if resolver.qualified_name(node.func) in django.DOTTED_PATH_LOOKUPS:
            path = node.args[0].value
    elif isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        registry = resolver.qualified_name(node.value)
        if registry in celery.TASK_REGISTRIES and isinstance(index, cst.Index):
            path = index.value
    if not isinstance(path, cst.SimpleString):
        return None
    text = path.evaluated_value
    if not isinstance(text, str) or "." not in text:
        return None
    if not all(part.isidentifier() for part in text.split(".")):
        return None
    return TaskRef(text, text.rpartition(".")[2], None)


def _is_single_binding(binding: Binding) -> bool:
    """A local assigned a call or a subscript as a whole, once (not
    unpacked, not a loop target)."""
    return (
        binding.kind is BindingKind.OTHER
        and not binding.qualname
        and binding.unpack_index is None
        and not binding.iterated
        and isinstance(binding.expr, cst.Call | cst.Subscript)
    )


def _is_plain_alias(binding: Binding) -> bool:
    """A local assigned a dotted name as a whole (not unpacked, not a loop target)."""
    return (
        binding.kind is BindingKind.OTHER
        and not binding.qualname
        and binding.unpack_index is None
        and not binding.iterated
        and isinstance(binding.expr, cst.Name | cst.Attribute)
    )
