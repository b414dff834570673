"""The URLconfs, where a framework's requests are transactions.

Takes every file read and the results and context so far; where the
project's settings make requests transactions (Django's `ATOMIC_REQUESTS`,
and the others `request_transactions` knows), gives, as context, the facts
of the modules defining `urlpatterns` that no pass read: the views they
register (`FileFacts.url_views`) make a function a view wherever it is
defined. Elsewhere no finding asks which views a URLconf registers, and
nothing else brings a module holding only URLs to LibCST.
"""

from __future__ import annotations

from joblint.libraries.django import URLCONF_NAME
from joblint.models import FileResult
from joblint.pipeline.schedule.requirements import request_transactions
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run

_URLCONF_WORD = URLCONF_NAME.encode()


def read_url_confs(
    run: Run, everything: list[Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """Where requests are transactions, the facts of the URLconfs no pass
    read (a linted file's result holds its facts). Returns those read now."""
    if not request_transactions([*results, *context]):
        return []
    have = {r.path for r in results} | {r.path for r in context if run.facts_read.get(r.path) is r}
    return run.facts([s for s in everything if s.shown not in have and _URLCONF_WORD in s.data])
