"""Linting one file's bytes outside a whole run: source given on standard
input (`lint_text`), and new bytes of one of a run's files settled with the
rest of that run's project (`relinter`, `outcome_relinter`: the fix loop,
the editor server). LibCST is imported only when a file is linted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from joblint.config import Config
from joblint.models import Finding
from joblint.pipeline.discover import module_name
from joblint.pipeline.project.scope import TestCode, settle_scoped
from joblint.pipeline.schedule.outcome import RunResult, settle
from joblint.pipeline.schedule.selection import Selector
from joblint.pipeline.schedule.sources import display_path
from joblint.pipeline.schedule.subprojects import home_of
from joblint.settings import ModuleInfo


def lint_text(text: bytes, filename: str, config: Config) -> RunResult:
    """Lint source given on stdin, shown as `filename` (and configured as a
    file of that name would be)."""
    selector = Selector(config)
    path = Path(filename)
    name, is_package = module_name(path) if path.exists() else (path.stem, False)
    from joblint.pipeline.lint import lint_source

    result = lint_source(
        display_path(path), text, selector.settings_for(path), ModuleInfo(name, is_package)
    )
    settings = selector.project_settings(None)
    return settle([result], [], settings, tests=selector.test_code())


def test_code(config: Config) -> TestCode:
    """What counts as test code for files of `config` (joblint.pipeline.project.scope)."""
    return Selector(config).root.tests


def relinter(config: Config, run: RunResult, shown: str) -> Callable[[bytes], list[Finding]]:
    """Lint new bytes of the run's file `shown` (a path as reported),
    settled with the rest of the run's project; its findings only."""
    relint = outcome_relinter(config, run, shown)
    return lambda data: relint(data).findings


def outcome_relinter(config: Config, run: RunResult, shown: str) -> Callable[[bytes], RunResult]:
    """`relinter`, with the whole outcome for the file: its findings, and the
    internal errors and warnings linting it gave (an editor shows the buffer's
    findings and logs the rest)."""
    path = Path(shown)
    selector = Selector(config)
    settings = selector.settings_for(path)
    name, is_package = module_name(path)
    results, context = run.part_of(home_of(path, ModuleInfo(name, is_package)))
    others = [r for r in results if r.path != shown] + context
    tests = selector.test_code()
    from joblint.pipeline.lint import lint_source

    def relint(data: bytes) -> RunResult:
        result = lint_source(shown, data, settings, ModuleInfo(name, is_package))
        scoped = settle_scoped([result], run.settings, others, tests)
        outcome = RunResult(files_checked=1, settings=run.settings, project=([result], []))
        outcome.findings = [f for f in scoped.findings if f.path == shown]
        outcome.internal_errors.extend(result.errors)
        outcome.warnings.extend(result.warnings)
        return outcome

    return relint
