"""`--diff-from REF`: the Python files changed since REF, from git.

"Changed" is what a pull request would show plus what isn't committed yet:
files that differ between the merge base of REF and HEAD and the working tree
(`git diff --name-only $(git merge-base REF HEAD)`), plus untracked files git
doesn't ignore. Deleted files are listed apart (a baseline's entries for them
are fixed).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from joblint.config import ConfigError
from joblint.pipeline.discover import PYTHON_SUFFIXES


@dataclass(slots=True)
class Changes:
    files: list[Path] = field(default_factory=list)  # changed Python files that exist
    deleted: list[Path] = field(default_factory=list)


def _git(args: list[str], cwd: Path, ref: str) -> str:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120
        )
    except FileNotFoundError:
        raise ConfigError(f"--diff-from {ref}: git is not installed") from None
    except subprocess.TimeoutExpired:
        raise ConfigError(f"--diff-from {ref}: git {args[0]} timed out") from None
    if proc.returncode != 0:
        reason = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        raise ConfigError(f"--diff-from {ref}: git {args[0]}: {reason}")
    return proc.stdout


def changed_files(ref: str, cwd: Path | None = None) -> Changes:
    here = (cwd or Path.cwd()).resolve()
    top = Path(_git(["rev-parse", "--show-toplevel"], here, ref).strip())
    base = _git(["merge-base", ref, "HEAD"], top, ref).strip()
    names = _git(["diff", "--name-only", "-z", "--no-renames", base, "--"], top, ref)
    untracked = _git(["ls-files", "--others", "--exclude-standard", "-z"], top, ref)
    changes = Changes()
    seen: set[Path] = set()
    for name in [*names.split("\0"), *untracked.split("\0")]:
        if not name.endswith(PYTHON_SUFFIXES):
            continue
        path = top / name
        if path in seen:
            continue
        seen.add(path)
        (changes.files if path.is_file() else changes.deleted).append(path)
    changes.files.sort()
    changes.deleted.sort()
    return changes


def within(changes: Changes, paths: list[Path]) -> Changes:
    """Only the changes below the given paths (all of them when none are given)."""
    if not paths:
        return changes
    roots = [p.resolve() for p in paths]

    def keep(path: Path) -> bool:
        return any(path == root or root in path.parents for root in roots)

    return Changes([p for p in changes.files if keep(p)], [p for p in changes.deleted if keep(p)])


def relative(path: Path, cwd: Path | None = None) -> Path:
    """Relative to the current directory when below it (as displayed in findings)."""
    here = (cwd or Path.cwd()).resolve()
    try:
        return path.relative_to(here)
    except ValueError:
        return path
