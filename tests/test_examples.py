"""The bundled examples and fixtures: every `# JLxxx` comment marks a line that
must be reported with that code, and no other line may be."""

from __future__ import annotations

from pathlib import Path

import pytest

from joblint.api import lint_paths
from joblint.config import Config
from joblint.testing import marked_lines

ROOT = Path(__file__).resolve().parents[1]


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
    assert found == marked_lines(ROOT / directory, ROOT)
    assert found, "the examples must show findings"
