"""The modules registering functions a framework runs after or around its
request handlers (Flask's teardowns, Starlette's middleware).

Takes every file read and the results and context so far; where JL101 is
selected and a module imports Flask, Starlette or FastAPI, gives, as
context, the index of the modules that may register such a hook, then of
those defining what they register, and, where one may commit after the
handlers, of the modules that may register a handler by a call
(`Route("/x", endpoint)`): the project step tells which handlers run inside
the session a hook commits.
"""

from __future__ import annotations

import re

from joblint.knowledge import requests
from joblint.models import FileResult
from joblint.pipeline.project import candidate_modules
from joblint.pipeline.schedule.on_demand import Indexer
from joblint.pipeline.schedule.requirements import ENQUEUE_IN_TRANSACTION, hooks_commit
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run

# The frameworks running functions after or around their handlers
# (`requests.HOOKS`), as their imports read; the words of a module naming one.
_HOOK_FRAMEWORK_WORDS = (b"flask", b"starlette", b"fastapi")
_HOOK_FRAMEWORK = re.compile(rb"^\s*(?:from|import)\s+(?:flask|starlette|fastapi)", re.MULTILINE)
_HOOK_WORDS = tuple(word.encode() for word in requests.HOOK_WORDS)
_ROUTE_CALL_WORDS = tuple(word.encode() for word in requests.ROUTE_CALL_WORDS)


def read_request_hooks(
    run: Run, everything: list[Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """Where the project uses a framework running functions after or around
    its handlers (Flask's teardowns, Starlette's middleware), the index of
    the modules that may register one, then of those defining what they
    register; where one may commit after the handlers, of the modules that
    may register a handler by a call (`Route("/x", endpoint)`): the project
    step tells which handlers run inside the session it commits. Returns
    those read now."""
    if ENQUEUE_IN_TRANSACTION not in run.selector.base:
        return []
    if not any(_uses_hook_framework(s.data) for s in everything):
        return []
    reader = Indexer(run, [*results, *context])
    read, loaded = reader.read, reader.loaded

    read([s for s in everything if any(word in s.data for word in _HOOK_WORDS)])
    have = [*results, *context, *loaded]
    # What they register, and the objects a blueprint's own hooks are
    # registered on (whether they are blueprints).
    targets = {
        name
        for r in have
        if r.index is not None
        for hook in r.index.hooks
        for name in (hook.target, hook.of)
        if name
    }
    modules = run.grouped(everything)
    read(modules.of(candidate_modules(targets, modules, modules.roots)))
    if hooks_commit([*results, *context, *loaded]):
        read([s for s in everything if any(word in s.data for word in _ROUTE_CALL_WORDS)])
    return loaded


def _uses_hook_framework(data: bytes) -> bool:
    # The substrings first: scans in C, where the anchored pattern is not.
    return any(w in data for w in _HOOK_FRAMEWORK_WORDS) and bool(_HOOK_FRAMEWORK.search(data))
