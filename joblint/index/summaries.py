"""Reading one module's `ModuleIndex` from its `ast`.

Names resolve the way `joblint.analysis.names` resolves them for LibCST:
through the module's imports and definitions, function-level imports, the
types of locals (`m = Mailer()`, `order: Order`, `Order.objects.get(...)`),
and `self.`/`cls.` inside a class's methods. A name the function binds in
any other way (a loop target, an untyped parameter, an assignment of
something else) is a value no summary can follow.

Calls made where they run later are no calls of the function: the bodies of
nested functions (summarised on their own, as `outer.<locals>.inner`), of
lambdas handed to an on-commit hook, and of lambdas the function returns (a
callback factory's: they run when its caller calls the result).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import cast

from joblint.index.entries import (
    called_entries,
    dependency_aliases,
    module_entries,
    non_atomic_classes,
)
from joblint.index.flags import (
    Guard,
    call_flags,
    call_guards,
    call_held,
    command_flags,
    parameter_defaults,
    positional_parameters,
)
from joblint.index.handed import (
    may_retry_a_parameter,
    retried_parameters,
    retry_delay_parameters,
)
from joblint.index.hooks import module_hooks
from joblint.index.registering import attached_decorator, config_adders, returned_decorator
from joblint.index.returns import (
    PAIR,
    ROW,
    ROWS,
    Qualifiers,
    annotation_expr,
    fetched,
    function_returns,
)
from joblint.index.row_fields import row_uses
from joblint.index.row_uses import result_uses
from joblint.index.services import found_service, registered_service
from joblint.index.signals import module_connections
from joblint.knowledge import jobs, payloads, requests, work
from joblint.libraries import django, postgres
from joblint.models import (
    DecoratorUse,
    Entry,
    FunctionSummary,
    ModuleIndex,
    ProjectCall,
    RetryDelayHanded,
    ReturnFact,
    RowUse,
    ServiceRegistration,
    TaskDecorator,
    TxOpening,
)
from joblint.settings import ModuleInfo, Options

# The attributes and methods of a parameter that use it as a model instance.
_MODEL_USE_WORDS = payloads.MODEL_INSTANCE_ATTRIBUTES | payloads.MODEL_INSTANCE_METHODS
# Bases that give a class a kind of its own (a model, an enum, a pydantic model).
_KIND_BASES = frozenset({*payloads.BASE_CLASS_KINDS, *payloads.TABLE_FLAG_BASES})

_Function = ast.FunctionDef | ast.AsyncFunctionDef
# `try` and, from Python 3.11, `try/except*`.
_TRY = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if isinstance(t, type))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# The nodes that may bind a name in a function (`_bind_locals`), besides names.
_BINDERS = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.withitem,
    ast.For,
    ast.AsyncFor,
    ast.ExceptHandler,
)
# The nodes `_claiming` may find a claim in.
_CLAIMING_KINDS = (ast.Name, ast.Attribute, ast.Constant, ast.If, ast.While)
# The parameters a method's first argument is conventionally named.
_RECEIVERS = frozenset({"self", "cls"})
# Manager methods that return one instance of the model (`Order.objects.get(...)`).
_COMMIT_RECEIVER = re.compile(jobs.COMMIT_RECEIVER_PATTERN)


def dotted(node: ast.expr) -> list[str] | None:
    """`a.b.c` -> ["a", "b", "c"]; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return parts


