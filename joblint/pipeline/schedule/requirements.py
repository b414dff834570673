"""What the results read so far ask of the rest of the project, and tell
about it: the requirements their pending findings make (`requirements`,
`reached`), whether a framework's requests run in transactions
(`request_transactions`, `hooks_commit`, `dependency_sessions`), and who
calls a function by name (`callers_named`). Pure functions of the results:
the passes that read more of the project decide with them what to read."""

from __future__ import annotations

from typing import TypeVar

from joblint.knowledge import requests
from joblint.models import HOOK_AROUND, HOOK_SETTING, FileResult
from joblint.requirements import Reached, Requirement

# The rule whose findings a request's transaction adds.
ENQUEUE_IN_TRANSACTION = "JL101"


_Required = TypeVar("_Required", bound=Requirement)


def requirements(results: list[FileResult], kind: type[_Required]) -> list[_Required]:
    """The requirements of one type the pending findings of `results` make."""
    return [
        requirement
        for result in results
        for pending in result.pending
        for requirement in pending.requires
        if isinstance(requirement, kind)
    ]


def function_names(qualname: str) -> set[str]:
    """The function's own name, and those of the functions it is nested in
    (a factory's: connecting what it returns names the factory)."""
    parts = qualname.split(".")
    nested = {parts[i - 1] for i, part in enumerate(parts) if part == "<locals>" and i}
    return {parts[-1], *nested}


def reached_functions(results: list[FileResult], context: list[FileResult]) -> set[str]:
    return {requirement.function for requirement in reached(results, context)}


def reached(results: list[FileResult], context: list[FileResult]) -> list[Reached]:
    """The pending findings' `Reached` requirements; an async function's
    only where a handler may run one inside a transaction (a FastAPI
    dependency or a middleware committing its session): elsewhere no
    search can end."""
    found = requirements(results, Reached)
    if not any(r.is_async for r in found) or dependency_sessions(results):
        return found
    # The hooks' modules are read for the context (`passes/request_hooks.py`).
    if hooks_commit([*results, *context]):
        return found
    return [r for r in found if not r.is_async]


def request_transactions(results: list[FileResult]) -> bool:
    """Whether some settings turn on a framework's request transactions, or
    a module defines a dependency committing its session after the handler,
    or registers a function committing after the handlers."""
    flags = set(requests.FRAMEWORK_FLAGS.values())
    if any(not flags.isdisjoint(r.facts.flags) for r in results):
        return True
    return dependency_sessions(results) or hooks_commit(results)


def hooks_commit(results: list[FileResult]) -> bool:
    """Whether a module registers a function after or around request
    handlers (`ModuleIndex.hooks`) that a loaded summary of the name shows
    committing after them, or a setting committing after them; the project
    step tells which handlers they run after."""
    indexes = [r.index for r in results if r.index is not None]
    hooks = [hook for index in indexes for hook in index.hooks]
    if not hooks:
        return False
    settings = {hook.target for hook in hooks if hook.kind == HOOK_SETTING}
    if settings:
        return True
    after = {h.target.rsplit(".", 1)[-1] for h in hooks if h.kind != HOOK_AROUND}
    around = {h.target.rsplit(".", 1)[-1] for h in hooks if h.kind == HOOK_AROUND}
    for index in indexes:
        for summary in index.functions:
            if summary.commit_settings:
                continue  # it commits only where a setting no module sets is on
            parts = summary.qualname.split(".")
            if parts[-1] in after and summary.commits:
                return True
            if summary.commits and not around.isdisjoint(parts[:-1]):
                return True  # a middleware's method or a function it defines
    return False


def dependency_sessions(results: list[FileResult]) -> bool:
    """Whether a handler depends on something and a dependency commits its
    session after the `yield` (FastAPI's request transactions)."""
    indexes = [r.index for r in results if r.index is not None]
    return any(e.depends for i in indexes for e in i.entries) and any(
        summary.commits_after_yield for i in indexes for summary in i.functions
    )


def callers_named(
    results: list[FileResult],
    names: set[str],
    registering: set[str],
    commands: set[str] | None = None,
) -> set[str]:
    """The unqualified names of the functions in `results` calling one of
    `names` (or running one of the management `commands`), but for request
    handlers: the search up stops at them (a view's `post` is called by the
    framework, and names a thousand other things); at a function a decorator
    of the project decorates, where the decorator is loaded and `registering`."""
    found: set[str] = set()
    commands = commands or set()
    for result in results:
        if result.index is None:
            continue
        handlers = {
            entry.qualname
            for entry in result.index.entries
            if entry.needs != "decorator" or entry.of in registering
        }
        found.update(
            summary.qualname.rsplit(".", 1)[-1]
            for summary in result.index.functions
            if summary.qualname not in handlers
            and any(
                call.callee.rsplit(".", 1)[-1] in names or call.command in commands
                for call in summary.calls
            )
        )
    return found
