"""What the sentinel saw: open transactions, enqueues made inside them, findings.

An enqueue is a finding when, at the time it is made, a transaction of the
code under test is open on the same thread, and that transaction writes
(before or after the enqueue): the job may run before COMMIT, or for rows a
rollback removes. The verdict waits until every transaction the enqueue was
made in has ended, so a write after the enqueue counts too.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .frames import Place

_ORDER = itertools.count(1)


@dataclass(eq=False)
class Transaction:
    """One transaction (or savepoint) some code opened."""

    kind: str  # "Django atomic block", "SQLAlchemy session transaction", ...
    key: object  # what writes are told by: a database alias, a connection, a session
    opener: Place  # where it was opened: the `with`, the decorated function, the library call
    called_from: Place | None  # the project's frame that led there, when the opener is a library's
    of_the_code: bool  # False for the atomics a test framework opens around each test
    thread: int = field(default_factory=threading.get_ident)
    first_write: int = 0  # order of the first write inside it; 0: none yet
    open: bool = True
    # Asks the library whether the transaction still runs: one that is
    # committing runs the callbacks registered for after its COMMIT.
    running: Callable[[], bool] = lambda: True

    def wrote(self) -> None:
        if not self.first_write:
            self.first_write = next(_ORDER)


@dataclass
class Enqueue:
    """A job sent while transactions of the code were open."""

    library: str
    job: str
    place: Place
    order: int
    transactions: list[Transaction]
    test: str
    test_place: Place | None


@dataclass
class Finding:
    code: str
    name: str
    message: str
    place: Place
    related: list[tuple[Place, str]]
    test: str

    def as_json(self) -> dict[str, Any]:
        """joblint's `--format json` record."""
        end_line = self.place.end_line or self.place.line
        end_column = self.place.end_column or self.place.column
        return {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "path": self.place.path,
            "line": self.place.line,
            "column": self.place.column,
            "end_line": end_line,
            "end_column": end_column,
            "severity": "error",
            "fix": None,
            "related": [
                {"path": p.path, "line": p.line, "column": p.column, "message": text}
                for p, text in self.related
            ],
        }


class Recorder:
    """The sentinel's state for one pytest session."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: list[Transaction] = []
        self._waiting: list[Enqueue] = []
        self.findings: list[Finding] = []
        self.test = ""
        self.test_place: Place | None = None

    # --- transactions -------------------------------------------------------

    def opened(self, transaction: Transaction) -> None:
        with self._lock:
            self._open.append(transaction)

    def closed(self, transaction: Transaction) -> None:
        with self._lock:
            transaction.open = False
            if transaction in self._open:
                self._open.remove(transaction)
            self._decide(final=False)

    def wrote(self, key: object) -> None:
        """A write went to the database through `key` on this thread."""
        thread = threading.get_ident()
        with self._lock:
            for transaction in self._open:
                if transaction.key == key and transaction.thread == thread:
                    transaction.wrote()

    def open_of_the_code(self) -> list[Transaction]:
        thread = threading.get_ident()
        with self._lock:
            return [t for t in self._open if t.of_the_code and t.thread == thread and t.running()]

    # --- enqueues -------------------------------------------------------------

    def enqueued(self, library: str, job: str, place: Place, inside: list[Transaction]) -> None:
        enqueue = Enqueue(library, job, place, next(_ORDER), inside, self.test, self.test_place)
        with self._lock:
            self._waiting.append(enqueue)
            self._decide(final=False)

    def report(self, finding: Finding) -> None:
        with self._lock:
            self.findings.append(finding)

    def of_test(self, test: str) -> list[Finding]:
        """The test's findings, one per place."""
        with self._lock:
            return _one_per_place(f for f in self.findings if f.test == test)

    def unique(self) -> list[Finding]:
        """One finding per place and rule, the first test that showed it named."""
        with self._lock:
            return _one_per_place(self.findings)

    def decide_now(self) -> None:
        """Decide every enqueue waiting, open transactions or not."""
        with self._lock:
            self._decide(final=True)

    def end_of_test(self) -> None:
        """Decide what the test sent, and forget the transactions it left open:
        they must not hold the next test's enqueues."""
        with self._lock:
            self._decide(final=True)
            for transaction in self._open:
                if transaction.of_the_code:
                    transaction.open = False
            self._open = [t for t in self._open if t.open]

    def _decide(self, *, final: bool) -> None:
        still = []
        for enqueue in self._waiting:
            if not final and any(t.open for t in enqueue.transactions):
                still.append(enqueue)
                continue
            writing = [t for t in enqueue.transactions if t.first_write]
            if writing:
                self.findings.append(_in_transaction(enqueue, writing[0]))
        self._waiting = still


def _one_per_place(findings: Iterable[Finding]) -> list[Finding]:
    first: dict[tuple[str, str, int, int], Finding] = {}
    for finding in findings:
        first.setdefault(
            (finding.code, finding.place.path, finding.place.line, finding.place.column), finding
        )
    return sorted(
        first.values(), key=lambda f: (f.place.path, f.place.line, f.place.column, f.code)
    )


def _in_transaction(enqueue: Enqueue, transaction: Transaction) -> Finding:
    when = (
        "which had written to the database before it"
        if transaction.first_write < enqueue.order
        else "which writes to the database after it"
    )
    opener = transaction.opener
    where = f"{opener.path}:{opener.line}"
    if transaction.called_from is not None:
        where += f", called from {transaction.called_from.path}:{transaction.called_from.line}"
    message = (
        f"{enqueue.library} job '{enqueue.job}' is enqueued inside a transaction of the code: "
        f"the {transaction.kind} opened in {opener.function or '<module>'}() ({where}), "
        f"{when}; a worker may run the job before COMMIT, or for rows a rollback removes "
        f"(seen while {enqueue.test} ran). Enqueue it after the commit "
        "(transaction.on_commit(...), delay_on_commit, or an outbox)"
    )
    related = []
    if transaction.called_from is None:
        related.append((opener, f"the {transaction.kind} opens here"))
    else:  # the opener is a library's: the project's place that led to it
        related.append(
            (
                transaction.called_from,
                f"the {transaction.kind} of {opener.function}() opens from here",
            )
        )
    if enqueue.test_place is not None:
        related.append((enqueue.test_place, f"the test that ran it: {enqueue.test}"))
    return Finding("JL101", "enqueue-in-transaction", message, enqueue.place, related, enqueue.test)
