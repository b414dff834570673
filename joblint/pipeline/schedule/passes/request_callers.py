"""Who may run a function in a transaction nobody wrote around it: the
callers up to a request handler or a signal sent inside a transaction.

Takes every file read, the pool of files not linted and the results and
context so far. Where a pending finding asks whether its function is
reached so (`Reached`), gives, as context, the index of the functions' own
modules and of the files connecting them to a signal; then, hop by hop up
to `MAX_HOPS`, of every file sending a signal one of them receives, and
(where the project's settings make a framework's requests transactions) of
every file calling one of them by name or running the management command
whose handler calls one, whether the prefilter skipped it or not (a views
module needs no enqueue token of its own), but for test modules (no request
runs a test); then what the project model
reads to tell whether the job depends on the request's writes.
"""

from __future__ import annotations

import re

from joblint.knowledge import jobs, requests
from joblint.models import FileResult
from joblint.pipeline.project import ProjectIndex, candidate_modules
from joblint.pipeline.project.call_graph import MAX_HOPS
from joblint.pipeline.schedule.on_demand import Indexer, read_on_demand
from joblint.pipeline.schedule.requirements import (
    callers_named,
    function_names,
    reached,
    reached_functions,
    request_transactions,
    requirements,
)
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run, holds_tests
from joblint.pipeline.schedule.words import Words, word_finder
from joblint.requirements import RequestDepends

# Words a module connecting a receiver to a signal holds (`@receiver(`,
# `.connect(`).
_CONNECTING_WORDS = (b"receiver", b".connect")
# The names a module calls a command runner by (`call_command`).
_COMMAND_RUNNERS = tuple(n.encode() for n in sorted(requests.COMMAND_RUNNER_NAMES))


