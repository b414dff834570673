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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from joblint.globs import GlobPatterns
from joblint.models import FileResult, Finding

if TYPE_CHECKING:  # joblint.pipeline.project imports this module
    from joblint.pipeline.project import ProjectSettings


# Codes reported in test code too: about the file itself, and its suppressions.
EVERYWHERE_PREFIX = "JL0"


class TestCode:
    """Which reported paths are test code (or migrations)."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, root: Path, patterns: Iterable[str]) -> None:
        self.root = root
        self._lines = tuple(patterns)
        self._patterns: GlobPatterns | None = None  # compiled on first use
        self._known: dict[str, bool] = {}

    def __contains__(self, path: str) -> bool:
        found = self._known.get(path)
        if found is None:
            found = self._known[path] = self._match(path)
        return found

    def _match(self, path: str) -> bool:
        if not self._lines:
            return False
        if self._patterns is None:
            self._patterns = GlobPatterns(self._lines)
        return self._patterns.match(_relative(Path(path), self.root))


def _relative(path: Path, root: Path) -> str:
    """The path below the project root, so that the directories above the
    project (a checkout under `~/tests/`) never make it test code."""
    try:
        return path.absolute().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


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
    shown = [f for f in in_test_code if f.code.startswith(EVERYWHERE_PREFIX)]
    hidden = len(in_test_code) - len(shown)
    outside_one_off = without_one_off(found, results)
    hidden += len(found) - len(outside_one_off)
    shown.extend(outside_one_off)
    shown.sort(key=lambda f: f.sort_key)
    return Shown(shown, hidden)


def without_one_off(findings: Iterable[Finding], results: Iterable[FileResult]) -> list[Finding]:
    """`findings` less those inside a function a migration of the file runs."""
    spans = {r.path: r.one_off for r in results if r.one_off}
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
    targets = {target for r in production for _, target in r.facts.aliases}
    prefixes = {".".join(t.split(".")[:i]) for t in targets for i in range(1, t.count(".") + 2)}
    return [r for r in in_tests if r.facts.module and r.facts.module in prefixes]
