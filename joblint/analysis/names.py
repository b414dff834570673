"""Name resolution through an import-alias table: cheap stand-in for LibCST's
`QualifiedNameProvider` (which costs several times the parse).

Bindings live in scopes (module, then each enclosing function). A name resolves
to the innermost binding, as Python's LEGB rule does, except that class bodies
are not searched from inside methods (Python doesn't either).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum

import libcst as cst

from joblint.knowledge.jobs import in_standard_library as in_standard_library
from joblint.settings import ModuleInfo


class BindingKind(Enum):
    IMPORT = "import"  # qualname is the imported dotted path
    DEF = "def"  # a function or class defined here; qualname is module-qualified
    VALUE = "value"  # assigned from an expression we recognised (see `value`)
    OTHER = "other"  # a parameter, loop target, or an assignment we don't model


@dataclass(frozen=True, slots=True)
class Value:
    """What an expression evaluates to, as far as the rules care."""

    kind: str  # "queue", "signature", "connection", "sqs_resource"
    library: str = ""


@dataclass(frozen=True, slots=True)
class Binding:
    kind: BindingKind
    qualname: str = ""
    value: Value | None = None
    # For DEF: the job library when the def is registered as a task ("" if the
    # decorator's receiver is unresolved), None when it is not a task.
    task_library: str | None = None
    decorated: bool = False
    # For DEF that is no task by a library's decorator: the project decorator
    # that may register it as one (`@retrying_task`, `@task(bind=True)`), for
    # the project step to tell; "" for none. `task_decorator_called`: `@it(...)`.
    task_decorator: str = ""
    task_decorator_called: bool = False
    # What the name was last bound to, for value tracking inside a function:
    # the assigned expression (element `unpack_index` of it for `a, b = ...`;
    # an element of it when `iterated`, as a `for` target), a parameter's
    # annotation, or the def/class node itself.
    expr: cst.BaseExpression | None = None
    unpack_index: int | None = None
    iterated: bool = False
    annotation: cst.BaseExpression | None = None
    node: cst.CSTNode | None = None


@dataclass(slots=True)
class Scope:
    names: dict[str, Binding] = field(default_factory=dict)
    # Class bodies are invisible from the methods inside them.
    is_class: bool = False
    # For a class: what `self.<name>` holds, where its methods assign it one
    # value the rules recognise (a queue object made in `__init__`).
    self_value: Callable[[str], Value | None] | None = None


def unwrap(node: cst.BaseExpression) -> cst.BaseExpression:
    """Strip `await`, which doesn't change what a value is (parentheses are
    part of the node in LibCST)."""
    while type(node) is cst.Await:  # `type() is`: LibCST's classes are slow ABCs
        node = node.expression
    return node


def dotted_parts(node: cst.BaseExpression) -> list[str] | None:
    """`a.b.c` -> ["a", "b", "c"]; None for anything that isn't a dotted name."""
    parts: list[str] = []
    while type(node) is cst.Attribute:  # `type() is`: LibCST's classes are slow ABCs
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    parts.reverse()
    return parts


