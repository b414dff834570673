"""Where rules report: production code, unless the user asks for more.

Test code and Django migrations get no JL1-JL6 findings by default: on real
projects most findings there are deliberate fixtures (a test of the retry
path retries on purpose) or one-off code that runs once, at deploy time. The
findings are still computed, so the summary can say how many were not shown
and a suppression there still counts as used; JL0 findings (a file that can't
be parsed, an unused suppression) are reported everywhere.

Test code is matched by `test-paths` (gitignore-style patterns against the
path relative to the project root); a migration is a file under a
`migrations/` package (one of the default patterns) or a function its own
file runs with `RunPython(...)`. Test code gives production findings no facts
(its tasks, settings and classes are the tests' own), except a test module
that production code imports.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from joblint.globs import GlobPatterns
from joblint.models import FileResult, Finding

if TYPE_CHECKING:
    from joblint.pipeline.project.project_settings import ProjectSettings


# Codes reported in test code too: about the file itself, and its suppressions.
EVERYWHERE_PREFIX = "JL0"


class TestCode:
    """Which reported paths are test code (or migrations), and whether findings
    there are reported all the same (`include`: the include-tests setting)."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(
        self,
        root: Path,
        patterns: Iterable[str],
        *,
        also: Iterable[tuple[Path, Iterable[str]]] = (),
        include: bool = False,
    ) -> None:
        self.root = root
        # Each group of patterns is relative to its own root (the directory of
        # the configuration file that set it).
        self._groups = [(root, tuple(patterns)), *((r, tuple(p)) for r, p in also)]
        self._compiled: list[tuple[Path, GlobPatterns]] | None = None  # on first use
        self._known: dict[str, bool] = {}
        self.include = include

    def __contains__(self, path: str) -> bool:
        found = self._known.get(path)
        if found is None:
            found = self._known[path] = self._match(path)
        return found

    def includes(self, path: str) -> bool:
        """Whether findings in test code at `path` are reported (include-tests)."""
        return self.include

    def _match(self, path: str) -> bool:
        if self._compiled is None:
            self._compiled = [(root, GlobPatterns(lines)) for root, lines in self._groups if lines]
        for root, patterns in self._compiled:
            # Inherited patterns name paths below their own root only.
            relative = _relative(path, root) if root == self.root else _below(path, root)
            if relative is not None and patterns.match(relative):
                return True
        return False


class TestCodeByPath(TestCode):
    """Test code under hierarchical configuration: each path is judged by the
    `TestCode` of its own configuration (`of(path)`)."""

    def __init__(self, root: Path, of: Callable[[str], TestCode]) -> None:
        super().__init__(root, ())
        self._of = of

    def _match(self, path: str) -> bool:
        return path in self._of(path)

    def includes(self, path: str) -> bool:
        return self._of(path).includes(path)


def _below(path: str, root: Path) -> str | None:
    try:
        return Path(path).absolute().relative_to(root).as_posix()
    except ValueError:
        return None


def _relative(path: str, root: Path) -> str:
    """The path below the project root, so that the directories above the
    project (a checkout under `~/tests/`) never make it test code. (As
    `Path(path).absolute().relative_to(root)`, on strings: a run asks it of
    every file it reports on, and paths cost twenty times as much.)"""
    parts = path.split(os.sep)
    if "." in parts or "" in parts[1:]:  # `./x`, `a//b`: as Path reads them
        try:
            return Path(path).absolute().relative_to(root).as_posix()
        except ValueError:
            return Path(path).as_posix()
    absolute = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    top = str(root)
    if absolute == top:
        return "."
    prefix = top if top.endswith(os.sep) else top + os.sep
    below = absolute[len(prefix) :] if absolute.startswith(prefix) else path
    return below.replace(os.sep, "/") if os.sep != "/" else below


@dataclass(frozen=True, slots=True)
class Shown:
    """The findings to report, and how many were held back as test code."""

    findings: list[Finding]
    hidden: int = 0


def settle_scoped(
    results: Sequence[FileResult],
    settings: ProjectSettings | None,
    context: Sequence[FileResult],
    tests: TestCode,
    include_tests: bool = False,
) -> Shown:
    """The run's findings. Production code is settled with production facts
    only; test code with every fact. Findings in test code and migrations are
    reported with `include_tests`, else only counted."""
    from joblint.pipeline.project import settle

    production = [r for r in results if r.path not in tests]
    in_tests = [r for r in results if r.path in tests]
    production_context = [r for r in context if r.path not in tests]
    test_context = [r for r in context if r.path in tests]
    imported = _imported_test_modules(
        [*production, *production_context], [*in_tests, *test_context]
    )
    found = settle(production, settings, [*production_context, *imported])
    in_test_code = settle(in_tests, None, [*production, *context]) if in_tests else []
    if include_tests:
        everything = [*found, *in_test_code]
        everything.sort(key=lambda f: f.sort_key)
        return Shown(everything)
    shown = [
        f for f in in_test_code if f.code.startswith(EVERYWHERE_PREFIX) or tests.includes(f.path)
    ]
    hidden = len(in_test_code) - len(shown)
    outside_one_off = without_one_off(found, results, tests.includes)
    hidden += len(found) - len(outside_one_off)
    shown.extend(outside_one_off)
    shown.sort(key=lambda f: f.sort_key)
    return Shown(shown, hidden)


def without_one_off(
    findings: Iterable[Finding],
    results: Iterable[FileResult],
    kept: Callable[[str], bool] = lambda path: False,
) -> list[Finding]:
    """`findings` less those inside a function a migration of the file runs
    (but in the files `kept` says report them)."""
    spans = {r.path: r.one_off for r in results if r.one_off and not kept(r.path)}
    if not spans:
        return list(findings)
    return [
        f
        for f in findings
        if f.code.startswith(EVERYWHERE_PREFIX)
        or not any(first <= f.span.line <= last for first, last in spans.get(f.path, ()))
    ]


def _imported_test_modules(
    production: Iterable[FileResult], in_tests: Sequence[FileResult]
) -> list[FileResult]:
    """The test-code results whose module production code imports (a shared
    factory module, say): their facts count for production findings."""
    if not in_tests:
        return []
    targets = {target for r in production for _, target in _imports(r)}
    prefixes = {".".join(t.split(".")[:i]) for t in targets for i in range(1, t.count(".") + 2)}
    return [r for r in in_tests if (module := _module(r)) and module in prefixes]


def _imports(result: FileResult) -> tuple[tuple[str, str], ...]:
    """The module's imports, as its facts or (read only for the project
    model) its index tell them."""
    index = result.index
    return result.facts.aliases or (index.aliases if index is not None else ())


def _module(result: FileResult) -> str:
    index = result.index
    return result.facts.module or (index.module if index is not None else "")
