"""Which names a module binds, and to what, as the traversal reaches them.

Module-level names are visible before their line (a pre-pass binds the
module's imports, definitions and assignments first, and feeds the
collectors of the project's facts); inside functions and classes, names are
bound as the traversal meets them. Also the module's own function a call calls,
and what `self.<attr>` holds in a class's methods.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

import libcst as cst

from joblint.analysis.assignments import Assignments
from joblint.analysis.broker_facts import Guard
from joblint.analysis.context_state import ContextState
from joblint.analysis.names import Binding, BindingKind, Scope, Value, unwrap
from joblint.analysis.receivers import connected_receivers
from joblint.analysis.tasks import definition_binding
from joblint.analysis.values import value_of, value_of_call


class NameBindings(ContextState):
    """The names the module binds, bound as the traversal goes."""

    def _prepass(self, module: cst.Module) -> None:
        statements = list(_top_level_statements(module.body))
        for stmt in statements:
            if isinstance(stmt, cst.Import | cst.ImportFrom):
                self.resolver.bind_import(stmt)
        for stmt in statements:
            if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
                self._bind_definition(stmt, self.resolver.module_scope)
            elif isinstance(stmt, cst.Assign | cst.AnnAssign):
                self._bind_assignment(stmt)
        guards = module_guards(module.body)
        for collector in self.collectors:
            collector.module_guards(guards)
        for stmt in statements:
            for collector in self.collectors:
                collector.module_statement(stmt)
        if self.may_connect:
            connections = connected_receivers(module, self.resolver)
            self.receivers, self.connected = connections.local, connections.external

    def _bind_definition(self, node: cst.FunctionDef | cst.ClassDef, scope: Scope) -> None:
        binding, receiver = definition_binding(node, self.resolver)
        qualname = binding.qualname
        if self.frames[-1].key:
            qualname = (
                f"{self.resolver.local_qualname(self.frames[-1].key)}.<locals>.{node.name.value}"
            )
        binding = replace(binding, qualname=qualname, node=node)
        scope.names[node.name.value] = binding
        if scope is self.resolver.module_scope:
            params = (
                tuple(parameter_names(node.params)) if isinstance(node, cst.FunctionDef) else ()
            )
            for collector in self.collectors:
                collector.definition(binding, receiver, params)

    def _bind_assignment(self, node: cst.Assign | cst.AnnAssign) -> None:
        targets = (
            [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        for target in targets:
            self._bind_target(target, node.value)

    def _bind_target(
        self,
        target: cst.BaseExpression,
        value: cst.BaseExpression | None,
        *,
        unpack_index: int | None = None,
        iterated: bool = False,
    ) -> None:
        """Record what `target` is bound to; `value` is the whole right-hand side."""
        if isinstance(target, cst.Name):
            direct = value is not None and unpack_index is None and not iterated
            recognised = value_of(value, self.resolver) if direct and value is not None else None
            qualname = self.resolver.local_qualname(target.value) if not self.frames[-1].key else ""
            kind = BindingKind.VALUE if recognised is not None else BindingKind.OTHER
            binding = Binding(
                kind,
                qualname,
                value=recognised,
                expr=value,
                unpack_index=unpack_index,
                iterated=iterated,
            )
            self.resolver.bind(target.value, binding)
        elif isinstance(target, cst.Tuple | cst.List):
            # `a, b = value`: only a plain tuple unpacking keeps per-element values.
            for index, element in enumerate(target.elements):
                nested = unpack_index is None and not iterated
                self._bind_target(
                    element.value,
                    value if nested else None,
                    unpack_index=index if nested else None,
                )
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, None)

    def local_callee_key(self, call: cst.Call) -> str | None:
        """Key of a function or method of this module that `call` calls, if any."""
        func = call.func
        if isinstance(func, cst.Name):
            binding = self.resolver.lookup(func.value)
            if binding is None or binding.kind is not BindingKind.DEF:
                return None
            prefix = f"{self.resolver.module}." if self.resolver.module else ""
            return binding.qualname.removeprefix(prefix)
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in {"self", "cls"}
            and self.frame.class_name
        ):
            return f"{self.frame.class_name}.{func.attr.value}"
        return None

    @property
    def assignments(self) -> Assignments:
        """The file's assignment tables, one set shared by every rule that asks."""
        if self._assignments is None:
            module = self.frames[0].node
            assert isinstance(module, cst.Module)
            self._assignments = Assignments(module, self.may_hold_walrus)
        return self._assignments

    def _self_value(self, class_name: str, attr: str) -> Value | None:
        """What `self.<attr>` holds in the class's methods: the value of the
        one call its methods assign it (the assignments table's)."""
        bound = self.assignments.attribute(class_name, attr)
        made = unwrap(bound.value) if bound is not None else None
        return value_of_call(made, self.resolver) if isinstance(made, cst.Call) else None


def _top_level_statements(body: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Module-level statements, looking into top-level if/try/with blocks."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, cst.If | cst.Try | cst.With):
            yield from _top_level_statements(_compound_bodies(stmt))
        else:
            yield stmt


def module_guards(body: Sequence[cst.CSTNode]) -> dict[int, Guard]:
    """The statements of top-level `if` blocks (no `elif`), by id: the test
    and whether they are in its `else:`."""
    found: dict[int, Guard] = {}
    for stmt in body:
        if not isinstance(stmt, cst.If) or isinstance(stmt.orelse, cst.If):
            continue
        arms = [(stmt.body, False)]
        if stmt.orelse is not None:
            arms.append((stmt.orelse.body, True))
        for block, negated in arms:
            if isinstance(block, cst.IndentedBlock):
                for small in _top_level_statements(block.body):
                    found[id(small)] = (stmt.test, negated)
    return found


def _compound_bodies(stmt: cst.If | cst.Try | cst.With) -> list[cst.CSTNode]:
    bodies: list[cst.CSTNode] = []
    if isinstance(stmt.body, cst.IndentedBlock):
        bodies.extend(stmt.body.body)
    if isinstance(stmt, cst.If) and stmt.orelse is not None:
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            bodies.append(orelse)
        elif isinstance(orelse.body, cst.IndentedBlock):
            bodies.extend(orelse.body.body)
    if isinstance(stmt, cst.Try):
        for handler in stmt.handlers:
            if isinstance(handler.body, cst.IndentedBlock):
                bodies.extend(handler.body.body)
        for extra in (stmt.orelse, stmt.finalbody):
            if extra is not None and isinstance(extra.body, cst.IndentedBlock):
                bodies.extend(extra.body.body)
    return bodies


def parameters(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from (*params.posonly_params, *params.params, *params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star


def parameter_names(params: cst.Parameters) -> Iterator[str]:
    for param in parameters(params):
        yield param.name.value
