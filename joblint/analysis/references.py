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

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import BindingKind, import_bindings, module_name_from_import
from joblint.analysis.walk import children, descendants, subclasses

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
    """Names bound anywhere in a function, nested scopes included: more than
    Python binds locally, which can only make a fix less likely, never wrong."""

    def collect() -> frozenset[str]:
        names: set[str] = set()
        for root in (function.params, function.body):
            for node in descendants(root):
                bound = _BINDERS.get(type(node))
                if bound is not None:
                    names.update(bound(node))
        return frozenset(names)

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


def _targets(node: cst.CSTNode) -> list[str]:
    """The names an assignment's target binds (`a`, `a, *b`, `[a, b]`)."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, cst.Tuple | cst.List):
        return [name for element in node.elements for name in _targets(element.value)]
    if isinstance(node, cst.StarredElement):
        return _targets(node.value)
    return []


def _imported(node: cst.ImportAlias) -> list[str]:
    if node.asname is not None:
        return []  # its `as` name is bound as an AsName
    return [module_name_from_import(node.name).split(".")[0]]


def _pattern_name(node: cst.MatchAs | cst.MatchStar) -> list[str]:
    return [node.name.value] if node.name is not None else []


def _bound_by_type() -> dict[type[cst.CSTNode], Callable[[Any], list[str]]]:
    def target(node: Any) -> list[str]:
        return _targets(node.target)

    def own_name(node: Any) -> list[str]:
        return [node.name.value]

    binders: list[tuple[type[cst.CSTNode], Callable[[Any], list[str]]]] = [
        (cst.Param, own_name),
        (cst.FunctionDef, own_name),
        (cst.ClassDef, own_name),
        (cst.AssignTarget, target),
        (cst.AnnAssign, target),
        (cst.AugAssign, target),
        (cst.For, target),
        (cst.CompFor, target),
        (cst.NamedExpr, target),
        (cst.Del, target),
        (cst.AsName, lambda node: _targets(node.name)),  # with/except/import ... as name
        (cst.ImportAlias, _imported),
        (cst.Global, lambda node: [item.name.value for item in node.names]),
        (cst.Nonlocal, lambda node: [item.name.value for item in node.names]),
        (cst.MatchAs, _pattern_name),
        (cst.MatchStar, _pattern_name),
        (cst.MatchMapping, lambda node: [node.rest.value] if node.rest is not None else []),
    ]
    # By exact type (a node's type, looked up): LibCST's classes are ABCs,
    # and `isinstance` on them is slow.
    return {kind: bind for base, bind in binders for kind in subclasses(base)}


_BINDERS = _bound_by_type()
