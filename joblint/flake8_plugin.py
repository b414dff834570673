"""flake8 plugin: joblint's findings in flake8 runs (`JL` codes).

Registered as the `flake8.extension` entry point `JL`. Each file is linted on
its own with `joblint.pipeline.lint.lint_source` (flake8's AST is not used: joblint
parses with LibCST) and its pending findings are settled with this file's facts
only: findings that need other files' facts (a task defined elsewhere, Celery
settings in another module) are the CLI's job. Rule selection and options come
from the joblint configuration found from the file's directory, and test code
is left alone as in the CLI (`include-tests`); flake8's own
`--select`/`--ignore`/`# noqa` apply on top.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from joblint import __version__
from joblint.analysis.context import Options
from joblint.config import Config, ConfigError, load
from joblint.pipeline.discover import module_name
from joblint.pipeline.lint import lint_source
from joblint.pipeline.project.project_settings import ProjectSettings
from joblint.pipeline.project.scope import TestCode, settle_scoped
from joblint.settings import LintSettings, ModuleInfo

Error = tuple[int, int, str, type]


class JoblintChecker:
    name = "joblint"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.filename = filename
        self.lines = lines

    def _source(self) -> tuple[Path, bytes]:
        path = Path(self.filename)
        try:
            return path, path.read_bytes()
        except OSError:  # stdin ("-", "stdin") or gone: flake8's decoded lines
            return path, "".join(self.lines).encode("utf-8")

    def run(self) -> Iterator[Error]:
        path, data = self._source()
        config = _config(path)
        codes = config.selected_codes()
        options = Options(
            enqueue_functions=frozenset(config.extend_enqueue_functions),
            transaction_functions=frozenset(config.extend_transaction_functions),
            on_commit_functions=frozenset(config.extend_on_commit_functions),
        )
        name, is_package = module_name(path) if path.exists() else (path.stem, False)
        result = lint_source(
            path.as_posix(), data, LintSettings(codes, options), ModuleInfo(name, is_package)
        )
        tests = TestCode(
            config.root,
            config.all_test_paths,
            also=config.test_path_groups()[1:],
            include=config.include_tests,
        )
        project = ProjectSettings(codes, config.visibility_margin_seconds)
        found = settle_scoped([result], project, [], tests).findings
        for finding in found:
            if finding.path != path.as_posix():
                continue
            message = f"{finding.code} {finding.message}"
            yield finding.span.line, finding.span.column - 1, message, type(self)


def _config(path: Path) -> Config:
    directory = path.resolve().parent if path.exists() else Path.cwd()
    try:
        return load(cwd=directory)
    except ConfigError:  # flake8 can't show it as a finding: joblint's CLI reports it
        return Config(root=directory)