def read_request_callers(
    run: Run,
    everything: list[Source],
    pool: list[Source],
    results: list[FileResult],
    context: list[FileResult],
) -> list[FileResult]:
    """Where a pending finding asks whether something runs its function in
    a transaction nobody wrote around it (`Reached`): the index of the
    functions' own modules and of the files connecting them to a signal;
    then, hop by hop up to `MAX_HOPS`, of every file sending a signal one
    of them receives, and (where the project's settings make a framework's
    requests transactions) of every file calling one of them by name,
    whether the prefilter skipped it or not: a views module needs no
    enqueue token of its own. Returns those read now."""
    targets = reached_functions(results, context)
    if not targets:
        return []
    requests_on = request_transactions([*results, *context])
    modules = run.grouped(everything)
    reader = Indexer(run, [*results, *context])
    read, loaded = reader.read, reader.loaded

    own = modules.of(candidate_modules(targets, modules, modules.roots))
    if not requests_on:  # only signals may reach them: modules that connect receivers
        own = [s for s in own if any(word in s.data for word in _CONNECTING_WORDS)]
    read(own)
    asked = {part for name in targets for part in function_names(name)}
    models = _saving_models(targets) if requests_on else set()
    made = _manager_writes(models)
    if made is not None:
        # `Order.objects.create(...)` runs the model's own `save()`.
        found = read([s for s in everything if made.search(s.data)])
        registering = _registering([*results, *context, *loaded])
        asked |= callers_named(found, set(requests.MANAGER_CALLS_INSTANCE), registering)
    connecting = word_finder(asked, rb"\s*[(),]")
    if connecting is not None:
        read([s for s in everything if b".connect" in s.data and connecting.search(s.data)])
    tests = run.selector.test_code()
    production = [s for s in everything if not holds_tests(s, tests)]
    looked_for: set[str] = set()
    signals_sent: set[str] = set()
    commands_run: set[str] = set()
    mixins_looked_for: set[str] = set()
    for _ in range(MAX_HOPS):
        signals = _signals_of([*results, *context, *loaded], asked) - signals_sent
        signals_sent |= signals
        sends = word_finder(signals, rb"\.send")
        found = []
        if sends is not None:
            found = read([s for s in everything if sends.search(s.data)])
            asked |= _senders(found, signals)
        names = word_finder(asked - looked_for, rb"\s*\(") if requests_on else None
        looked_for |= asked
        if names is not None:
            # A test calls what it tests, and no request runs a test: the
            # search up goes through production code (and test apps' views).
            calling = [s for s in production if names.search(s.data)]
            found = read(calling)
            # Files indexed before (linted ones) hold callers too: a method
            # calling another of its class is in the file the search starts from.
            shown = {s.shown for s in calling}
            have = [r for r in [*results, *context, *loaded] if r.path in shown]
            # The modules telling whether a handler is one: its router's, its decorator's.
            owners = {
                e.of for r in have if r.index for e in r.index.entries if e.needs in _NEEDS_OWNER
            }
            read(modules.of(candidate_modules(owners, modules, modules.roots)))
            # A mixin's request-taking method is a handler of the views that
            # derive from it: the modules naming the mixin may define them.
            mixins = _mixins_with_handlers(have, asked) - mixins_looked_for
            mixins_looked_for |= mixins
            naming = word_finder({m.rpartition(".")[2] for m in mixins})
            if naming is not None:
                read([s for s in everything if naming.search(s.data)])
            registering = _registering([*results, *context, *loaded])
            asked |= callers_named(have, looked_for, registering)
        # Nobody calls a command's handler by its name: the callers of the
        # commands on the way name their modules (`call_command("x")`).
        commands = set()
        if requests_on:
            commands = _commands_on_the_way([*results, *context, *loaded], asked) - commands_run
            commands_run |= commands
        running = word_finder(commands, rb"['\"]")
        if running is not None:
            found = read([s for s in everything if _runs_command(s.data, running)])
            registering = _registering([*results, *context, *loaded])
            asked |= callers_named(found, looked_for, registering, commands)
        elif names is None and sends is None:
            break

    def handlers_and_tasks(index: ProjectIndex) -> set[str]:
        """What resolving the calls on the way reads (the classes a caller's
        call names, the bases they inherit from); and what telling whether a
        job depends on the request's writes reads: the handler's calls, all
        the way down, and the task's body."""
        # Wherever the caller was read (a file the run linted calls them
        # too), where the search goes up to request handlers.
        callers = [*results, *context, *loaded] if requests_on else loaded
        found = {
            call.callee
            for result in callers
            if result.index is not None
            for summary in result.index.functions
            for call in summary.calls
            if call.callee.rsplit(".", 1)[-1] in asked
        }
        # The model's method a manager's write runs (`Order.objects.create`
        # runs `Order.save`), as the call names the model: wherever it is.
        found |= {
            f"{call.callee.rsplit('.', 2)[0]}.{method}"
            for result in [*results, *context, *loaded]
            if models and result.index is not None
            for summary in result.index.functions
            for call in summary.calls
            if call.text.split(".", 1)[0] in models
            for method in requests.MANAGER_CALLS_INSTANCE.get(call.callee.rsplit(".", 1)[-1], ())
        }
        for requirement in reached(results, [*context, *loaded]):
            reach = index.reach.reached(requirement.function)
            if reach is not None and reach.handler is not None and requirement.task:
                found.add(reach.handler.entry.qualname)
                found.add(requirement.task)
        for depends in requirements(results, RequestDepends):
            found.add(depends.handler)
            if depends.task:
                found.add(depends.task)
        return found

    loaded.extend(
        read_on_demand(run, everything, pool, results, [*context, *loaded], handlers_and_tasks)
    )
    return loaded


def _saving_models(targets: set[str]) -> set[str]:
    """The classes (unqualified) of the targets a manager's write runs (a
    model's `save()`)."""
    instance = {m for methods in requests.MANAGER_CALLS_INSTANCE.values() for m in methods}
    return {
        parts[-2]
        for target in targets
        if len(parts := target.split(".")) >= 2 and parts[-1] in instance
    }


