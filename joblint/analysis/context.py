"""Per-file context kept on stacks during the single traversal: what rules query.

The engine calls `enter(node)` before any rule sees a node and `leave(node)`
after every rule has left it, so rules can ask "am I inside a transaction?",
"in an on-commit callback?", "in a loop?" without `ParentNodeProvider`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, TypeVar

import libcst as cst

from joblint.analysis.assignments import Assignments, ScopeNode
from joblint.analysis.broker_facts import Guard, SpanOf
from joblint.analysis.file_facts import COLLECTORS, SettingsCollector
from joblint.analysis.names import Binding, BindingKind, Resolver, Scope, Value, unwrap
from joblint.analysis.receivers import (
    Receiving,
    connected_elsewhere,
    connected_receivers,
    decorated_receiving,
    looks_like_receiver,
)
from joblint.analysis.tasks import (
    Enqueue,
    classify_enqueue,
    decorator_task_library,
    definition_binding,
)
from joblint.analysis.transactions import (
    ClassHooks,
    TxScope,
    class_hooks,
    class_method_transactions,
    database_alias,
    decorator_transaction,
    on_commit_callback,
    with_transaction,
)
from joblint.analysis.values import value_of, value_of_call
from joblint.analysis.views import is_view_class, non_atomic_class, reached_scope, view_scope
from joblint.analysis.walk import subclasses
from joblint.knowledge.jobs import TxFamily, may_be_project_code
from joblint.models import FileFacts

# Options live in joblint.settings (no LibCST there); re-exported for the rules.
from joblint.settings import Options as Options
from joblint.settings import RuleOptionValue as RuleOptionValue

T = TypeVar("T")


@dataclass(slots=True)
class Frame:
    """One function body (or the module body)."""

    node: cst.FunctionDef | cst.Module
    # Key for module-local indirection: "f", "Class.method", "f.<locals>.g".
    key: str
    transactions: list[TxScope] = field(default_factory=list)
    # Enclosing `for`/`while` statements in this function, outermost first.
    loops: list[cst.CSTNode] = field(default_factory=list)
    on_commit_depth: int = 0
    # The project functions the lambdas we are in are handed to, each with
    # the (position, keyword) it is passed at: one may defer it to COMMIT.
    handed: list[tuple[str, str, str]] = field(default_factory=list)
    class_name: str = ""
    # A function or method whose body runs inside a request's transaction if
    # the project step finds a request handler reaching it (`Reached`).
    reached: TxScope | None = None
    # What a model signal receiver is connected to (None: not a receiver
    # the module connects).
    receiving: Receiving | None = None

    @property
    def loop_depth(self) -> int:
        return len(self.loops)


class FileContext:
    def __init__(
        self,
        module: cst.Module,
        module_name: str,
        is_package: bool,
        options: Options,
        may_hold_walrus: bool = True,
        may_connect: bool = True,
    ):
        self.options = options
        # False when the source has no `:=`: no statement needs searching for one.
        self.may_hold_walrus = may_hold_walrus
        # False when the source has no `.connect(`: no signal receiver is connected by a call.
        self.may_connect = may_connect
        # The module's functions a call connects to a model signal, by key,
        # and other modules' functions it connects (for the project step).
        self.receivers: dict[str, Receiving] = {}
        self.connected: list[tuple[str, Receiving, cst.Call]] = []
        self.resolver = Resolver(module_name, is_package)
        self.frames: list[Frame] = [Frame(module, "")]
        self.classes: list[tuple[str, dict[str, tuple[TxFamily, str]]]] = []
        # Per enclosing class, the framework hooks its methods may be.
        self.class_hooks: list[tuple[ClassHooks, ...]] = []
        # Per enclosing class, whether it derives from Django's or DRF's views.
        self.view_classes: list[bool] = []
        # Per enclosing class, whether `method_decorator` makes its views non-atomic.
        self.non_atomic_classes: list[bool] = []
        # The methods each enclosing class defines (innermost last).
        self.class_methods: list[frozenset[str]] = []
        self.blocks: list[int] = [id(module)]
        self.statements: list[cst.CSTNode] = []
        self.order = 0
        self._on_commit_callbacks: set[int] = set()
        self._handed_lambdas: dict[int, tuple[str, str, str]] = {}
        self._assignments: Assignments | None = None
        self._enqueue_cache: dict[int, Enqueue | None] = {}
        # What the project step learns from this file (joblint.analysis.file_facts).
        self.collectors = tuple(make(self.resolver) for make in COLLECTORS)
        self._memo: dict[tuple[str, int], object] = {}
        self._prepass(module)

    # --- queries for rules ---------------------------------------------------

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    @property
    def transaction(self) -> TxScope | None:
        """The innermost open transaction, unless we are in an on-commit callback."""
        frame = self.frames[-1]
        if frame.on_commit_depth or not frame.transactions:
            return None
        return frame.transactions[-1]

    @property
    def in_on_commit_callback(self) -> bool:
        return self.frames[-1].on_commit_depth > 0

    @property
    def block_id(self) -> int:
        return self.blocks[-1]

    @property
    def statement(self) -> cst.CSTNode | None:
        return self.statements[-1] if self.statements else None

    def enqueue(self, call: cst.Call) -> Enqueue | None:
        key = id(call)
        if key not in self._enqueue_cache:
            self._enqueue_cache[key] = classify_enqueue(
                call,
                self.resolver,
                self.options.enqueue_functions,
                self.options.call_enqueues,
                self.own_methods,
            )
        return self._enqueue_cache[key]

    @property
    def own_methods(self) -> frozenset[str]:
        """The methods of the class whose method we are in (none outside one)."""
        if not self.frame.class_name or not self.class_methods:
            return frozenset()
        return self.class_methods[-1]

    def memo(self, kind: str, node: cst.CSTNode, compute: Callable[[], T]) -> T:
        """Compute a per-node analysis once for all rules that ask for it."""
        key = (kind, id(node))
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[return-value]

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
    def run_python_functions(self) -> frozenset[str]:
        """Qualified names of the functions this file's `RunPython(...)` runs."""
        settings = (c for c in self.collectors if isinstance(c, SettingsCollector))
        return frozenset(name for c in settings for name in c.run_python)

    @property
    def needs_positions(self) -> bool:
        """Whether the facts hold places that need positions."""
        return bool(self.connected) or any(c.needs_positions for c in self.collectors)

    def facts(self, path: str = "", span_of: SpanOf | None = None) -> FileFacts:
        fields: dict[str, Any] = {}
        for collector in self.collectors:
            fields.update(collector.contribute(path, span_of))
        receivers = tuple(
            receiving.fact(handler, span_of(call).line if span_of is not None else 0)
            for handler, receiving, call in self.connected
        )
        return FileFacts(module=self.resolver.module, receivers=receivers, **fields)

    # --- module pre-pass: module-level names are visible before their line ---

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
                tuple(_parameter_names(node.params)) if isinstance(node, cst.FunctionDef) else ()
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

    # --- traversal bookkeeping ---------------------------------------------------

    def enter(self, node: cst.CSTNode) -> None:
        self.order += 1
        if type(node) in _STATEMENTS:
            self._enter_statement(node)
        handler = _ENTER.get(type(node))
        if handler is not None:
            handler(self, node)

    def leave(self, node: cst.CSTNode) -> None:
        handler = _LEAVE.get(type(node))
        if handler is not None:
            handler(self, node)
        if type(node) in _STATEMENTS:
            self.statements.pop()

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
                collector.function(qualname, tuple(_parameter_names(node.params)))
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
        for param in _parameters(node.params):
            annotation = param.annotation.annotation if param.annotation is not None else None
            self.resolver.bind(
                param.name.value, Binding(BindingKind.OTHER, annotation=annotation, node=param)
            )

    def _directly_in_class(self) -> bool:
        return bool(self.classes) and self.resolver.scopes[-1].is_class

    def _decorator_transactions(self, node: cst.FunctionDef, class_name: str) -> Iterator[TxScope]:
        extra = self.options.transaction_functions
        for decorator in node.decorators:
            found = decorator_transaction(decorator.decorator, self.resolver, extra)
            if found is not None:
                scope = self._scope(node, decorator, found)
                if scope is not None:
                    yield scope
        if class_name:
            by_name = self.classes[-1][1]
            if node.name.value in by_name:
                family, description = by_name[node.name.value]
                yield TxScope(node, f"{description} via method_decorator on {class_name}", family)
            framework = (hooks.scope(node, class_name) for hooks in self.class_hooks[-1])
            scope = next((found for found in framework if found is not None), None)
            if scope is not None:
                yield scope

    def _scope(
        self, node: cst.CSTNode, opener: cst.CSTNode, found: tuple[TxFamily, str]
    ) -> TxScope | None:
        """The transaction opened, unless it is on a database that takes no
        writes (`read-only-databases`): no job can race it."""
        database = database_alias(opener, self.resolver)
        if database and database in self.options.read_only_databases:
            return None
        return TxScope(node, found[1], found[0], database)

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

    @property
    def assignments(self) -> Assignments:
        """The file's assignment tables, one set shared by every rule that asks."""
        if self._assignments is None:
            module = self.frames[0].node
            assert isinstance(module, cst.Module)
            self._assignments = Assignments(module, self.may_hold_walrus)
        return self._assignments

    @property
    def scope_nodes(self) -> tuple[ScopeNode, ...]:
        """The module and the functions we are in, outermost first."""
        return tuple(frame.node for frame in self.frames)

    def _self_value(self, class_name: str, attr: str) -> Value | None:
        """What `self.<attr>` holds in the class's methods: the value of the
        one call its methods assign it (the assignments table's)."""
        bound = self.assignments.attribute(class_name, attr)
        made = unwrap(bound.value) if bound is not None else None
        return value_of_call(made, self.resolver) if isinstance(made, cst.Call) else None

    def _leave_class(self, node: cst.ClassDef) -> None:
        self.classes.pop()
        self.class_hooks.pop()
        self.view_classes.pop()
        self.non_atomic_classes.pop()
        self.class_methods.pop()
        self.resolver.scopes.pop()

    def _enter_with(self, node: cst.With) -> None:
        found = with_transaction(node, self.resolver, self.options.transaction_functions)
        scope = self._scope(node, node, found) if found is not None else None
        if scope is not None:
            self.frames[-1].transactions.append(scope)
        if self._in_function_or_class():
            for item in node.items:
                if item.asname is not None:
                    self._bind_target(item.asname.name, item.item)

    def _leave_with(self, node: cst.With) -> None:
        transactions = self.frames[-1].transactions
        if transactions and transactions[-1].node is node:
            transactions.pop()

    def _in_function_or_class(self) -> bool:
        return bool(self.frames[-1].key) or len(self.resolver.scopes) > 1

    def _enter_loop(self, node: cst.CSTNode) -> None:
        self.frames[-1].loops.append(node)
        if isinstance(node, cst.For) and self._in_function_or_class():
            self._bind_target(node.target, node.iter, iterated=True)

    def _leave_loop(self, node: cst.CSTNode) -> None:
        self.frames[-1].loops.pop()

    def _enter_call(self, node: cst.Call) -> None:
        for collector in self.collectors:
            collector.call(node)
        callback = on_commit_callback(node, self.resolver, self.options.on_commit_functions)
        if isinstance(callback, cst.Lambda):
            self._on_commit_callbacks.add(id(callback))
        elif callback is None:
            self._note_handed_lambdas(node)

    def _note_handed_lambdas(self, node: cst.Call) -> None:
        """Lambdas handed to a function of the project's (a wrapper of
        `transaction.on_commit`, perhaps: the project step tells)."""
        qualname = self.resolver.qualified_name(node.func)
        if qualname is None or not may_be_project_code(qualname):
            return
        position = 0
        for arg in node.args:
            if isinstance(arg.value, cst.Lambda) and not arg.star:
                keyword = arg.keyword.value if arg.keyword is not None else ""
                at = "" if keyword else str(position)
                self._handed_lambdas[id(arg.value)] = (qualname, at, keyword)
            if arg.keyword is None and not arg.star:
                position += 1

    def _enter_lambda(self, node: cst.Lambda) -> None:
        if id(node) in self._on_commit_callbacks:
            self.frames[-1].on_commit_depth += 1
        handed = self._handed_lambdas.get(id(node))
        if handed is not None:
            self.frames[-1].handed.append(handed)

    def _leave_lambda(self, node: cst.Lambda) -> None:
        if id(node) in self._on_commit_callbacks:
            self.frames[-1].on_commit_depth -= 1
        if id(node) in self._handed_lambdas:
            self.frames[-1].handed.pop()

    def _enter_block(self, node: cst.CSTNode) -> None:
        self.blocks.append(id(node))

    def _leave_block(self, node: cst.CSTNode) -> None:
        self.blocks.pop()

    def _enter_statement(self, node: cst.CSTNode) -> None:
        self.statements.append(node)
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    for collector in self.collectors:
                        collector.assignment(small)
        # Module-level names were bound by the pre-pass.
        if self._in_function_or_class() and isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                if isinstance(small, cst.Import | cst.ImportFrom):
                    self.resolver.bind_import(small)
                elif isinstance(small, cst.Assign | cst.AnnAssign):
                    self._bind_assignment(small)


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


