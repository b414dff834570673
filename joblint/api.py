"""The one entry point for the CLI and tests: lint paths or a source text."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from joblint.analysis.context import Options
from joblint.config import Config
from joblint.engine import LintSettings, ModuleInfo, SourceError, lint_source, unparseable_result
from joblint.files import discover, module_name
from joblint.models import FileResult, Finding
from joblint.project import settle
from joblint.registry import select_codes


@dataclass(slots=True)
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    # One-line problems with paths (missing, unreadable): reported, run goes on.
    errors: list[str] = field(default_factory=list)
    # A rule failed on a file: reported with "please report", exit status 2.
    internal_errors: list[str] = field(default_factory=list)


def display_path(path: Path, cwd: Path | None = None) -> str:
    """Relative to the current directory when below it, else as given."""
    here = cwd or Path.cwd()
    absolute = path.absolute()
    try:
        return absolute.relative_to(here).as_posix()
    except ValueError:
        return path.as_posix()


class _Selector:
    """Rule codes per file: the config's selection minus its per-file ignores."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.base = select_codes(config.select, config.extend_select, config.ignore, config.preview)
        self.per_file = [
            (pathspec.GitIgnoreSpec.from_lines([glob]), frozenset(codes))
            for glob, codes in config.per_file_ignores
        ]
        self.options = Options(
            enqueue_functions=frozenset(config.extend_enqueue_functions),
            transaction_functions=frozenset(config.extend_transaction_functions),
            on_commit_functions=frozenset(config.extend_on_commit_functions),
        )

    def settings_for(self, path: Path) -> LintSettings:
        codes = self.base
        if self.per_file:
            relative = _relative_to(path, self.config.root)
            for spec, ignored in self.per_file:
                if spec.match_file(relative) or spec.match_file(path.name):
                    codes = frozenset(c for c in codes if not any(c.startswith(i) for i in ignored))
        return LintSettings(codes, self.options)


def _relative_to(path: Path, root: Path) -> str:
    try:
        return path.absolute().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _read(path: Path) -> bytes | str:
    """The file's bytes, or a one-line reason it can't be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return "file disappeared before it could be read"
    except IsADirectoryError:
        return "is a directory"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"


def lint_file(path: Path, selector: _Selector) -> FileResult:
    shown = display_path(path)
    settings = selector.settings_for(path)
    data = _read(path)
    if isinstance(data, str):
        return unparseable_result(shown, settings, SourceError(data))
    name, is_package = module_name(path)
    return lint_source(shown, data, settings, ModuleInfo(name, is_package))


def lint_paths(paths: list[Path], config: Config) -> RunResult:
    discovery = discover(paths, config)
    selector = _Selector(config)
    results = [lint_file(path, selector) for path in discovery.files]
    return _finish(results, discovery.errors)


def lint_text(text: bytes, filename: str, config: Config) -> RunResult:
    """Lint source given on stdin, shown as `filename`."""
    selector = _Selector(config)
    path = Path(filename)
    name, is_package = module_name(path) if path.exists() else (path.stem, False)
    result = lint_source(
        display_path(path), text, selector.settings_for(path), ModuleInfo(name, is_package)
    )
    return _finish([result], [])


def _finish(results: list[FileResult], errors: list[str]) -> RunResult:
    run = RunResult(files_checked=len(results), errors=list(errors))
    run.findings = settle(results)
    for result in results:
        run.internal_errors.extend(result.errors)
    return run
