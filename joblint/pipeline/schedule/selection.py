"""What runs on each file: its configuration's rule selection less its
per-file ignores, its configuration's options, and what counts as test code.

Configuration is hierarchical (`joblint.config.Configs`): each file has the
settings of its closest configuration file. One `_Selection` is built per
configuration, not per file, and looked up per directory.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from joblint.config import Config, Configs, lint_options
from joblint.pipeline.project.project_settings import ProjectSettings
from joblint.pipeline.project.scope import TestCode, TestCodeByPath
from joblint.registry import reads_settings
from joblint.settings import LintSettings, Options

if TYPE_CHECKING:
    import pathspec


class _Selection:
    """One configuration's codes, per-file ignores, options and test code."""

    def __init__(self, config: Config, call_enqueues: frozenset[str]) -> None:
        self.config = config
        self.codes = config.selected_codes()
        self.per_file = _per_file_ignores(config)
        self.options = replace(lint_options(config), call_enqueues=call_enqueues)
        inherited = config.test_path_groups()[1:]
        self.tests = TestCode(
            config.root, config.all_test_paths, also=inherited, include=config.include_tests
        )

    def settings_for(self, path: Path) -> LintSettings:
        codes = self.codes
        for root, spec, ignored in self.per_file:
            relative = _relative_to(path, root, own=root == self.config.root)
            if (relative is not None and spec.match_file(relative)) or spec.match_file(path.name):
                codes = frozenset(c for c in codes if not any(c.startswith(i) for i in ignored))
        return LintSettings(codes, self.options)


def _per_file_ignores(
    config: Config,
) -> list[tuple[Path, pathspec.GitIgnoreSpec, frozenset[str]]]:
    groups = [(root, ignores) for root, ignores in config.per_file_ignore_groups() if ignores]
    if not groups:
        return []
    import pathspec  # gitignore globs; its import is not cheap, and most runs have none

    return [
        (root, pathspec.GitIgnoreSpec.from_lines([glob]), frozenset(codes))
        for root, ignores in groups
        for glob, codes in ignores
    ]


def _relative_to(path: Path, root: Path, own: bool) -> str | None:
    """The path below `root`; outside it, the path as given for the
    configuration's own patterns and None for those it inherits from another
    directory (they name paths there)."""
    try:
        return path.absolute().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix() if own else None


class Selector:
    """Rule codes and options per file, from each file's configuration.

    `files`: the run's files, so that `base` (what the prefilter screens for)
    covers every configuration they have."""

    def __init__(
        self, config: Config, configs: Configs | None = None, files: Iterable[Path] = ()
    ) -> None:
        self.config = config
        self.configs = configs if configs is not None else Configs(config)
        self._call_enqueues: frozenset[str] = frozenset()
        self._selections: dict[int, _Selection] = {}
        self._by_path: dict[str, tuple[frozenset[str], float]] = {}
        self.configs.all_for(files)
        self.root = self._of(config)

    def _of(self, config: Config) -> _Selection:
        found = self._selections.get(id(config))
        if found is None:
            found = self._selections[id(config)] = _Selection(config, self._call_enqueues)
        return found

    def of_path(self, path: Path | str) -> _Selection:
        return self._of(self.configs.for_path(path))

    @property
    def hierarchical(self) -> bool:
        """Files may have configurations of their own (closer than the run's)."""
        return self.config.hierarchical

    @property
    def base(self) -> frozenset[str]:
        """Every code some file's configuration selects."""
        return frozenset().union(*(self._of(c).codes for c in self.configs.loaded()))

    @property
    def options(self) -> Options:
        """The run's own configuration's options (reading facts only)."""
        return self.root.options

    @property
    def user_functions(self) -> list[str]:
        """The enqueue, transaction and on-commit functions every configuration names."""
        names: dict[str, None] = {}
        for config in self.configs.loaded():
            for name in (
                *config.extend_enqueue_functions,
                *config.extend_transaction_functions,
                *config.extend_on_commit_functions,
            ):
                names[name] = None
        return list(names)

    @property
    def reads_settings(self) -> bool:
        """A selected rule's findings depend on the project's settings facts."""
        return any(reads_settings(code) for code in self.base)

    def learn_call_enqueues(self, names: frozenset[str]) -> None:
        """The project's tasks that enqueue when called, for every configuration."""
        self._call_enqueues = names
        for selection in self._selections.values():
            selection.options = replace(selection.options, call_enqueues=names)

    def project_settings(self, named: frozenset[str] | None) -> ProjectSettings:
        margin = self.config.visibility_margin_seconds
        per_path = self._project_for_path if self.hierarchical else None
        # The project model follows calls across every configuration's files:
        # a wrapper one of them names enqueues wherever it is called from.
        enqueues = frozenset(
            name for config in self.configs.loaded() for name in config.extend_enqueue_functions
        )
        return ProjectSettings(
            self.base,
            margin,
            named,
            enqueue_functions=enqueues,
            for_path=per_path,
            broker=self.config.broker,
        )

    def _project_for_path(self, path: str) -> tuple[frozenset[str], float]:
        found = self._by_path.get(path)
        if found is None:
            selection = self.of_path(path)
            codes = selection.settings_for(Path(path)).codes
            found = self._by_path[path] = (codes, selection.config.visibility_margin_seconds)
        return found

    def settings_for(self, path: Path) -> LintSettings:
        return self.of_path(path).settings_for(path)

    def test_code(self) -> TestCode:
        """What counts as test code, each path by its own configuration."""
        if not self.hierarchical:
            return self.root.tests
        return TestCodeByPath(self.config.root, lambda path: self.of_path(path).tests)
