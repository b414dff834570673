"""What a name means where a module's code uses it, and the state every
reader of the index shares while it reads one module.

`ModuleScope` holds the module's names (its imports and definitions), the
functions' summaries being drafted (`SummaryDraft`), the instances and
class attributes whose types are known, and each function's own nodes,
walked once for every question asked of them. Its `qualify` resolves a
name the way `joblint.analysis.names` resolves one for LibCST: through
the module's imports and definitions, function-level imports, the types of
locals (`m = Mailer()`, `order: Order`, `Order.objects.get(...)`), and
`self.`/`cls.` inside a class's methods; a `Frame` is a function being read,
with what its own names are bound to (`joblint.index.bindings`). A name the
function binds in any other way (a loop target, an untyped parameter, an
assignment of something else) is a value no summary can follow.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from joblint.index.flags import Guard
from joblint.index.nodes import (
    CONTEXT_TYPES,
    NOTHING_OPENED,
    Function,
    dotted,
    nodes_by_kind,
    own_nodes,
    walk_with_context,
)
from joblint.index.returns import ROW, Qualifiers, annotation_expr
from joblint.index.returns import fetched as fetch_shape
from joblint.index.services import found_service
from joblint.models import (
    DecoratorUse,
    ProjectCall,
    RetryDelayHanded,
    ReturnFact,
    RowUse,
    TxOpening,
)
from joblint.settings import ModuleInfo

# The parameters a method's first argument is conventionally named.
RECEIVERS = frozenset({"self", "cls"})


@dataclass(slots=True)
class Frame:
    """A function being read: what its own names are bound to."""

    key: str  # "f", "C.m", "f.<locals>.g"
    node: Function
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
class SummaryDraft:
    """A function's summary while its module is read (the readers fill its
    fields in turn): the `FunctionSummary` it becomes, with lists still open."""

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


class ModuleScope:
    """One module being read: its names, and the summaries its readers draft."""

    def __init__(self, module: ModuleInfo) -> None:
        self.module = module
        self.names: dict[str, str] = {}  # module-level name -> qualified name
        self.instances: list[tuple[str, str]] = []
        # A class's attributes (`self.order = order`): what each assignment holds (None: unknown).
        self.attributes: dict[str, dict[str, set[str | None]]] = {}
        self.summaries: dict[str, SummaryDraft] = {}
        # Each function's own nodes, walked once for every question asked of
        # them, and grouped by kind.
        self._own: dict[int, list[ast.AST]] = {}
        self._kinds: dict[int, dict[type[ast.AST], list[ast.AST]]] = {}

    def own(self, function: Function) -> list[ast.AST]:
        """`own_nodes` of the function's body."""
        found = self._own.get(id(function))
        if found is None:
            found = self._own[id(function)] = own_nodes(function.body)
        return found

    def kinds(self, function: Function) -> dict[type[ast.AST], list[ast.AST]]:
        """`nodes_by_kind` of the function's own nodes."""
        found = self._kinds.get(id(function))
        if found is None:
            found = self._kinds[id(function)] = nodes_by_kind(self.own(function))
        return found

    def of_kind(self, function: Function, *kinds: type[ast.AST]) -> list[ast.AST]:
        """The function's own nodes of `kinds`, a kind's after another's."""
        grouped = self.kinds(function)
        return [node for kind in kinds for node in grouped.get(kind, ())]

    def with_context(
        self,
        function: Function,
        kinds: tuple[type[ast.AST], ...],
        deferred: set[int] = frozenset(),  # type: ignore[assignment]
    ) -> Iterable[tuple[ast.AST, list[ast.withitem]]]:
        """`walk_with_context` of the function for its nodes of `kinds` (more
        nodes may come: the caller picks those): when no `with` or lambda is
        among its own nodes (most functions), the walk differs from
        `own_nodes` only there, and those of `kinds` are all it needs."""
        if CONTEXT_TYPES.isdisjoint(self.kinds(function)):
            return ((node, NOTHING_OPENED) for node in self.of_kind(function, *kinds))
        return walk_with_context(function, deferred)

    def local(self, name: str) -> str:
        """The qualified name of one of the module's names."""
        return f"{self.module.name}.{name}" if self.module.name else name

    def module_name(self, node: ast.expr) -> str | None:
        """What a dotted name means where the module binds its first part."""
        parts = dotted(node)
        if parts is None or parts[0] not in self.names:
            return None
        return ".".join([self.names[parts[0]], *parts[1:]])

    def imports(self, node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
        """The names an import binds, each with the qualified name it binds."""
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

    def qualify(self, node: ast.expr, stack: list[Frame]) -> str | None:
        """What a dotted name means in the innermost function of `stack`
        (None where nothing it follows binds it)."""
        parts = dotted(node)
        return self.qualify_parts(parts, stack) if parts is not None else None

    def qualify_parts(self, parts: list[str], stack: list[Frame]) -> str | None:
        root, rest = parts[0], parts[1:]
        for frame in reversed(stack):
            if root in frame.resolved:
                return ".".join([frame.resolved[root], *rest])
            if root in frame.opaque:
                return None
            if root in RECEIVERS and frame.class_qualname and root in frame.parameters:
                return ".".join([frame.class_qualname, *rest])
        if root in self.names:
            return ".".join([self.names[root], *rest])
        return None

    def callee(self, func: ast.expr, stack: list[Frame]) -> tuple[str, str] | None:
        """The qualified name and text of what a call calls: a dotted name, or
        a method of what another call returns (`Mailer().send`)."""
        parts = dotted(func)
        if parts is not None:
            qualname = self.qualify_parts(parts, stack)
            return (qualname, ".".join(parts)) if qualname is not None else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            service = found_service(func.value, lambda node: self.qualify(node, stack))
            if service is not None:  # `request.find_service(name="mailer").send()`
                finder = dotted(func.value.func)
                text = ".".join(finder) if finder is not None else ""
                return f"{service}.{func.attr}", f"{text}().{func.attr}"
            inner = self.callee(func.value.func, stack)
            if inner is not None:
                return f"{inner[0]}.{func.attr}", f"{inner[1]}().{func.attr}"
        return None

    def annotation(self, annotation: ast.expr | None, stack: list[Frame]) -> str | None:
        """What an annotation names (`order: Order`, `order: "Order"`), qualified."""
        expression = None if annotation is None else annotation_expr(annotation)
        return None if expression is None else self.qualify(expression, stack)

    def fetched(self, value: ast.expr, stack: list[Frame], how: str) -> str | None:
        """The model when `value` is a library's fetch of that shape (`ROW`:
        one row; `ROWS`: rows a loop gives one at a time; `PAIR`: a row and
        a flag), as what a function returns is read (`joblint.index.returns`)."""
        if isinstance(value, ast.Await):
            value = value.value
        found = fetch_shape(value, self.qualifiers(stack))
        return found[1] if found is not None and found[0] == how else None

    def value_type(self, value: ast.expr, stack: list[Frame]) -> str | None:
        """What a local holds when it is assigned `value`: an instance of the
        class (or the result of the function) a call names, or a model's row."""
        if isinstance(value, ast.Await):
            value = value.value
        if not isinstance(value, ast.Call):
            return None
        service = found_service(value, lambda node: self.qualify(node, stack))
        if service is not None:  # `svc = request.find_service(name="mailer")`
            return service
        return self.fetched(value, stack, ROW) or self.qualify(value.func, stack)

    def qualifiers(self, stack: list[Frame]) -> Qualifiers:
        """`qualify` and `callee` in the innermost function of `stack`, for
        the readers that take them as functions (`joblint.index.returns`)."""

        def callee(func: ast.expr) -> str | None:
            found = self.callee(func, stack)
            return found[0] if found is not None else None

        return Qualifiers(lambda node: self.qualify(node, stack), callee)
