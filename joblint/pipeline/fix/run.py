"""`joblint check --fix/--diff`: the fix loop over a run's files.

Each file with an applicable fix is read again, re-linted (its bytes may have
changed since the run), fixed until stable (`joblint.pipeline.fix.apply.fix_file`),
and then either written atomically or shown as a unified diff. Re-linting is
the caller's (`joblint.api.relinter`): this stage only applies edits.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from joblint.models import Finding
from joblint.pipeline.fix.apply import FixedFile, FixError, applicable, fix_file
from joblint.pipeline.fix.write import WriteRefused, write_atomic
from joblint.pipeline.source import SourceError, decode

# Re-lint new bytes of a file: its findings, settled with the rest of the run.
Relint = Callable[[bytes], list[Finding]]


@dataclass(slots=True)
class FixRun:
    # The run's findings once the fixes are applied (what still stands).
    remaining: list[Finding] = field(default_factory=list)
    files: list[FixedFile] = field(default_factory=list)
    # One line each: a file that could not be read, fixed or written (left as it was).
    errors: list[str] = field(default_factory=list)
    # Files left alone because their bytes changed while joblint worked.
    skipped: list[str] = field(default_factory=list)

    @property
    def fixed(self) -> list[Finding]:
        return [f for outcome in self.files for f in outcome.fixed]

    @property
    def changed(self) -> list[FixedFile]:
        return [f for f in self.files if f.changed]


def fix_run(
    findings: list[Finding], relint_for: Callable[[str], Relint], unsafe: bool, write: bool
) -> FixRun:
    """Fix the files of `findings`; `relint_for(path)` re-lints one of them."""
    outcome = FixRun(remaining=list(findings))
    paths = sorted({f.path for f in findings if applicable(f, unsafe)})
    for shown in paths:
        fixed = _fix_one(shown, relint_for(shown), unsafe, outcome)
        if fixed is None or (write and fixed.changed and not _written(fixed, outcome)):
            continue
        outcome.files.append(fixed)
        _replace_findings(outcome, shown, fixed)
    return outcome


def _written(fixed: FixedFile, outcome: FixRun) -> bool:
    """Write a fixed file; False (the file left as it was, its findings
    standing) when it changed meanwhile or the user may not write it."""
    try:
        if write_atomic(Path(fixed.path), fixed.original, fixed.data):
            return True
        outcome.skipped.append(fixed.path)
    except WriteRefused as exc:
        outcome.errors.append(f"{fixed.path}: not fixed: {exc}")
    return False


def fix_stdin(
    findings: list[Finding], shown: str, data: bytes, relint: Relint, unsafe: bool
) -> FixRun:
    """Fix source read from standard input, shown as `shown`. Nothing is written."""
    outcome = FixRun(remaining=list(findings))
    try:
        fixed = fix_file(shown, data, relint(data), relint, unsafe)
    except (FixError, SourceError) as exc:
        outcome.errors.append(str(exc))
        return outcome
    outcome.files.append(fixed)
    _replace_findings(outcome, shown, fixed)
    return outcome


def _replace_findings(outcome: FixRun, shown: str, fixed: FixedFile) -> None:
    others = [f for f in outcome.remaining if f.path != shown]
    outcome.remaining = sorted([*others, *fixed.remaining], key=lambda f: f.sort_key)


def _fix_one(shown: str, relint: Relint, unsafe: bool, outcome: FixRun) -> FixedFile | None:
    try:
        data = Path(shown).read_bytes()
    except OSError as exc:
        outcome.errors.append(f"{shown}: cannot read: {exc.strerror or exc}")
        return None
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
        fromfile=f"a/{_diff_path(fixed.path)}",
        tofile=f"b/{_diff_path(fixed.path)}",
    )
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)


def _diff_path(path: str) -> str:
    """The path as git's `a/`/`b/` headers write it: an absolute path loses its
    leading slash rather than doubling it (`a/tmp/x.py`)."""
    return path.lstrip("/")


def would_fix_unsafe(findings: list[Finding]) -> int:
    """How many of `findings` only --unsafe-fixes would fix."""
    return sum(1 for f in findings if applicable(f, True) and not applicable(f, False))


def summary(outcome: FixRun, unsafe: bool, plural: Callable[[int], str]) -> str:
    fixed = len(outcome.fixed)
    text = f"Fixed {plural(fixed)}, {len(outcome.remaining)} remaining."
    more = 0 if unsafe else would_fix_unsafe(outcome.remaining)
    if more:
        text += f" {plural(more)} more fixable with --unsafe-fixes."
    return text
