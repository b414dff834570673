"""What a run gives its caller (`RunResult`: the findings shown, the
problems met, and what re-linting one of its files needs), and the project
step that makes it: `settle` hands every result to the project model,
which settles the pending findings and decides which are shown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from joblint.models import FileResult, Finding
from joblint.pipeline.project.project_settings import ProjectSettings
from joblint.pipeline.project.scope import TestCode, settle_scoped
from joblint.pipeline.schedule.memo import PartShape, cut

# A run's results and context.
ProjectResults = tuple[list[FileResult], list[FileResult]]
# A part of a run modelled apart (`subprojects`): its results and context,
# and its sub-projects' directories.
PartResults = tuple[ProjectResults, tuple[str, ...]]


@dataclass(slots=True)
class RunResult:
    """A run's outcome: what it reports, and what re-linting one of its
    files with the project around it needs."""

    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    # One-line problems with paths (missing, unreadable): reported, run goes on.
    errors: list[str] = field(default_factory=list)
    # A rule failed on a file: reported with "please report", exit status 2.
    internal_errors: list[str] = field(default_factory=list)
    # One-line warnings (a malformed suppression comment): the exit status stays.
    warnings: list[str] = field(default_factory=list)
    settings: ProjectSettings | None = None
    # Findings in test code and migrations that were not reported (joblint.pipeline.project.scope).
    hidden_in_tests: int = 0
    # What re-linting one file with the project around it needs: the run's
    # results and context (`results`, `context`), or how to read them (a run
    # replayed from the memo reads them when first asked).
    project: ProjectResults | Callable[[], ProjectResults] = field(default_factory=lambda: ([], []))
    # The parts modelled apart (`subprojects`), in order. Empty: one part.
    shapes: tuple[PartShape, ...] = ()

    def part_of(self, home: str) -> ProjectResults:
        """The results and context of the part holding the sub-project
        `home` (`subprojects.home_of`): the project its files are re-linted
        with (all of the run's, when no part holds it)."""
        results, context = self._read_project()
        if not self.shapes:
            return results, context
        for shape, part in zip(self.shapes, cut(results, context, self.shapes), strict=True):
            if home in shape.homes:
                return part
        return results, context

    @property
    def results(self) -> list[FileResult]:
        return self._read_project()[0]

    @property
    def context(self) -> list[FileResult]:
        return self._read_project()[1]

    def _read_project(self) -> ProjectResults:
        if callable(self.project):
            self.project = self.project()
        return self.project


def settle(
    results: list[FileResult],
    errors: list[str],
    settings: ProjectSettings,
    context: list[FileResult] | None = None,
    files_checked: int | None = None,
    *,
    tests: TestCode,
    include_tests: bool = False,
) -> RunResult:
    """The run's outcome from its results: the pending findings settled
    with the rest of the project (`context`: files read for their facts or
    index only, which report nothing), and those in test code left out
    unless `include_tests`."""
    checked = len(results) if files_checked is None else files_checked
    run = RunResult(files_checked=checked, errors=list(errors))
    shown = settle_scoped(results, settings, context or (), tests, include_tests)
    run.findings, run.hidden_in_tests = shown.findings, shown.hidden
    run.project, run.settings = (results, list(context or ())), settings
    for result in results:
        run.internal_errors.extend(result.errors)
        run.warnings.extend(result.warnings)
    return run


def settle_apart(
    parts: Sequence[PartResults],
    errors: list[str],
    settings: ProjectSettings,
    files_checked: int,
    *,
    tests: TestCode,
) -> RunResult:
    """`settle` for a run modelled in parts, each settled with its own
    project model."""
    if len(parts) == 1:
        (results, context), _ = parts[0]
        return settle(results, errors, settings, context, files_checked, tests=tests)
    run = RunResult(files_checked=files_checked, errors=list(errors), settings=settings)
    every_result: list[FileResult] = []
    every_context: list[FileResult] = []
    for (results, context), _ in parts:
        settled = settle(results, [], settings, context, tests=tests)
        run.findings.extend(settled.findings)
        run.hidden_in_tests += settled.hidden_in_tests
        run.internal_errors.extend(settled.internal_errors)
        run.warnings.extend(settled.warnings)
        every_result.extend(results)
        every_context.extend(context)
    run.findings.sort(key=lambda finding: finding.sort_key)
    run.project = (every_result, every_context)
    run.shapes = tuple(PartShape(len(r), len(c), homes) for (r, c), homes in parts)
    return run
