"""How a fix refers to a library name at the place it edits.

A fix that writes `transaction.on_commit(...)` or `wait_random_exponential(...)`
must use a name that means that object *at that place*: an import the module
already has (`from django.db import transaction as tx` -> `tx`, `import
django.db.transaction` -> `django.db.transaction`, `import tenacity as t` ->
`t.wait_random_exponential`), or the bare name plus a `from module import name`
the engine adds (the way LibCST's `AddImportsVisitor` does) when that name is
free in the whole module. When neither is certain there is no reference, and
the rule offers no fix: a wrong name would break the code.

Only imports that are statements of the module body itself count: an import
under `if TYPE_CHECKING:` or `try:` may not be bound when the code runs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import BindingKind, import_bindings, module_name_from_import
from joblint.analysis.walk import children

Import = tuple[str, str]  # (module, name): `from module import name`


@dataclass(frozen=True, slots=True)
class Reference:
    """The expression naming the object here, and the imports it needs."""

    expr: cst.BaseExpression
    imports: tuple[Import, ...] = ()


@dataclass(frozen=True, slots=True)
class _Bound:
    """A dotted path a top-level import makes usable, and through which local name."""

    index: int  # the import statement's position in the module body
    local: str  # the name the import binds
    path: str  # the dotted path `local` (plus `rest`) stands for
    # The qualified name the import gives `local` (`import a.b.c` binds `a` to "a").
    binds: str
    # The dotted path below `local` that reaches `path` (`a.b.c` is reached as
    # `a` + "b.c"); "" when `local` is `path` itself.
    rest: str = ""


def reference(
    context: FileContext,
    qualname: str,
    *,
    prefer_import: bool = False,
    anywhere: bool = False,
    submodule: bool = False,
    aliases: Sequence[str] = (),
) -> Reference | None:
    """How code at the current traversal position can name `qualname`.

    Existing imports of the object itself come first (`tx`), then, unless
    `prefer_import`, an attribute of an imported module (`t.wait_random_exponential`),
    then the bare name with an import to add, then (with `prefer_import`) the
    module attribute. None when no way is certain. `anywhere`: the code goes
    somewhere else than the current position (an expression reached through a
    name), so only a position-independent way counts: the free name, imported.
    `submodule`: `qualname` is a module (`django.db.transaction`), which is an
    attribute of its package only once something imported it: never reached
    as one (`import django.db` gives no certain `django.db.transaction`).
    `aliases`: other names of the same object (a re-export), whose imports
    already in the file are used as they are."""
    module, _, name = qualname.rpartition(".")
    if not module:
        return None
    if anywhere:
        return Reference(cst.Name(name), ((module, name),)) if _free(context, name) else None
    for name_of_it in (qualname, *aliases):
        direct = _through(context, name_of_it, name_of_it)
        if direct is not None:
            return Reference(direct)
    via_module = None if submodule else _through(context, module, qualname)
    if via_module is not None and not prefer_import:
        return Reference(_attribute(via_module, name))
    if _free(context, name):
        return Reference(cst.Name(name), ((module, name),))
    if via_module is not None:
        return Reference(_attribute(via_module, name))
    return None


def _through(context: FileContext, path: str, qualname: str) -> cst.BaseExpression | None:
    """An expression for the dotted `path` made of an import usable here."""
    site = _site_index(context)
    candidates = [b for b in _bindings(context) if b.path == path and b.index < site]
    # Unaliased imports of the name itself read best (`transaction`, then `tx`).
    candidates.sort(key=lambda b: (b.rest != "", b.local != qualname.rsplit(".", 1)[-1]))
    for bound in candidates:
        if _usable(context, bound):
            expr: cst.BaseExpression = cst.Name(bound.local)
            for part in bound.rest.split(".") if bound.rest else ():
                expr = cst.Attribute(expr, cst.Name(part))
            return expr
    return None


def _attribute(expr: cst.BaseExpression, name: str) -> cst.Attribute:
    return cst.Attribute(expr, cst.Name(name))


def _bindings(context: FileContext) -> list[_Bound]:
    module = _module(context)
    return context.memo("reference-imports", module, lambda: list(_top_level_imports(module)))


def _top_level_imports(module: cst.Module) -> Iterator[_Bound]:
    for index, statement in enumerate(module.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                yield from _import_bindings(index, small)
            elif isinstance(small, cst.ImportFrom):
                yield from _from_import_bindings(index, small)


def _import_bindings(index: int, node: cst.Import) -> Iterator[_Bound]:
    for alias in node.names:
        full = module_name_from_import(alias.name)
        if alias.asname is not None:
            if isinstance(alias.asname.name, cst.Name):
                yield _Bound(index, alias.asname.name.value, full, full)
            continue
        # `import a.b.c` binds `a` and makes `a.b` and `a.b.c` reachable from it.
        parts = full.split(".")
        for depth in range(1, len(parts) + 1):
            path, rest = ".".join(parts[:depth]), ".".join(parts[1:depth])
            yield _Bound(index, parts[0], path, parts[0], rest)


def _from_import_bindings(index: int, node: cst.ImportFrom) -> Iterator[_Bound]:
    if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
        return  # relative imports name the project's own modules, never a library
    for local, qualname in import_bindings(node, "", is_package=False):
        yield _Bound(index, local, qualname, qualname)


def _usable(context: FileContext, bound: _Bound) -> bool:
    """Whether `bound.local` still means what the import bound, here."""
    binding = context.resolver.module_scope.names.get(bound.local)
    if binding is None or context.resolver.lookup(bound.local) is not binding:
        return False  # shadowed by a local, a parameter or a class attribute
    if binding.kind is not BindingKind.IMPORT or binding.qualname != bound.binds:
        return False  # rebound at module level, or by another import
    if any(index > bound.index for index in _star_imports(context)):
        return False  # `from x import *` below may rebind it
    return not any(bound.local in _bound_in(context, frame) for frame in _functions(context))


def _star_imports(context: FileContext) -> list[int]:
    """Positions in the module body of statements holding `from x import *`."""
    module = _module(context)

    def find() -> list[int]:
        # Also under a top-level `try:`/`if` (Python allows star imports nowhere else).
        return [index for index, statement in enumerate(module.body) if _has_star(statement)]

    return context.memo("reference-star-imports", module, find)


def _has_star(root: cst.CSTNode) -> bool:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
            return True
        if not isinstance(node, cst.BaseExpression):  # expressions hold no imports
            stack.extend(children(node))  # content only: no whitespace, commas, `*`
    return False


def _free(context: FileContext, name: str) -> bool:
    """`name` appears nowhere in the module (no binding, no use), so a new
    module-level import of it can't shadow or be shadowed by anything."""
    module = _module(context)
    names = context.memo("reference-names", module, lambda: _all_names(module))
    taken = name in names or "*" in names or name in context.resolver.module_scope.names
    return not taken


