"""How a function opens a transaction for its callers, and in which
transaction each part of its body runs: for the project model's
transaction scopes (JL101-JL106), which follow a call made inside one.

A transaction is opened by a library's transaction function or method
(`with transaction.atomic():`, `@atomic`, `session.begin()`) or by the
project's transaction functions (`transaction-functions` in the
configuration): `()` stands for such a library's (or configured) one. A
project callable that may open one is named instead, and the project step
follows it. A function opens one for its callers when it returns an
opening (`"returns"`), is a `@contextmanager` yielding inside one or a
class's `__enter__` entering one (`"with"`), or is a decorator whose
wrapper calls the decorated function inside one (`"decorator"`). A method
a framework runs inside its own transaction (a Django admin's `save_model`)
runs there with its whole body.
"""

from __future__ import annotations

import ast
from typing import cast

from joblint.index.nodes import Function, decorated, dotted
from joblint.index.scope import RECEIVERS, Frame, ModuleScope, SummaryDraft
from joblint.knowledge import jobs, requests
from joblint.models import TxOpening
from joblint.settings import Options


class OpeningReader:
    """The transactions a module's functions open and run in."""

    def __init__(self, scope: ModuleScope, options: Options) -> None:
        self.scope = scope
        self.transaction_functions = options.transaction_functions
        # Methods a framework runs inside its own transaction (`key` -> the
        # transaction: () for certain, a project base class if the base is the framework's).
        self._hooks: dict[str, tuple[str, ...]] = {}

    def framework_transaction(self, key: str) -> tuple[str, ...] | None:
        """The transaction a framework runs the method `key` in (see `note_class_hooks`)."""
        return self._hooks.get(key)

    def note_class_hooks(self, node: ast.ClassDef) -> None:
        """Which methods of the class a framework runs in its own transaction:
        with a framework base, certainly; with a project base, if the class
        index follows it to a framework class (the call graph asks)."""
        project_base = ""
        for base in node.bases:
            qualname = self.scope.module_name(base)
            if qualname is None:
                continue
            hooks = jobs.ATOMIC_HOOKS.get(qualname)
            if hooks is not None:
                for method in hooks.methods:
                    self._hooks[f"{node.name}.{method}"] = ()
                return
            if not project_base and jobs.may_be_project_code(qualname):
                project_base = qualname
        if project_base:
            for method in jobs.HOOK_METHODS:
                self._hooks[f"{node.name}.{method}"] = (project_base,)

    def decorators_transaction(self, node: Function, stack: list[Frame]) -> tuple[str, ...] | None:
        """The transaction a function's decorators run its body in (see `opening`)."""
        found: tuple[str, ...] | None = None
        for decorator in node.decorator_list:
            opening = self._decorator_opening(decorator, stack)
            if opening is None:
                qualname = self.scope.qualify(decorated(decorator), stack)
                opening = (
                    (qualname,)
                    if qualname is not None and jobs.may_be_project_code(qualname)
                    else None
                )
            if opening is not None:
                found = _join(found, opening)
        return found

    def opening(self, call: ast.Call, stack: list[Frame]) -> tuple[str, ...] | None:
        """How `with call:` opens a transaction: () for a library's own, the
        project callable it may open one through, or None for neither."""
        qualname = self.scope.qualify(call.func, stack)
        if qualname is not None and (
            qualname in jobs.TRANSACTION_FUNCTIONS
            or qualname in jobs.CONNECT_FUNCTIONS
            or qualname in self.transaction_functions
        ):
            return ()
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in jobs.TRANSACTION_METHODS:
            return ()
        if qualname is not None and jobs.may_be_project_code(qualname):
            return (qualname,)
        return None

    def _decorator_opening(self, decorator: ast.expr, stack: list[Frame]) -> tuple[str, ...] | None:
        """How a decorator opens a library's transaction around what it
        decorates (`@atomic`, `@method_decorator(atomic)`), if it does."""
        call = decorator if isinstance(decorator, ast.Call) else None
        func = call.func if call is not None else decorator
        qualname = self.scope.qualify(func, stack)
        if qualname is not None:
            if qualname in jobs.TRANSACTION_FUNCTIONS or qualname in self.transaction_functions:
                return ()
            if qualname in jobs.METHOD_DECORATOR_ADAPTERS and call is not None and call.args:
                return self._decorator_opening(call.args[0], stack)
        if isinstance(func, ast.Attribute) and func.attr in jobs.TRANSACTION_DECORATOR_METHODS:
            return ()
        return None

    def openings(self, expressions: list[ast.expr], stack: list[Frame]) -> tuple[str, ...] | None:
        """How the `with` items `expressions` open a transaction, if any does:
        a call (see `opening`) or a transaction manager (`with request.tm:`)."""
        via: tuple[str, ...] | None = None
        for expr in expressions:
            if isinstance(expr, ast.Call):
                found = self.opening(expr, stack)
                if found is not None:
                    via = _join(via, found)
            elif isinstance(expr, ast.Attribute):
                parts = dotted(expr)
                if parts and requests.opens_manager(parts, self.scope.qualify(expr, stack)):
                    via = _join(via, ())
        return via

    def note_wrapper(
        self, call: ast.Call, frame: Frame, stack: list[Frame], opened: list[ast.withitem]
    ) -> None:
        """A decorator's wrapper calling the decorated function inside a
        transaction: the module-level function around it opens one for the
        functions it decorates (`@wrapper`, or `@wrapper(...)` for a factory)."""
        if not isinstance(call.func, ast.Name) or len(stack) < 2:
            return
        name = call.func.id
        if name in frame.parameters or name in frame.resolved:
            return
        if not any(name in outer.parameters for outer in stack[:-1]):
            return
        via = self.openings([item.context_expr for item in opened], stack)
        for decorator in frame.node.decorator_list:
            found = self._decorator_opening(decorator, stack)
            if found is not None:
                via = _join(via, found)
        if via is not None:
            top = self.scope.summaries[stack[0].key]
            top.opens = TxOpening("decorator", via)

    def note_context_manager(self, frame: Frame, stack: list[Frame], summary: SummaryDraft) -> None:
        """`@contextmanager` yielding inside a transaction opens one for its `with`."""
        decorators = (self.scope.qualify(decorated(d), stack) for d in frame.node.decorator_list)
        if not any(d in jobs.CONTEXT_MANAGER_DECORATORS for d in decorators):
            return
        for node, opened in self.scope.with_context(frame.node, (ast.Yield, ast.YieldFrom)):
            if isinstance(node, ast.Yield | ast.YieldFrom):
                via = self.openings([item.context_expr for item in opened], stack)
                if via is not None:
                    summary.opens = TxOpening("with", via)
                    return

    def note_enter(self, frame: Frame, stack: list[Frame], summary: SummaryDraft) -> None:
        """A class's `__enter__` entering a transaction opens one for `with Cls():`:
        it enters the manager a transaction call makes (`atomic().__enter__()`,
        `stack.enter_context(atomic())`), or the one the method or the class
        holds in a name (`self.tx = atomic(...)`, then `self.tx.__enter__()`)."""
        if frame.node.name not in jobs.ENTER_METHODS or not frame.class_qualname:
            return
        if len(stack) != 1:
            return
        held: dict[str, tuple[str, ...]] = {}
        for node in self.scope.of_kind(frame.node, ast.Assign):
            assert isinstance(node, ast.Assign)
            value = node.value.value if isinstance(node.value, ast.Await) else node.value
            opening = self.opening(value, stack) if isinstance(value, ast.Call) else None
            for target in node.targets if opening is not None else ():
                parts = dotted(target)
                if parts is not None:
                    held[".".join(parts)] = cast(tuple[str, ...], opening)
        for node in self.scope.of_kind(frame.node, ast.Call):
            entered = _entered(cast(ast.Call, node))
            via = None if entered is None else self._entered_opening(entered, held, frame, stack)
            if via is not None:
                summary.opens = TxOpening("with", via)
                return

    def _entered_opening(
        self,
        entered: ast.expr,
        held: dict[str, tuple[str, ...]],
        frame: Frame,
        stack: list[Frame],
    ) -> tuple[str, ...] | None:
        """How the context manager `__enter__` enters opens a transaction, if it does."""
        if isinstance(entered, ast.Call):
            return self.opening(entered, stack)
        parts = dotted(entered)
        if parts is None:
            return None
        if ".".join(parts) in held:
            return held[".".join(parts)]
        if len(parts) == 2 and parts[0] in RECEIVERS:  # set by another method
            attributes = self.scope.attributes.get(frame.class_qualname, {})
            values = attributes.get(parts[1], set())
            if any(v in jobs.TRANSACTION_FUNCTIONS for v in values):
                return ()
        return None


def _join(known: tuple[str, ...] | None, found: tuple[str, ...]) -> tuple[str, ...]:
    """A library's transaction (()) wins over project callables that may open one."""
    if known is None:
        return found
    if not known or not found:
        return ()
    return tuple(dict.fromkeys((*known, *found)))


def either(first: tuple[str, ...] | None, second: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """Both transactions joined, where either is one."""
    if first is None:
        return second
    return first if second is None else _join(first, second)


def _entered(call: ast.Call) -> ast.expr | None:
    """The context manager a call enters: the receiver of `x.__enter__()`,
    the argument of `stack.enter_context(x)`."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in jobs.ENTERING_METHODS and not call.args:
        return func.value
    if func.attr in jobs.ENTERING_FUNCTIONS and len(call.args) == 1:
        return call.args[0]
    return None
