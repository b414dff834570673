"""What the three retry rules (JL301-JL303) share: the visit that finds the
places a retry policy is set (`joblint.rules.retries._facts.retry_policies`, recognised
once per file for all of them) and hands each policy to the rule's `judge`."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.models import CALLER
from joblint.requirements import PassedATask, Requirement
from joblint.rule import FixSpec, LineOf, Message, Rule, fix
from joblint.rules.retries._facts.retry_facts import RetryPolicy, Rewrite
from joblint.rules.retries._facts.retry_policies import RetrySites


class RetryRule(Rule):
    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._sites = RetrySites(context)
        self._reported: set[int] = set()

    def judge(self, policy: RetryPolicy) -> None:
        """Each rule judges the part of a policy it is about."""
        raise NotImplementedError

    def first_time(self, node: cst.CSTNode) -> bool:
        """Whether `node` is not reported yet (a wait or an exception type
        reached through a name can belong to several policies)."""
        if id(node) in self._reported:
            return False
        self._reported.add(id(node))
        return True

    def report_at(
        self,
        policy: RetryPolicy,
        node: cst.CSTNode,
        message: Message,
        *,
        fix: FixSpec | None = None,
        requires: tuple[Requirement, ...] = (),
    ) -> None:
        """Report a part of `policy`, with what the project must confirm for
        the policy to be one; a retry of a task a caller hands to a helper
        names that caller."""
        needs = tuple(dict.fromkeys((*policy.requires, *requires)))
        if any(isinstance(r, PassedATask) for r in needs):
            message = _naming_caller(message)
        self.report(node, message, fix=fix, requires=needs)

    def _judge(self, policies: Iterable[RetryPolicy]) -> None:
        for policy in policies:
            self.judge(policy)

    # --- the places a policy is set ----------

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._sites.enter_class(node)
        self._judge(self._sites.at_class(node))

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._sites.leave_class(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._judge(self._sites.at_function(node))

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self._judge(self._sites.at_decorator(node))

    def visit_Call(self, node: cst.Call) -> None:
        self._judge(self._sites.at_call(node))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._judge(self._sites.at_assign(node))

    def visit_For(self, node: cst.For) -> None:
        self._sites.enter_loop(node)

    def leave_For(self, node: cst.For) -> None:
        self._sites.leave_loop()

    def visit_While(self, node: cst.While) -> None:
        self._sites.enter_loop(node)
        self._judge(self._sites.at_while(node))

    def leave_While(self, node: cst.While) -> None:
        self._sites.leave_loop()

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._sites.enter_handler(node)

    def leave_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._sites.leave_handler()


def _naming_caller(message: Message) -> Message:
    if isinstance(message, str):
        return f"{message} (the task: {CALLER})"

    def named(line_of: LineOf) -> str:
        return f"{message(line_of)} (the task: {CALLER})"

    return named


def as_fix(rewrite: Rewrite | None) -> FixSpec | None:
    """The fix a fact offers, as a rule gives it (unsafe: each changes how the job runs)."""
    if rewrite is None:
        return None
    return fix(
        rewrite.node,
        rewrite.replacement,
        rewrite.message,
        imports=rewrite.imports,
        releases=rewrite.releases,
    )
