"""What the project model inferred for one module, in words: which of its
functions open a transaction, which enqueue (and through which calls), and
what its calls inside transactions lead to. `joblint check
--show-project-model PATH` prints it, so a user can see why a finding was or
was not reported."""

from __future__ import annotations

from joblint.models import FunctionSummary, ProjectCall
from joblint.pipeline.project.call_graph import MAX_HOPS, CallGraph

_HOW = {
    "with": "a context manager that yields inside one",
    "decorator": "a decorator whose wrapper calls the function inside one",
    "returns": "it returns one",
}


def describe(graph: CallGraph, path: str) -> list[str]:
    """The lines to print for the file at `path`."""
    module = graph.by_path.get(path)
    if module is None:
        return [f"{path}: not in the project model (no function of it could be read)"]
    lines = [f"{path}: module {module.module}"]
    described = [_function(graph, summary, path, module.module) for summary in module.functions]
    found = [block for block in described if block]
    if not found:
        lines.append("  nothing inferred: no function opens a transaction or leads to an enqueue")
    for block in found:
        lines.extend(block)
    return lines


def _function(graph: CallGraph, summary: FunctionSummary, path: str, module: str) -> list[str]:
    facts: list[str] = []
    if summary.opens is not None:
        if graph.opens_transaction(summary.qualname):
            facts.append(f"opens a transaction ({_HOW.get(summary.opens.how, summary.opens.how)})")
        else:
            vias = ", ".join(summary.opens.via)
            facts.append(f"would open a transaction if {vias} did; none of them does")
    chain = graph.chain(summary.qualname, path)
    if chain is not None:
        facts.append(f"enqueues {chain.enqueued.subject}: {chain.text()}")
    facts.extend(
        _in_transaction(graph, call, path) for call in summary.calls if call.transaction is not None
    )
    if not facts:
        return []
    name = summary.qualname.removeprefix(module + ".")
    return [f"  {name} (line {summary.line})", *(f"    - {fact}" for fact in facts)]


def _in_transaction(graph: CallGraph, call: ProjectCall, path: str) -> str:
    where = "a transaction" if not call.transaction else " or ".join(call.transaction)
    head = f"line {call.line}: {call.text}() inside {where}"
    if call.transaction and not any(graph.opens_transaction(q) for q in call.transaction):
        return f"{head}: no transaction is known to open there"
    enqueued = graph.enqueued_by(call, path)
    if enqueued is not None:
        return f"{head}: enqueues {enqueued.subject}"
    chain = graph.chain(call.callee, path)
    if chain is not None:
        return f"{head}: leads to {chain.enqueued.subject} ({chain.text()})"
    if graph.resolve(call.callee) is None:
        return f"{head}: {call.callee} is not a function the project model could read"
    return f"{head}: no enqueue found within {MAX_HOPS} calls"
