"""Which functions run inside a request's transaction: the request handlers
the project's modules define (`Entry`, read by `joblint.index.entries`)
whose framework the project's settings make transactional (Django's
`ATOMIC_REQUESTS`, Pyramid's `pyramid_tm`), and every function they reach
through the project's calls (a management command's handler through
`call_command("name")`, too). A call made inside a transaction of its own
(`with atomic():`) is not followed: the finding at that call covers it; a
call deferred to COMMIT is no call at all (the index leaves it out)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from joblint.knowledge import requests
from joblint.knowledge.jobs import FIX_HINTS, TxFamily
from joblint.libraries import django, pyramid
from joblint.models import REACHED_FROM, Finding, Related
from joblint.pipeline.project.call_graph import CallGraph
from joblint.pipeline.project.handlers import Handler, RequestHandlers
from joblint.pipeline.project.hops import MAX_HOPS, Hop, hops_text, line_span, short_name
from joblint.pipeline.project.judging import judges, names
from joblint.requirements import Reached, RequestDepends

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

# Where a JL101 message's fix hint starts.
BEFORE_COMMIT = "before COMMIT. "


@dataclass(frozen=True, slots=True)
class Reach:
    """How a function runs inside a transaction nobody wrote around it: the
    request handler reaching it (or the signal sent inside a transaction),
    and the calls from there down to the function (none: it is the handler)."""

    handler: Handler | None
    hops: tuple[Hop, ...]
    settings: tuple[str, ...] = ()  # the paths of the settings that turn it on
    # A receiver of a signal the framework sends inside its own transaction:
    # the connection (path, line) and the words naming that transaction.
    sent: tuple[str, int, str] | None = None

    @property
    def framework(self) -> str:
        """Whose transaction it is ("" where that can't be told)."""
        if self.handler is not None:
            return self.handler.framework
        return "django" if self.sent is not None else ""

    def text(self) -> str:
        """`a django-ninja operation (shop/api.py:12) run inside the
        request's transaction (ATOMIC_REQUESTS)`, or for a function it calls
        `which checkout(), a view run inside ..., calls: checkout() → ...`."""
        handler = self.handler
        if self.sent is not None:
            path, line, own = self.sent
            opens = f"the transaction it opens for {own}"
            said = f"connected at {path}:{line}, which Django sends inside {opens}"
            return f"{said}: {hops_text(self.hops)}" if self.hops else said
        if handler is None:
            first = self.hops[0]
            caller = first.function.rsplit(".", 1)[-1]
            where = f"{first.path}:{first.call.line}"
            return f"which {caller}() runs inside a transaction at {where}: {hops_text(self.hops)}"
        runs = requests.FRAMEWORK_TRANSACTIONS[handler.framework]
        if not self.hops:
            return f"{handler.how} ({handler.path}:{handler.entry.line}) run {runs}"
        return f"which {handler.name}(), {handler.how} run {runs}, calls: {hops_text(self.hops)}"

    def related(self) -> tuple[Related, ...]:
        found: list[Related] = []
        handler = self.handler
        if handler is not None:
            entry = handler.entry
            runs = requests.FRAMEWORK_TRANSACTIONS[handler.framework]
            found.append(
                Related(handler.path, line_span(entry.line), f"{handler.name}() runs {runs}")
            )
            if entry.route and entry.route != entry.line:
                found.append(Related(handler.path, line_span(entry.route), "its route"))
        if self.sent is not None:
            path, line, own = self.sent
            found.append(Related(path, line_span(line), f"connected here; sent inside {own}"))
        if handler is not None and handler.committer is not None:
            path, line, said = handler.committer
            found.append(Related(path, line_span(line), said))
        found.extend(Related(hop.path, line_span(hop.call.line), hop.step()) for hop in self.hops)
        found.extend(
            Related(path, line_span(1), "the settings that turn it on") for path in self.settings
        )
        return tuple(found)


@dataclass(slots=True)
class RequestReach:
    """The request handlers of the loaded modules, and what they reach."""

    graph: CallGraph
    index: ProjectIndex
    handlers: RequestHandlers = field(init=False)
    _reached: dict[str, Reach | None] = field(default_factory=dict)
    _own_sent: dict[str, tuple[str, int, str]] | None = None

    def __post_init__(self) -> None:
        self.handlers = RequestHandlers(self.graph.calls, self.graph.indirect, self.index)

    def reached(self, qualname: str) -> Reach | None:
        """The nearest handler (fewest calls away) reaching the function `qualname`."""
        start = self.graph.calls.resolve(qualname)
        if start is None:
            return None
        if start not in self._reached:
            self._reached[start] = self._search(start)
        return self._reached[start]

    def _search(self, start: str) -> Reach | None:
        """Breadth first, up the callers: a request handler, or a call inside
        a transaction on the way to a signal's send (a call inside one that
        reaches the function through plain calls has its own finding)."""
        handlers, callers = self.handlers.by_function(), self.graph.indirect.callers()
        own_sent = self._own_transaction_receivers()
        # An async function runs only where it is awaited: in an async
        # handler of a framework that may run one inside a transaction.
        functions = self.graph.calls.functions
        runs_after = self.graph.walks.runs_after
        awaited = functions[start][0].asynchronous
        # Each function, the calls from it down to `start`, and whether a
        # signal's send is among them.
        frontier: list[tuple[str, tuple[Hop, ...], bool]] = [(start, (), False)]
        seen = {start}
        for depth in range(MAX_HOPS + 1):
            following: list[tuple[str, tuple[Hop, ...], bool]] = []
            for function, hops, signalled in frontier:
                found = handlers.get(function, [])
                if awaited and not functions[function][0].asynchronous:
                    found = []
                if found:
                    handler = found[0]
                    return Reach(handler, hops, self.handlers.settings(handler))
                sent = own_sent.get(function)
                if sent is not None:
                    return Reach(None, hops, sent=sent)
                if depth == MAX_HOPS:
                    continue
                for caller, where, call, inside, sends in callers.get(function, ()):
                    if hops and not runs_after(function, call, hops[0].call):
                        continue  # the flags this call passes rule the next one out
                    step = (Hop(caller, where, call), *hops)
                    if inside:
                        if signalled or sends:
                            return Reach(None, step)
                        continue
                    if caller not in seen:
                        seen.add(caller)
                        following.append((caller, step, signalled or sends))
            frontier = following
        return None

    def called_inside_transaction(self, qualname: str) -> tuple[str, int, str] | None:
        """The nearest call made inside a library's transaction (fewest calls
        up) that leads, through plain calls, to the function `qualname`:
        where it is, and the name of the function making it."""
        start = self.graph.calls.resolve(qualname)
        if start is None:
            return None
        callers = self.graph.indirect.callers()
        frontier, seen = [start], {start}
        for _ in range(MAX_HOPS):
            following: list[str] = []
            for function in frontier:
                for caller, where, call, inside, _sends in callers.get(function, ()):
                    if inside:
                        return where, call.line, short_name(caller)
                    if caller not in seen:
                        seen.add(caller)
                        following.append(caller)
            frontier = following
        return None

    def committed_before(self, reach: Reach, function: str, line: int) -> bool:
        """A function on the way commits the request's session itself
        (`db.commit()`) before its call on the way to the enqueue, or the
        enqueue's own `function` before the enqueue (`line`): the request's
        COMMIT holds nothing the job may need that was written before."""
        if reach.handler is None:
            return False
        steps = [(hop.function, hop.call.line) for hop in reach.hops]
        if not steps:
            steps = [(reach.handler.entry.qualname, line)]
        steps.append((function, line))
        graph = self.graph
        for name, cutoff in steps:
            found = graph.calls.resolve(name)
            if found is not None and any(
                c < cutoff for c in graph.calls.functions[found][0].commits
            ):
                return True
        return False

    def depends(self, reach: Reach, task: str) -> bool:
        """Whether the job can depend on the request's transaction: it is
        another kind of reach (a signal's), the task's body is not known,
        what the request writes can't be told, or the task reads or writes
        a class the request writes. A request writing nothing, or nothing
        the task touches, races no job."""
        if reach.handler is None:
            return True
        return self.handler_depends(reach.handler.entry.qualname, task, reach.handler.framework)

    def handler_depends(self, handler: str, task: str, framework: str = "") -> bool:
        """`depends`, for the request handler `handler` enqueuing `task` ("":
        a job whose body isn't the project's to read). A request writing
        nothing races no job, whatever its body; one whose writes can be
        told races a job whose body reads or writes one of those classes,
        and any job whose body can't be read."""
        graph = self.graph
        function = graph.calls.resolve(handler)
        if function is None:
            return True
        if not framework:
            found = self.handlers.by_function().get(function)
            framework = found[0].framework if found else ""
        fields_written = framework in requests.FIELD_SETS_WRITE
        written = self._written_under(function, fields_written)
        if written is None:
            return True
        if not written:
            return False
        start = graph.calls.resolve(task) if task else None
        if start is None or graph.calls.functions[start][0].stub:
            return True
        return graph.effects.touches(task, frozenset(written))

    def _written_under(self, function: str, fields_written: bool) -> set[str] | None:
        """The classes the function and everything it calls write, or None
        where a write names none (`fields_written`: a field set is a write)
        or a call leads to a function of the project no summary tells. A
        call on an object of a type no summary tells (a library's object a
        module holds, an attribute of a class) writes only where its method
        is a write's (the summary's blind write)."""
        graph = self.graph
        found: set[str] = set()
        seen, todo = {function}, [function]
        for _ in range(MAX_HOPS):
            following: list[str] = []
            for name in todo:
                summary, path = graph.calls.functions[name]
                if summary.blind_writes or (fields_written and summary.field_sets):
                    return None
                if self._writes_through_super(name, summary.super_calls):
                    return None  # the form's, view's or serializer's model
                # A form's or serializer's `save()` is no write of its own
                # class: the call is followed into the overrides it runs.
                writes = tuple(w for w in summary.writes if not self._saves_by_overrides(w))
                found.update(writes)
                for call in summary.calls:
                    if _written_owner_call(call.callee, writes):
                        continue
                    if graph.enqueues.enqueued_by(call, path) is not None:
                        continue  # a job: it writes nothing of the request's
                    callees = self.graph.indirect.runs(call) or graph.indirect.signal_receivers(
                        call
                    )
                    if not callees:
                        callee = self.index.canonical(call.callee)
                        if _on_the_request(callee):
                            continue  # the framework's request object: it reads
                        owner, _, method = callee.rpartition(".")
                        if requests.writes_rows(method, owner.rpartition(".")[2]):
                            return None  # `session.add(row)`, `self.form.save()`: unnamed
                        if self._unknown_project_function(callee):
                            return None
                        continue
                    for callee in callees:
                        if callee not in seen:
                            seen.add(callee)
                            following.append(callee)
            todo = following
        return None if todo else found

    def _writes_through_super(self, function: str, methods: tuple[str, ...]) -> bool:
        """A method calling, through `super()`, a library base's method that
        writes (`super().form_valid(form)` in a `CreateView`)."""
        owner = function.rpartition(".")[0]
        return any(
            method in django.SUPER_WRITES
            and self.graph.calls.derives(owner, django.SUPER_WRITES[method])
            for method in methods
        )

    def _saves_by_overrides(self, owner: str) -> bool:
        """The class is a library's saving class whose `save()` runs methods
        the project overrides (a DRF serializer's `create`/`update`)."""
        return self.graph.calls.derives(owner, tuple(django.CALLS_OVERRIDES))

    def _unknown_project_function(self, callee: str) -> bool:
        """A call of the project's code no loaded summary tells: not one on a
        class (`of_a_class`), on a task (`send.chunks(...)`), on what a
        function returns where it is of a known kind (`build().exclude`), on
        a module's object (`name = Maker()`) the project didn't write
        (`_ = TranslationStringFactory("h")`), nor a built-in value's method
        that changes nothing (`.items()`); a method of a service no loaded
        registration tells is one."""
        index, graph = self.index, self.graph
        if requests.names_service(callee):
            return True  # a service no loaded registration tells: the project's
        if not index.in_project(callee) or graph.calls.of_a_class(callee):
            return False
        if callee.rpartition(".")[2] in requests.PURE_METHODS:
            return False  # `validate(data).items()`: a built-in value's, whatever it is
        parts = callee.split(".")
        for end in range(2, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if index.canonical(prefix) in index.tasks:
                return False  # a task's method (`send.chunks(...)`)
            returning = graph.calls.resolve(prefix) if end < len(parts) else None
            if returning is not None:
                # A method of what the function returns: the library's where
                # the return is a known kind, else a type no summary tells.
                return not graph.calls.returns_known(returning)
            maker = index.instances.get(prefix) or graph.calls.instances.get(prefix)
            if maker is not None and not index.in_project(index.canonical(maker)):
                return False
            if prefix in index.constants:
                return False
        return True

    def _own_transaction_receivers(self) -> dict[str, tuple[str, int, str]]:
        """Functions connected to a signal the framework sends inside its own
        transaction (a receiver a factory builds, too): where, and which."""
        if self._own_sent is None:
            found: dict[str, tuple[str, int, str]] = {}
            graph = self.graph
            for path in sorted(graph.calls.by_path):
                for signal, handler, line in graph.calls.by_path[path].connections:
                    own = requests.OWN_TRANSACTION_SIGNALS.get(self.index.canonical(signal))
                    if own is None:
                        continue
                    for function in graph.indirect.connected_functions(handler):
                        found.setdefault(function, (path, line, own))
            self._own_sent = found
        return self._own_sent


def _on_the_request(callee: str) -> bool:
    """`self.request.route_url()`, `request.session.flash()`: a method of the
    request a handler is handed (its writes, `request.db.add()`, are blind
    writes of the function making them)."""
    return pyramid.REQUEST_NAME in callee.split(".")[1:-1]


def _written_owner_call(callee: str, writes: tuple[str, ...]) -> bool:
    """The call is one of the writes the summary already names."""
    return any(callee.startswith(f"{owner}.") for owner in writes)


# --- the requirements on a request's reach --------------------------------------------


@judges(RequestDepends)
def _request_depends(
    index: ProjectIndex, requirement: RequestDepends, path: str, line: int
) -> bool:
    return index.reach.handler_depends(requirement.handler, requirement.task)


@judges(Reached)
def _reached(index: ProjectIndex, requirement: Reached, path: str, line: int) -> bool:
    reach = index.reach.reached(requirement.function)
    if reach is None or index.reach.committed_before(reach, requirement.function, line):
        return False
    return index.reach.depends(reach, requirement.task)


@names(Reached, placeholder=REACHED_FROM)
def _naming_handler(
    index: ProjectIndex, finding: Finding, requirement: Reached, path: str
) -> Finding | None:
    """The message names the request handler reaching the enqueue, and the chain."""
    reach = index.reach.reached(requirement.function)
    if reach is None:
        return None
    message = finding.message.replace(REACHED_FROM, reach.text())
    hint = requests.FRAMEWORK_FIX_HINTS.get(reach.framework)
    head, said, tail = message.partition(BEFORE_COMMIT)
    if hint is None and reach.framework == "django" and tail == FIX_HINTS[TxFamily.GENERIC]:
        hint = FIX_HINTS[TxFamily.DJANGO]  # no on-commit variant of its own
    if hint is not None and said:
        message = f"{head}{said}{hint}"
    return replace(finding, message=message, related=(*reach.related(), *finding.related))
