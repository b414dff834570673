"""JL106's AST check: an enqueue, then a write of a row, in one function.

The rule (`joblint.rules.transactions.enqueue_before_write`) reports an
enqueue made before the write its job reads; most files that enqueue and
save do it the other way round, or in different functions. This check says
yes where, in one function (or among the module's own statements), a call
that may enqueue comes before a call that may write a row.
"""

from __future__ import annotations

import ast

from joblint.index.ast_walk import body_nodes
from joblint.index.nodes import last_name
from joblint.knowledge import jobs
from joblint.knowledge.confirm import confirm_step
from joblint.knowledge.tokens import ENQUEUE_TRIGGERS

# The names of the calls that may enqueue, as the enqueue triggers spell them
# (`.delay(`, `async_task(`, `partial(`), and the calls that may write a row.
_ENQUEUE_WORDS = frozenset(
    anchor.strip(".(") for trigger in ENQUEUE_TRIGGERS for anchor in trigger.anchors
)
_ROW_WRITES = jobs.ROW_WRITE_METHODS | jobs.PINNED_WRITE_METHODS
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@confirm_step("enqueue-then-write")
def enqueue_then_write(tree: ast.Module, lowered: bytes) -> bool:
    """JL106: in one function (or among the module's own statements), a call
    that may enqueue and after it a call that may write a row (`.save(`,
    `.update(`, `.delete(`). A lambda's or a class's body is read as part of
    the function around it, as the rule reads it."""
    scopes: list[ast.AST] = [tree]
    scopes.extend(node for node in ast.walk(tree) if isinstance(node, _FUNCTIONS))
    for scope in scopes:
        first: tuple[int, int] | None = None
        writes: list[tuple[int, int]] = []
        for node in body_nodes(scope, _FUNCTIONS):
            if not isinstance(node, ast.Call):
                continue
            where = (node.lineno, node.col_offset)
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _ROW_WRITES:
                writes.append(where)
            if last_name(func) in _ENQUEUE_WORDS and (first is None or where < first):
                first = where
        if first is not None and any(where > first for where in writes):
            return True
    return False
