"""Project callables that may open a transaction around an enqueue.

`with traced_atomic():` or `@in_transaction` calls a function of the project
that the file alone can't judge: JL101 keeps the openers around the code it
visits (the innermost one in the current function counts) and reports an
enqueue inside one; the project step says whether it opens a transaction
(`OpensTransaction`).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import dotted_text, unwrap
from joblint.analysis.tasks import Enqueue, decorator_task_library
from joblint.analysis.transactions import decorator_transaction
from joblint.knowledge.jobs import FIX_HINTS, TxFamily, may_be_project_code
from joblint.requirements import OpensTransaction
from joblint.rule import LineOf, Rule
from joblint.rules.transactions._facts.citations import enqueues_now


@dataclass(frozen=True, slots=True)
class Opener:
    """A `with` or decorator calling a project callable that may open a
    transaction (`with traced_atomic():`, `@in_transaction`): the project
    model says whether it does."""

    qualname: str
    description: str  # "traced_atomic()", "@in_transaction"
    node: cst.CSTNode
    frame: int  # the body it covers: id of its function (or module) node


class ProjectOpeners(Rule):
    """The openers around the code a rule visits, and the enqueues inside them."""

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._openers: list[Opener] = []

    def visit_With(self, node: cst.With) -> None:
        context = self.context
        if context.transaction is not None and context.transaction.node is node:
            return  # a transaction the analysis knows
        for item in node.items:
            expr = unwrap(item.item)
            if isinstance(expr, cst.Call):
                self._open(expr.func, f"{dotted_text(expr.func) or 'it'}()", node)

    def leave_With(self, node: cst.With) -> None:
        self._close(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        extra = context.options.transaction_functions
        for decorator in node.decorators:
            expr = decorator.decorator
            if decorator_transaction(expr, context.resolver, extra) is not None:
                continue
            if decorator_task_library(decorator, context.resolver) is not None:
                continue  # a task's decorator registers it
            func = expr.func if isinstance(expr, cst.Call) else expr
            self._open(func, f"@{dotted_text(func) or 'decorator'}", node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._close(node)

    def _open(self, func: cst.BaseExpression, description: str, node: cst.CSTNode) -> None:
        qualname = self.context.resolver.qualified_name(func)
        if qualname is not None and may_be_project_code(qualname):
            frame = self.context.frame.node
            self._openers.append(Opener(qualname, description, node, id(frame)))

    def _close(self, node: cst.CSTNode) -> None:
        while self._openers and self._openers[-1].node is node:
            self._openers.pop()

    @property
    def _opener(self) -> Opener | None:
        """The innermost opener around the current code, in the current function."""
        frame = id(self.context.frame.node)
        for opener in reversed(self._openers):
            if opener.frame == frame:
                return opener
        return None

    def _report_in_opener(self, node: cst.Call, enqueue: Enqueue, opener: Opener) -> None:
        for reading in enqueue.alternatives():

            def message(line_of: LineOf, reading: Enqueue = reading) -> str:
                return (
                    f"{reading.subject} {reading.verb} inside {opener.description} "
                    f"(line {line_of(opener.node)}), which opens a transaction: a worker may "
                    f"run it before COMMIT. {FIX_HINTS[TxFamily.GENERIC]}"
                )

            opens = OpensTransaction(opener.qualname)
            requires = (*reading.requires, opens, *enqueues_now(reading))
            self.report(node, message, requires=requires)
