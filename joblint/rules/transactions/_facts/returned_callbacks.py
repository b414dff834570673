"""Lambdas a function returns: their enqueues run later, not where they stand.

A callback factory's lambda (`def make_callback(pk): return lambda:
send.delay(pk)`) runs when the factory's caller calls the result:
`transaction.on_commit(make_callback(pk))` defers it, so its enqueue is no
finding at the factory, nor what a call of the factory leads to.
"""

from __future__ import annotations

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.rule import Rule


class ReturnedCallbacks(Rule):
    """How many returned lambdas the code a rule visits is inside."""

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        # Lambdas returned by the function they are in (a callback factory's),
        # and how many of them the current code is inside: their enqueues run
        # when the factory's caller calls the result, not at the factory's call.
        self._returned: set[int] = set()
        self._in_returned = 0

    def visit_Return(self, node: cst.Return) -> None:
        if isinstance(node.value, cst.Lambda):
            self._returned.add(id(node.value))

    def visit_Lambda(self, node: cst.Lambda) -> None:
        if id(node) in self._returned:
            self._in_returned += 1

    def leave_Lambda(self, node: cst.Lambda) -> None:
        if id(node) in self._returned:
            self._in_returned -= 1
