"""What a comprehension's loop variable iterates over.

`group(t.s(o) for o in qs)`: the name `o` read inside the comprehension stands
for a row of `qs`. For each name a comprehension's loop binds, in the statement
being read, the iterable of the innermost loop binding it (one visit of the
statement for all its names, kept in the file context).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import target_names
from joblint.analysis.walk import contains


def loop_source(name: str, loops: cst.CompFor) -> cst.BaseExpression | None:
    """What the comprehension loop binding `name` alone iterates over (the
    innermost loop binding it)."""
    found: cst.BaseExpression | None = None
    loop: cst.CompFor | None = loops
    while loop is not None:
        if isinstance(loop.target, cst.Name) and loop.target.value == name:
            found = loop.iter
        elif name in target_names(loop.target):
            found = None
        loop = loop.inner_for_in
    return found


def binds(loops: cst.CompFor, name: str) -> bool:
    loop: cst.CompFor | None = loops
    while loop is not None:
        if name in target_names(loop.target):
            return True
        loop = loop.inner_for_in
    return False


def comprehension_source(node: cst.Name, context: FileContext) -> cst.BaseExpression | None:
    """What a name bound by a comprehension's loop around `node`, in the
    statement being read, iterates over (`group(t.s(o) for o in qs)`)."""
    statement = context.statement
    if statement is None:
        return None
    sources = context.memo(
        "comprehension-sources", statement, lambda: _comprehension_sources(statement)
    )
    return sources.get(id(node))


def _comprehension_sources(statement: cst.CSTNode) -> dict[int, cst.BaseExpression]:
    """For each name a comprehension's loop in the statement binds, where it
    is read inside the comprehension: what that loop iterates over (one
    visit of the statement for all its names). A compound statement's own
    body holds statements of their own: only its header is visited."""
    finder = _ComprehensionTargets()
    for part in _header(statement):
        if contains(part, cst.CompFor):  # a quick look before the visit
            part.visit(finder)
    return finder.sources


def _header(statement: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The parts of a statement outside the blocks it holds (all of a simple one)."""
    if isinstance(statement, cst.If | cst.While):
        return (statement.test,)
    if isinstance(statement, cst.For):
        return (statement.target, statement.iter)
    if isinstance(statement, cst.With):
        return statement.items
    if isinstance(statement, cst.FunctionDef):
        return (*statement.decorators, statement.params)
    if isinstance(statement, cst.ClassDef):
        return (*statement.decorators, *statement.bases, *statement.keywords)
    if isinstance(statement, cst.Try | cst.TryStar):
        return ()
    if isinstance(statement, cst.Match):
        return (statement.subject,)
    return (statement,)


class _ComprehensionTargets(cst.CSTVisitor):
    """The iterable of the innermost comprehension loop binding each name
    read around it."""

    def __init__(self) -> None:
        self.loops: list[cst.CompFor] = []
        self.sources: dict[int, cst.BaseExpression] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name):
            for loops in reversed(self.loops):
                if binds(loops, node.value):
                    source = loop_source(node.value, loops)
                    if source is not None:
                        self.sources[id(node)] = source
                    break
            return False
        if isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp):
            self.loops.append(node.for_in)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp):
            self.loops.pop()
