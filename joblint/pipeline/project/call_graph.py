"""The project model of the project's calls, across modules, built from every
loaded module's `ModuleIndex` (`joblint.index`), split by the question each
part answers:

- `calls`: what a call's qualified name means (`calls.py`);
- `walks`: who calls whom, and the shortest chains of calls (`walks.py`);
- `decorators`: which names are task decorators the project builds, which
  functions run as a job, the helpers tasks hand themselves to
  (`task_decorators.py`);
- `transactions`: which callables open a transaction, which calls are made
  inside one, which enqueues COMMIT defers (`transactions.py`);
- `enqueues`: which calls enqueue a job, and the chains to one (`enqueues.py`);
- `effects`: which calls have side effects, what a job touches (`effects.py`);
- `payloads`: which values reach a job's payload, what a task does with
  what it is handed (`payload_flow.py`);
- `indirect`: what a call runs that it doesn't name: a signal's receivers,
  a command's handler, overrides (`indirect_calls.py`).

Each part keeps what it computed (the graph doesn't change once built).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from joblint.models import FileResult
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.effects import Effects
from joblint.pipeline.project.enqueues import Enqueues
from joblint.pipeline.project.hops import MAX_HOPS as MAX_HOPS
from joblint.pipeline.project.indirect_calls import IndirectCalls
from joblint.pipeline.project.payload_flow import PayloadFlow
from joblint.pipeline.project.task_decorators import TaskDecorators
from joblint.pipeline.project.transactions import Transactions
from joblint.pipeline.project.walks import Walks

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex


@dataclass(frozen=True, slots=True)
class CallGraph:
    """The call graph's parts, each answering one question."""

    calls: Calls
    walks: Walks
    decorators: TaskDecorators
    transactions: Transactions
    enqueues: Enqueues
    effects: Effects
    payloads: PayloadFlow
    indirect: IndirectCalls

    @classmethod
    def build(
        cls,
        results: Iterable[FileResult],
        index: ProjectIndex,
        enqueue_functions: frozenset[str] = frozenset(),
    ) -> CallGraph:
        """The call graph of the modules' index of `results` (`enqueue_functions`:
        calls the project takes for enqueues)."""
        calls = Calls.build(results, index)
        walks = Walks(calls)
        decorators = TaskDecorators(calls, walks, index)
        transactions = Transactions(calls, decorators, index)
        enqueues = Enqueues(calls, walks, transactions, index, enqueue_functions)
        return cls(
            calls,
            walks,
            decorators,
            transactions,
            enqueues,
            Effects(calls, walks, index),
            PayloadFlow(calls, enqueues),
            IndirectCalls(calls, transactions, index),
        )

    # What the schedule asks of the graph, to choose the files to read.

    def payload_forwarders(self) -> dict[str, frozenset[tuple[str, str]]]:
        """`PayloadFlow.payload_forwarders`."""
        return self.payloads.payload_forwarders()

    def openers(self) -> set[str]:
        """`Transactions.openers`."""
        return self.transactions.openers()

    def transaction_callees(self, path: str) -> set[str]:
        """`Transactions.transaction_callees`."""
        return self.transactions.transaction_callees(path)

    def callees(self, path: str) -> set[str]:
        """`Calls.callees`."""
        return self.calls.callees(path)

    def reports_in(self, path: str) -> bool:
        """`Enqueues.reports_in`."""
        return self.enqueues.reports_in(path)
