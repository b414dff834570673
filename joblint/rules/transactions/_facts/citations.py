"""What every JL101 finding cites beside its enqueue.

The transaction as a message names it (what opens it, and where), the fix hint
of its family, and the requirements the project step settles for any finding:
the transaction's database takes writes, and the task's class doesn't defer
the enqueue to COMMIT.
"""

from __future__ import annotations

from joblint.analysis.tasks import Enqueue
from joblint.analysis.transactions import TxScope
from joblint.knowledge.jobs import (
    FIX_HINTS,
    TASK_CLASS_OPTIONS,
    TxFamily,
    may_be_project_code,
)
from joblint.requirements import EnqueuesNow, Requirement, WritableDatabase
from joblint.rule import LineOf


def where_opened(tx: TxScope, line_of: LineOf) -> str:
    """The transaction as a message names it: what opens it, and where."""
    return f"{tx.description} (line {line_of(tx.node)}){tx.after}"


def uncertain(enqueue: Enqueue) -> bool:
    """Every reading of the call as an enqueue waits on the project step."""
    return all(reading.requires for reading in enqueue.alternatives())


def transaction_requires(tx: TxScope) -> tuple[Requirement, ...]:
    """A transaction on a named database races a job only if the project's
    settings and routers don't make that database read-only; a framework's
    hook is in one only if its class is the framework's."""
    writable = (WritableDatabase(tx.database),) if tx.database else ()
    return (*writable, *tx.requires)


_CLASS_DECIDED = frozenset(m for methods in TASK_CLASS_OPTIONS.values() for m in methods)


def enqueues_now(enqueue: Enqueue) -> tuple[Requirement, ...]:
    """A project task's enqueue stands only if the class the task is built on
    doesn't defer it to COMMIT."""
    if enqueue.task and enqueue.method in _CLASS_DECIDED and may_be_project_code(enqueue.task):
        return (EnqueuesNow(f"{enqueue.task}.{enqueue.method}"),)
    if enqueue.signed and may_be_project_code(enqueue.signed):
        return (EnqueuesNow(f"{enqueue.signed}.apply_async"),)
    return ()


def fix_hint(enqueue: Enqueue, tx: TxScope) -> str:
    """How a message says to fix it: the transaction family's hint, or the
    task's own on-commit variant where it has one."""
    hint = FIX_HINTS[tx.family]
    if enqueue.on_commit_variant and tx.family in (TxFamily.DJANGO, TxFamily.GENERIC):
        hint = f"Enqueue it in transaction.on_commit(...) or use {enqueue.on_commit_variant}"
    return hint
