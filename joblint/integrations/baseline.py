"""Baselines: record today's findings, then report only new ones.

`joblint check --write-baseline FILE` writes every finding's identity
(`joblint.pipeline.report.identity`: rule code, path, enclosing def/class, hash of the
normalised offending code, occurrence index: no line numbers) to FILE.
`--baseline FILE` (or the `baseline` config key) hides exactly those findings.
Baseline entries that no finding matches any more, in files this run checked
with rules this run ran, are fixed: reported so they can be removed, and
removed by `--baseline-prune`.

Paths in the file are relative to the file's directory, so it works from any
working directory. `line` and `message` are kept for readers and are not used
for matching.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from joblint.config import ConfigError
from joblint.models import Finding
from joblint.pipeline.fix.write import WriteRefused, write_atomic
from joblint.pipeline.report.identity import SourceLines, identities

FORMAT_VERSION = 1
Key = tuple[str, str, str, str, int]  # code, path, context, hash, occurrence


@dataclass(frozen=True, slots=True)
class Entry:
    code: str
    path: str  # relative to the baseline file's directory, POSIX
    context: str
    hash: str
    occurrence: int
    line: int = 0
    message: str = ""

    @property
    def key(self) -> Key:
        return (self.code, self.path, self.context, self.hash, self.occurrence)

    def describe(self) -> str:
        where = self.context or "module level"
        return f"{self.path}: {self.code} in {where} (was line {self.line})"


@dataclass(slots=True)
class Baseline:
    path: Path
    entries: list[Entry] = field(default_factory=list)

    @property
    def directory(self) -> Path:
        return self.path.resolve().parent

    def relative(self, finding_path: str) -> str:
        absolute = os.path.abspath(finding_path)
        try:
            return Path(os.path.relpath(absolute, self.directory)).as_posix()
        except ValueError:  # another drive (Windows)
            return Path(absolute).as_posix()

    def absolute(self, entry: Entry) -> Path:
        return Path(os.path.normpath(self.directory / entry.path))


@dataclass(slots=True)
class Outcome:
    new: list[Finding]
    hidden: int
    fixed: list[Entry]


def entries_for(baseline: Baseline, findings: list[Finding], lines: SourceLines) -> list[Entry]:
    found = []
    for finding, identity in zip(findings, identities(findings, lines), strict=True):
        found.append(
            Entry(
                finding.code,
                baseline.relative(finding.path),
                identity.context,
                identity.digest,
                identity.occurrence,
                finding.span.line,
                finding.message,
            )
        )
    return found


def write(path: Path, findings: list[Finding], lines: SourceLines) -> int:
    baseline = Baseline(path)
    baseline.entries = entries_for(baseline, findings, lines)
    save(baseline)
    return len(baseline.entries)


def save(baseline: Baseline) -> None:
    rows = sorted(baseline.entries, key=lambda e: (e.path, e.line, e.code, e.occurrence))
    document = {
        "joblint_baseline": FORMAT_VERSION,
        "findings": [
            {
                "code": e.code,
                "path": e.path,
                "context": e.context,
                "hash": e.hash,
                "occurrence": e.occurrence,
                "line": e.line,
                "message": e.message,
            }
            for e in rows
        ],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    try:  # atomically: a failed write leaves the old baseline whole
        write_atomic(baseline.path, None, text.encode("utf-8"))
    except WriteRefused as exc:
        raise ConfigError(f"{baseline.path}: baseline not written: {exc}") from None


def load(path: Path) -> Baseline:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: baseline not found (create it with --write-baseline {path})"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read baseline: {exc.strerror}") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: not a joblint baseline: {exc}") from None
    if not isinstance(document, dict) or document.get("joblint_baseline") != FORMAT_VERSION:
        raise ConfigError(f"{path}: not a joblint baseline (version {FORMAT_VERSION})")
    rows = document.get("findings")
    if not isinstance(rows, list):
        raise ConfigError(f"{path}: not a joblint baseline: 'findings' must be a list")
    return Baseline(path, [_entry(path, row) for row in rows])


def _entry(path: Path, row: Any) -> Entry:
    try:
        return Entry(
            str(row["code"]),
            str(row["path"]),
            str(row.get("context", "")),
            str(row["hash"]),
            int(row.get("occurrence", 0)),
            int(row.get("line", 0)),
            str(row.get("message", "")),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ConfigError(f"{path}: not a joblint baseline: bad entry {row!r}"[:300]) from None


def apply(
    baseline: Baseline,
    findings: list[Finding],
    lines: SourceLines,
    checked: Callable[[str, Path], bool],
) -> Outcome:
    """Hide the findings the baseline records. `checked(code, absolute path)`:
    whether this run would have reported such a finding if it were still there."""
    recorded = {e.key for e in baseline.entries}
    current = entries_for(baseline, findings, lines)
    new = [f for f, e in zip(findings, current, strict=True) if e.key not in recorded]
    seen = {e.key for e in current}
    fixed = [
        e for e in baseline.entries if e.key not in seen and checked(e.code, baseline.absolute(e))
    ]
    return Outcome(new, len(findings) - len(new), fixed)


def prune(baseline: Baseline, fixed: Iterable[Entry]) -> int:
    gone = {e.key for e in fixed}
    kept = [e for e in baseline.entries if e.key not in gone]
    removed = len(baseline.entries) - len(kept)
    baseline.entries = kept
    save(baseline)
    return removed