def last_name(node: ast.expr) -> str:
    """`a.b.c` -> "c", `c` -> "c"; "" for anything else (a call's result)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """Every node of a function's body that runs when it does, in source
    order: not the bodies of nested functions, classes or lambdas.
    (`child_nodes` written in, as most of a reader's walking is here: each
    node's children go on the stack last first, so they come off in order.)"""
    found: list[ast.AST] = []
    todo: list[ast.AST] = list(reversed(body))
    pop, push, visit = todo.pop, todo.extend, found.append
    while todo:
        node = pop()
        visit(node)
        kind = type(node)
        if kind in _SCOPE_KINDS:
            # Their decorators, defaults and bases run here; their bodies don't.
            push(reversed(_evaluated_here(node)))
            continue
        fields = _FIELDS_LAST_FIRST.get(kind)
        if fields is None:
            fields = _FIELDS_LAST_FIRST[kind] = tuple(reversed(_child_fields(kind)))
        for name in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                # Only a dict's `**` key and a missing keyword default are None.
                if None in value:
                    value = [item for item in value if item is not None]
                push(reversed(value))
            else:
                todo.append(value)
    return found


def nodes_by_kind(nodes: list[ast.AST]) -> dict[type[ast.AST], list[ast.AST]]:
    """`nodes` grouped by their class, each group in their order: a question
    about one kind of node reads only those (most nodes are names, attributes,
    constants and calls)."""
    found: dict[type[ast.AST], list[ast.AST]] = {}
    for node in nodes:
        kind = type(node)
        group = found.get(kind)
        if group is None:
            found[kind] = [node]
        else:
            group.append(node)
    return found


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes`, as a list and without the expression contexts
    (`Load`, `Store`: read from their owners, never visited)."""
    kind = type(node)
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = _child_fields(kind)
    found: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if value is None:
            continue
        if type(value) is list:
            # Only a dict's `**` key and a missing keyword default are None.
            if None in value:
                found.extend(item for item in value if item is not None)
            else:
                found += value
        else:
            found.append(value)
    return found


# Fields that never hold a node, by Python's grammar of its AST (names,
# strings, numbers, flags): looked at by no walk. `ctx` holds one that
# walks leave out.
_SCALAR_FIELDS = frozenset(
    {
        "ctx",
        "id",
        "attr",
        "name",
        "asname",
        "module",
        "level",
        "arg",
        "kind",
        "type_comment",
        "conversion",
        "is_async",
        "simple",
        "rest",
        "kwd_attrs",
        "tag",
    }
)
# Fields of one class that never hold a node.
_SCALAR_OF: dict[type[ast.AST], tuple[str, ...]] = {
    ast.Constant: ("value",),
    ast.MatchSingleton: ("value",),
    ast.Global: ("names",),
    ast.Nonlocal: ("names",),
}
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}
_FIELDS_LAST_FIRST: dict[type[ast.AST], tuple[str, ...]] = {}
_SCOPE_KINDS = frozenset(_SCOPES)


def _child_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    """The fields of an AST class that may hold nodes: every other field
    holds a node, a list of nodes (and None for a missing one) or None (a
    constant's value never does, nor do the names `global` declares)."""
    scalar = set(_SCALAR_OF.get(kind, ()))
    return tuple(f for f in kind._fields if f not in _SCALAR_FIELDS and f not in scalar)


def _evaluated_here(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Lambda):
        return [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    assert isinstance(node, _Function)
    args = node.args
    return [*node.decorator_list, *args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _parameters(args: ast.arguments) -> list[ast.arg]:
    found = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    found.extend(a for a in (args.vararg, args.kwarg) if a is not None)
    return found


@dataclass(slots=True)
class _Frame:
    """A function being read: what its own names are bound to."""

    key: str  # "f", "C.m", "f.<locals>.g"
    node: _Function
    class_qualname: str = ""  # the class whose method it is
    parameters: frozenset[str] = frozenset()
    # Names whose calls resolve: imports in the function, typed locals, nested defs.
    resolved: dict[str, str] = field(default_factory=dict)
    # Names bound to values no summary follows.
    opaque: set[str] = field(default_factory=set)
    # Its parameters no statement of it assigns, and the flags its calls need
    # (`joblint.index.flags`).
    steady: frozenset[str] = frozenset()
    guards: dict[int, Guard] = field(default_factory=dict)


@dataclass(slots=True)
class _Summary:
    line: int
    calls: list[ProjectCall] = field(default_factory=list)
    opens: TxOpening | None = None
    decorators: tuple[DecoratorUse, ...] = ()
    on_commit: bool = False
    returns: tuple[ReturnFact, ...] = ()
    commits: list[int] = field(default_factory=list)
    claims: bool = False
    parameters: tuple[str, ...] = ()
    defaults: tuple[tuple[str, bool], ...] = ()
    stub: bool = False
    writes: tuple[str, ...] = ()
    blind_writes: bool = False
    field_sets: bool = False
    super_calls: tuple[str, ...] = ()
    yields: int = 0
    hands_on: int = 0
    commit_settings: tuple[str, ...] = ()
    asynchronous: bool = False
    defers: list[str] = field(default_factory=list)
    registers: str = ""
    retries_handed: tuple[str, ...] = ()
    retry_delays: tuple[RetryDelayHanded, ...] = ()
    model_uses: tuple[tuple[str, int, str], ...] = ()
    row_uses: tuple[RowUse, ...] = ()


class ModuleReader:
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
        # The module's text names something that claims work (`work.may_claim`).
        self.may_claim = may_claim
        # Its names may be the runtime's guard (`work.may_name_guard`): where
        # they can't, the names of its functions are not looked up for one.
        self.may_name_guard = may_name_guard
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
        self.transaction_functions = options.transaction_functions
        self.enqueue_functions = options.enqueue_functions
        self.on_commit_functions = options.on_commit_functions
        self.names: dict[str, str] = {}  # module-level name -> qualified name
        self.aliases: list[tuple[str, str]] = []
        self.classes: list[tuple[str, tuple[str, ...]]] = []
        # Classes whose every base resolved: their bases.
        self._resolved_bases: dict[str, tuple[str, ...]] = {}
        self.instances: list[tuple[str, str]] = []
        # Module-level names holding a guard the module made (`runs = IdempotencyGuard()`).
        self._guards: set[str] = set()
        # A class's attributes (`self.order = order`): what each assignment holds (None: unknown).
        self._attributes: dict[str, dict[str, set[str | None]]] = {}
        self.summaries: dict[str, _Summary] = {}
        self.task_decorators: list[TaskDecorator] = []
        self.registered: list[tuple[str, int, str]] = []
        self.services: list[ServiceRegistration] = []
        # Methods a framework runs inside its own transaction (`key` -> the
        # transaction: () for certain, a project base class if the base is the framework's).
        self._hooks: dict[str, tuple[str, ...]] = {}
        # Each function's own nodes, walked once for every question asked of
        # them, and grouped by kind.
        self._own: dict[int, list[ast.AST]] = {}
        self._kinds: dict[int, dict[type[ast.AST], list[ast.AST]]] = {}

    def own(self, function: _Function) -> list[ast.AST]:
        """`own_nodes` of the function's body."""
        found = self._own.get(id(function))
        if found is None:
            found = self._own[id(function)] = own_nodes(function.body)
        return found

    def kinds(self, function: _Function) -> dict[type[ast.AST], list[ast.AST]]:
        """`nodes_by_kind` of the function's own nodes."""
        found = self._kinds.get(id(function))
        if found is None:
            found = self._kinds[id(function)] = nodes_by_kind(self.own(function))
        return found

    def of_kind(self, function: _Function, *kinds: type[ast.AST]) -> list[ast.AST]:
        """The function's own nodes of `kinds`, a kind's after another's."""
        grouped = self.kinds(function)
        return [node for kind in kinds for node in grouped.get(kind, ())]

    def _with_context(
        self,
        function: _Function,
        kinds: tuple[type[ast.AST], ...],
        deferred: set[int] = frozenset(),  # type: ignore[assignment]
    ) -> Iterable[tuple[ast.AST, list[ast.withitem]]]:
        """`_with_context` of the function for its nodes of `kinds` (more
        nodes may come: the caller picks those): when no `with` or lambda is
        among its own nodes (most functions), the walk differs from
        `own_nodes` only there, and those of `kinds` are all it needs."""
        if _CONTEXT_TYPES.isdisjoint(self.kinds(function)):
            return ((node, _NOTHING_OPENED) for node in self.of_kind(function, *kinds))
        return _with_context(function, deferred)

    def local(self, name: str) -> str:
        return f"{self.module.name}.{name}" if self.module.name else name

    def read(
        self,
        tree: ast.Module,
        plain_functions: Iterable[str] = (),
        plain_classes: Iterable[str] = (),
    ) -> ModuleIndex:
        """`plain_functions`, `plain_classes`: the names of its plain functions
        and of the classes that may be plain (`joblint.index.plain`)."""
        statements = list(_module_statements(tree.body))
        for statement in statements:
            self._bind(statement)
        for statement in statements:
            self._define(statement)
        self._note_registering(statements)
        return ModuleIndex(
            self.module.name,
            tuple(sorted(set(self.aliases))),
            tuple(self.classes),
            tuple(self.instances),
            tuple(
                FunctionSummary(
                    self.local(key),
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
                for key, found in self.summaries.items()
            ),
            tuple(self.task_decorators),
            tuple(self.registered),
            tuple(self.local(name) for name in plain_functions),
            self._plain_classes(plain_classes),
            entries=self._entries(statements),
            dependency_aliases=dependency_aliases(self.module.name, statements, self._module_name),
            non_atomic_classes=non_atomic_classes(self.module.name, statements, self._module_name),
            connections=module_connections(
                self.module.name, statements, self._module_name, self._imports
            )
            if self.may_connect
            else (),
            services=tuple(self.services),
            hooks=module_hooks(self.module.name, statements, self._module_name, self._imports)
            if self.may_hook
            else (),
        )

    def _entries(self, statements: list[ast.stmt]) -> tuple[Entry, ...]:
        found = module_entries(self.module.name, statements, self._module_name)
        if self.may_hook:
            found += called_entries(statements, self._module_name)
        return found

    def _plain_classes(self, names: Iterable[str]) -> tuple[str, ...]:
        """Of the classes that may be plain, those whose every base the
        index resolves, none of them one that gives its classes a kind (a
        model's, an enum's: `knowledge.payloads`): the facts would tell no
        kind of their own."""
        return tuple(
            qualname
            for qualname in (self.local(name) for name in names)
            if qualname in self._resolved_bases
            and not any(base in _KIND_BASES for base in self._resolved_bases[qualname])
        )

    # --- module level ------------------------------------------------------------

    def _bind(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            for local, target in self._imports(statement):
                self.names[local] = target
                self.aliases.append((self.local(local), target))
        elif isinstance(statement, _Function | ast.ClassDef):
            self.names[statement.name] = self.local(statement.name)
        else:
            for name in _assigned_names(statement):
                self.names[name] = self.local(name)
            self._note_guard(statement)

    def _note_guard(self, statement: ast.stmt) -> None:
        """`runs = IdempotencyGuard()`: a function calling `runs.claim(...)` claims."""
        if not self.may_name_guard or not isinstance(statement, ast.Assign | ast.AnnAssign):
            return
        value = statement.value
        maker = self._module_name(value.func) if isinstance(value, ast.Call) else None
        if maker is not None and work.is_guard_name(maker):
            self._guards.update(self.local(name) for name in _assigned_names(statement))

    def _imports(self, node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    yield alias.asname, alias.name
                else:
                    head = alias.name.split(".")[0]
                    yield head, head
            return
        base = node.module or ""
        if node.level:
            base = self.module.absolute(node.level, base)
        for alias in node.names:
            if alias.name != "*":
                yield alias.asname or alias.name, f"{base}.{alias.name}" if base else alias.name

    def _define(self, statement: ast.stmt) -> None:
        if isinstance(statement, _Function):
            self._function(statement, statement.name, "", [])
            self._note_forwarding(statement)
        elif isinstance(statement, ast.ClassDef):
            self._class(statement)
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
            self._note_service(call, self._module_name)
        elif isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            value = statement.value
            self._note_task_decorator(statement, value)
            if isinstance(value, ast.Call):
                callee = self._module_name(value.func)
                if callee is not None:
                    for name in _assigned_names(statement):
                        self.instances.append((self.local(name), callee))

    def _note_registering(self, statements: list[ast.stmt]) -> None:
        """The module-level functions (and classes' `__call__`) that are
        decorator factories registering request handlers (`joblint.index.registering`)."""
        adders = config_adders(statements) if self.may_attach else {}
        for statement in statements:
            if isinstance(statement, ast.FunctionDef):
                returns = self.of_kind(statement, ast.Return)
                found = returned_decorator(returns, self._module_name)
                if not found and self.may_attach:
                    found = attached_decorator(statement, self._module_name, adders)
                if found:
                    self.summaries[statement.name].registers = found
            elif isinstance(statement, ast.ClassDef) and self.may_attach:
                for method in statement.body:
                    if isinstance(method, ast.FunctionDef) and method.name == "__call__":
                        found = attached_decorator(method, self._module_name, adders)
                        if found:
                            self.summaries[f"{statement.name}.__call__"].registers = found

    def _note_service(self, call: ast.Call, qualify: Callable[[ast.expr], str | None]) -> None:
        """`config.register_service_factory(factory, name="mailer")`: a service
        a request's `find_service` makes."""
        found = registered_service(call, qualify, self.module)
        if found is not None:
            self.services.append(found)

    def _note_registration(self, call: ast.Call, models: list[ast.expr]) -> None:
        """`admin.site.register(Order, OrderAdmin)`, `admin.site.register([A, B])`,
        `@admin.register(Order)`: models a framework writes in its own transaction."""
        registration = self._module_name(call.func)
        if registration not in jobs.FRAMEWORK_REGISTRATIONS:
            return
        for model in models:
            qualname = self._module_name(model)
            if qualname is not None:
                self.registered.append((qualname, call.lineno, registration))

    def _class_hooks(self, node: ast.ClassDef) -> None:
        """Which methods of the class a framework runs in its own transaction:
        with a framework base, certainly; with a project base, if the class
        index follows it to a framework class (the call graph asks)."""
        project_base = ""
        for base in node.bases:
            qualname = self._module_name(base)
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

    def _module_name(self, node: ast.expr) -> str | None:
        parts = dotted(node)
        if parts is None or parts[0] not in self.names:
            return None
        return ".".join([self.names[parts[0]], *parts[1:]])

    # --- task decorators the project builds ------------------------------------------

    def _note_task_decorator(self, statement: ast.Assign | ast.AnnAssign, value: ast.expr) -> None:
        """`retrying = shared_task(...)`, `task = app.task`, `partial(shared_task, ...)`."""
        found = self._built_decorator(value)
        if found is None:
            return
        via, options, takes_options = found
        for name in _assigned_names(statement):
            decorator = TaskDecorator(
                self.local(name), via, statement.lineno, options, takes_options
            )
            self.task_decorators.append(decorator)

    def _built_decorator(self, value: ast.expr) -> tuple[str, _Options, bool] | None:
        if not isinstance(value, ast.Call):
            name = self._module_name(value)
            return None if name is None or not _may_decorate(name) else (name, (), True)
        callee = self._module_name(value.func)
        if callee is None:
            return None
        if callee in jobs.PARTIAL_FUNCTIONS:
            if len(value.args) != 1 or isinstance(value.args[0], ast.Starred):
                return None
            inner = self._module_name(value.args[0])
            if inner is None or not _may_decorate(inner):
                return None
            return inner, _options(value), True
        if value.args or not _library_decorator(callee):
            return None  # `app.task(fn)` registers `fn`; a project call may return anything
        return callee, _options(value), False

    def _note_forwarding(self, node: _Function) -> None:
        """`def task(*args, **kwargs): return shared_task(*args, **kwargs)`: a
        task decorator taking the options its callers pass (and those it adds).
        Also a task maker (`return app.task(**opts)(fn)`) and a decorator
        factory returning a nested decorator that makes the task with them
        (`def inner(fn): return shared_task(**opts)(wrapper)`; `return inner`)."""
        kwarg = node.args.kwarg
        if kwarg is None:
            return
        call = self._forwarding_call(node, kwarg.arg)
        if call is None:
            nested = {
                inner.name: inner
                for inner in self.own(node)
                if isinstance(inner, _Function) and inner.args.kwarg is None
            }
            for inner in self.of_kind(node, ast.Return):
                assert isinstance(inner, ast.Return)
                value = inner.value
                if isinstance(value, ast.Name) and value.id in nested:
                    call = self._forwarding_call(nested[value.id], kwarg.arg)
                    if call is not None:
                        break
        if call is None:
            return
        callee = self._module_name(call.func)
        assert callee is not None
        found = TaskDecorator(self.local(node.name), callee, node.lineno, _options(call))
        self.task_decorators.append(found)

    def _forwarding_call(self, node: _Function, kwarg: str) -> ast.Call | None:
        """The library decorator's call a `return` of `node` makes with the
        `**kwarg` it forwards, itself or applied to a function."""
        for inner in self.of_kind(node, ast.Return):
            assert isinstance(inner, ast.Return)
            call = inner.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Call):
                call = call.func  # `app.task(**opts)(fn)`: the task made with them
            if not isinstance(call, ast.Call):
                continue
            callee = self._module_name(call.func)
            if callee is None or not _may_decorate(callee):
                continue
            if any(k.arg is None and _is_name(k.value, kwarg) for k in call.keywords):
                return call
        return None

    def _decorator_uses(self, node: _Function, stack: list[_Frame]) -> tuple[DecoratorUse, ...]:
        """The decorators that may register the function as a task."""
        found = []
        for decorator in node.decorator_list:
            qualname = self._qualify(_decorated(decorator), stack)
            if qualname is None or not _may_decorate(qualname):
                continue
            called = isinstance(decorator, ast.Call)
            options = _options(decorator) if isinstance(decorator, ast.Call) else ()
            names = self._named_options(decorator, stack) if isinstance(decorator, ast.Call) else ()
            found.append(DecoratorUse(qualname, options, called, names))
        return tuple(found)

    def _named_options(
        self, decorator: ast.Call, stack: list[_Frame]
    ) -> tuple[tuple[str, str], ...]:
        """The keywords whose value is a name, qualified (`base=OnCommitTask`)."""
        found = []
        for keyword in decorator.keywords:
            if keyword.arg is None or not isinstance(keyword.value, (ast.Name, ast.Attribute)):
                continue
            qualname = self._qualify(keyword.value, stack)
            if qualname is not None:
                found.append((keyword.arg, qualname))
        return tuple(found)

    def _class(self, node: ast.ClassDef, outer: str = "", outer_model: str | None = None) -> None:
        """A module-level class (`outer` ""), or one a class nests (a CRUDL's
        views), with the model its views show where the outer one names it."""
        key = f"{outer}.{node.name}" if outer else node.name
        qualname = self.local(key)
        bases = tuple(b for b in (self._module_name(base) for base in node.bases) if b)
        self.classes.append((qualname, bases))
        if len(bases) == len(node.bases):
            self._resolved_bases[qualname] = bases
        if not outer:
            self._class_hooks(node)
        attributes = self._attributes.setdefault(qualname, {})
        model = self._view_model(node) or outer_model
        for statement in node.body:
            if isinstance(statement, _Function):
                self._function(statement, f"{key}.{statement.name}", qualname, [])
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                declared = self._annotation(statement.annotation, [])  # `order: Order`
                attributes.setdefault(statement.target.id, set()).add(declared)
            elif isinstance(statement, ast.ClassDef) and not outer:
                self._class(statement, key, model)
        if model is not None:
            self._object_getters(node, key, model)
        # An attribute every assignment gives one type is an instance of it, as
        # a module-level `mailer = Mailer()` is: `self.order.cancel()` calls `Order.cancel`.
        for name, types in sorted(attributes.items()):
            (only, *others) = types
            if only is not None and not others:
                self.instances.append((f"{qualname}.{name}", only))

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
                return self._module_name(statement.value)
            if target.id == django.VIEW_QUERYSET_ATTRIBUTE:
                parts = dotted(_call_root(statement.value)) or []
                managers = [i for i, part in enumerate(parts) if part in _MANAGER_PARTS and i]
                name = self._module_name(ast.Name(parts[0])) if managers else None
                if name is not None:
                    return ".".join([name, *parts[1 : managers[0]]])
        return None

    def _object_getters(self, node: ast.ClassDef, key: str, model: str) -> None:
        """A view naming its model (or nested in a class naming it) whose
        methods call `self.get_object()`, defining none of its own, gets
        Django's: the row of that model it fetches."""
        methods = [s for s in node.body if isinstance(s, _Function)]
        own = {method.name for method in methods}
        called = {
            call.func.attr
            for method in methods
            for call in cast(list[ast.Call], self.of_kind(method, ast.Call))
            if isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in _RECEIVERS
        }
        for getter in django.VIEW_OBJECT_GETTERS:
            if getter in own or getter not in called:
                continue
            summary = self.summaries.setdefault(f"{key}.{getter}", _Summary(node.lineno))
            summary.returns = (ReturnFact(ROW, model, node.lineno, django.MODEL),)

    # --- functions ---------------------------------------------------------------

    def _function(
        self, node: _Function, key: str, class_qualname: str, outer: list[_Frame]
    ) -> None:
        frame = _Frame(key, node, class_qualname)
        frame.parameters = frozenset(p.arg for p in _parameters(node.args))
        summary = self.summaries.setdefault(key, _Summary(node.lineno))
        summary.parameters = positional_parameters(node)
        summary.defaults = parameter_defaults(node)
        summary.stub = _is_stub(node.body)
        self._bind_locals(frame, outer)
        frame.guards = call_guards(self.of_kind(node, ast.If), frame.steady)
        stack = [*outer, frame]
        if class_qualname and not outer:
            self._note_attributes(frame, stack, self._attributes.setdefault(class_qualname, {}))
        summary.decorators = self._decorator_uses(node, outer)
        self._read_body(frame, stack, summary)
        self._note_context_manager(frame, stack, summary)
        self._note_enter(frame, stack, summary)
        qualifiers = self._qualifiers(stack)
        summary.returns = function_returns(node, self.kinds(node), qualifiers)
        if not outer and may_retry_a_parameter(node, self.of_kind(node, ast.Attribute)):
            summary.retries_handed = retried_parameters(node)
            summary.retry_delays = retry_delay_parameters(node, qualifiers.callee)
        summary.claims = self._claims(node, stack)
        summary.writes, summary.blind_writes = self._writes(node, stack, summary)
        summary.field_sets = self._sets_fields(node)
        summary.super_calls = self._super_calls(node)
        yields = self.of_kind(node, ast.Yield)
        summary.yields = min((cast(ast.Yield, y).lineno for y in yields), default=0)
        summary.asynchronous = isinstance(node, ast.AsyncFunctionDef)
        summary.hands_on = self._hands_on(node, frame)
        summary.model_uses = self._model_uses(node, frame)
        if node.decorator_list:  # what a task does with the row it is handed the key of
            summary.row_uses = row_uses(
                self.kinds(node), frame.steady, lambda expr: self._qualify(expr, stack)
            )
        if summary.commits and self.may_hook:
            summary.commit_settings = self._commit_settings(node, summary.commits)
        kinds = self.kinds(node)
        if ast.FunctionDef in kinds or ast.AsyncFunctionDef in kinds:
            for inner in self.own(node):  # in their order: the summaries keep it
                if isinstance(inner, _Function):
                    self._function(inner, f"{key}.<locals>.{inner.name}", "", stack)

    def _model_uses(self, node: _Function, frame: _Frame) -> tuple[tuple[str, int, str], ...]:
        """Its steady parameters it uses as a model instance, the first use of
        each (`order.refresh_from_db()`, `order.save()`, `order._meta`)."""
        if not frame.steady:
            return ()
        found: dict[str, tuple[str, int, str]] = {}
        candidates = [
            attribute
            for attribute in cast(list[ast.Attribute], self.of_kind(node, ast.Attribute))
            if isinstance(attribute.value, ast.Name)
            and attribute.value.id in frame.steady
            and attribute.attr in _MODEL_USE_WORDS
        ]
        if not candidates:
            return ()
        methods = {
            id(call.func)
            for call in cast(list[ast.Call], self.of_kind(node, ast.Call))
            if not call.args
        }
        for attribute in candidates:
            owner = cast(ast.Name, attribute.value)
            if attribute.attr in payloads.MODEL_INSTANCE_ATTRIBUTES:
                how = f"{owner.id}.{attribute.attr}"
            elif attribute.attr in payloads.MODEL_INSTANCE_METHODS and id(attribute) in methods:
                how = f"{owner.id}.{attribute.attr}()"
            else:
                continue
            use = (owner.id, attribute.lineno, how)
            if owner.id not in found or use[1] < found[owner.id][1]:
                found[owner.id] = use
        return tuple(sorted(found.values()))

    def _hands_on(self, node: _Function, frame: _Frame) -> int:
        """The line of a middleware's first call of the app it wraps (`await
        call_next(request)`, `await self.app(scope, receive, send)`), 0 for none."""
        nexts = frame.parameters & requests.NEXT_PARAMETERS
        if not nexts and node.name not in requests.MIDDLEWARE_METHODS:
            return 0
        lines = [
            call.lineno
            for call in cast(list[ast.Call], self.of_kind(node, ast.Call))
            if (isinstance(call.func, ast.Name) and call.func.id in nexts)
            or (
                isinstance(call.func, ast.Attribute)
                and call.func.attr in requests.NEXT_ATTRIBUTES
                and _is_name(call.func.value, "self")
            )
        ]
        return min(lines, default=0)

    def _commit_settings(self, node: _Function, commits: list[int]) -> tuple[str, ...]:
        """The commit settings the tests guarding every one of its commits
        name (`if app.config["SQLALCHEMY_COMMIT_ON_TEARDOWN"]:`), () where a
        commit is not guarded by one."""
        named: set[str] = set()
        spans: list[tuple[int, int]] = []
        for test in cast(list[ast.If], self.of_kind(node, ast.If)):
            found = _settings_named(test.test)
            if found:
                named |= found
                spans.append((test.body[0].lineno, test.body[-1].end_lineno or test.lineno))
        guarded = all(any(a <= line <= b for a, b in spans) for line in commits)
        return tuple(sorted(named)) if named and guarded else ()

    def _writes(
        self, node: _Function, stack: list[_Frame], summary: _Summary
    ) -> tuple[tuple[str, ...], bool]:
        """What the function writes by the owner each write names (a model's
        `Order.objects.create()`, a typed `order.save()`), and whether it makes
        a write no summary names (`session.add(x)`, `obj.save()` of an
        untyped name, `obj.status = ...` on a value it was handed)."""
        found = {owner for call in summary.calls if (owner := _written_owner(call.callee))}
        blind = False
        containers: frozenset[str] | None = None
        for inner in self.of_kind(node, ast.Call):
            func = cast(ast.Call, inner).func
            if isinstance(func, ast.Attribute) and func.attr in _WRITE_NAMES:
                if isinstance(func.value, ast.Name):
                    if containers is None:
                        containers = self._containers(node)
                    if func.value.id in containers:
                        continue  # `seen.update(...)` of a set or dict it built
                receiver = (dotted(func.value) or [""])[-1]
                if not requests.writes_rows(func.attr, receiver):
                    continue  # `search.execute()`: no cursor's
                callee = self._callee(func, stack)  # `Order.objects.filter(...).update`, too
                project = callee is not None and jobs.may_be_project_code(callee[0])
                blind = blind or not project  # a library's or an unknown value's
        return tuple(sorted(found)), blind

    def _super_calls(self, node: _Function) -> tuple[str, ...]:
        """The methods called on `super()` (`super().save(...)`), in order, once each."""
        found: dict[str, None] = {}
        for inner in self.of_kind(node, ast.Call):
            func = cast(ast.Call, inner).func
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Call)
                and isinstance(func.value.func, ast.Name)
                and func.value.func.id == "super"
            ):
                found[func.attr] = None
        return tuple(found)

    def _sets_fields(self, node: _Function) -> bool:
        """Whether the function sets a field of a value it didn't build
        itself (`row.status = ...`; not `self.x`, nor a dict it built)."""
        set_on: set[str] = set()  # the names a field of which is set
        for inner in self.of_kind(node, ast.Assign, ast.AugAssign):
            if isinstance(inner, ast.Assign):
                targets = inner.targets
            else:
                targets = [cast(ast.AugAssign, inner).target]
            for target in targets:
                base = target.value if isinstance(target, ast.Attribute) else None
                if isinstance(base, ast.Name) and base.id not in _RECEIVERS:
                    set_on.add(base.id)
        return bool(set_on) and not set_on <= self._containers(node)

    def _containers(self, node: _Function) -> frozenset[str]:
        """The locals every assignment of the function binds to a dict, set
        or list it builds (`seen = set()`, `data = {}`): no rows."""
        built: set[str] = set()
        other: set[str] = set()
        for inner in self.of_kind(node, ast.Assign):
            assign = cast(ast.Assign, inner)
            for target in assign.targets:
                if isinstance(target, ast.Name):
                    (built if _builds_container(assign.value) else other).add(target.id)
        return frozenset(built - other)

    def _claims(self, node: _Function, stack: list[_Frame]) -> bool:
        """Whether the function claims its work before doing it (see
        `FunctionSummary.claims`): its decorators or its own body name the
        runtime's guard, a string holds an SQL claim or an idempotency
        header, or an `if` tests a set-if-absent call or the `created` flag
        of a unique get-or-create."""
        if not self.may_claim:
            return False
        decorators = [found for decorator in node.decorator_list for found in ast.walk(decorator)]
        own = self.of_kind(node, *_CLAIMING_KINDS)
        if any(self._claiming(found, stack) for found in [*decorators, *own]):
            return True
        flags: set[str] = set()  # a unique create's `created`
        for found in self.of_kind(node, ast.Assign):
            flags.update(_created_flags(cast(ast.Assign, found)))
        if not flags:
            return False
        tested: set[str] = set()  # the names `if`/`while` tests read
        for found in self.of_kind(node, ast.If, ast.While, ast.IfExp):
            test = cast(ast.If, found).test
            tested.update(n.id for n in ast.walk(test) if isinstance(n, ast.Name))
        return bool(flags & tested)

    def _claiming(self, node: ast.AST, stack: list[_Frame]) -> bool:
        """One node that claims work (see `_claims`); any kind of node, for a
        decorator's are all read, but a function's only of `_CLAIMING_KINDS`."""
        if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
            if not self.may_name_guard:
                return False
            qualname = self._qualify(node, stack)
            if qualname is None:
                return False
            owner = qualname.rpartition(".")[0] if isinstance(node, ast.Attribute) else ""
            return work.is_guard_name(qualname) or owner in self._guards
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return work.claims_in_text(node.value)
        if isinstance(node, ast.If | ast.While):
            return any(_sets_if_absent(call) for call in ast.walk(node.test))
        return False

    def _note_attributes(
        self, frame: _Frame, stack: list[_Frame], attributes: dict[str, set[str | None]]
    ) -> None:
        """What a method assigns to its instance's attributes (`self.order = order`
        with `order: Order`, `self.mailer = Mailer()`, a manager's row)."""
        node = frame.node
        receiver = node.args.posonlyargs[:1] or node.args.args[:1]
        if not receiver:
            return
        own = receiver[0].arg
        for inner in self.of_kind(node, ast.Assign, ast.AnnAssign):
            assert isinstance(inner, ast.Assign | ast.AnnAssign)
            if inner.value is None:
                continue
            targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == own
                ):
                    attributes.setdefault(target.attr, set()).add(self._held(inner, stack))

    def _held(self, node: ast.Assign | ast.AnnAssign, stack: list[_Frame]) -> str | None:
        if isinstance(node, ast.AnnAssign):
            annotated = self._annotation(node.annotation, stack)
            if annotated is not None:
                return annotated
        value = node.value
        if isinstance(value, ast.Name):  # a typed parameter or local
            return self._qualify(value, stack)
        return self._value_type(value, stack) if value is not None else None

    def _bind_locals(self, frame: _Frame, outer: list[_Frame]) -> None:
        node = frame.node
        for param in _parameters(node.args):
            annotated = self._annotation(param.annotation, [*outer, frame])
            if annotated is None and param.annotation is None:
                annotated = self._class_named_like(param.arg)
            if annotated is not None:
                frame.resolved[param.arg] = annotated
            elif param.arg not in _RECEIVERS or not frame.class_qualname:
                frame.opaque.add(param.arg)
        assigned: dict[str, set[str | None]] = {}
        targets: set[int] = set()  # the names assignments bind, read with their values
        for inner in self.of_kind(node, *_BINDERS):
            if isinstance(inner, ast.Import | ast.ImportFrom):
                for local, target in self._imports(inner):
                    assigned.setdefault(local, set()).add(target)
            elif isinstance(inner, _Function | ast.ClassDef) and inner is not node:
                nested = f"{frame.key}.<locals>.{inner.name}"
                assigned.setdefault(inner.name, set()).add(self.local(nested))
            elif isinstance(inner, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets.update(self._bind_assignment(inner, frame, outer, assigned))
            elif isinstance(inner, ast.withitem) and isinstance(inner.optional_vars, ast.Name):
                entered = self._entered(inner.context_expr, [*outer, frame])
                if entered is not None:  # `with smtplib.SMTP(host) as smtp:` is the SMTP
                    assigned.setdefault(inner.optional_vars.id, set()).add(entered)
                    targets.add(id(inner.optional_vars))
            elif isinstance(inner, ast.For | ast.AsyncFor) and isinstance(inner.target, ast.Name):
                row = self._fetched(inner.iter, [*outer, frame], ROWS)
                if row is not None:  # `for order in Order.objects.filter(...)`: one row each time
                    assigned.setdefault(inner.target.id, set()).add(row)
                    targets.add(id(inner.target))
            elif isinstance(inner, ast.ExceptHandler) and inner.name:
                assigned.setdefault(inner.name, set()).add(None)
        # Names last: a name an assignment binds is read with the value it is
        # assigned (`targets`), and an assignment's target is one of its own nodes.
        for found in self.of_kind(node, ast.Name):
            stored = cast(ast.Name, found)
            if type(stored.ctx) is ast.Store and id(stored) not in targets:  # loops, walrus
                assigned.setdefault(stored.id, set()).add(None)
        frame.steady = frame.parameters - assigned.keys()
        for name, values in assigned.items():
            if len(values) == 1 and None not in values:
                frame.resolved[name] = next(iter(values))  # type: ignore[assignment]
                frame.opaque.discard(name)
            else:
                frame.resolved.pop(name, None)
                frame.opaque.add(name)

    def _class_named_like(self, parameter: str) -> str | None:
        """The project class an unannotated parameter is named after, where
        the module binds that name (`org` in a module importing `Org`,
        `order_line` for `OrderLine`)."""
        if parameter in _RECEIVERS or not parameter.islower() or parameter.startswith("_"):
            return None
        class_name = "".join(part.capitalize() for part in parameter.split("_"))
        qualname = self.names.get(class_name)
        return qualname if qualname is not None and jobs.may_be_project_code(qualname) else None

    def _entered(self, value: ast.expr, stack: list[_Frame]) -> str | None:
        """What `with value as x:` binds `x` to, when it is the object the
        call makes (a maker whose `__enter__` returns the object itself)."""
        if not isinstance(value, ast.Call):
            return None
        maker = self._qualify(value.func, stack)
        return maker if maker in work.ENTERED_MAKERS else None

    def _bind_assignment(
        self,
        node: ast.Assign | ast.AnnAssign | ast.AugAssign,
        frame: _Frame,
        outer: list[_Frame],
        assigned: dict[str, set[str | None]],
    ) -> set[int]:
        """Binds the plain names `node` assigns; returns their nodes."""
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        stack = [*outer, frame]
        value_type: str | None = None
        if isinstance(node, ast.AnnAssign):
            value_type = self._annotation(node.annotation, stack)
        if value_type is None and not isinstance(node, ast.AugAssign) and node.value is not None:
            value_type = self._value_type(node.value, stack)
        bound: set[int] = set()
        for target in targets:
            if isinstance(target, ast.Name):
                assigned.setdefault(target.id, set()).add(value_type)
                bound.add(id(target))
            elif (
                isinstance(target, ast.Tuple)
                and target.elts
                and isinstance(target.elts[0], ast.Name)
                and node.value is not None
            ):  # `order, created = Order.objects.get_or_create(...)`: the row first
                row = self._fetched(node.value, stack, PAIR)
                if row is not None:
                    assigned.setdefault(target.elts[0].id, set()).add(row)
                    bound.add(id(target.elts[0]))
        # Other targets' names (tuples, starred) are Store names own_nodes yields.
        return bound

    def _fetched(self, value: ast.expr, stack: list[_Frame], how: str) -> str | None:
        """The model when `value` is a library's fetch of that shape (`ROW`:
        one row; `ROWS`: rows a loop gives one at a time; `PAIR`: a row and
        a flag), as what a function returns is read (`joblint.index.returns`)."""
        if isinstance(value, ast.Await):
            value = value.value
        found = fetched(value, self._qualifiers(stack))
        return found[1] if found is not None and found[0] == how else None

    def _annotation(self, annotation: ast.expr | None, stack: list[_Frame]) -> str | None:
        expression = None if annotation is None else annotation_expr(annotation)
        return None if expression is None else self._qualify(expression, stack)

    def _value_type(self, value: ast.expr, stack: list[_Frame]) -> str | None:
        """What a local holds when it is assigned `value`: an instance of the
        class (or the result of the function) a call names, or a model's row."""
        if isinstance(value, ast.Await):
            value = value.value
        if not isinstance(value, ast.Call):
            return None
        service = found_service(value, lambda node: self._qualify(node, stack))
        if service is not None:  # `svc = request.find_service(name="mailer")`
            return service
        return self._fetched(value, stack, ROW) or self._qualify(value.func, stack)

    def _qualifiers(self, stack: list[_Frame]) -> Qualifiers:
        def callee(func: ast.expr) -> str | None:
            found = self._callee(func, stack)
            return found[0] if found is not None else None

        return Qualifiers(lambda node: self._qualify(node, stack), callee)

    def _qualify(self, node: ast.expr, stack: list[_Frame]) -> str | None:
        parts = dotted(node)
        return self._qualify_parts(parts, stack) if parts is not None else None

    def _qualify_parts(self, parts: list[str], stack: list[_Frame]) -> str | None:
        root, rest = parts[0], parts[1:]
        for frame in reversed(stack):
            if root in frame.resolved:
                return ".".join([frame.resolved[root], *rest])
            if root in frame.opaque:
                return None
            if root in _RECEIVERS and frame.class_qualname and root in frame.parameters:
                return ".".join([frame.class_qualname, *rest])
        if root in self.names:
            return ".".join([self.names[root], *rest])
        return None

    def _read_body(self, frame: _Frame, stack: list[_Frame], summary: _Summary) -> None:
        returns, calls = self.of_kind(frame.node, ast.Return), self.of_kind(frame.node, ast.Call)
        deferred = self._deferred_lambdas([*returns, *calls], stack, summary)
        decorated = self._decorators_transaction(frame.node, stack)
        if len(stack) == 1:  # a method the framework calls in its transaction
            decorated = _either(decorated, self._hooks.get(frame.key))
        transactions: dict[tuple[int, ...], tuple[str, ...] | None] = {}
        claimed: dict[int, str] | None = None  # read for the first project call

        def qualify(expr: ast.expr) -> str | None:
            return self._qualify(expr, stack)

        for node, opened in self._with_context(frame.node, (ast.Call,), deferred):
            if not isinstance(node, ast.Call):
                continue
            # Keyed by the `with` items (nodes of the tree, alive while it is
            # read): the lists holding them come and go, and their ids with them.
            around = tuple(id(item) for item in opened)
            if around not in transactions:
                inside = self._openings([item.context_expr for item in opened], stack)
                transactions[around] = _either(decorated, inside)
            call = self._project_call(node, stack, transactions[around])
            if call is not None:
                if claimed is None:
                    claimed = result_uses(self.kinds(frame.node))
                use = claimed.get(id(node))
                summary.calls.append(replace(call, result_use=use) if use else call)
            self._note_wrapper(node, frame, stack, opened)
            self._note_service(node, qualify)
        for node in returns:
            assert isinstance(node, ast.Return)
            if isinstance(node.value, ast.Call):
                opening = self._opening(node.value, stack)
                if opening is not None:
                    summary.opens = TxOpening("returns", opening)
        for found in calls:
            if _is_commit(cast(ast.Call, found)):
                summary.commits.append(cast(ast.Call, found).lineno)

    def _deferred_lambdas(
        self, nodes: list[ast.AST], stack: list[_Frame], summary: _Summary | None = None
    ) -> set[int]:
        """Lambdas handed to an on-commit hook (they run after COMMIT) or
        returned (they run when the caller calls them). `summary` learns
        whether the body registers anything on commit."""
        found: set[int] = set()
        for node in nodes:
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Lambda):
                found.add(id(node.value))
            elif isinstance(node, ast.Call) and _notifies(node):
                if summary is not None:  # delivered at COMMIT, like an on-commit hook
                    summary.on_commit = True
            elif isinstance(node, ast.Call) and self._is_on_commit(node, stack):
                if summary is not None:
                    summary.on_commit = True
                    parameters = stack[-1].parameters if stack else frozenset()
                    summary.defers.extend(
                        arg.id
                        for arg in [*node.args, *(k.value for k in node.keywords)]
                        if isinstance(arg, ast.Name) and arg.id in parameters
                    )
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    if isinstance(arg, ast.Lambda):
                        found.add(id(arg))
        return found

    def _is_on_commit(self, call: ast.Call, stack: list[_Frame]) -> bool:
        qualname = self._qualify(call.func, stack)
        if qualname is not None and (
            qualname in jobs.ON_COMMIT_FUNCTIONS or qualname in self.on_commit_functions
        ):
            return True
        return isinstance(call.func, ast.Attribute) and call.func.attr in jobs.ON_COMMIT_METHODS

    def _decorators_transaction(
        self, node: _Function, stack: list[_Frame]
    ) -> tuple[str, ...] | None:
        """The transaction a function's decorators run its body in (see `_opening`)."""
        found: tuple[str, ...] | None = None
        for decorator in node.decorator_list:
            opening = self._decorator_opening(decorator, stack)
            if opening is None:
                qualname = self._qualify(_decorated(decorator), stack)
                opening = (
                    (qualname,)
                    if qualname is not None and jobs.may_be_project_code(qualname)
                    else None
                )
            if opening is not None:
                found = _join(found, opening)
        return found

    def _project_call(
        self, node: ast.Call, stack: list[_Frame], transaction: tuple[str, ...] | None
    ) -> ProjectCall | None:
        found = self._callee(_without_signature(node.func), stack)
        if found is None:
            return None
        qualname, text = found
        if qualname in requests.COMMAND_RUNNERS:
            return _command_call(node, qualname, text, transaction, stack[-1])
        if not (
            jobs.may_be_project_code(qualname)
            or qualname in jobs.ENQUEUE_FUNCTIONS
            or qualname in self.enqueue_functions
            or qualname in work.EFFECTS
            or jobs.queue_method_library(qualname) is not None
        ):
            return None
        receiver_at = _receiver_at(node, stack[-1].node)
        idempotent = any(k.arg in work.IDEMPOTENCY_KEYWORDS for k in node.keywords)
        effect = work.effect_of(qualname)
        if effect is not None and not idempotent:
            idempotent = work.reads_only(effect, _url_words(node), _dict_keys(node))
        frame = stack[-1]
        return ProjectCall(
            qualname,
            node.lineno,
            text,
            transaction,
            receiver_at,
            idempotent,
            frame.guards.get(id(node), ()),
            call_flags(node, frame.steady),
            held=call_held(node, frame.steady),
        )

    def _callee(self, func: ast.expr, stack: list[_Frame]) -> tuple[str, str] | None:
        """The qualified name and text of what a call calls: a dotted name, or
        a method of what another call returns (`Mailer().send`)."""
        parts = dotted(func)
        if parts is not None:
            qualname = self._qualify_parts(parts, stack)
            return (qualname, ".".join(parts)) if qualname is not None else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            service = found_service(func.value, lambda node: self._qualify(node, stack))
            if service is not None:  # `request.find_service(name="mailer").send()`
                finder = dotted(func.value.func)
                text = ".".join(finder) if finder is not None else ""
                return f"{service}.{func.attr}", f"{text}().{func.attr}"
            inner = self._callee(func.value.func, stack)
            if inner is not None:
                return f"{inner[0]}.{func.attr}", f"{inner[1]}().{func.attr}"
        return None

    def _opening(self, call: ast.Call, stack: list[_Frame]) -> tuple[str, ...] | None:
        """How `with call:` opens a transaction: () for a library's own, the
        project callable it may open one through, or None for neither."""
        qualname = self._qualify(call.func, stack)
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

    def _decorator_opening(
        self, decorator: ast.expr, stack: list[_Frame]
    ) -> tuple[str, ...] | None:
        call = decorator if isinstance(decorator, ast.Call) else None
        func = call.func if call is not None else decorator
        qualname = self._qualify(func, stack)
        if qualname is not None:
            if qualname in jobs.TRANSACTION_FUNCTIONS or qualname in self.transaction_functions:
                return ()
            if qualname in jobs.METHOD_DECORATOR_ADAPTERS and call is not None and call.args:
                return self._decorator_opening(call.args[0], stack)
        if isinstance(func, ast.Attribute) and func.attr in jobs.TRANSACTION_DECORATOR_METHODS:
            return ()
        return None

    def _note_wrapper(
        self, call: ast.Call, frame: _Frame, stack: list[_Frame], opened: list[ast.withitem]
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
        via = self._openings([item.context_expr for item in opened], stack)
        for decorator in frame.node.decorator_list:
            found = self._decorator_opening(decorator, stack)
            if found is not None:
                via = _join(via, found)
        if via is not None:
            top = self.summaries[stack[0].key]
            top.opens = TxOpening("decorator", via)

    def _note_context_manager(self, frame: _Frame, stack: list[_Frame], summary: _Summary) -> None:
        """`@contextmanager` yielding inside a transaction opens one for its `with`."""
        decorators = (self._qualify(_decorated(d), stack) for d in frame.node.decorator_list)
        if not any(d in jobs.CONTEXT_MANAGER_DECORATORS for d in decorators):
            return
        for node, opened in self._with_context(frame.node, (ast.Yield, ast.YieldFrom)):
            if isinstance(node, ast.Yield | ast.YieldFrom):
                via = self._openings([item.context_expr for item in opened], stack)
                if via is not None:
                    summary.opens = TxOpening("with", via)
                    return

    def _note_enter(self, frame: _Frame, stack: list[_Frame], summary: _Summary) -> None:
        """A class's `__enter__` entering a transaction opens one for `with Cls():`:
        it enters the manager a transaction call makes (`atomic().__enter__()`,
        `stack.enter_context(atomic())`), or the one the method or the class
        holds in a name (`self.tx = atomic(...)`, then `self.tx.__enter__()`)."""
        if frame.node.name not in jobs.ENTER_METHODS or not frame.class_qualname:
            return
        if len(stack) != 1:
            return
        held: dict[str, tuple[str, ...]] = {}
        for node in self.of_kind(frame.node, ast.Assign):
            assert isinstance(node, ast.Assign)
            value = node.value.value if isinstance(node.value, ast.Await) else node.value
            opening = self._opening(value, stack) if isinstance(value, ast.Call) else None
            for target in node.targets if opening is not None else ():
                parts = dotted(target)
                if parts is not None:
                    held[".".join(parts)] = cast(tuple[str, ...], opening)
        for node in self.of_kind(frame.node, ast.Call):
            entered = _entered(cast(ast.Call, node))
            via = None if entered is None else self._entered_opening(entered, held, frame, stack)
            if via is not None:
                summary.opens = TxOpening("with", via)
                return

    def _entered_opening(
        self,
        entered: ast.expr,
        held: dict[str, tuple[str, ...]],
        frame: _Frame,
        stack: list[_Frame],
    ) -> tuple[str, ...] | None:
        """How the context manager `__enter__` enters opens a transaction, if it does."""
        if isinstance(entered, ast.Call):
            return self._opening(entered, stack)
        parts = dotted(entered)
        if parts is None:
            return None
        if ".".join(parts) in held:
            return held[".".join(parts)]
        if len(parts) == 2 and parts[0] in _RECEIVERS:  # set by another method
            attributes = self._attributes.get(frame.class_qualname, {})
            values = attributes.get(parts[1], set())
            if any(v in jobs.TRANSACTION_FUNCTIONS for v in values):
                return ()
        return None

    def _openings(self, expressions: list[ast.expr], stack: list[_Frame]) -> tuple[str, ...] | None:
        via: tuple[str, ...] | None = None
        for expr in expressions:
            if isinstance(expr, ast.Call):
                found = self._opening(expr, stack)
                if found is not None:
                    via = _join(via, found)
            elif isinstance(expr, ast.Attribute):
                parts = dotted(expr)
                if parts and requests.opens_manager(parts, self._qualify(expr, stack)):
                    via = _join(via, ())
        return via


_Options = tuple[tuple[str, str], ...]


def _library_decorator(qualname: str) -> bool:
    """A library's task decorator, or an app's task method (`shop.celery.app.task`)."""
    return qualname in jobs.TASK_DECORATORS or (
        "." in qualname and qualname.rsplit(".", 1)[1] in jobs.TASK_DECORATOR_METHODS
    )


def _may_decorate(qualname: str) -> bool:
    """A library's task decorator, or a project name that may be one."""
    return _library_decorator(qualname) or jobs.may_be_project_code(qualname)


def _options(call: ast.Call) -> _Options:
    """A call's keywords, each with its literal value ("" when it isn't one)."""
    return tuple((k.arg, _literal(k.value)) for k in call.keywords if k.arg is not None)


def _literal(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and (
        node.value is None or isinstance(node.value, bool | int | float)
    ):
        return repr(node.value)
    return ""


def _command_call(
    node: ast.Call, qualname: str, text: str, transaction: tuple[str, ...] | None, frame: _Frame
) -> ProjectCall | None:
    """`call_command("rebuild_index", ...)`: a call of the command's handler,
    which the project step finds by the name; a name no literal gives
    (`call_command(name)`) leads nowhere the model can follow."""
    first = node.args[0] if node.args else None
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    if not first.value.isidentifier():  # no module's name
        return None
    return ProjectCall(
        qualname,
        node.lineno,
        text,
        transaction,
        guard=frame.guards.get(id(node), ()),
        flags=command_flags(node, frame.steady),
        command=first.value,
    )


def _settings_named(test: ast.expr) -> set[str]:
    """The commit settings a test names, as a key or an attribute."""
    found: set[str] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.Name):
            name = node.id
        else:
            continue
        if name in requests.COMMIT_SETTINGS:
            found.add(name)
    return found


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


def _is_commit(call: ast.Call) -> bool:
    """An argument-less `.commit()` of what is named like a session, connection
    or transaction (the documented heuristic JL102 reads commits with)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != jobs.COMMIT_METHOD:
        return False
    if call.args or call.keywords:
        return False
    parts = dotted(func.value)
    if parts is None:
        return False
    return _COMMIT_RECEIVER.search(parts[-1].lower().strip("_")) is not None


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _receiver_at(call: ast.Call, function: _Function) -> str:
    """Where `call` passes the function's first parameter (a bound task's
    `self`): its position, or its keyword; "" when it doesn't."""
    params = [*function.args.posonlyargs, *function.args.args]
    if not params:
        return ""
    first = params[0].arg
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if _is_name(arg, first):
            return str(position)
    return next((k.arg for k in call.keywords if k.arg and _is_name(k.value, first)), "")


def _join(known: tuple[str, ...] | None, found: tuple[str, ...]) -> tuple[str, ...]:
    """A library's transaction (()) wins over project callables that may open one."""
    if known is None:
        return found
    if not known or not found:
        return ()
    return tuple(dict.fromkeys((*known, *found)))


def _either(
    first: tuple[str, ...] | None, second: tuple[str, ...] | None
) -> tuple[str, ...] | None:
    if first is None:
        return second
    return first if second is None else _join(first, second)


def _decorated(decorator: ast.expr) -> ast.expr:
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def _without_signature(func: ast.expr) -> ast.expr:
    """`send.s(x).delay` -> `send.delay`: enqueueing a task's signature enqueues the task."""
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Attribute)
        and func.value.func.attr in jobs.SIGNATURE_METHODS
    ):
        return ast.Attribute(func.value.func.value, func.attr, ast.Load())
    return func


# The nodes around which `_with_context` walks otherwise than `own_nodes`.
_CONTEXT_TYPES = frozenset({ast.With, ast.AsyncWith, ast.Lambda})
_NOTHING_OPENED: list[ast.withitem] = []


def _with_context(
    function: _Function,
    deferred: set[int] = frozenset(),  # type: ignore[assignment]
) -> Iterator[tuple[ast.AST, list[ast.withitem]]]:
    """The function's own nodes, lambdas' bodies included (a lambda may run
    at once) except those in `deferred`, each with the `with` items around it."""
    todo: list[tuple[ast.AST, list[ast.withitem]]] = [(s, []) for s in reversed(function.body)]
    while todo:
        node, opened = todo.pop()
        yield node, opened
        if id(node) in deferred:
            continue
        if isinstance(node, _SCOPES) and not isinstance(node, ast.Lambda):
            todo.extend((child, opened) for child in reversed(_evaluated_here(node)))
            continue
        if isinstance(node, ast.With | ast.AsyncWith):
            inside = [*opened, *node.items]
            todo.extend((item, opened) for item in reversed(node.items))
            todo.extend((statement, inside) for statement in reversed(node.body))
            continue
        todo.extend((child, opened) for child in reversed(child_nodes(node)))


_NOTIFY = re.compile(postgres.NOTIFY_SQL)


_WRITE_NAMES = requests.ROW_WRITE_METHODS
_CONTAINER_LITERALS = (ast.Dict, ast.Set, ast.List, ast.DictComp, ast.SetComp, ast.ListComp)
_CONTAINER_MAKERS = frozenset({"dict", "set", "list", "frozenset"})


def _builds_container(value: ast.expr) -> bool:
    if isinstance(value, _CONTAINER_LITERALS):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in _CONTAINER_MAKERS
    )


_MANAGER_PARTS = requests.MODEL_MANAGERS


def _call_root(value: ast.expr) -> ast.expr:
    """`Order.objects.filter(...).select_related(...)` -> `Order.objects.filter`."""
    while isinstance(value, ast.Call) or (
        isinstance(value, ast.Attribute) and isinstance(value.value, ast.Call)
    ):
        value = value.func if isinstance(value, ast.Call) else value.value
    return value


def _written_owner(callee: str) -> str:
    """The class a write names (`shop.models.Order` of
    `shop.models.Order.objects.filter.update` or `shop.models.Order.save`),
    "" for a call that is no such write."""
    parts = callee.split(".")
    if parts[-1] not in _WRITE_NAMES or len(parts) < 2:
        return ""
    for position, part in enumerate(parts[:-1]):
        if part in _MANAGER_PARTS and position:
            return ".".join(parts[:position])
    if parts[-1] in ("save", "delete") and parts[-2][:1].isupper():
        return ".".join(parts[:-1])
    return ""


def _is_stub(body: list[ast.stmt]) -> bool:
    """A body that does nothing to read (`...`, `pass`, a docstring)."""
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in body
    )


def _notifies(call: ast.Call) -> bool:
    """`cursor.execute("SELECT pg_notify(%s, %s)", ...)`: a notification on the
    transaction's connection, delivered at COMMIT."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in postgres.EXECUTE_METHODS:
        return False
    first = call.args[0] if call.args else None
    return (
        isinstance(first, ast.Constant)
        and isinstance(first.value, str)
        and _NOTIFY.search(first.value) is not None
    )


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, also those inside top-level if/try/with blocks."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from _module_statements([*statement.body, *statement.orelse])
        elif isinstance(statement, _TRY):
            block = cast(ast.Try, statement)  # `try/except*` has the same fields
            handlers = [s for h in block.handlers for s in h.body]
            yield from _module_statements([*block.body, *handlers, *block.orelse, *block.finalbody])
        elif isinstance(statement, ast.With):
            yield from _module_statements(statement.body)
        else:
            yield statement


def _assigned_names(statement: ast.stmt) -> Iterator[str]:
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign):
        targets = [statement.target]
    else:
        return
    for target in targets:
        if isinstance(target, ast.Name):
            yield target.id


def _sets_if_absent(node: ast.AST) -> bool:
    """`cache.add(key, 1)`, `redis.set(key, 1, nx=True)`: a set-if-absent call."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    keyword = work.SET_IF_ABSENT.get(node.func.attr)
    if keyword is None:
        return False
    return not keyword or any(k.arg == keyword for k in node.keywords)


def _url_words(call: ast.Call) -> list[str]:
    """The names and strings a call's first argument (its URL) is built
    from, lower-cased: `edx_url(ACCESS_TOKEN_PATH)` gives both names."""
    url = (
        call.args[0]
        if call.args
        else next((k.value for k in call.keywords if k.arg == "url"), None)
    )
    if url is None:
        return []
    found = []
    for node in ast.walk(url):
        if isinstance(node, ast.Name):
            found.append(node.id.lower())
        elif isinstance(node, ast.Attribute):
            found.append(node.attr.lower())
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value.lower())
    return found


def _dict_keys(call: ast.Call) -> list[str]:
    """The string keys of the dict literals a call passes."""
    found: list[str] = []
    for value in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(value, ast.Dict):
            found.extend(
                k.value
                for k in value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            )
    return found


def _created_flags(node: ast.Assign) -> list[str]:
    """`created` of `order, created = Order.objects.get_or_create(...)` (not `_`)."""
    value = node.value.value if isinstance(node.value, ast.Await) else node.value
    func = value.func if isinstance(value, ast.Call) else None
    if not (isinstance(func, ast.Attribute) and func.attr in work.UNIQUE_CREATES):
        return []
    return [
        target.elts[1].id
        for target in node.targets
        if isinstance(target, ast.Tuple | ast.List)
        and len(target.elts) == 2
        and isinstance(target.elts[1], ast.Name)
        and target.elts[1].id != "_"
    ]
