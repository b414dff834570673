"""Where the project writes a model inside a transaction: what makes a model
signal's receiver run inside one (Django's `post_save`, sent by whoever
saves the model, in its transaction).

A write counts where it is certain: a call, in a loaded module's index, made
inside a library's transaction (`with transaction.atomic():`,
`@transaction.atomic`, a hook of a class deriving from Django's `ModelAdmin`)
that writes the model the way the signal reports (`Order.objects.create()`,
`order.save()` with `order` of a known type, `Order.objects.filter().delete()`,
`order.tags.add()`), or the model's registration with a framework that
writes it in its own transaction (`admin.site.register(Order)`). So does a
write Django makes inside a transaction of its own whoever calls it
(`Order.objects.get_or_create()`), and one in a function a request handler
reaches under ATOMIC_REQUESTS (`joblint.pipeline.project.entries`). Other
writes through project helpers, and inside project callables that may open a
transaction, are not followed: which of those a run has loaded depends on
what it was asked, and the write named must not. The one named is the first
by path and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from joblint.knowledge import jobs, requests
from joblint.knowledge.jobs import ModelSignals
from joblint.models import (
    CREATE,
    DELETE,
    M2M,
    RECEIVED,
    SAVE,
    WRITE_VERBS,
    WRITTEN,
    Finding,
    FunctionSummary,
    ProjectCall,
    Related,
)
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.hops import line_span
from joblint.pipeline.project.judging import judges, names
from joblint.requirements import Receives, WrittenInTransaction

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

_VERBS = {SAVE: "saved", DELETE: "deleted", M2M: "changed", CREATE: "created"}


@dataclass(frozen=True, slots=True)
class Written:
    """One transactional write of a model: where, and how it reads."""

    path: str
    line: int
    how: str  # "saved by Dress.objects.create() inside a transaction", "registered in ..."
    tail: str = ""  # after the place: ", which writes it inside transaction.atomic()"
    model: str = ""  # the model written, where any model's write was asked for

    def describe(self, model: str) -> str:
        written = _short(self.model or model)
        return f"{written} is {self.how} at {self.path}:{self.line}{self.tail}"

    def step(self, model: str) -> str:
        return f"{_short(self.model or model)} is {self.how}{self.tail}"


@dataclass(slots=True)
class TransactionalWrites:
    """The transactional writes of the project's models, first by path and line."""

    calls: Calls
    index: ProjectIndex
    _found: dict[tuple[str, frozenset[str], str], Written | None] = field(default_factory=dict)

    def first(self, model: str, writes: frozenset[str], m2m_field: str = "") -> Written | None:
        """The first transactional write of `model` of one of the kinds
        `writes` (a many-to-many change only of `m2m_field`); of any class
        of the project where `model` is "" (a receiver of every sender's)."""
        key = (model, writes, m2m_field)
        if key not in self._found:
            self._found[key] = self._first(self.index.canonical(model), writes, m2m_field)
        return self._found[key]

    def received(
        self, handler: str, only: frozenset[str] = frozenset()
    ) -> tuple[str, tuple[Related, ...]] | None:
        """How the function `handler`, connected to a model signal by another
        module, runs inside a transaction: the words saying so, and where
        it is connected (and the write that makes it transactional)."""
        # Connected under any name that is the handler's (a re-export, too).
        defined = self.index.canonical(handler)
        connections = [
            connection
            for name, named in self.index.receivers.items()
            if self.index.canonical(name) == defined
            for connection in named
        ]
        for fact, path in sorted(connections, key=lambda c: (c[1], c[0].line)):
            model = fact.model.rsplit(".", 1)[-1]
            whose = f"{model}'s " if model else ""
            where = Related(path, line_span(fact.line), f"{whose}{fact.signal} connected here")
            connected = f"{whose}{fact.signal} (connected at {path}:{fact.line})"
            if fact.own_transaction:
                opens = f"the transaction it opens for {fact.own_transaction}"
                sent = f"which Django sends inside {opens}"
                return f"{connected}, {sent}", (where,)
            field_name = (fact.m2m_field,) if fact.m2m_field else ()
            kinds = frozenset(fact.writes)
            if only and SAVE in kinds:  # its enqueue only runs on some saves (`if created:`)
                kinds = (kinds - {SAVE}) | only
            written = self.first(fact.model, kinds, *field_name)
            if written is not None:
                verb = " or ".join(sorted(WRITE_VERBS[w] for w in kinds))
                which = f"the {model}" if model else "a model"
                sent = f"sent inside the transaction that {verb} {which}"
                text = f"{connected}, {sent} ({written.describe(fact.model)})"
                step = written.step(fact.model)
                return text, (where, Related(written.path, line_span(written.line), step))
        return None

    def _first(self, model: str, writes: frozenset[str], m2m_field: str) -> Written | None:
        for path in sorted(self.calls.by_path):
            module = self.calls.by_path[path]
            found = [
                *self._registrations(model, path, module.registered),
                *(
                    written
                    for summary in module.functions
                    for call in summary.calls
                    for written in self._calls(model, writes, m2m_field, path, call, summary)
                ),
            ]
            if found:
                return min(found, key=lambda w: w.line)
        return None

    def _registrations(
        self, model: str, path: str, registered: tuple[tuple[str, int, str], ...]
    ) -> list[Written]:
        found = []
        for name, line, registration in registered:
            hooks = jobs.FRAMEWORK_REGISTRATIONS.get(registration)
            registered_model = self.index.canonical(name)
            if hooks is not None and model in (registered_model, ""):
                tail = f", which writes it inside {hooks.opener}"
                how = f"registered in {hooks.runner}"
                found.append(Written(path, line, how, tail, registered_model))
        return found

    def _calls(
        self,
        model: str,
        writes: frozenset[str],
        m2m_field: str,
        path: str,
        call: ProjectCall,
        summary: FunctionSummary,
    ) -> list[Written]:
        found = self._library_creates(model, writes, path, call, summary)
        for signals in jobs.MODEL_SIGNALS:
            for owner, write, changed in _writes(call.callee, signals):
                if write not in writes or (write == M2M and changed != m2m_field):
                    continue
                written = self.index.canonical(owner)
                if written != model and (model or not self.calls.is_class(written)):
                    continue
                inside = self._inside(call, summary, signals)
                if inside:
                    how = f"{_VERBS[write]} by {call.text}() {inside}"
                    found.append(Written(path, call.line, how, model=written))
        return found

    def _library_creates(
        self,
        model: str,
        writes: frozenset[str],
        path: str,
        call: ProjectCall,
        summary: FunctionSummary,
    ) -> list[Written]:
        """A library call creating a row of `model` (`requests.ROW_CREATING_CALLS`)
        inside a transaction: around the call, or around a call of the
        project's on the way to its function."""
        created = requests.ROW_CREATING_CALLS.get(self.index.canonical(call.callee))
        if created is None or not writes & {SAVE, CREATE} or model not in (created, ""):
            return []
        how = f"created by {call.text}()"
        if call.transaction == ():
            return [Written(path, call.line, f"{how} inside a transaction", model=created)]
        opened = self.index.reach.called_inside_transaction(summary.qualname)
        if opened is None:
            return []
        where, line, caller = opened
        function = _short(summary.qualname)
        tail = f", in {function}(), which {caller}() calls inside a transaction at {where}:{line}"
        return [Written(path, call.line, how, tail, created)]

    def _inside(self, call: ProjectCall, summary: FunctionSummary, signals: ModelSignals) -> str:
        """Which transaction the write is made in ("" for none certain): a
        library's around the call, the one Django opens for the method
        (`get_or_create`), or the request's the function is reached from."""
        if call.transaction == ():
            return "inside a transaction"
        own = dict(signals.atomic_manager_writes).get(call.callee.rsplit(".", 1)[-1])
        if own is not None and _at_manager(call.callee, signals):
            return f"inside the {own}"
        if call.transaction is None:
            reach = self.index.reach.reached(summary.qualname)
            if reach is not None and reach.handler is not None:
                handler = reach.handler
                return f"inside the request's transaction of {handler.name}() ({handler.how})"
        return ""


