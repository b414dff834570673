"""Per-file context kept on stacks during the single traversal: what rules query.

The engine calls `enter(node)` before any rule sees a node and `leave(node)`
after every rule has left it, so rules can ask "am I inside a transaction?",
"in an on-commit callback?", "in a loop?" without `ParentNodeProvider`.

`FileContext` is made of parts, one question each: the stacks it keeps
(`context_state`), the names the module binds (`context_names`), the
transactions around the code (`context_transactions`), the functions and
classes it is in (`context_definitions`) and the facts the project step learns
(`context_facts`). This module holds the queries every rule makes and the
traversal's bookkeeping.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import libcst as cst

from joblint.analysis.assignments import ScopeNode
from joblint.analysis.context_definitions import Definitions
from joblint.analysis.context_facts import CollectedFacts
from joblint.analysis.tasks import Enqueue, classify_enqueue
from joblint.analysis.walk import subclasses

# Options live in joblint.settings (no LibCST there); re-exported for the rules.
from joblint.settings import Options as Options
from joblint.settings import RuleOptionValue as RuleOptionValue

T = TypeVar("T")


class FileContext(Definitions, CollectedFacts):
    """What the rules query during the single traversal of a file."""

    def __init__(
        self,
        module: cst.Module,
        module_name: str,
        is_package: bool,
        options: Options,
        may_hold_walrus: bool = True,
        may_connect: bool = True,
    ):
        super().__init__(module, module_name, is_package, options, may_hold_walrus, may_connect)
        self._prepass(module)

    # --- queries for rules ---------------------------------------------------

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

    def memo(self, kind: str, node: cst.CSTNode, compute: Callable[[], T]) -> T:
        """Compute a per-node analysis once for all rules that ask for it."""
        key = (kind, id(node))
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[return-value]

    def forget(self) -> None:
        """Drop the analyses memoised, once the file is done: some refer back
        to the context, which holds the tree, so only the garbage collector
        would free the tree, looking through every node of it for the cycle
        (a second of a 50,000-line module's lint, and its memory meanwhile)."""
        self._memo.clear()

    @property
    def scope_nodes(self) -> tuple[ScopeNode, ...]:
        """The module and the functions we are in, outermost first."""
        return tuple(frame.node for frame in self.frames)

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

    def _enter_loop(self, node: cst.CSTNode) -> None:
        self.frames[-1].loops.append(node)
        if isinstance(node, cst.For) and self._in_function_or_class():
            self._bind_target(node.target, node.iter, iterated=True)

    def _leave_loop(self, node: cst.CSTNode) -> None:
        self.frames[-1].loops.pop()

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
