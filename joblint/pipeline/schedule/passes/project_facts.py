"""The rest of the project's facts, where only some files were named.

Takes the named files and the pool of files not linted (the skipped and the
rest of the project); gives the facts of those the whole-project rules need
for findings that involve a named file (every file's settings; others'
limits and delays only where a named file holds what they are compared
with), as context: they report nothing of their own.
"""

from __future__ import annotations

from joblint.models import FileResult
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run
from joblint.pipeline.screen.prefilter import ProjectFacts


def read_project_facts(run: Run, named: list[Source], pool: list[Source]) -> list[FileResult]:
    """The facts of the files of `pool` the named files' findings may involve."""
    if not run.selector.reads_settings:
        return []
    return run.facts(_project_fact_files(run, named, pool))


def _project_fact_files(run: Run, named: list[Source], pool: list[Source]) -> list[Source]:
    """The files of `pool` whose facts the whole-project rules need for
    findings that involve a named file: every file's settings, and others'
    limits and delays only where a named file holds what they are compared
    with (`ProjectFacts.needed_by`)."""
    held = ProjectFacts()
    for source in named:
        held |= run.screen(source).project_facts
    return [s for s in pool if run.screen(s).project_facts.needed_by(held)]
