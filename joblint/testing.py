"""Turning each rule's VALID/INVALID examples into checks (used by the test suite
and handy when writing a rule: `python -m joblint.testing JL101`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from joblint.analysis.context import Options
from joblint.config import DEFAULT_TEST_PATHS, lint_options, parse_table
from joblint.index import index_source
from joblint.models import FileResult, Finding
from joblint.pipeline.lint import lint_source
from joblint.pipeline.project import ProjectIndex, ProjectSettings
from joblint.pipeline.project.scope import TestCode, settle_scoped
from joblint.registry import all_rules
from joblint.registry import examples as registry_examples
from joblint.rule import Invalid, Rule, Valid
from joblint.settings import LintSettings, ModuleInfo

EXAMPLE_MODULE = "app.example"
EXAMPLE_PATH = "app/example.py"

# A comment marking a line of a fixture that must be reported with a code:
# `# JL101`, also `# expect: JL101`.
MARK = re.compile(r"#\s*(?:expect:\s*)?(JL\d{3})\b")


def marked_lines(directory: Path, root: Path) -> set[tuple[str, int, str]]:
    """Every (path relative to `root`, line, code) the `# JLxxx` comments of
    the Python files under `directory` mark as findings."""
    expected = set()
    for path in sorted(directory.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            comment = line.partition("#")[2]
            for code in MARK.findall("#" + comment):
                expected.add((path.relative_to(root).as_posix(), number, code))
    return expected


@dataclass(frozen=True, slots=True)
class Case:
    rule: type[Rule]
    example: Valid | Invalid
    index: int

    @property
    def id(self) -> str:
        kind = "valid" if isinstance(self.example, Valid) else "invalid"
        return f"{self.rule.CODE}-{kind}-{self.example.id or self.index}"


def cases() -> Iterator[Case]:
    for rule in all_rules():
        examples: tuple[Valid | Invalid, ...] = registry_examples(rule).all
        for index, example in enumerate(examples):
            yield Case(rule, example, index)


def lint_example(
    rule: type[Rule], example: Valid | Invalid, code: str | None = None
) -> list[Finding]:
    """Lint the example (and its project files) with only `rule` enabled;
    `code` replaces the example's own code (e.g. once fixed)."""
    settings = LintSettings(frozenset({rule.CODE}) | rule.EXAMPLE_CODES, _options(rule, example))
    sources = {EXAMPLE_MODULE: example.code if code is None else code}
    sources.update({name.replace("_", "."): code for name, code in example.project.items()})
    results = _lint_sources(sources, settings)
    # As a run does: once the index tells the functions handing a parameter
    # on to a payload, the files are read again for the calls of those.
    with ProjectIndex.built(results) as index:
        forwarders = index.graph.payload_forwarders()
    if forwarders:
        options = replace(settings.options, payload_forwarders=frozenset(forwarders))
        results = _lint_sources(sources, replace(settings, options=options))
    # As a run reports them: test files among the example's project (a test
    # project's settings, say) give its production code no facts.
    tests = TestCode(Path.cwd(), DEFAULT_TEST_PATHS)
    found = settle_scoped(results, ProjectSettings(settings.codes), [], tests).findings
    return [f for f in found if f.code == rule.CODE]


def _lint_sources(sources: dict[str, str], settings: LintSettings) -> list[FileResult]:
    return [
        _with_index(
            lint_source(
                f"{module.replace('.', '/')}.py", code.encode(), settings, ModuleInfo(module)
            ),
            code,
            module,
            settings,
        )
        for module, code in sources.items()
    ]


def _with_index(result: FileResult, code: str, module: str, settings: LintSettings) -> FileResult:
    """Every file of an example gives its part of the project model, as a run
    reads it on demand for the modules the model needs."""
    if result.index is not None:
        return result
    return replace(result, index=index_source(code, ModuleInfo(module), settings.options))


def _options(rule: type[Rule], example: Valid | Invalid) -> Options:
    """The example's configuration (options some fixes depend on)."""
    if not isinstance(example, Invalid) or not example.config:
        return Options()
    where = f"{rule.CODE} example {example.id or '?'}"
    return lint_options(parse_table(example.config, where, Path.cwd(), None))


def check(case: Case) -> list[str]:
    """Problems with one example; empty when it behaves as declared."""
    findings = lint_example(case.rule, case.example)
    example = case.example
    if isinstance(example, Valid):
        return [f"unexpected {_show(f)}" for f in findings]
    problems = []
    remaining = list(findings)
    for expected in example.expected:
        match = next(
            (
                f
                for f in remaining
                if (f.span.line, f.span.column) == (expected.line, expected.column)
                and f.path == (expected.path or EXAMPLE_PATH)
                and expected.message in f.message
            ),
            None,
        )
        if match is None:
            problems.append(
                f"expected {case.rule.CODE} at {expected.line}:{expected.column} "
                f"containing {expected.message!r}"
            )
        else:
            remaining.remove(match)
    problems.extend(f"unexpected {_show(f)}" for f in remaining)
    if problems and findings:
        problems.append("got: " + "; ".join(_show(f) for f in findings))
    return problems + _check_fixed(case.rule, example, findings)


def fix_example(rule: type[Rule], example: Invalid, findings: list[Finding] | None = None) -> str:
    """The example's code after the fix loop, unsafe fixes included."""
    from joblint.pipeline.fix.apply import fix_file

    def relint(data: bytes) -> list[Finding]:
        found = lint_example(rule, example, data.decode())
        return [f for f in found if f.path == EXAMPLE_PATH]

    if findings is None:
        findings = lint_example(rule, example)
    mine = [f for f in findings if f.path == EXAMPLE_PATH]
    return fix_file(EXAMPLE_PATH, example.code.encode(), mine, relint, True).data.decode()


def _check_fixed(rule: type[Rule], example: Invalid, findings: list[Finding]) -> list[str]:
    fixed = fix_example(rule, example, findings)
    if example.fixed is None:
        if fixed != example.code:
            return [f"a fix applies but the example declares no fixed code; got:\n{fixed}"]
        return []
    if fixed != example.fixed:
        return [f"fixed code differs; expected:\n{example.fixed}\ngot:\n{fixed}"]
    return []


def _show(finding: Finding) -> str:
    where = "" if finding.path == EXAMPLE_PATH else f"{finding.path}:"
    return f"{finding.code} at {where}{finding.span.line}:{finding.span.column}: {finding.message}"


def main(argv: list[str]) -> int:
    failed = 0
    for case in cases():
        if argv and case.rule.CODE not in argv:
            continue
        problems = check(case)
        status = "ok" if not problems else "FAIL"
        print(f"{status:4} {case.id}")
        for problem in problems:
            print(f"     {problem}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
