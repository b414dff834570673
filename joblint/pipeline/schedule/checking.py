"""The passes of a run its memo doesn't replay, after the files are read:
screening, the first lint, the project model's passes once for each part
of the run modelled apart (`subprojects`: the projects of a monorepo), and
the end of the run over all of them (`run.py`, the driver, calls `check`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from joblint.models import FileResult
from joblint.pipeline.discover import Discovery
from joblint.pipeline.report.progress import PROJECT_MODEL, PROJECT_RULES
from joblint.pipeline.schedule import subprojects
from joblint.pipeline.schedule.on_demand import read_on_demand
from joblint.pipeline.schedule.options import OnStage
from joblint.pipeline.schedule.outcome import PartResults, RunResult
from joblint.pipeline.schedule.passes.call_following import ModelFiles, lint_call_following
from joblint.pipeline.schedule.passes.finish import finish
from joblint.pipeline.schedule.passes.forwarders import lint_forwarder_callers
from joblint.pipeline.schedule.passes.helper_callers import read_helper_callers
from joblint.pipeline.schedule.passes.project_facts import read_project_facts
from joblint.pipeline.schedule.passes.read import Files
from joblint.pipeline.schedule.passes.replay import Replay
from joblint.pipeline.schedule.passes.request_callers import read_request_callers
from joblint.pipeline.schedule.passes.request_enqueues import Requested, lint_request_enqueues
from joblint.pipeline.schedule.passes.request_hooks import read_request_hooks
from joblint.pipeline.schedule.passes.screen import Screened, screen
from joblint.pipeline.schedule.passes.session_dependencies import read_session_dependencies
from joblint.pipeline.schedule.passes.settings import read_settings_modules
from joblint.pipeline.schedule.passes.syntax import syntax_errors
from joblint.pipeline.schedule.passes.task_callers import lint_task_callers
from joblint.pipeline.schedule.passes.url_confs import read_url_confs
from joblint.pipeline.schedule.passes.writers import read_writers
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run


def check(run: Run, discovery: Discovery, files: Files, memo: Replay) -> RunResult:
    """The passes after reading, in order: the files' own first, then the
    project model's for each part, then the end of the run."""
    screened = screen(run, files)
    results = [*files.unreadable, *run.lint(screened.wanted, triggered=True)]
    # The results of the files named, when only some were.
    named = frozenset(r.path for r in results) if files.named_files else None
    parts = _parts(files, screened, results)
    modelled = [_model_passes(run, part, files.named_files) for part in parts]
    run.work_pool().stop_meanwhile()
    stage = _stage_callback(run)
    stage(PROJECT_RULES)
    return finish(run, discovery, modelled, named, memo)


@dataclass(slots=True)
class _Part:
    """A part of the run modelled apart: its share of each list of files,
    and its files' results so far."""

    sources: list[Source] = field(default_factory=list)  # the run's own files
    # The rest of the project, in a run naming files.
    others: list[Source] = field(default_factory=list)
    wanted: list[Source] = field(default_factory=list)  # linted by the first pass
    skipped: list[Source] = field(default_factory=list)  # screened out
    results: list[FileResult] = field(default_factory=list)
    homes: tuple[str, ...] = ()  # its sub-projects' directories


def _parts(files: Files, screened: Screened, results: list[FileResult]) -> list[_Part]:
    """The run's files and results, cut into the parts modelled apart (a
    result of no file read, a JL001, goes with the first part)."""
    cut = subprojects.parts(files.everything)
    found = [_Part(homes=tuple(part.homes)) for part in cut]
    part_of = {s.shown: found[n] for n, part in enumerate(cut) for s in part.sources}
    for source in files.sources:
        part_of[source.shown].sources.append(source)
    for source in files.others:
        part_of[source.shown].others.append(source)
    for source in screened.wanted:
        part_of[source.shown].wanted.append(source)
    for source in screened.skipped:
        part_of[source.shown].skipped.append(source)
    for result in results:
        part_of.get(result.path, found[0]).results.append(result)
    # A part none of whose files was named reports nothing: its model is not built.
    return [part for part in found if part.sources or part.results] or found[:1]


def _model_passes(run: Run, part: _Part, named_files: bool) -> PartResults:
    """The project model's passes over one part. They share three lists,
    which they change in place: `results` (the part's own files'; a file
    linted again gets its new result in place of the old), `context` (the
    rest of the project's facts and index: read, never reported) and `pool`
    (the files no pass linted)."""
    results, wanted = part.results, part.wanted
    everything = [*part.sources, *part.others]
    stage = _stage_callback(run)
    stage(PROJECT_MODEL)
    pool = list(part.skipped)  # the files no pass linted yet
    context: list[FileResult] = []  # the facts and index of the rest of the project
    if named_files:
        pool.extend(part.others)
        context = read_project_facts(run, part.sources, pool)
    # Files outside the paths named (read from the project root for facts) never
    # report findings of their own.
    linted = {s.shown for s in part.sources}
    stage(PROJECT_MODEL)
    context.extend(lint_task_callers(run, pool, linted, results))
    stage(PROJECT_MODEL)
    context.extend(read_helper_callers(run, everything, results, context))
    stage(PROJECT_MODEL)
    context.extend(read_on_demand(run, everything, pool, results, context))
    if lint_forwarder_callers(run, part.sources, everything, pool, results, context):
        context.extend(read_on_demand(run, everything, pool, results, context))
    model = ModelFiles(everything, pool, wanted, linted, named_files)
    stage(PROJECT_MODEL)
    context.extend(lint_call_following(run, model, results, context))
    stage(PROJECT_MODEL)
    context.extend(read_settings_modules(run, everything, results, context))
    stage(PROJECT_MODEL)
    context.extend(read_session_dependencies(run, everything, results, context))
    stage(PROJECT_MODEL)
    context.extend(read_request_hooks(run, everything, results, context))
    stage(PROJECT_MODEL)
    context.extend(read_url_confs(run, everything, results, context))
    requested = Requested(pool, wanted, linted)
    stage(PROJECT_MODEL)
    context.extend(lint_request_enqueues(run, requested, results, context))
    stage(PROJECT_MODEL)
    context.extend(read_request_callers(run, everything, pool, results, context))
    stage(PROJECT_MODEL)
    context.extend(read_writers(run, everything, results, context))
    stage(PROJECT_MODEL)
    results.extend(syntax_errors(run, part.skipped, pool))
    return (results, context), part.homes


def _stage_callback(run: Run) -> OnStage:
    """The run's stage callback, said again before each pass of a stage: a
    display that waits a second before it shows starts in a long stage."""
    return run.options.on_stage or _no_stage


def _no_stage(stage: str) -> None:
    pass
