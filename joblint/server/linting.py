"""What the editor server asks of joblint, through its public API: lint a
buffer's text (alone, or within the workspace's index: the last whole run
over the workspace, whose files' facts and project model settle the
buffer's findings, with the buffer's text in place of its file on disk),
build that index, and apply fixes. Nothing here speaks the protocol; each
function runs on a worker thread, given everything it reads.

The server runs in the workspace's root directory (`joblint check` run
there), so paths are shown, configured and cached as the CLI's are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from joblint.api import (
    RunOptions,
    RunResult,
    display_path,
    lint_paths,
    lint_text,
    outcome_relinter,
)
from joblint.config import Config, ConfigError, Configs
from joblint.models import Finding
from joblint.pipeline.discover import PYTHON_SUFFIXES, discover
from joblint.pipeline.fix.apply import encoding_of, fix_file
from joblint.pipeline.source import SourceError, decode

# Relint new bytes of one file: its findings, internal errors and warnings.
Relint = Callable[[bytes], RunResult]


@dataclass(frozen=True, slots=True)
class Buffer:
    """An open document's text, and the file it is (absolute)."""

    path: Path
    text: str

    @property
    def shown(self) -> str:
        """The path as a run reports it (relative to the workspace root)."""
        return display_path(self.path)

    @property
    def data(self) -> bytes:
        """The text as the file's bytes would be: in the encoding its coding
        cookie names (UTF-8 without one, or where that can't encode it)."""
        utf8 = self.text.encode("utf-8", "surrogateescape")
        encoding = encoding_of(utf8)
        if encoding in ("utf-8", "utf-8-sig"):
            return utf8
        try:
            return self.text.encode(encoding)
        except (LookupError, UnicodeEncodeError):
            return utf8


@dataclass(slots=True)
class Linted:
    """The buffer's findings, and what to log: internal errors (a rule
    failed on it) and warnings (a malformed suppression comment)."""

    findings: list[Finding] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def is_python(path: Path) -> bool:
    return path.suffix in PYTHON_SUFFIXES


def is_excluded(config: Config, path: Path) -> bool:
    """Whether the configuration excludes the file (`exclude`, `.gitignore`),
    as `joblint check --force-exclude` would: an editor opens files of a
    virtualenv or a build directory too."""
    if not path.is_file():
        return False  # not saved yet: nothing to match but its name
    forced = replace(config, force_exclude=True)
    try:
        return not discover([path], forced, Configs(forced)).files
    except ConfigError:  # lint_buffer says so
        return not discover([path], _flat(forced)).files


def build_index(config: Config, root: Path) -> RunResult:
    """A whole run over the workspace, with the result cache (`.joblint_cache`,
    as `joblint check` keeps it) and a worker per CPU. The files of a
    configuration file below the root that doesn't read are left out (the
    run's errors say so); a buffer among them is linted with the root's
    configuration (`lint_buffer`)."""
    try:
        return lint_paths([root], config, RunOptions(jobs=0, cache=True))
    except ConfigError as exc:
        index = lint_paths([root], _flat(config), RunOptions(jobs=0, cache=True))
        index.errors.append(_passed_over(exc))
        return index


def _flat(config: Config) -> Config:
    """`config` for every file, whatever configuration files lie closer."""
    return replace(config, hierarchical=False)


def _passed_over(exc: ConfigError) -> str:
    return f"{exc} (passed over: the workspace's configuration applies)"


def relinter(config: Config, index: RunResult | None, buffer: Buffer) -> Relint:
    """Lint new bytes of the buffer's file: within the index when there is
    one, else alone (as `joblint check -` with the file's name)."""
    shown = buffer.shown
    if index is None:
        return lambda data: lint_text(data, shown, config)
    return outcome_relinter(config, index, shown)


class Relinters:
    """Each buffer's relinter for the current configuration and index, made
    once: making one sorts every file of the index into test code or not,
    which would cost each change again (a tenth of a second on 4,000 files)."""

    def __init__(self) -> None:
        self._config: Config | None = None
        self._index: RunResult | None = None
        self._made: dict[str, Relint] = {}

    def __call__(self, config: Config, index: RunResult | None, buffer: Buffer) -> Relint:
        if config is not self._config or index is not self._index:
            self._config, self._index, self._made = config, index, {}
        made = self._made.get(buffer.shown)
        if made is None:
            made = self._made[buffer.shown] = relinter(config, index, buffer)
        return made


def lint_buffer(
    relinters: Relinters, config: Config, index: RunResult | None, buffer: Buffer
) -> Linted:
    """The buffer's findings; under a closer configuration file that doesn't
    read (being edited), under the workspace's configuration."""
    problems = []
    try:
        outcome = relinters(config, index, buffer)(buffer.data)
    except ConfigError as exc:
        outcome = relinter(_flat(config), index, buffer)(buffer.data)
        problems.append(_passed_over(exc))
    shown = buffer.shown
    findings = [f for f in outcome.findings if f.path == shown]
    return Linted(findings, [*problems, *outcome.internal_errors, *outcome.warnings])


def _findings_only(relint: Relint) -> Callable[[bytes], list[Finding]]:
    return lambda data: relint(data).findings


def fix_all(relint: Relint, buffer: Buffer, findings: list[Finding], unsafe: bool) -> str | None:
    """The buffer's text with every applicable fix applied (joblint's fix
    loop: fix, re-lint with `relint`, repeat); None when none applies.
    Raises `joblint.pipeline.fix.apply.FixError` when fixes don't settle."""
    findings_of = _findings_only(relint)
    fixed = fix_file(buffer.shown, buffer.data, findings, findings_of, unsafe)
    return decode(fixed.data) if fixed.changed else None


def fix_one(buffer: Buffer, finding: Finding) -> str | None:
    """The buffer's text with the finding's own fix applied (and the imports
    it leaves unused removed); None when it changes nothing."""
    fixed = fix_file(buffer.shown, buffer.data, [finding], lambda data: [], unsafe=True)
    return decode(fixed.data) if fixed.changed else None


def read_text(path: Path) -> str | None:
    """A file's text as joblint decodes it; None when it can't be read."""
    try:
        return decode(path.read_bytes())
    except (OSError, SourceError):
        return None
