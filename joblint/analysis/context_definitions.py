"""The functions and classes the code being visited is in, and what runs them.

Entering a function opens its frame: its key, the view or request handler it
may be (a transaction around it), the model signal it receives, the
transactions its decorators or its class open, whether a request may reach it.
Entering a class keeps what its methods may be: framework hooks, views,
non-atomic views, the methods it defines, and what `self.<attr>` holds.
"""

from __future__ import annotations

from functools import partial

import libcst as cst

from joblint.analysis.context_names import parameter_names, parameters
from joblint.analysis.context_state import Frame
from joblint.analysis.context_transactions import TransactionScopes
from joblint.analysis.names import Binding, BindingKind, Scope
from joblint.analysis.receivers import connected_elsewhere, decorated_receiving, looks_like_receiver
from joblint.analysis.tasks import decorator_task_library
from joblint.analysis.transactions import class_hooks, class_method_transactions
from joblint.analysis.views import is_view_class, non_atomic_class, reached_scope, view_scope


class Definitions(TransactionScopes):
    """The frames of functions and the stacks of classes, entered and left."""

    def _enter_function(self, node: cst.FunctionDef) -> None:
        outer = self.frames[-1]
        if outer.key:  # nested def: module-level ones were bound in the pre-pass
            self._bind_definition(node, self.resolver.scopes[-1])
        for decorator in node.decorators:
            found = decorator_task_library(decorator, self.resolver)
            if found is not None:
                for collector in self.collectors:
                    collector.task_decorator(node.name.value, decorator, found[0])
        class_name = self.classes[-1][0] if self._directly_in_class() else ""
        if not outer.key and (class_name or len(self.resolver.scopes) == 1):
            owner = f"{class_name}." if class_name else ""
            qualname = self.resolver.local_qualname(f"{owner}{node.name.value}")
            for collector in self.collectors:
                collector.function(qualname, tuple(parameter_names(node.params)))
        key = node.name.value
        if class_name:
            key = f"{class_name}.{key}"
        elif outer.key:
            key = f"{outer.key}.<locals>.{key}"
        frame = Frame(node, key, class_name=class_name)
        in_atomic_class = not class_name or not self.non_atomic_classes[-1]
        if not outer.key and (class_name or len(self.resolver.scopes) == 1) and in_atomic_class:
            view = view_scope(
                node,
                self.resolver,
                class_name=class_name,
                view_class=bool(class_name) and self.view_classes[-1],
            )
            if view is not None:  # outside everything the function opens itself
                frame.transactions.append(view)
        receiving = decorated_receiving(node, self.resolver) or self.receivers.get(key)
        frame.receiving = receiving
        if receiving is not None:  # outside its own decorators' transactions
            frame.transactions.append(receiving.scope(node))
        elif not outer.key and looks_like_receiver(node):
            qualname = self.resolver.local_qualname(key)
            frame.transactions.append(connected_elsewhere(node, qualname))
        frame.transactions.extend(self._decorator_transactions(node, class_name))
        if all(t.requires for t in frame.transactions):
            frame.reached = reached_scope(node, self.resolver.local_qualname(key))
        self.frames.append(frame)
        self.resolver.scopes.append(Scope())
        for param in parameters(node.params):
            annotation = param.annotation.annotation if param.annotation is not None else None
            self.resolver.bind(
                param.name.value, Binding(BindingKind.OTHER, annotation=annotation, node=param)
            )

    def _leave_function(self, node: cst.FunctionDef) -> None:
        self.frames.pop()
        self.resolver.scopes.pop()

    def _enter_class(self, node: cst.ClassDef) -> None:
        if self.frames[-1].key and not self._directly_in_class():
            self._bind_definition(node, self.resolver.scopes[-1])
        binding = self.resolver.lookup(node.name.value)
        if binding is not None and binding.task_library is not None:
            for collector in self.collectors:
                collector.task_class(node, binding.task_library)
        methods = class_method_transactions(node, self.resolver, self.options.transaction_functions)
        self.classes.append((node.name.value, methods))
        self.class_hooks.append(class_hooks(node, self.resolver))
        self.view_classes.append(is_view_class(node, self.resolver))
        self.non_atomic_classes.append(non_atomic_class(node, self.resolver))
        self.class_methods.append(_method_names(node))
        self_value = partial(self._self_value, node.name.value)
        self.resolver.scopes.append(Scope(is_class=True, self_value=self_value))

    def _leave_class(self, node: cst.ClassDef) -> None:
        self.classes.pop()
        self.class_hooks.pop()
        self.view_classes.pop()
        self.non_atomic_classes.pop()
        self.class_methods.pop()
        self.resolver.scopes.pop()

    @property
    def own_methods(self) -> frozenset[str]:
        """The methods of the class whose method we are in (none outside one)."""
        if not self.frame.class_name or not self.class_methods:
            return frozenset()
        return self.class_methods[-1]


def _method_names(node: cst.ClassDef) -> frozenset[str]:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    return frozenset(s.name.value for s in body if isinstance(s, cst.FunctionDef))