def _manager_writes(models: set[str]) -> re.Pattern[bytes] | None:
    """The manager calls naming one of the classes `models` that run its
    `save()` (`Order.objects.create(`)."""
    if not models:
        return None
    managers = b"|".join(re.escape(m.encode()) for m in sorted(requests.MODEL_MANAGERS))
    writes = b"|".join(re.escape(m.encode()) for m in sorted(requests.MANAGER_CALLS_INSTANCE))
    names = b"|".join(re.escape(m.encode()) for m in sorted(models))
    return re.compile(rb"\b(?:" + names + rb")\.(?:" + managers + rb")\.(?:" + writes + rb")\s*\(")


def _signals_of(results: list[FileResult], handlers: set[str]) -> set[str]:
    """The unqualified names of the signals the functions named `handlers` receive."""
    return {
        signal.rsplit(".", 1)[-1]
        for result in results
        if result.index is not None
        for signal, handler, _ in result.index.connections
        if handler.rsplit(".", 1)[-1] in handlers or handler.endswith(".<returned>")
    }


def _senders(results: list[FileResult], signals: set[str]) -> set[str]:
    """The unqualified names of the functions in `results` sending one of `signals`."""
    return {
        summary.qualname.rsplit(".", 1)[-1]
        for result in results
        if result.index is not None
        for summary in result.index.functions
        if any(
            call.callee.rpartition(".")[2] in requests.SEND_METHODS
            and call.callee.rsplit(".", 2)[-2:-1][0] in signals
            for call in summary.calls
            if call.callee.count(".") >= 1
        )
    }


# Handlers whose router or decorator tells whether they are ones.
_NEEDS_OWNER = frozenset({"router", "decorator"})


def _mixins_with_handlers(results: list[FileResult], asked: set[str]) -> set[str]:
    """The classes deriving from nothing the project or a framework gives
    (`class ReportMixin:`) whose methods taking the request are on the way
    (named in `asked`): handlers only of the views that derive from them."""
    found: set[str] = set()
    for result in results:
        index = result.index
        if index is None:
            continue
        owners = {
            e.of
            for e in index.entries
            if e.needs == "class" and e.qualname.rpartition(".")[2] in asked
        }
        for qualname, bases in index.classes:
            if qualname in owners and not any(_gives_kind(base) for base in bases):
                found.add(qualname)
    return found


def _gives_kind(base: str) -> bool:
    return base.startswith(requests.REQUEST_CLASS_BASES) or jobs.may_be_project_code(base)


def _registering(results: list[FileResult]) -> set[str]:
    """The qualified names of the loaded decorator factories registering
    request handlers (a class's, whose `__call__` does)."""
    found: set[str] = set()
    for result in results:
        if result.index is None:
            continue
        for summary in result.index.functions:
            if summary.registers:
                found.add(summary.qualname.removesuffix(".__call__"))
    return found


def _commands_on_the_way(results: list[FileResult], asked: set[str]) -> set[str]:
    """The names of the management commands (`<app>.management.commands.<name>`)
    whose handler is asked for by name or calls a function that is."""
    found: set[str] = set()
    for result in results:
        index = result.index
        if index is None or not requests.command_name(index.module):
            continue
        handler = requests.command_handler(index.module)
        for summary in index.functions:
            if summary.qualname == handler and (
                handler.rsplit(".", 1)[-1] in asked
                or any(call.callee.rsplit(".", 1)[-1] in asked for call in summary.calls)
            ):
                found.add(requests.command_name(index.module))
    return found


def _runs_command(data: bytes, commands: Words) -> bool:
    """The file's bytes call a command runner and quote one of `commands`
    (`call_command("rebuild_index"`): a file that may run one of them."""
    return any(n in data for n in _COMMAND_RUNNERS) and commands.search(data)
