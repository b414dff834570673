"""Whether an enqueue runs only when the save created the row.

A `post_save` receiver's enqueue under `if created:` (or after `if not created:
return`, or `kwargs.get("created")`) needs a transactional *create* of its
sender: a transactional `save()` of an existing row is no evidence. JL101 keeps
the `if` statements around the code it visits and narrows such an enqueue's
requirements (`created_only`).
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.walk import encloses
from joblint.models import CREATE, SAVE
from joblint.requirements import Receives, Requirement, WrittenInTransaction
from joblint.rule import Rule


class CreatedGuards(Rule):
    """The tests of `created` around the code a rule visits."""

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        # The `if` statements around the current code, and the functions that
        # return early unless the save created the row.
        self._ifs: list[cst.If] = []
        self._created_only: set[int] = set()

    def visit_If(self, node: cst.If) -> None:
        self._ifs.append(node)

    def leave_If(self, original_node: cst.If) -> None:
        """`if not created: return`: what follows runs only for a created row."""
        self._ifs.pop()
        guard = original_node.orelse is None and _tests_created(original_node.test) is False
        if guard and _leaves(original_node.body):
            self._created_only.add(id(self.context.frame.node))

    def _on_create_only(self, call: cst.Call) -> bool:
        """The enqueue runs only when the save created the row: in the body
        of `if created:` (or the else of `if not created:`), or after
        `if not created: return`."""
        if id(self.context.frame.node) in self._created_only:
            return True
        for node in self._ifs:
            tested = _tests_created(node.test)
            if tested is None:
                continue
            if encloses(node.body, call) == tested:
                return True
        return False


def _tests_created(test: cst.BaseExpression) -> bool | None:
    """Whether a test is a `post_save` receiver's `created` (True), its
    negation (False), or neither (None): `created`, `kwargs["created"]`,
    `kwargs.get("created")`, `not ...`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _tests_created(test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.Name):
        return True if test.value == CREATED_ARGUMENT else None
    if isinstance(test, cst.Subscript) and len(test.slice) == 1:
        index = test.slice[0].slice
        key = index.value if isinstance(index, cst.Index) else None
        return True if _literal(key) == CREATED_ARGUMENT else None
    if isinstance(test, cst.Call):
        return True if _get_key(test) == CREATED_ARGUMENT else None
    return None


def _get_key(call: cst.Call) -> str | None:
    """`kwargs.get("created")` -> "created"."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "get" or not call.args:
        return None
    return _literal(call.args[0].value)


def _literal(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _leaves(body: cst.BaseSuite) -> bool:
    """The block ends by leaving the function (`return`, `raise`)."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    last = statements[-1] if statements else None
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], cst.Return | cst.Raise)
    return isinstance(last, cst.SimpleStatementSuite) and isinstance(
        last.body[-1], cst.Return | cst.Raise
    )


def created_only(requirement: Requirement) -> Requirement:
    """A receiver's requirement, for an enqueue that runs only when the save
    created the row: only a transactional create is evidence."""
    if isinstance(requirement, WrittenInTransaction) and SAVE in requirement.ways:
        return replace(requirement, ways=(requirement.ways - {SAVE}) | {CREATE})
    if isinstance(requirement, Receives):
        return replace(requirement, on_create_only=True)
    return requirement


# The argument of a `post_save` receiver saying the save created the row.
CREATED_ARGUMENT = "created"
