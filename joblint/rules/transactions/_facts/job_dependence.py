"""Whether a job enqueued inside a transaction depends on it.

A finding is true only where a worker running the job before COMMIT can miss
something: JL101 asks the project step whether the task touches a model the
transaction writes (`JobTouches`), whether a request's job depends on what the
request writes (`RequestDepends`), and whether a lambda handed to a project
function runs now (`RunsNow`); a payload carrying a row the function wrote
depends anyway, and a dispatch sent on every path to a `raise` is meant to
survive the rollback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import libcst as cst

from joblint.analysis.names import Resolver
from joblint.analysis.tasks import Enqueue
from joblint.analysis.transactions import TxScope
from joblint.analysis.walk import children, contains, descendants
from joblint.knowledge import requests
from joblint.knowledge.jobs import TxFamily, may_be_project_code
from joblint.requirements import JobTouches, Reached, RequestDepends, Requirement, RunsNow
from joblint.rule import Rule


class JobDependence(Rule):
    """The evidence that a job depends on the transaction it is enqueued in."""

    def _touching(self, call: cst.Call, enqueue: Enqueue, tx: TxScope) -> tuple[Requirement, ...]:
        """For a project task enqueued inside a transaction written in this
        function (`with atomic():`, `@atomic`) whose every write names its
        model, and whose payload carries no row it wrote: the task must touch
        one of those models (the project step reads its body)."""
        if not enqueue.runs or not may_be_project_code(enqueue.runs) or tx.request:
            return ()
        # Django's ORM names the model of every write; a `with` block holds
        # the whole transaction (a hook's or a receiver's starts elsewhere).
        if tx.family is not TxFamily.DJANGO or not isinstance(tx.node, cst.With) or tx.requires:
            return ()
        body = tx.node.body
        resolver = self.context.resolver
        context = self.context

        def writes() -> set[str] | None:
            return _scope_writes(body, resolver, lambda c: context.enqueue(c) is not None)

        written = context.memo("writes", tx.node, writes)
        if not written:
            return ()  # no write it names: a savepoint of a caller's transaction, perhaps
        if self._carries_written(call):
            return ()
        return (JobTouches(enqueue.runs, frozenset(written)),)

    def _naming_task(
        self, requirement: Requirement, call: cst.Call, enqueue: Enqueue
    ) -> Requirement:
        """A request's reach names the project task enqueued, so the project
        step can ask whether it touches what the request writes; not where
        the payload carries a row the function created (it depends anyway)."""
        if not isinstance(requirement, Reached) or not enqueue.runs:
            return requirement
        if not may_be_project_code(enqueue.runs):
            return requirement
        if self._carries_written(call):
            return requirement
        return replace(requirement, task=enqueue.runs)

    def _runs_now(self) -> tuple[Requirement, ...]:
        """Inside a lambda handed to a project function, which may be a
        wrapper of `transaction.on_commit`: the project step tells."""
        return tuple(
            RunsNow(qualname, position, keyword)
            for qualname, position, keyword in self.context.frame.handed
        )

    def _carries_written(self, call: cst.Call) -> bool:
        """The enqueue's payload names a row the function created or saved
        (`order = Order.objects.create(...)` or `order.save()`, then
        `send.delay(order.pk)`)."""
        frame = self.context.frame.node
        written = self.context.memo("written-rows", frame, lambda: _written_names(frame))
        return any(
            isinstance(name, cst.Name) and name.value in written
            for arg in call.args
            for name in _names_in(arg.value)
        )

    def _request_depends(self, call: cst.Call, enqueue: Enqueue) -> tuple[Requirement, ...]:
        """A view's own enqueue: the project step asks whether the job can
        depend on what the request writes (naming the task where its body is
        the project's to read)."""
        named = self._naming_task(Reached(""), call, enqueue)
        frame = self.context.frame
        qualname = self.context.resolver.local_qualname(frame.key)
        task = named.task if isinstance(named, Reached) else ""
        return (RequestDepends(qualname, task),)

    def _dispatched_before_raise(self, call: cst.Call) -> bool:
        """Every path from the enqueue's statement ends in a `raise` (the
        transaction rolls back) and the job carries nothing the function
        created: a dispatch meant to survive the rollback."""
        statement = self.context.statement
        frame = self.context.frame.node
        if statement is None or not isinstance(frame, cst.FunctionDef):
            return False
        raises = self.context.memo("raises", frame, lambda: _raises(frame))
        if not raises:
            return False
        following = _following(frame, statement)
        if following is None or not _ends_in_raise(following):
            return False
        return not self._carries_written(call)


def _following(root: cst.CSTNode, statement: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The statements after `statement` in its block, if `root` holds it."""
    todo: list[cst.CSTNode] = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, cst.IndentedBlock):
            for position, child in enumerate(node.body):
                if child is statement:
                    return list(node.body[position + 1 :])
        todo.extend(children(node))
    return None


def _ends_in_raise(statements: list[cst.CSTNode]) -> bool:
    """A `raise` ends the block, and nothing before it may leave otherwise."""
    for statement in statements:
        leaves = [n for n in descendants(statement) if isinstance(n, _LEAVING)]
        if isinstance(statement, cst.SimpleStatementLine) and any(
            isinstance(small, cst.Raise) for small in statement.body
        ):
            return True
        if leaves:
            return False
    return False


def _raises(frame: cst.FunctionDef) -> bool:
    return contains(frame, cst.Raise)


def _scope_writes(
    body: cst.BaseSuite, resolver: Resolver, enqueues: Callable[[cst.Call], bool]
) -> set[str] | None:
    """The models a transaction's body writes, all named by their class
    (`Order.objects.create()`, `Order.objects.filter(...).update()`); None
    where a write can't be told (`order.save()` of an untyped name, a
    project function's call that may write)."""
    found: set[str] = set()
    for node in descendants(body):
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            continue
        if enqueues(node):
            continue
        if node.func.attr.value in RAW_SQL_METHODS:
            return None  # SQL writes name no model
        qualname = resolver.qualified_name(node.func)
        if node.func.attr.value in WRITE_METHODS:
            model = _managed_model(node.func, resolver)
            if model is None:
                return None
            found.add(model)
        elif _managed_model(node.func, resolver) is None and (
            qualname is None or may_be_project_code(qualname)
        ):
            return None  # a project function, or a method of who knows what, may write
    return found


def _managed_model(func: cst.Attribute, resolver: Resolver) -> str | None:
    """`Order` of `Order.objects.filter(...).update`: the class whose manager is called."""
    node: cst.BaseExpression = func
    while isinstance(node, cst.Attribute | cst.Call):
        if isinstance(node, cst.Call):
            node = node.func
            continue
        if node.attr.value in MANAGERS:
            return resolver.qualified_name(node.value)
        node = node.value
    return None


def _written_names(frame: cst.CSTNode) -> set[str]:
    """Names the function binds to a row it writes (`order = Order.objects.create(...)`),
    or calls a row's own write on (`order.save()`, `self.save()`)."""
    found: set[str] = set()
    for node in descendants(frame):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            receiver = node.func.value
            if node.func.attr.value in requests.INSTANCE_WRITE_METHODS and isinstance(
                receiver, cst.Name
            ):
                found.add(receiver.value)
        if not isinstance(node, cst.Assign) or not isinstance(node.value, cst.Call):
            continue
        func = node.value.func
        if isinstance(func, cst.Attribute) and func.attr.value in CREATING_CALLS:
            for target in node.targets:
                found.update(n.value for n in _names_in(target.target) if isinstance(n, cst.Name))
    return found


def _names_in(node: cst.CSTNode) -> list[cst.CSTNode]:
    return [n for n in descendants(node) if isinstance(n, cst.Name)]


# Methods that write rows, and the managers a model's writes go through.
WRITE_METHODS = requests.ROW_WRITE_METHODS
RAW_SQL_METHODS = frozenset({"execute", "executemany", "raw", "callproc"})
MANAGERS = requests.MODEL_MANAGERS
# Statements leaving a block other than by `raise`.
_LEAVING = (cst.Return, cst.Break, cst.Continue)
# Calls whose result is a row the code wrote (a payload carrying it depends
# on the transaction).
CREATING_CALLS = frozenset({"create", "get_or_create", "update_or_create", "save"})
