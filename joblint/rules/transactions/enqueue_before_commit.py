"""JL102 enqueue-before-commit.

Job enqueued before the transaction commits: a worker may run it first.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL102` show) and its teaching examples."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import dotted_text
from joblint.analysis.project_calls import project_call_text
from joblint.analysis.tasks import Enqueue
from joblint.knowledge.jobs import COMMIT_METHOD, COMMIT_RECEIVER_PATTERN, DATABASE_WRITE_METHODS
from joblint.models import CHAIN
from joblint.requirements import LeadsToEnqueue
from joblint.rule import LineOf, Rule, Valid, invalid
from joblint.rules.transactions._tokens import enqueue_and


@dataclass(slots=True)
class _PendingEnqueue:
    """An enqueue, and (`text`) a call of what may be the project's own code,
    written so, which the project model may find leads to one: either or
    both (a call that enqueues only if the project says so may be either)."""

    order: int
    block: int
    node: cst.Call
    enqueue: Enqueue | None
    statement: cst.CSTNode | None
    text: str = ""


@dataclass(slots=True)
class _FunctionState:
    enqueues: list[_PendingEnqueue] = field(default_factory=list)
    commits: list[tuple[int, cst.Call]] = field(default_factory=list)
    exits: list[tuple[int, int]] = field(default_factory=list)  # (order, block)
    writes: list[int] = field(default_factory=list)  # orders of database writes


_COMMIT_RECEIVER = re.compile(COMMIT_RECEIVER_PATTERN)


class EnqueueBeforeCommit(Rule):
    """
    ## What it does
    Finds a job enqueued earlier in a function than an explicit `.commit()` of
    a session, connection or transaction (`session.commit()`,
    `db.session.commit()`, `conn.commit()`, `await conn.commit()`,
    `transaction.commit()`), at any nesting: a commit inside a following `try:`
    or `if` counts.

    ## Why is this bad?
    Until the commit, the rows the job needs are invisible to other
    connections (and SQLAlchemy's autobegin means a session is already in a
    transaction after its first query). A fast worker runs the job before the
    commit and sees stale or missing data; if the commit fails, the job runs
    for data that was never saved.

    ## Example
    ```python
    def register(session, user):
        session.add(user)
        send_welcome.delay(user.id)
        session.commit()
    ```

    ## Use instead
    ```python
    def register(session, user):
        session.add(user)
        session.commit()
        send_welcome.delay(user.id)
    ```
    or register the enqueue with `joblint_runtime.transaction.on_commit(session, ...)`.

    ## Fix safety
    No automatic fix: moving the enqueue after the commit changes what happens
    when the commit fails (the job is no longer sent), which is the point but
    must be a conscious change.

    ## Known limits
    - Only one function is looked at: a commit in the caller is not seen.
    - A `return` or `raise` in the enqueue's own block between the two calls
      means the commit isn't reached after the enqueue: no finding. Other
      control flow (loops, exceptions) is read in source order.
    - `.commit(...)` with arguments (git's `index.commit("msg")`) is never a
      database commit, and an argument-less `.commit()` counts only when the
      receiver's last name looks like a session, connection or transaction
      (`session`, `db`, `conn`, `aconn`, `connection`, `transaction`, `tx`,
      `uow`...): `writer.commit()` on a search index is not one. An enqueue
      inside a transaction block is JL101's, not this rule's.
    - Through the project model: a call, before the commit, of the
      project's own function, method or class (in this module or another)
      is reported when it leads to an enqueue, up to 6 calls deep, the
      message naming each hop with file:line. An enqueue a function on the
      way makes after a commit of its own doesn't count (what the caller
      wrote is committed by then); one in an on-commit callback never does.
      Receivers are known as JL101's are (imports, `self.`, annotations,
      constructors, queue objects a project function makes), and so are the
      flag parameters that keep a helper's enqueue from running
      (`save(asynchronous=False)`); a call on an unannotated parameter is not
      followed.
    """

    CODE = "JL102"
    TRIGGERS = enqueue_and((".commit(",), r"\.commit\(")
    FOLLOWS_CALLS = True
    SUMMARY = "Job enqueued before the transaction commits: a worker may run it first"
    HELP = "Enqueue after the commit, or register it with an on-commit hook"

    VALID = (
        Valid(
            """
from .tasks import check_alerts

def store_result(session, query, result):
    session.add(result)
    query.latest_result = result
    session.commit()
    log_progress("checking alerts")
    for alert in query.alerts:
        check_alerts.delay(alert.id)
    query.state = "finished"
    session.commit()
""",
            id="enqueue-after-a-commit-before-the-next",
        ),
        Valid(
            """
from .tasks import send_welcome