def _method_names(node: cst.ClassDef) -> frozenset[str]:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    return frozenset(s.name.value for s in body if isinstance(s, cst.FunctionDef))


def _parameters(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from (*params.posonly_params, *params.params, *params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star


def _parameter_names(params: cst.Parameters) -> Iterator[str]:
    for param in _parameters(params):
        yield param.name.value


_Handler = Callable[[FileContext, cst.CSTNode], None]

_STATEMENTS = subclasses(cst.SimpleStatementLine, cst.BaseCompoundStatement)

_ENTER: dict[type[cst.CSTNode], _Handler] = {
    cst.FunctionDef: FileContext._enter_function,  # type: ignore[dict-item]
    cst.ClassDef: FileContext._enter_class,  # type: ignore[dict-item]
    cst.With: FileContext._enter_with,  # type: ignore[dict-item]
    cst.For: FileContext._enter_loop,
    cst.While: FileContext._enter_loop,
    cst.Call: FileContext._enter_call,  # type: ignore[dict-item]
    cst.Lambda: FileContext._enter_lambda,  # type: ignore[dict-item]
    cst.IndentedBlock: FileContext._enter_block,
    cst.SimpleStatementSuite: FileContext._enter_block,
}
_LEAVE: dict[type[cst.CSTNode], _Handler] = {
    cst.FunctionDef: FileContext._leave_function,  # type: ignore[dict-item]
    cst.ClassDef: FileContext._leave_class,  # type: ignore[dict-item]
    cst.With: FileContext._leave_with,  # type: ignore[dict-item]
    cst.For: FileContext._leave_loop,
    cst.While: FileContext._leave_loop,
    cst.Lambda: FileContext._leave_lambda,  # type: ignore[dict-item]
    cst.IndentedBlock: FileContext._leave_block,
    cst.SimpleStatementSuite: FileContext._leave_block,
}
