"""Reading one module's `ModuleIndex` from its `ast`: the driver that walks
the module once and asks each reader its question, for `joblint.index`'s
`index_source` (the pipeline's index step).

The module's names are bound first (its imports and definitions:
`joblint.index.scope`), then each statement is read: a function or method
becomes a summary, each of its fields the answer of one reader (what it
calls: `calls`; which transaction it opens: `openings`; what it returns:
`returns`; what it writes: `writes`; whether it claims its work: `claims`;
...), its nested functions summaries of their own
(`outer.<locals>.inner`); a class, its bases and methods (`classes`); an
assignment, a module-level instance or a task decorator
(`task_decorators`); a call, a registration of models or a service.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import cast

from joblint.index.bindings import bind_locals, note_attributes
from joblint.index.calls import CallReader
from joblint.index.claims import ClaimReader
from joblint.index.classes import ClassReader
from joblint.index.commits import commit_settings, hands_on
from joblint.index.entries import (
    called_entries,
    dependency_aliases,
    module_entries,
    non_atomic_classes,
)
from joblint.index.flags import call_guards, parameter_defaults, positional_parameters
from joblint.index.handed import (
    may_retry_a_parameter,
    retried_parameters,
    retry_delay_parameters,
)
from joblint.index.hooks import module_hooks
from joblint.index.model_uses import model_uses
from joblint.index.nodes import Function, assigned_names, module_statements, parameters
from joblint.index.openings import OpeningReader
from joblint.index.registering import attached_decorator, config_adders, returned_decorator
from joblint.index.returns import function_returns
from joblint.index.row_fields import row_uses
from joblint.index.scope import Frame, ModuleScope, SummaryDraft
from joblint.index.signals import module_connections
from joblint.index.task_decorators import TaskDecoratorReader
from joblint.index.writes import sets_fields, super_calls, writes
from joblint.knowledge import jobs
from joblint.models import Entry, FunctionSummary, ModuleIndex
from joblint.settings import ModuleInfo, Options


class ModuleReader:
    """Reads one module's index: `read` its `ast`."""

    def __init__(
        self,
        module: ModuleInfo,
        options: Options,
        may_claim: bool = True,
        may_name_guard: bool = True,
        may_connect: bool = True,
        may_attach: bool = True,
        may_hook: bool = True,
    ) -> None:
        self.module = module
        # Its text may connect a receiver to a signal (`requests.may_connect`):
        # where it can't, no connection is looked for.
        self.may_connect = may_connect
        # Its text may attach a handler's callback (`requests.may_attach`):
        # where it can't, no function is walked for one.
        self.may_attach = may_attach
        # Its text may register a function run after or around request
        # handlers, or a handler by a call (`requests.may_hook`): where it
        # can't, the module is not walked for one.
        self.may_hook = may_hook
        self.scope = ModuleScope(module)
        self.aliases: list[tuple[str, str]] = []
        self.registered: list[tuple[str, int, str]] = []
        self.openings = OpeningReader(self.scope, options)
        self.calls = CallReader(self.scope, self.openings, options)
        self.claims = ClaimReader(self.scope, may_claim, may_name_guard)
        self.tasks = TaskDecoratorReader(self.scope)
        self.classes = ClassReader(self.scope, self.openings)

    def read(
        self,
        tree: ast.Module,
        plain_functions: Iterable[str] = (),
        plain_classes: Iterable[str] = (),
    ) -> ModuleIndex:
        """`plain_functions`, `plain_classes`: the names of its plain functions
        and of the classes that may be plain (`joblint.index.plain`)."""
        scope = self.scope
        statements = list(module_statements(tree.body))
        for statement in statements:
            self._bind(statement)
        for statement in statements:
            self._define(statement)
        self._note_registering(statements)
        return ModuleIndex(
            self.module.name,
            tuple(sorted(set(self.aliases))),
            tuple(self.classes.classes),
            tuple(scope.instances),
            self._summaries(),
            tuple(self.tasks.found),
            tuple(self.registered),
            tuple(scope.local(name) for name in plain_functions),
            self.classes.plain_classes(plain_classes),
            entries=self._entries(statements),
            dependency_aliases=dependency_aliases(self.module.name, statements, scope.module_name),
            non_atomic_classes=non_atomic_classes(self.module.name, statements, scope.module_name),
            connections=module_connections(
                self.module.name, statements, scope.module_name, scope.imports
            )
            if self.may_connect
            else (),
            services=tuple(self.calls.services),
            hooks=module_hooks(self.module.name, statements, scope.module_name, scope.imports)
            if self.may_hook
            else (),
        )

    def _summaries(self) -> tuple[FunctionSummary, ...]:
        return tuple(
            FunctionSummary(
                self.scope.local(key),
                found.line,
                tuple(found.calls),
                found.opens,
                found.decorators,
                on_commit=found.on_commit,
                returns=found.returns,
                commits=tuple(found.commits),
                claims=found.claims,
                parameters=found.parameters,
                defaults=found.defaults,
                stub=found.stub,
                writes=found.writes,
                blind_writes=found.blind_writes,
                field_sets=found.field_sets,
                super_calls=found.super_calls,
                yields=found.yields,
                hands_on=found.hands_on,
                commit_settings=found.commit_settings,
                asynchronous=found.asynchronous,
                defers=tuple(found.defers),
                registers=found.registers,
                retries_handed=found.retries_handed,
                retry_delays=found.retry_delays,
                model_uses=found.model_uses,
                row_uses=found.row_uses,
            )
            for key, found in self.scope.summaries.items()
        )

    def _entries(self, statements: list[ast.stmt]) -> tuple[Entry, ...]:
        found = module_entries(self.module.name, statements, self.scope.module_name)
        if self.may_hook:
            found += called_entries(statements, self.scope.module_name)
        return found

    # --- module level ------------------------------------------------------------

    def _bind(self, statement: ast.stmt) -> None:
        scope = self.scope
        if isinstance(statement, ast.Import | ast.ImportFrom):
            for local, target in scope.imports(statement):
                scope.names[local] = target
                self.aliases.append((scope.local(local), target))
        elif isinstance(statement, Function | ast.ClassDef):
            scope.names[statement.name] = scope.local(statement.name)
        else:
            for name in assigned_names(statement):
                scope.names[name] = scope.local(name)
            self.claims.note_guard(statement)

    def _define(self, statement: ast.stmt) -> None:
        scope = self.scope
        if isinstance(statement, Function):
            self._function(statement, statement.name, "", [])
            self.tasks.note_forwarding(statement)
        elif isinstance(statement, ast.ClassDef):
            self.classes.read_class(statement, self._function)
            for decorator in statement.decorator_list:
                if isinstance(decorator, ast.Call):
                    self._note_registration(decorator, decorator.args)
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            first = call.args[:1]
            models = (
                first[0].elts if first and isinstance(first[0], ast.List | ast.Tuple) else first
            )
            self._note_registration(call, models)
            self.calls.note_service(call, scope.module_name)
        elif isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            value = statement.value
            self.tasks.note_task_decorator(statement, value)
            if isinstance(value, ast.Call):
                callee = scope.module_name(value.func)
                if callee is not None:
                    for name in assigned_names(statement):
                        scope.instances.append((scope.local(name), callee))

    def _note_registering(self, statements: list[ast.stmt]) -> None:
        """The module-level functions (and classes' `__call__`) that are
        decorator factories registering request handlers (`joblint.index.registering`)."""
        scope = self.scope
        adders = config_adders(statements) if self.may_attach else {}
        for statement in statements:
            if isinstance(statement, ast.FunctionDef):
                returns = scope.of_kind(statement, ast.Return)
                found = returned_decorator(returns, scope.module_name)
                if not found and self.may_attach:
                    found = attached_decorator(statement, scope.module_name, adders)
                if found:
                    scope.summaries[statement.name].registers = found
            elif isinstance(statement, ast.ClassDef) and self.may_attach:
                for method in statement.body:
                    if isinstance(method, ast.FunctionDef) and method.name == "__call__":
                        found = attached_decorator(method, scope.module_name, adders)
                        if found:
                            scope.summaries[f"{statement.name}.__call__"].registers = found

    def _note_registration(self, call: ast.Call, models: list[ast.expr]) -> None:
        """`admin.site.register(Order, OrderAdmin)`, `admin.site.register([A, B])`,
        `@admin.register(Order)`: models a framework writes in its own transaction."""
        registration = self.scope.module_name(call.func)
        if registration not in jobs.FRAMEWORK_REGISTRATIONS:
            return
        for model in models:
            qualname = self.scope.module_name(model)
            if qualname is not None:
                self.registered.append((qualname, call.lineno, registration))

    # --- functions ---------------------------------------------------------------

    def _function(self, node: Function, key: str, class_qualname: str, outer: list[Frame]) -> None:
        """Summarises a function (`key`: "f", "C.m", "f.<locals>.g"), and the
        functions it defines; `outer`: the functions around it."""
        scope = self.scope
        frame = Frame(key, node, class_qualname)
        frame.parameters = frozenset(p.arg for p in parameters(node.args))
        summary = scope.summaries.setdefault(key, SummaryDraft(node.lineno))
        summary.parameters = positional_parameters(node)
        summary.defaults = parameter_defaults(node)
        summary.stub = _is_stub(node.body)
        bind_locals(scope, frame, outer)
        frame.guards = call_guards(scope.of_kind(node, ast.If), frame.steady)
        stack = [*outer, frame]
        if class_qualname and not outer:
            note_attributes(scope, frame, stack, scope.attributes.setdefault(class_qualname, {}))
        summary.decorators = self.tasks.decorator_uses(node, outer)
        self.calls.read_body(frame, stack, summary)
        self.openings.note_context_manager(frame, stack, summary)
        self.openings.note_enter(frame, stack, summary)
        qualifiers = scope.qualifiers(stack)
        summary.returns = function_returns(node, scope.kinds(node), qualifiers)
        if not outer and may_retry_a_parameter(node, scope.of_kind(node, ast.Attribute)):
            summary.retries_handed = retried_parameters(node)
            summary.retry_delays = retry_delay_parameters(node, qualifiers.callee)
        summary.claims = self.claims.claims(node, stack)
        summary.writes, summary.blind_writes = writes(scope, node, stack, summary.calls)
        summary.field_sets = sets_fields(scope, node)
        summary.super_calls = super_calls(scope, node)
        yields = scope.of_kind(node, ast.Yield)
        summary.yields = min((cast(ast.Yield, y).lineno for y in yields), default=0)
        summary.asynchronous = isinstance(node, ast.AsyncFunctionDef)
        summary.hands_on = hands_on(scope, node, frame)
        summary.model_uses = model_uses(scope, node, frame)
        if node.decorator_list:  # what a task does with the row it is handed the key of
            summary.row_uses = row_uses(
                scope.kinds(node), frame.steady, lambda expr: scope.qualify(expr, stack)
            )
        if summary.commits and self.may_hook:
            summary.commit_settings = commit_settings(scope, node, summary.commits)
        kinds = scope.kinds(node)
        if ast.FunctionDef in kinds or ast.AsyncFunctionDef in kinds:
            for inner in scope.own(node):  # in their order: the summaries keep it
                if isinstance(inner, Function):
                    self._function(inner, f"{key}.<locals>.{inner.name}", "", stack)


def _is_stub(body: list[ast.stmt]) -> bool:
    """A body that does nothing to read (`...`, `pass`, a docstring)."""
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in body
    )
