"""What every reading of a retry policy stands on: the place the visit is at.

A policy's parts (its delays, its bound, what it retries on) are read the first
time a rule asks, while the visit is at the node that sets it; the readers
share the file's context, the values of the function being visited (module
names as fallback), and the project function a call there may be of.
"""

from __future__ import annotations

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import (
    AttemptTest,
    DelayAnalysis,
    ScopeValues,
    literal_number,
    literal_truth,
)
from joblint.analysis.names import Resolver
from joblint.analysis.project_calls import project_call_text
from joblint.libraries.retry_api import Value
from joblint.rules.retries._facts.retry_facts import HelperSite

MAX_DEPTH = 10


def no_attempt(node: cst.BaseExpression) -> bool:
    """No expression counts the attempts (the default of `_here`)."""
    return False


class PolicyReader:
    """The place a retry policy is read at: the file's context and the values
    of the function being visited."""

    def __init__(self, context: FileContext) -> None:
        self.context = context

    @property
    def values(self) -> ScopeValues:
        module = self.context.frames[0].node
        assert isinstance(module, cst.Module)
        return self.context.memo("retry-scope-values", module, lambda: ScopeValues(module))

    @property
    def resolver(self) -> Resolver:
        return self.context.resolver

    def _helper_site(self) -> HelperSite:
        """Where a call in the function being visited may be of a project
        function: the function, as the project model's index names it, and
        the call as written."""
        key = self.context.frame.key
        context = self.context

        def site(call: cst.Call) -> tuple[str, str] | None:
            text = project_call_text(context, call)
            if text is None or not key:
                return None
            return context.resolver.local_qualname(key), text

        return site

    def _here(self, is_attempt: AttemptTest = no_attempt) -> DelayAnalysis:
        """The values of the function being visited (module names as fallback)."""
        return self.values.analysis(self.resolver, self.context.frame.node, is_attempt)

    def _assigned_once(self, name: str) -> cst.BaseExpression | None:
        values = self._here().assigned(name)
        if len(values) == 1 and isinstance(values[0], cst.BaseExpression):
            return values[0]
        return None


def is_value(node: cst.BaseExpression, value: Value) -> bool:
    """Whether `node` is the value a library's declaration names (`None`,
    `True`, a falsy literal, zero)."""
    if value is Value.NONE:
        return isinstance(node, cst.Name) and node.value == "None"
    if value is Value.TRUE:
        return isinstance(node, cst.Name) and node.value == "True"
    if value is Value.FALSY:
        return literal_truth(node) is False
    return literal_number(node) == 0
