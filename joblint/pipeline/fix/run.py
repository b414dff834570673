"""`joblint check --fix/--diff` (issue 10): the fix loop over a run's files.

Each file with an applicable fix is read again, re-linted (its bytes may have
changed since the run), fixed until stable (`joblint.pipeline.fix.apply.fix_file`), and then
either written atomically or shown as a unified diff.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from joblint.api import RunResult, relinter
from joblint.config import Config
from joblint.models import Finding
from joblint.pipeline.fix.apply import FixedFile, FixError, applicable, fix_file, write_atomic
from joblint.pipeline.source import SourceError, decode


@dataclass(slots=True)
class FixRun:
    files: list[FixedFile] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Files left alone because their bytes changed while joblint worked.
    skipped: list[str] = field(default_factory=list)

    @property
    def fixed(self) -> list[Finding]:
        return [f for outcome in self.files for f in outcome.fixed]

    @property
    def changed(self) -> list[FixedFile]:
        return [f for f in self.files if f.changed]


def fix_run(config: Config, run: RunResult, unsafe: bool, write: bool) -> FixRun:
    """Fix the run's files; replaces their findings in `run` by what remains."""
    outcome = FixRun()
    paths = sorted({f.path for f in run.findings if applicable(f, unsafe)})
    for shown in paths:
        fixed = _fix_one(config, run, shown, unsafe, outcome)
        if fixed is None:
            continue
        if write and fixed.changed and not write_atomic(Path(shown), fixed.original, fixed.data):
            outcome.skipped.append(shown)
            continue
        outcome.files.append(fixed)
        others = [f for f in run.findings if f.path != shown]
        run.findings = sorted([*others, *fixed.remaining], key=lambda f: f.sort_key)
    return outcome


def fix_stdin(config: Config, run: RunResult, data: bytes, unsafe: bool) -> FixRun:
    """Fix source read from standard input (as `lint_text` linted it); its
    findings in `run` become what remains. Nothing is written."""
    outcome = FixRun()
    if not run.results:
        return outcome
    shown = run.results[0].path
    relint = relinter(config, run, shown)
    try:
        fixed = fix_file(shown, data, relint(data), relint, unsafe)
    except (FixError, SourceError) as exc:
        outcome.errors.append(str(exc))
        return outcome
    outcome.files.append(fixed)
    others = [f for f in run.findings if f.path != shown]
    run.findings = sorted([*others, *fixed.remaining], key=lambda f: f.sort_key)
    return outcome


def _fix_one(
    config: Config, run: RunResult, shown: str, unsafe: bool, outcome: FixRun
) -> FixedFile | None:
    try:
        data = Path(shown).read_bytes()
    except OSError as exc:
        outcome.errors.append(f"{shown}: cannot read: {exc.strerror or exc}")
        return None
    relint = relinter(config, run, shown)
    try:
        return fix_file(shown, data, relint(data), relint, unsafe)
    except (FixError, SourceError) as exc:
        outcome.errors.append(str(exc))
        return None


def unified_diff(fixed: FixedFile) -> str:
    try:
        before, after = decode(fixed.original), decode(fixed.data)
    except SourceError:
        return ""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{fixed.path}",
        tofile=f"b/{fixed.path}",
    )
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)


def would_fix_unsafe(run: RunResult) -> int:
    """How many remaining findings only --unsafe-fixes would fix."""
    return sum(1 for f in run.findings if applicable(f, True) and not applicable(f, False))


def summary(outcome: FixRun, run: RunResult, unsafe: bool, plural: Callable[[int], str]) -> str:
    fixed = len(outcome.fixed)
    text = f"Fixed {plural(fixed)}, {len(run.findings)} remaining."
    more = 0 if unsafe else would_fix_unsafe(run)
    if more:
        text += f" {plural(more)} more fixable with --unsafe-fixes."
    return text