def last_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` -> "c", `c` -> "c"; None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def dotted_text(node: cst.BaseExpression) -> str | None:
    parts = dotted_parts(node)
    return ".".join(parts) if parts is not None else None


def module_name_from_import(node: cst.Attribute | cst.Name) -> str:
    parts = dotted_parts(node)
    return ".".join(parts) if parts else ""


def resolve_relative(current_module: str, is_package: bool, level: int, target: str) -> str:
    """Absolute module for `from <level dots><target> import ...` inside `current_module`."""
    return ModuleInfo(current_module, is_package).absolute(level, target)


def import_bindings(
    node: cst.Import | cst.ImportFrom, current_module: str, is_package: bool
) -> Iterable[tuple[str, str]]:
    """(local name, qualified name) pairs an import statement binds."""
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = module_name_from_import(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                yield alias.asname.name.value, full
            else:
                head = full.split(".")[0]
                yield head, head
        return
    if isinstance(node.names, cst.ImportStar):
        return
    base = module_name_from_import(node.module) if node.module is not None else ""
    level = len(node.relative)
    if level:
        base = resolve_relative(current_module, is_package, level, base)
    for alias in node.names:
        if not isinstance(alias.name, cst.Name):
            continue
        local = alias.name.value
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            local = alias.asname.name.value
        yield local, f"{base}.{alias.name.value}" if base else alias.name.value


class Resolver:
    """Looks names up through a stack of scopes."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.scopes: list[Scope] = [Scope()]
        # Every module path an import statement seen so far named, whatever
        # later rebinds the name (`except ImportError: Redis = None`).
        self.imported: set[str] = set()

    @property
    def module_scope(self) -> Scope:
        return self.scopes[0]

    def bind(self, name: str, binding: Binding) -> None:
        self.scopes[-1].names[name] = binding

    def bind_import(self, node: cst.Import | cst.ImportFrom) -> None:
        for local, qualname in import_bindings(node, self.module, self.is_package):
            self.bind(local, Binding(BindingKind.IMPORT, qualname))
            self.imported.add(qualname)

    def lookup(self, name: str) -> Binding | None:
        innermost = self.scopes[-1]
        for scope in reversed(self.scopes):
            if scope.is_class and scope is not innermost:
                continue
            found = scope.names.get(name)
            if found is not None:
                return found
        return None

    def self_value(self, attr: str) -> Value | None:
        """What `self.<attr>` holds in a method of the innermost class, where a
        method of that class assigns it a value the rules recognise."""
        for scope in reversed(self.scopes):
            if scope.is_class:
                return scope.self_value(attr) if scope.self_value is not None else None
        return None

    def qualified_name(self, node: cst.BaseExpression) -> str | None:
        """Import-resolved dotted name of `node`, or None when its root isn't
        an import or a definition of this module."""
        parts = dotted_parts(node)
        if parts is None:
            return None
        binding = self.lookup(parts[0])
        if binding is None or not binding.qualname:
            return None  # a local variable or parameter: nothing to resolve to
        return ".".join([binding.qualname, *parts[1:]])

    def library_name(self, node: cst.BaseExpression) -> str | None:
        """`qualified_name`, for comparing with the library tables: None for a
        name this module defines. A library's own module constructing its own
        API class (`return RetryStrategy()` where `RetryStrategy` is defined)
        is the library's internals, not a use of its API."""
        parts = dotted_parts(node)
        if parts is None:
            return None
        binding = self.lookup(parts[0])
        if binding is not None and binding.kind is BindingKind.DEF:
            return None
        return self.qualified_name(node)

    def imports_any(self, prefixes: Sequence[str]) -> bool:
        """Whether the module imports from one of the modules `prefixes` (a
        library counts as in reach of code that imports it)."""
        return any(
            name == prefix or name.startswith(f"{prefix}.")
            for name in self.imported
            for prefix in prefixes
        )

    def qualified_names(self, nodes: Sequence[cst.BaseExpression]) -> list[str | None]:
        return [self.qualified_name(n) for n in nodes]

    def local_qualname(self, name: str) -> str:
        return f"{self.module}.{name}" if self.module else name

    def base_qualnames(self, node: cst.ClassDef) -> list[str]:
        """The class's positional bases that resolve, in order (not `metaclass=`)."""
        named = (self.qualified_name(arg.value) for arg in node.bases if arg.keyword is None)
        return [qualname for qualname in named if qualname is not None]


def target_names(target: cst.BaseExpression) -> set[str]:
    """The names an assignment or loop target binds (`a`, `a, (b, *c)`)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, cst.Tuple | cst.List):
        return {n for e in target.elements for n in target_names(e.value)}
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return set()


def name_assignments(stmt: cst.CSTNode) -> Iterator[tuple[str, cst.BaseExpression]]:
    """`name = value` and `name: T = value` with a plain name target: (name, value)."""
    if isinstance(stmt, cst.Assign):
        for target in stmt.targets:
            if isinstance(target.target, cst.Name):
                yield target.target.value, stmt.value
    elif (
        isinstance(stmt, cst.AnnAssign)
        and stmt.value is not None
        and isinstance(stmt.target, cst.Name)
    ):
        yield stmt.target.value, stmt.value


def class_attributes(node: cst.ClassDef) -> Iterator[tuple[str, cst.BaseExpression]]:
    """`NAME = value` and `NAME: T = value` statements of a class body."""
    if not isinstance(node.body, cst.IndentedBlock):
        return
    for line in node.body.body:
        if isinstance(line, cst.SimpleStatementLine):
            for small in line.body:
                yield from name_assignments(small)