def _module(context: FileContext) -> cst.Module:
    module = context.frames[0].node
    assert isinstance(module, cst.Module)
    return module


def _site_index(context: FileContext) -> int:
    """Position in the module body of the statement being visited: a module-level
    site only sees the imports above it (a function body sees them all)."""
    body = _module(context).body
    if len(context.frames) > 1 or not context.statements:
        return len(body)
    outer = context.statements[0]
    for index, statement in enumerate(body):
        if statement is outer:
            return index
    return -1  # not a statement of this module: nothing is certain


def _functions(context: FileContext) -> Iterator[cst.FunctionDef]:
    for frame in context.frames[1:]:
        if isinstance(frame.node, cst.FunctionDef):
            yield frame.node


def _bound_in(context: FileContext, function: cst.FunctionDef) -> frozenset[str]:
    def collect() -> frozenset[str]:
        collector = _Bindings()
        function.params.visit(collector)
        function.body.visit(collector)
        return frozenset(collector.names)

    return context.memo("reference-bound", function, collect)


def _all_names(module: cst.Module) -> frozenset[str]:
    collector = _AllNames()
    module.visit(collector)
    return frozenset(collector.names)


class ReadNames(cst.CSTVisitor):
    """The names a node reads or binds, in order of first use (not attribute
    names or keywords)."""

    def __init__(self) -> None:
        self.names: dict[str, None] = {}

    def visit_Name(self, node: cst.Name) -> None:
        self.names[node.value] = None

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False


class _AllNames(ReadNames):
    """Every name the module binds or reads, imports included."""

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self.names[_local_name(alias)] = None
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if isinstance(node.names, cst.ImportStar):
            self.names["*"] = None  # a star import may bind any name: none is free
            return False
        for alias in node.names:
            self.names[_local_name(alias)] = None
        return False


def _local_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return module_name_from_import(alias.name).split(".")[0]


class _Bindings(cst.CSTVisitor):
    """Names bound anywhere in a function, nested scopes included: more than
    Python binds locally, which can only make a fix less likely, never wrong."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def _targets(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, cst.Tuple | cst.List):
            for element in node.elements:
                self._targets(element.value)
        elif isinstance(node, cst.StarredElement):
            self._targets(node.value)

    def visit_Param(self, node: cst.Param) -> None:
        self.names.add(node.name.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:  # with/except/import ... as name
        self._targets(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            self.names.add(module_name_from_import(node.name).split(".")[0])

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.add(node.name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.names.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.names.update(item.name.value for item in node.names)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.names.add(node.name.value)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.names.add(node.name.value)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.names.add(node.rest.value)
