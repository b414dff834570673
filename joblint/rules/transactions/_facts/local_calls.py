"""Calls of the module's own functions that lead to an enqueue.

A call inside a transaction of a function of the same module that enqueues
(directly, or through further calls of the module's functions) is reported at
the call, naming the enqueue it leads to. JL101 keeps each function's enqueue
outside any transaction and each call of a local function as it visits, and
resolves the chains when the module ends.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.tasks import Enqueue
from joblint.analysis.transactions import TxScope
from joblint.requirements import Requirement
from joblint.rule import LineOf, Rule
from joblint.rules.transactions._facts.citations import (
    enqueues_now,
    fix_hint,
    transaction_requires,
    where_opened,
)
from joblint.rules.transactions._facts.openers import Opener


@dataclass(slots=True)
class LocalCall:
    """A call of a function of this module, with where it is made."""

    caller: str
    callee: str
    node: cst.Call
    statement: cst.CSTNode | None
    transaction: TxScope | None
    opener: Opener | None = None
    # The call as the project model knows it (`_project_call_text`), taken
    # where the call is: its names resolve only in its own scope.
    text: str | None = None


@dataclass(slots=True)
class Found:
    """An enqueue a function makes outside any transaction, and its call."""

    enqueue: Enqueue
    node: cst.Call


class LocalCalls(Rule):
    """Each function's enqueue and each call of a local function, module-wide."""

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        # Enqueues outside any transaction, per function key: what a call of
        # that function leads to.
        self._enqueues: dict[str, Found] = {}
        self._local_calls: list[LocalCall] = []

    def _resolve_indirection(self) -> dict[str, Found]:
        """Function key -> an enqueue it performs, directly or via local calls."""
        leads_to = dict(self._enqueues)
        changed = True
        while changed:
            changed = False
            for call in self._local_calls:
                if call.transaction is not None or call.caller in leads_to:
                    continue
                if call.callee in leads_to and call.caller:
                    leads_to[call.caller] = leads_to[call.callee]
                    changed = True
        return leads_to

    def _report_indirect(
        self,
        call: LocalCall,
        found: Found,
        tx: TxScope,
        opens: tuple[Requirement, ...] = (),
    ) -> None:
        """`opens`: the transaction is a project callable's, if it opens one."""
        for reading in found.enqueue.alternatives():
            self._report_indirect_reading(call, found, reading, tx, opens)

    def _report_indirect_reading(
        self,
        call: LocalCall,
        found: Found,
        enqueue: Enqueue,
        tx: TxScope,
        opens: tuple[Requirement, ...],
    ) -> None:
        name = call.callee.split(".")[-1]
        which = ", which opens a transaction" if opens else ""

        def message(line_of: LineOf) -> str:
            return (
                f"{name}() enqueues {enqueue.subject} (line {line_of(found.node)}) and is "
                f"called inside {where_opened(tx, line_of)}{which}: a worker "
                f"may run the job before COMMIT. {fix_hint(enqueue, tx)}"
            )

        requires = enqueue.requires + transaction_requires(tx) + opens + enqueues_now(enqueue)
        self.report(call.node, message, requires=requires, statement=call.statement)
