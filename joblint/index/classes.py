"""What a module's classes are: their bases, the classes they nest (a
CRUDL's views), the model a view shows, the types of their instance
attributes, and which may be plain; for the project model's class index
(bases followed across modules) and for the payload rule's plain classes.

A view naming its model (`model = Order`, `queryset = Order.objects...`)
whose methods call `self.get_object()` without defining it gets Django's:
a function returning a row of that model. An attribute every assignment
gives one type is an instance of it, as a module-level `mailer = Mailer()`
is: `self.order.cancel()` calls `Order.cancel`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import cast

from joblint.index.nodes import Function, dotted
from joblint.index.openings import OpeningReader
from joblint.index.returns import ROW
from joblint.index.scope import RECEIVERS, Frame, ModuleScope, SummaryDraft
from joblint.knowledge import payloads, requests
from joblint.libraries import django
from joblint.models import ReturnFact

# Reads a function: its node, its key, the qualified name of its class, the
# functions around it.
ReadFunction = Callable[[Function, str, str, list[Frame]], None]


# Bases that give a class a kind of its own (a model, an enum, a pydantic model).
_KIND_BASES = frozenset({*payloads.BASE_CLASS_KINDS, *payloads.TABLE_FLAG_BASES})
_MANAGER_PARTS = requests.MODEL_MANAGERS


class ClassReader:
    """The classes of a module, read as the module defines them."""

    def __init__(self, scope: ModuleScope, openings: OpeningReader) -> None:
        self.scope = scope
        self.openings = openings
        self.classes: list[tuple[str, tuple[str, ...]]] = []
        # Classes whose every base resolved: their bases.
        self._resolved_bases: dict[str, tuple[str, ...]] = {}

    def read_class(
        self,
        node: ast.ClassDef,
        read_function: ReadFunction,
        outer: str = "",
        outer_model: str | None = None,
    ) -> None:
        """A module-level class (`outer` ""), or one a class nests (a CRUDL's
        views), with the model its views show where the outer one names it;
        its methods read by `read_function`, handed over on each call rather
        than kept: kept here, the module reader's method would close a cycle
        holding the module's whole `ast` tree until the cyclic collector ran."""
        key = f"{outer}.{node.name}" if outer else node.name
        qualname = self.scope.local(key)
        bases = tuple(b for b in (self.scope.module_name(base) for base in node.bases) if b)
        self.classes.append((qualname, bases))
        if len(bases) == len(node.bases):
            self._resolved_bases[qualname] = bases
        if not outer:
            self.openings.note_class_hooks(node)
        attributes = self.scope.attributes.setdefault(qualname, {})
        model = self._view_model(node) or outer_model
        for statement in node.body:
            if isinstance(statement, Function):
                read_function(statement, f"{key}.{statement.name}", qualname, [])
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                declared = self.scope.annotation(statement.annotation, [])  # `order: Order`
                attributes.setdefault(statement.target.id, set()).add(declared)
            elif isinstance(statement, ast.ClassDef) and not outer:
                self.read_class(statement, read_function, key, model)
        if model is not None:
            self._object_getters(node, key, model)
        # An attribute every assignment gives one type is an instance of it, as
        # a module-level `mailer = Mailer()` is: `self.order.cancel()` calls `Order.cancel`.
        for name, types in sorted(attributes.items()):
            (only, *others) = types
            if only is not None and not others:
                self.scope.instances.append((f"{qualname}.{name}", only))

    def _view_model(self, node: ast.ClassDef) -> str | None:
        """The model a view class names (`model = Order`, `queryset =
        Order.objects...`): what Django's `get_object()` returns a row of."""
        for statement in node.body:
            if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                continue
            target = statement.targets[0]
            if not isinstance(target, ast.Name):
                continue
            if target.id == django.VIEW_MODEL_ATTRIBUTE:
                return self.scope.module_name(statement.value)
            if target.id == django.VIEW_QUERYSET_ATTRIBUTE:
                parts = dotted(_call_root(statement.value)) or []
                managers = [i for i, part in enumerate(parts) if part in _MANAGER_PARTS and i]
                name = self.scope.module_name(ast.Name(parts[0])) if managers else None
                if name is not None:
                    return ".".join([name, *parts[1 : managers[0]]])
        return None

    def _object_getters(self, node: ast.ClassDef, key: str, model: str) -> None:
        """A view naming its model (or nested in a class naming it) whose
        methods call `self.get_object()`, defining none of its own, gets
        Django's: the row of that model it fetches."""
        methods = [s for s in node.body if isinstance(s, Function)]
        own = {method.name for method in methods}
        called = {
            call.func.attr
            for method in methods
            for call in cast(list[ast.Call], self.scope.of_kind(method, ast.Call))
            if isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in RECEIVERS
        }
        for getter in django.VIEW_OBJECT_GETTERS:
            if getter in own or getter not in called:
                continue
            summary = self.scope.summaries.setdefault(f"{key}.{getter}", SummaryDraft(node.lineno))
            summary.returns = (ReturnFact(ROW, model, node.lineno, django.MODEL),)

    def plain_classes(self, names: Iterable[str]) -> tuple[str, ...]:
        """Of the classes that may be plain, those whose every base the
        index resolves, none of them one that gives its classes a kind (a
        model's, an enum's: `knowledge.payloads`): the facts would tell no
        kind of their own."""
        return tuple(
            qualname
            for qualname in (self.scope.local(name) for name in names)
            if qualname in self._resolved_bases
            and not any(base in _KIND_BASES for base in self._resolved_bases[qualname])
        )


def _call_root(value: ast.expr) -> ast.expr:
    """`Order.objects.filter(...).select_related(...)` -> `Order.objects.filter`."""
    while isinstance(value, ast.Call) or (
        isinstance(value, ast.Attribute) and isinstance(value.value, ast.Call)
    ):
        value = value.func if isinstance(value, ast.Call) else value.value
    return value
