"""JL104's AST check: an on-commit registration inside a loop.

The rule (`joblint.rules.transactions.on_commit_late_binding`) reads a callback
registered in a loop; most files naming `on_commit` register one outside any.
The walk enters only the nodes spanning a line that names an on-commit
registration (or a name the file imports one as); on a large module it reads
only the top-level definitions naming one (`ModuleParts`), and none at all
where no line of theirs starts a loop.
"""

from __future__ import annotations

import ast
import re

from joblint.index.ast_walk import WordLines
from joblint.index.nodes import child_nodes, last_name
from joblint.knowledge.confirm import ModuleParts, PartReading, confirm_step

_ON_COMMIT = "on_commit"
_STATEMENT_LOOPS = (ast.For, ast.AsyncFor, ast.While)
# A loop statement starts a line: after its indentation, `for`, `async for`
# or `while` (a compound statement follows no `;` and no `:` on its line).
# Words in strings and comprehensions only ever make more lines match.
_LOOP_LINE = re.compile(rb"^[ \t\f]*(?:async[ \t]+)?(?:for|while)\b", re.MULTILINE)


def _on_commit_in_loop(tree: ast.Module, lines: WordLines) -> bool:
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, looped = stack.pop()
        if looped and isinstance(node, ast.Call) and _registers(node.func, lines.words):
            return True
        inside = looped or isinstance(node, _STATEMENT_LOOPS)
        stack.extend((child, inside) for child in child_nodes(node) if lines.may_hold(child))
    return False


def _registers(func: ast.expr, names: frozenset[str]) -> bool:
    """`names`: lower-cased, as the file's text is read for aliases (`as Later`)."""
    lowered = last_name(func).lower()
    return _ON_COMMIT in lowered or lowered in names


def _on_commit_in_parts(parts: ModuleParts) -> bool:
    """`on_commit_in_loop` on the parts naming an on-commit registration:
    the only ones its walk enters."""
    lines = WordLines(parts.lowered, _ON_COMMIT.encode())
    chosen = parts.having(word.encode() for word in lines.words)
    if not any(_LOOP_LINE.search(parts.lowered, *parts.spans[index]) for index in chosen):
        return False  # no loop statement in them: their tree has none either
    return _on_commit_in_loop(parts.tree(chosen), lines)


@confirm_step("on-commit-in-loop", in_parts=PartReading(_on_commit_in_parts))
def on_commit_in_loop(tree: ast.Module, lowered: bytes) -> bool:
    """JL104: an on-commit registration (a call of a name holding
    `on_commit`, or of a name the file imports one as) inside a `for` or
    `while` loop, at any depth (also across the functions defined in it).
    The walk enters only the nodes spanning a line that names one."""
    return _on_commit_in_loop(tree, WordLines(lowered, _ON_COMMIT.encode()))