def _at_manager(callee: str, signals: ModelSignals) -> bool:
    return any(part in signals.managers for part in callee.split(".")[1:-1])


def _short(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def _writes(callee: str, signals: ModelSignals) -> list[tuple[str, str, str]]:
    """The model writes a call's qualified name may be: (the model, the
    write, the many-to-many field changed)."""
    parts = callee.split(".")
    method = parts[-1]
    found: list[tuple[str, str, str]] = []
    for write, methods in signals.instance_writes:
        if method in methods and len(parts) > 1:  # `order.save()`
            found.append((".".join(parts[:-1]), write, ""))
    managers = [i for i, part in enumerate(parts) if part in signals.managers and i > 0]
    if managers:
        owner = ".".join(parts[: managers[0]])
        at_manager = managers[0] == len(parts) - 2
        for write, methods in signals.manager_writes:
            if method in methods:  # `Order.objects.create()`, `...select_for_update().create()`
                found.append((owner, write, ""))
        if method in signals.creating_methods:
            found.append((owner, CREATE, ""))
        for write, methods in signals.queryset_writes:
            if not at_manager and method in methods:  # `Order.objects.filter().delete()`
                found.append((owner, write, ""))
    elif len(parts) > 2 and method in signals.m2m_methods:  # `order.tags.add(tag)`
        found.append((".".join(parts[:-2]), M2M, parts[-2]))
    return found


# --- the requirements on transactional writes and the receivers of their signals ------


def _written(index: ProjectIndex, requirement: WrittenInTransaction) -> Written | None:
    return index.writes.first(requirement.model, requirement.ways, requirement.m2m_field)


@judges(WrittenInTransaction)
def _written_in_transaction(
    index: ProjectIndex, requirement: WrittenInTransaction, path: str, line: int
) -> bool:
    return _written(index, requirement) is not None


@names(WrittenInTransaction, placeholder=WRITTEN, last=False)
def _naming_write(
    index: ProjectIndex, finding: Finding, requirement: WrittenInTransaction, path: str
) -> Finding | None:
    """The message names the transactional write that makes a receiver's
    enqueue one inside a transaction."""
    written = _written(index, requirement)
    if written is None:
        return None
    message = finding.message.replace(WRITTEN, written.describe(requirement.model))
    related = Related(written.path, line_span(written.line), written.step(requirement.model))
    return replace(finding, message=message, related=(*finding.related, related))


def _received_by(
    index: ProjectIndex, requirement: Receives
) -> tuple[str, tuple[Related, ...]] | None:
    only = frozenset({CREATE}) if requirement.on_create_only else frozenset()
    return index.writes.received(requirement.handler, only)


@judges(Receives)
def _receives(index: ProjectIndex, requirement: Receives, path: str, line: int) -> bool:
    return _received_by(index, requirement) is not None


@names(Receives, placeholder=RECEIVED, last=False, covers=(WrittenInTransaction,))
def _naming_received(
    index: ProjectIndex, finding: Finding, requirement: Receives, path: str
) -> Finding | None:
    """The message names the signal a receiver receives, where it is
    connected, and the write that makes it transactional."""
    received = _received_by(index, requirement)
    if received is None:
        return None
    text, places = received
    message = finding.message.replace(RECEIVED, text)
    return replace(finding, message=message, related=(*finding.related, *places))