def register(session, user):
    session.add(user)
    session.commit()
    send_welcome.delay(user.id)
""",
            id="after-commit",
        ),
    )

    INVALID = (
        invalid(
            """
from .tasks import send_welcome

def register(session, user):
    session.add(user)
    send_welcome.delay(user.id)
    session.commit()
""",
            (6, 5, "task 'send_welcome' is enqueued before session.commit() (line 7)"),
            id="enqueue-then-commit",
        ),
        invalid(
            """
from .tasks import send_welcome

async def register(db, user):
    db.session.add(user)
    send_welcome.delay(user.id)
    try:
        await db.session.commit()
    except Exception:
        raise
""",
            (6, 5, "db.session.commit()"),
            id="commit-in-following-try",
        ),
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._states: list[_FunctionState] = [_FunctionState()]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._states.append(_FunctionState())

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(self._states.pop())

    def leave_Module(self, node: cst.Module) -> None:
        self._check(self._states[-1])

    def visit_Return(self, node: cst.Return) -> None:
        self._states[-1].exits.append((self.context.order, self.context.block_id))

    def visit_Raise(self, node: cst.Raise) -> None:
        self._states[-1].exits.append((self.context.order, self.context.block_id))

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if context.in_on_commit_callback:
            return
        state = self._states[-1]
        if _is_commit(node):
            state.commits.append((context.order, node))
            return
        if _is_write(node):
            state.writes.append(context.order)
        if context.transaction is not None:
            return  # JL101's
        enqueue = context.enqueue(node)
        text = None
        if enqueue is None or enqueue.requires:
            text = project_call_text(context, node)
        if enqueue is not None or text:
            state.enqueues.append(
                _PendingEnqueue(
                    context.order, context.block_id, node, enqueue, context.statement, text or ""
                )
            )

    def _check(self, state: _FunctionState) -> None:
        for pending in state.enqueues:
            if _committed_before(pending, state):
                continue
            commit = self._first_commit_after(pending, state)
            if commit is not None:
                self._report(pending, commit)

    @staticmethod
    def _first_commit_after(pending: _PendingEnqueue, state: _FunctionState) -> cst.Call | None:
        for order, commit in state.commits:
            if order <= pending.order:
                continue
            exits = any(
                pending.order < exit_order < order and block == pending.block
                for exit_order, block in state.exits
            )
            return None if exits else commit
        return None

    def _report(self, pending: _PendingEnqueue, commit: cst.Call) -> None:
        if pending.text:
            self._report_chain(pending, commit)
        if pending.enqueue is None:
            return
        for reading in pending.enqueue.alternatives():
            self._report_reading(pending, reading, commit)

    def _report_reading(self, pending: _PendingEnqueue, enqueue: Enqueue, commit: cst.Call) -> None:
        target = f"{dotted_text(commit.func) or 'commit'}()"

        def message(line_of: LineOf) -> str:
            return (
                f"{enqueue.subject} {enqueue.verb} before {target} (line {line_of(commit)}): "
                "a worker may run it before the data is committed. Enqueue it after the "
                "commit, or register it with an on-commit hook"
            )

        self.report(pending.node, message, requires=enqueue.requires, statement=pending.statement)

    def _report_chain(self, pending: _PendingEnqueue, commit: cst.Call) -> None:
        """A call of what may be the project's own code: reported if the
        project model finds a chain from it to an enqueue."""
        target = f"{dotted_text(commit.func) or 'commit'}()"
        text = pending.text

        def message(line_of: LineOf) -> str:
            return (
                f"{text}() is called before {target} (line {line_of(commit)}) and enqueues "
                f"{CHAIN}: a worker may run the job before the data is committed. Enqueue it "
                "after the commit, or register it with an on-commit hook"
            )

        requires = (LeadsToEnqueue(text, uncommitted=True),)
        self.report(pending.node, message, requires=requires, statement=pending.statement)


def _committed_before(pending: _PendingEnqueue, state: _FunctionState) -> bool:
    """A commit comes earlier in the function and nothing is written between
    it and the enqueue: what the job reads is committed already, and a later
    commit is for later writes."""
    before = [order for order, _ in state.commits if order < pending.order]
    if not before:
        return False
    last = max(before)
    return not any(last < order < pending.order for order in state.writes)


def _is_write(node: cst.Call) -> bool:
    func = node.func
    return isinstance(func, cst.Attribute) and func.attr.value in DATABASE_WRITE_METHODS


def _is_commit(node: cst.Call) -> bool:
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value != COMMIT_METHOD or node.args:
        return False
    receiver = dotted_text(func.value)
    if receiver is None:
        return False
    last = receiver.rsplit(".", 1)[-1].lower().strip("_")
    return _COMMIT_RECEIVER.search(last) is not None
