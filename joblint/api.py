"""The one entry point for the CLI and tests: lint paths or a source text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from joblint.analysis.context import Options
from joblint.config import Config
from joblint.engine import LintSettings, ModuleInfo, SourceError, lint_source, unparseable_result
from joblint.files import discover, module_name
from joblint.models import FileResult, Finding
from joblint.project import ProjectSettings, settle
from joblint.registry import rule_by_code, select_codes
from joblint.rule import ProjectRule

# Files without any of these can't hold Celery configuration or time limits.
PROJECT_FACT_TOKENS = re.compile(rb"celery|CELERY|BROKER|broker_|time_limit|visibility_timeout")


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

    @property
    def project_rules(self) -> bool:
        rules = rule_by_code()
        return any(issubclass(rules[c], ProjectRule) for c in self.base if c in rules)

    def project_settings(self, named: frozenset[str] | None) -> ProjectSettings:
        return ProjectSettings(self.base, self.config.visibility_margin_seconds, named)

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
    named: frozenset[str] | None = None
    context: list[FileResult] = []
    if any(path.is_file() for path in paths):
        # Pre-commit style: only some files are named. Whole-project rules still
        # need the rest of the project's facts (settings live elsewhere).
        named = frozenset(r.path for r in results)
        if selector.project_rules:
            context = _project_context(config, discovery.files, selector)
    return _finish(results, discovery.errors, selector.project_settings(named), context)


def project_root(config: Config) -> Path:
    """The config file's directory, else the enclosing git root, else the cwd."""
    if config.source is not None:
        return config.source.resolve().parent
    here = Path.cwd().resolve()
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return here


def _project_context(config: Config, linted: list[Path], selector: _Selector) -> list[FileResult]:
    """Facts from the project's other files that can hold whole-project facts."""
    seen = {p.resolve() for p in linted}
    others = [p for p in discover([project_root(config)], config).files if p.resolve() not in seen]
    facts_only = LintSettings(frozenset(), selector.options)
    context = []
    for path in others:
        data = _read(path)
        if isinstance(data, bytes) and PROJECT_FACT_TOKENS.search(data):
            name, is_package = module_name(path)
            context.append(
                lint_source(display_path(path), data, facts_only, ModuleInfo(name, is_package))
            )
    return context


def lint_text(text: bytes, filename: str, config: Config) -> RunResult:
    """Lint source given on stdin, shown as `filename`."""
    selector = _Selector(config)
    path = Path(filename)
    name, is_package = module_name(path) if path.exists() else (path.stem, False)
    result = lint_source(
        display_path(path), text, selector.settings_for(path), ModuleInfo(name, is_package)
    )
    return _finish([result], [], selector.project_settings(None))


def _finish(
    results: list[FileResult],
    errors: list[str],
    settings: ProjectSettings,
    context: list[FileResult] | None = None,
) -> RunResult:
    run = RunResult(files_checked=len(results), errors=list(errors))
    run.findings = settle(results, settings, context or ())
    for result in results:
        run.internal_errors.extend(result.errors)
    return run
