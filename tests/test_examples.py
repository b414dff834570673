"""The bundled examples and fixtures: every `# JLxxx` comment marks a line that
must be reported with that code, and no other line may be."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from joblint.api import lint_paths
from joblint.config import Config

ROOT = Path(__file__).resolve().parents[1]
MARK = re.compile(r"#\s*(?:expect:\s*)?(JL\d{3})\b")


def _expected(directory: Path) -> set[tuple[str, int, str]]:
    expected = set()
    for path in sorted(directory.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            comment = line.partition("#")[2]
            for code in MARK.findall("#" + comment):
                expected.add((path.relative_to(ROOT).as_posix(), number, code))
    return expected


@pytest.mark.parametrize("directory", ["examples", "fixtures"])
def test_marked_lines_are_exactly_the_findings(
    directory: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    # As the CLI reads them: a fixture project's own configuration selects
    # the preview rules it shows.
    run = lint_paths([Path(directory)], Config(root=ROOT, hierarchical=True))
    found = {(f.path, f.span.line, f.code) for f in run.findings}
    assert run.internal_errors == []
    assert found == _expected(ROOT / directory)
    assert found, "the examples must show findings"
