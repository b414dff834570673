"""The modules that may make a FastAPI request a transaction.

Takes every file read and the results and context so far; where JL101 is
selected and a module imports FastAPI (whose handlers' dependencies may
commit the request's session after the `yield`), gives, as context, the
index of the modules that may define such a dependency (a generator that
commits) and of those importing the framework (its routes): a route
depending on one turns the request's transactions on.
"""

from __future__ import annotations

import re

from joblint.models import FileResult
from joblint.pipeline.schedule.requirements import ENQUEUE_IN_TRANSACTION
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run

# The frameworks of `requests.DEPENDENCY_FRAMEWORKS`, as their imports read.
_DEPENDENCY_FRAMEWORK = re.compile(rb"^\s*(?:from|import)\s+fastapi\b", re.MULTILINE)
_COMMIT_CALL = re.compile(rb"\.commit\(\s*\)")


def read_session_dependencies(
    run: Run, everything: list[Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """Where the project uses a framework whose handlers' dependencies may
    commit the request's session (FastAPI), the index of the modules that
    may define one (a generator that commits) and of those importing the
    framework (its routes): a route depending on one turns the request's
    transactions on. Returns those read now."""
    if ENQUEUE_IN_TRANSACTION not in run.selector.base:
        return []
    if not any(_uses_dependency_framework(s.data) for s in everything):
        return []
    indexed = {r.path for r in [*results, *context] if r.index is not None}
    candidates = [
        s
        for s in everything
        if s.shown not in indexed
        and (
            (b"yield" in s.data and _COMMIT_CALL.search(s.data))
            or _uses_dependency_framework(s.data)  # its routes, and what they depend on
        )
    ]
    return run.index(candidates)


def _uses_dependency_framework(data: bytes) -> bool:
    # The substring first: a scan in C, where the anchored pattern is not.
    return b"fastapi" in data and _DEPENDENCY_FRAMEWORK.search(data) is not None
