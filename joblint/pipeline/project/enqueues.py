"""Which calls enqueue a job, and the chains of the project's calls that
lead to one. Which calls enqueue is decided from the tasks and queue objects
the project defines (`ProjectIndex`): a task's enqueue method (unless the
task's class defers it to COMMIT), a queue object's (one a project function
makes, too), a library's enqueue function, calling a task of a library that
enqueues on call, a function `extend-enqueue-functions` names. A function
leads to an enqueue when it performs one, or calls a project function that
leads to one: the chain named is a shortest one (`Walks.breadth_first`).
Settles JL101's and JL102's `LeadsToEnqueue`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from joblint.knowledge import jobs
from joblint.models import CHAIN, Finding, FunctionSummary, ProjectCall
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.hops import (
    Flags,
    Hop,
    before_commit,
    hops_text,
    naming_chain,
    short_name,
)
from joblint.pipeline.project.judging import judges, names
from joblint.pipeline.project.transactions import Transactions
from joblint.pipeline.project.walks import Walks
from joblint.requirements import LeadsToEnqueue

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

_TASK_RECEIVERS = frozenset({jobs.Receiver.TASK, jobs.Receiver.TASK_LIKE, jobs.Receiver.ANY})


@dataclass(frozen=True, slots=True)
class Enqueued:
    """The enqueue at the end of a chain."""

    library: str
    subject: str  # "Celery task 'send_receipt'"


@dataclass(frozen=True, slots=True)
class Chain:
    """The calls from a call to the enqueue it leads to."""

    hops: tuple[Hop, ...]
    enqueued: Enqueued
    # No hops: the call is the enqueue, on the queue object a project
    # function makes (`make_queue("mail").enqueue(...)`); this says which.
    made: str = ""

    def text(self) -> str:
        """How a message names the chain."""
        return hops_text(self.hops) if self.hops else self.made


@dataclass(slots=True)
class Enqueues:
    """The enqueues of the project's calls, and the chains leading to them."""

    calls: Calls
    walks: Walks
    transactions: Transactions
    index: ProjectIndex
    enqueue_functions: frozenset[str] = frozenset()
    _chains: dict[tuple[str, str, Flags], Chain | None] = field(default_factory=dict)
    _uncommitted: dict[tuple[str, str, Flags], Chain | None] = field(default_factory=dict)

    def chain_at(self, path: str, line: int, text: str, uncommitted: bool = False) -> Chain | None:
        """The chain from the call written `text` at `line` of `path` to an
        enqueue (`uncommitted`: see `chain`)."""
        for call in self.calls.calls_at(path, line, text):
            made = self._made_by(call.callee)
            enqueued = self.enqueued_by(call, path) if made else None
            found = Chain((), enqueued, made) if enqueued is not None else None
            found = found or self.chain(call.callee, path, uncommitted, call)
            if found is not None:
                return found
        return None

    def _made_by(self, method: str) -> str:
        """`make_queue() at shop/jobs.py:4 returns Queue()` when `method` is a
        method of the queue object a project function makes, else ""."""
        owner = self.index.canonical(method.rpartition(".")[0])
        found = self.calls.queue_maker(owner)
        if found is None:
            return ""
        function, made = found
        summary, where = self.calls.functions[function]
        return f"{short_name(function)}() at {where}:{summary.line} returns {short_name(made)}()"

    def chain(
        self, qualname: str, path: str, uncommitted: bool = False, call: ProjectCall | None = None
    ) -> Chain | None:
        """The shortest chain of calls from `qualname` to an enqueue (settings
        that apply to the file at `path` may make a library's enqueue
        transactional). `uncommitted`: only through calls each function on
        the way makes before a commit of its own (after one, what the caller
        wrote is committed). `call`: the call of it, whose flags say which of
        its calls are made."""
        start = self.calls.resolve(qualname)
        if start is None:
            return None
        flags = self.walks.bound(start, call, {})
        key = (start, path, tuple(sorted(flags.items())))
        chains = self._uncommitted if uncommitted else self._chains
        if key not in chains:
            chains[key] = self._search(start, path, uncommitted, flags)
        return chains[key]

    def _search(
        self, start: str, path: str, uncommitted: bool, flags: dict[str, bool]
    ) -> Chain | None:
        def calls_of(summary: FunctionSummary) -> tuple[ProjectCall, ...]:
            return before_commit(summary) if uncommitted else summary.calls

        def ends(call: ProjectCall) -> Enqueued | None:
            return self.enqueued_by(call, path)

        found = self.walks.breadth_first(start, calls_of, ends, flags)
        return Chain(*found) if found is not None else None

    def enqueued_by(self, call: ProjectCall, path: str) -> Enqueued | None:
        """The job `call` enqueues, when the project says it is an enqueue."""
        index = self.index
        qualname = index.canonical(call.callee)
        if qualname in self.enqueue_functions:
            return Enqueued("user", f"'{qualname.rsplit('.', 1)[-1]}'")
        library = jobs.ENQUEUE_FUNCTIONS.get(qualname) or jobs.queue_method_library(qualname)
        if library is not None:
            return self._unless_transactional(library, "", path)
        owner, _, method = qualname.rpartition(".")
        shapes = jobs.ENQUEUE_METHODS.get(method, ())
        if owner and shapes and self.transactions.deferred(qualname):
            return None
        if owner and shapes:
            found = self._method_enqueue(index.canonical(owner), method, path)
            if found is not None:
                return found
        library = index.task_library(qualname)
        if library is not None and library in jobs.ENQUEUE_ON_CALL_LIBRARIES:
            return self._unless_transactional(library, short_name(qualname), path)
        return None

    def _method_enqueue(self, owner: str, method: str, path: str) -> Enqueued | None:
        index = self.index
        library = index.task_library(owner)
        if library is not None:
            for shape in jobs.ENQUEUE_METHODS.get(method, ()):
                if shape.receiver not in _TASK_RECEIVERS:
                    continue
                # A task whose library the project can't tell: the method names it.
                unknown = not library and shape.receiver is jobs.Receiver.TASK_LIKE
                if library in shape.libraries or unknown:
                    return self._unless_transactional(library, short_name(owner), path)
        # A queue object the project binds, or one a project function makes.
        queue = index.queue_objects.get(owner) or self.calls.made_queue_library(owner)
        if queue is not None and jobs.enqueues_on_queue(queue, method):
            return self._unless_transactional(queue, "", path)
        return None

    def _unless_transactional(self, library: str, name: str, path: str) -> Enqueued | None:
        """None where the project's settings make the library's queue part of the
        transaction (django-q's ORM broker)."""
        flag = jobs.TRANSACTIONAL_WHEN_FLAG.get(library)
        if flag is not None and self.index.flag_set(flag, path):
            return None
        return Enqueued(library, jobs.job_subject(library, name))

    def reports_in(self, path: str) -> bool:
        """Whether a call the file at `path` makes inside a transaction (a
        library's, or one a project callable opens) enqueues a job or leads to
        an enqueue: then the rules that follow calls run on it."""
        in_transaction = any(
            self.transactions.inside_transaction(call)
            and (self.enqueued_by(call, path) is not None or self.chain(call.callee, path))
            for call in self.transactions.transaction_calls(path)
        )
        return in_transaction or any(
            self.enqueued_by(call, path) is not None or self.chain(call.callee, path, True)
            for call in self.transactions.commit_calls(path)
        )


# --- the requirement of a chain to an enqueue ---------------------------------------


def _chain(index: ProjectIndex, requirement: LeadsToEnqueue, path: str, line: int) -> Chain | None:
    """The chain a `LeadsToEnqueue` requirement asks for."""
    return index.graph.enqueues.chain_at(path, line, requirement.call_text, requirement.uncommitted)


@judges(LeadsToEnqueue)
def _leads_to_enqueue(
    index: ProjectIndex, requirement: LeadsToEnqueue, path: str, line: int
) -> bool:
    return _chain(index, requirement, path, line) is not None


@names(LeadsToEnqueue, placeholder=CHAIN)
def _naming_chain_to_enqueue(
    index: ProjectIndex, finding: Finding, requirement: LeadsToEnqueue, path: str
) -> Finding | None:
    chain = _chain(index, requirement, path, finding.span.line)
    if chain is None:
        return None
    return naming_chain(finding, f"{chain.enqueued.subject} ({chain.text()})", chain.hops)
