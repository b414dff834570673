"""What the project model inferred for one module, in words: the task
decorators it builds, which of its functions open a transaction, which
enqueue (and through which calls), which are tasks by a project decorator,
what they return, and what their calls inside transactions lead to. `joblint check
--show-project-model PATH` prints it, so a user can see why a finding was or
was not reported."""

from __future__ import annotations

from joblint.knowledge import jobs, payloads
from joblint.models import DecoratorUse, FunctionSummary, ProjectCall, TaskDecorator
from joblint.pipeline.project.call_graph import CallGraph
from joblint.pipeline.project.hops import MAX_HOPS

_HOW = {
    "with": "a context manager that yields inside one",
    "decorator": "a decorator whose wrapper calls the function inside one",
    "returns": "it returns one",
}


def describe(graph: CallGraph, path: str) -> list[str]:
    """The lines to print for the file at `path`."""
    module = graph.calls.by_path.get(path)
    if module is None:
        return [f"{path}: not in the project model (no function of it could be read)"]
    lines = [f"{path}: module {module.module}"]
    built = [_built_decorator(graph, d) for d in module.task_decorators]
    described = [_function(graph, summary, path, module.module) for summary in module.functions]
    found = [block for block in described if block]
    if not found and not built:
        lines.append("  nothing inferred: no function opens a transaction or leads to an enqueue")
    for block in [*built, *found]:
        lines.extend(block)
    return lines


def _built_decorator(graph: CallGraph, built: TaskDecorator) -> list[str]:
    name = built.qualname.rpartition(".")[2]
    decorating = graph.decorators.task_decorator(built.qualname)
    what = f"{decorating.library or 'an app'}'s task" if decorating else "no known task"
    options = _options(decorating.options if decorating else dict(built.options))
    return [
        f"  {name} (line {built.line})",
        f"    - task decorator built on {built.via}: {what}{options}",
    ]


def _options(options: dict[str, str]) -> str:
    if not options:
        return ""
    return ", with " + ", ".join(f"{k}={v or '...'}" for k, v in sorted(options.items()))


def _function(graph: CallGraph, summary: FunctionSummary, path: str, module: str) -> list[str]:
    facts: list[str] = []
    if summary.opens is not None:
        if graph.transactions.opens_transaction(summary.qualname):
            facts.append(f"opens a transaction ({_HOW.get(summary.opens.how, summary.opens.how)})")
        else:
            vias = ", ".join(summary.opens.via)
            facts.append(f"would open a transaction if {vias} did; none of them does")
    chain = graph.enqueues.chain(summary.qualname, path)
    if chain is not None:
        facts.append(f"enqueues {chain.enqueued.subject}: {chain.text()}")
    facts.extend(task for task in (_task(graph, use) for use in summary.decorators) if task)
    facts.extend(_returns(graph, summary.qualname))
    facts.extend(
        _in_transaction(graph, call, path) for call in summary.calls if call.transaction is not None
    )
    if not facts:
        return []
    name = summary.qualname.removeprefix(module + ".")
    return [f"  {name} (line {summary.line})", *(f"    - {fact}" for fact in facts)]


def _task(graph: CallGraph, use: DecoratorUse) -> str | None:
    """What a decorator the project builds registers the function as (a
    library's own decorator is no news); None for no task."""
    if use.qualname in jobs.TASK_DECORATORS:
        return None
    decorating = graph.decorators.task_decorator(use.qualname, use.called)
    if decorating is None:
        return None
    options = {**decorating.options, **dict(use.options)}
    library = decorating.library or "an app"
    return f"a {library} task by the project's @{use.qualname}{_options(options)}"


def _returns(graph: CallGraph, qualname: str) -> list[str]:
    returned = graph.calls.index.returns.returned(qualname, False, MAX_HOPS, frozenset())
    if not returned:
        return []
    value = returned[0]
    kind = payloads.OBJECT_KINDS.get(value.kind)
    what = kind.what if kind is not None else value.kind
    through = [hop.function for hop in value.hops[1:]]
    via = f", through {' → '.join(f'{f}()' for f in through)}" if through else ""
    return [f"returns {what} ({value.class_name}{via})"]


def _in_transaction(graph: CallGraph, call: ProjectCall, path: str) -> str:
    where = "a transaction" if not call.transaction else " or ".join(call.transaction)
    head = f"line {call.line}: {call.text}() inside {where}"
    if call.transaction and not any(
        graph.transactions.opens_transaction(q) for q in call.transaction
    ):
        return f"{head}: no transaction is known to open there"
    enqueued = graph.enqueues.enqueued_by(call, path)
    if enqueued is not None:
        return f"{head}: enqueues {enqueued.subject}"
    chain = graph.enqueues.chain(call.callee, path)
    if chain is not None:
        return f"{head}: leads to {chain.enqueued.subject} ({chain.text()})"
    if graph.calls.resolve(call.callee) is None:
        return f"{head}: {call.callee} is not a function the project model could read"
    return f"{head}: no enqueue found within {MAX_HOPS} calls"
