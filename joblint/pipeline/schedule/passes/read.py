"""Reading the files a run was given: the pass after discovery.

Takes the discovered paths (and the paths the command line named); gives
`Files`: the run's own files, read (or, where the manifest knows them
unchanged, their digests only), a JL001 result for each that can't be read
(and for each path discovery found unreadable: a directory, a symlink loop),
and, where only some files were named (pre-commit), the rest of the project,
whose facts still count though it reports nothing. In a cold run each file
is sent for screening as soon as it is read (`Run.screen_early`; the rest of
the project's for its facts only).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from joblint.models import FileResult
from joblint.pipeline.discover import Discovery, discover
from joblint.pipeline.manifest import Manifest
from joblint.pipeline.schedule.roots import project_root
from joblint.pipeline.schedule.sources import DisplayPaths, Source, display_path, source_of
from joblint.pipeline.schedule.state import Run
from joblint.pipeline.schedule.workers import FACTS
from joblint.pipeline.source import SourceError, unparseable_result


@dataclass(slots=True)
class Files:
    """A run's files, read."""

    sources: list[Source]  # the run's own files
    unreadable: list[FileResult]  # JL001 for the run's files that can't be read
    # Whether only some files were named (not only directories): then
    # `others` holds the rest of the project, read for its facts.
    named_files: bool
    others: list[Source]
    everything: list[Source] = field(init=False)  # every file read, named or not

    def __post_init__(self) -> None:
        self.everything = [*self.sources, *self.others]


def read_files(paths: list[Path], run: Run, discovery: Discovery) -> Files:
    """The run's files (`discovery`, found from `paths`), read."""
    early = run.screen_early if run.options.use_prefilter else None
    sources, unreadable = _load_sources(discovery.files, run.manifest, early)
    run.flush_early()
    if run.options.on_total:
        run.options.on_total(len(discovery.files), sum(s.size for s in sources))
    results = [
        unparseable_result(display_path(p), run.selector.settings_for(p), SourceError(reason))
        for p, reason in [*discovery.unreadable, *unreadable]
    ]
    named_files = names_files(paths)
    others: list[Source] = []
    if named_files:
        # Pre-commit style: only some files are named. Facts of the rest of the
        # project still count (settings live elsewhere); findings are only theirs.
        config = run.config
        root = [project_root(config)]
        project = discover(root, config, run.selector.configs, run.cache_dir).files
        is_named = _named_files(sources)
        rest = [p for p in project if not is_named(p)]
        screen = functools.partial(run.screen_early, depth=FACTS) if early else None
        others = _project_sources(rest, run.manifest, screen)
        run.flush_early()
    return Files(sources, results, named_files, others)


def names_files(paths: list[Path]) -> bool:
    """Whether the command line names files, not only directories (as
    pre-commit does): the rest of the project is then read for its facts."""
    return any(path.is_file() for path in paths)


def _load_sources(
    paths: list[Path], manifest: Manifest, on_read: Callable[[Source], None] | None = None
) -> tuple[list[Source], list[tuple[Path, str]]]:
    """The run's files, and those that can't be read (with why). `on_read`
    hears of each file as it is read."""
    sources, unreadable = [], []
    shown = DisplayPaths()
    for path in paths:
        found = source_of(path, shown(path), manifest)
        if isinstance(found, str):
            unreadable.append((path, found))
        else:
            sources.append(found)
            if on_read is not None:
                on_read(found)
    return sources, unreadable


def _project_sources(
    paths: list[Path], manifest: Manifest, on_read: Callable[[Source], None] | None
) -> list[Source]:
    """The files of the project besides those named (unreadable files are
    left out, as they give the named files nothing). `on_read` hears of
    each file as it is read."""
    sources, _ = _load_sources(paths, manifest, on_read)
    return sources


def _named_files(named: list[Source]) -> Callable[[Path], bool]:
    """Whether a project file is one of the files named (resolving links only
    for a file of a named file's name: resolving every path of a large
    project costs more than the rest of a warm run)."""
    by_name: dict[str, set[Path]] = {}
    for source in named:
        by_name.setdefault(source.path.name, set()).add(source.path.resolve())

    def named_file(path: Path) -> bool:
        resolved = by_name.get(path.name)
        return resolved is not None and path.resolve() in resolved

    return named_file
