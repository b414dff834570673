"""The driver of a run: the passes a run's files go through, in order.

`lint_paths` discovers the files (`joblint.pipeline.discover`), starts the
worker pool and hands the files through the passes (`passes/`, each a
module with one entry function saying what it takes and gives):

1. read: the files' bytes (or their digests, from the manifest), and the
   rest of the project where only some files were named;
2. replay: a run whose inputs the run memo remembers ends as that run did;
3. screen: which files the rules may report in; the others are skipped;
4. lint: the screened-in files, with the rules whose triggers they hold
   (`Run.lint`, in the workers);
5. summarise and lint again: the facts and index of the rest of the
   project, read only where a finding depends on them (`on_demand`), and
   the run's own files linted again where what was read says a rule
   reports there (task callers, forwarders, call following, request
   enqueues);
6. syntax: JL001 for the skipped files that don't parse;
7. finish: the project step (pending findings settled with the rest of the
   project) and what the next run starts from.

Steps 3-7 are `checking.check`'s, imported only by a run the memo doesn't
replay (they and the project model are most of joblint's start-up); 5 and 6
run once for each part of the run modelled apart (`subprojects`).

A progress display hears of each stage (`RunOptions.on_stage`): the files
checked (1-4), the project model (5-6), the whole-project rules (7).

Fixing and reporting are the caller's (`joblint.cli`, with
`joblint.pipeline.fix.run` and `joblint.pipeline.report`). `joblint.api` is
the driver's public face: the public names below are re-exported for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from joblint.config import Config, Configs
from joblint.pipeline.discover import Discovery, discover
from joblint.pipeline.schedule.one_file import lint_text, outcome_relinter, relinter
from joblint.pipeline.schedule.options import CheckOptions, RunOptions
from joblint.pipeline.schedule.outcome import RunResult
from joblint.pipeline.schedule.passes.read import Files, names_files, read_files
from joblint.pipeline.schedule.passes.replay import Replay, replay
from joblint.pipeline.schedule.roots import cache_dir, cache_directory, project_root
from joblint.pipeline.schedule.selection import Selector
from joblint.pipeline.schedule.sources import DisplayPaths, display_path
from joblint.pipeline.schedule.state import Run

# `checking.check`: the passes of a run its memo doesn't replay.
Check = Callable[[Run, Discovery, Files, Replay], RunResult]

__all__ = [
    "CheckOptions",
    "RunOptions",
    "RunResult",
    "cache_directory",
    "describe_project_model",
    "display_path",
    "files_to_check",
    "lint_paths",
    "lint_text",
    "outcome_relinter",
    "project_root",
    "relinter",
]


def lint_paths(paths: list[Path], config: Config, options: RunOptions | None = None) -> RunResult:
    """Lint files and directories as `joblint check` does."""
    options = options or RunOptions()
    configs = Configs(config)
    discovery = discover(paths, config, configs, cache_dir(config, options))
    run = Run(config, options, Selector(config, configs, discovery.files))
    # A cold run readies the passes before its workers fork, so each inherits
    # them; a run its memo may replay imports them only if it isn't replayed.
    check = _checking(run) if run.expects_work else None
    run.start_pool(len(discovery.files), reads_project=names_files(paths))
    try:
        return _run_passes(paths, run, discovery, check)
    finally:
        assert run.pool is not None
        run.pool.close()


def _run_passes(
    paths: list[Path], run: Run, discovery: Discovery, check: Check | None
) -> RunResult:
    """The passes, in order: reading the files and the memo's replay here,
    the rest (`checking.check`) only for a run the memo doesn't replay."""
    files = read_files(paths, run, discovery)
    memo = replay(run, files, discovery)
    if memo.result is not None:
        return memo.result
    return (check or _checking(run))(run, discovery, files, memo)


def _checking(run: Run) -> Check:
    """The passes after the replay, imported here: they and the project
    model they load are most of joblint's start-up, which a replayed run
    never needs; and the prefilter's checks, built."""
    from joblint.pipeline.schedule.checking import check

    run.prefilter.build()
    return check


@dataclass(frozen=True, slots=True)
class Listing:
    """The files a run would check (as findings name them, sorted) and the
    paths it couldn't walk."""

    files: list[str]
    errors: list[str]


def files_to_check(paths: list[Path], config: Config, options: RunOptions) -> Listing:
    """What `lint_paths` would check, without reading a file (`--show-files`)."""
    discovery = discover(paths, config, Configs(config), cache_dir(config, options))
    shown = DisplayPaths()
    return Listing(sorted(shown(path) for path in discovery.files), discovery.errors)


def describe_project_model(path: Path, config: Config, options: RunOptions) -> list[str]:
    """What the project model inferred for the file at `path`, as lines to print."""

    from joblint.pipeline.project import ProjectIndex
    from joblint.pipeline.project.describe import describe

    run = lint_paths([path], config, replace(options, follow_every_call=True))
    with ProjectIndex.built([*run.results, *run.context]) as index:
        return describe(index.graph, display_path(path))
