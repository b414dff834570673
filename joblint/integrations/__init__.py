"""CLI glue for CI use: `--diff-from`, `--baseline`, `--write-baseline`, `--baseline-prune`.

Kept out of `joblint.cli` so the command stays plumbing: each function here
takes the run's config and result and returns what the command prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from joblint.config import Config, Configs
from joblint.integrations import baseline as baselines
from joblint.integrations.changed import Changes, changed_files, relative, within
from joblint.pipeline.discover import discover
from joblint.pipeline.report.identity import SourceLines

if TYPE_CHECKING:
    from joblint.api import RunOptions, RunResult

# Whether this run checks findings of a code in a file (absolute path).
Checked = Callable[[str, Path], bool]
__all__ = ["Changes", "Checked", "apply_baseline", "checked_by", "lint_changed"]


def lint_changed(
    ref: str, paths: tuple[Path, ...], config: Config, options: RunOptions
) -> tuple[RunResult, Changes]:
    """Lint the Python files changed since `ref` (below `paths`, if given). They
    are named files, so whole-project facts still come from the whole project;
    excludes apply to them as they would in a full run."""
    # Imported here: the linting machinery is not what the baseline helpers need.
    from joblint.api import RunResult, lint_paths

    changes = within(changed_files(ref), list(paths))
    if not changes.files:
        return RunResult(), changes
    named = [relative(p) for p in changes.files]
    return lint_paths(named, config.with_overrides(force_exclude=True), options), changes


@dataclass(slots=True)
class BaselineReport:
    hidden: int = 0
    messages: list[str] = field(default_factory=list)


def apply_baseline(
    path: Path,
    run: RunResult,
    lines: SourceLines,
    checked: Checked,
    prune: bool,
) -> BaselineReport:
    """Drop the run's findings the baseline records; say which entries are fixed."""
    recorded = baselines.load(path)
    outcome = baselines.apply(recorded, run.findings, lines, checked)
    run.findings = outcome.new
    report = BaselineReport(outcome.hidden)
    for entry in outcome.fixed:
        report.messages.append(f"{entry.describe()}: fixed, remove from baseline")
    if outcome.fixed and prune:
        removed = baselines.prune(recorded, outcome.fixed)
        noun = "entry" if removed == 1 else "entries"
        report.messages.append(f"Removed {removed} fixed {noun} from {path}.")
    elif outcome.fixed:
        report.messages.append(f"Run with --baseline-prune to remove them from {path}.")
    if outcome.hidden:
        noun = "finding" if outcome.hidden == 1 else "findings"
        report.messages.append(f"{outcome.hidden} {noun} hidden by the baseline {path}.")
    return report


def checked_by(
    config: Config,
    paths: tuple[Path, ...],
    changes: Changes | None,
    stdin_filename: str | None,
) -> Checked:
    """Whether this run would have reported a finding of `code` in the file at an
    absolute path if it were still there: its rule ran and the file was checked
    (or the file is gone, from a directory this run checked)."""
    configs = Configs(config)
    codes: dict[int, frozenset[str]] = {}  # per configuration, each file by its own
    roots: list[Path] = []
    if changes is not None:
        linted = {p.resolve() for p in [*changes.files, *changes.deleted]}
    elif stdin_filename is not None:
        linted = {Path(stdin_filename).resolve()}
    else:
        targets = list(paths) or [Path(".")]
        linted = {p.resolve() for p in discover(targets, config, configs).files}
        roots = [p.resolve() for p in targets if p.is_dir()]

    def checked(code: str, path: Path) -> bool:
        own = configs.for_path(path)
        if id(own) not in codes:
            codes[id(own)] = own.selected_codes()
        if code not in codes[id(own)]:
            return False
        if path.exists():
            return path.resolve() in linted
        return path in linted or any(root in path.parents for root in roots)

    return checked
