"""Per-rule precision and recall on our own fixture suite.

Every line a `# JLxxx` comment marks under `fixtures/` must be reported with
that code, and no other line may be (`tests/test_examples.py`). This script
lints the fixtures with every rule, the preview rules too, and scores each
code against the marks, so a rule losing a shape shows as a number before it
lands:

    python benchmarks/score.py            # a table
    python benchmarks/score.py --json     # the same, as JSON

A true positive is a marked line reported with its code, a false positive a
finding on a line not marked with its code, a miss a marked line not
reported with it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from joblint.api import lint_paths
from joblint.config import Config
from joblint.registry import catalog
from joblint.testing import marked_lines

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = "fixtures"

Line = tuple[str, int, str]  # (path, line, code)


@dataclass(frozen=True, slots=True)
class Score:
    code: str
    preview: bool
    true_positives: int
    false_positives: int
    misses: int

    @property
    def precision(self) -> float | None:
        """None when the code reported nothing here (nothing to be wrong about)."""
        reported = self.true_positives + self.false_positives
        return self.true_positives / reported if reported else None

    @property
    def recall(self) -> float | None:
        """None when no line is marked with the code (nothing to find)."""
        marked = self.true_positives + self.misses
        return self.true_positives / marked if marked else None

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "precision": self.precision, "recall": self.recall}


def findings(directory: str) -> set[Line]:
    """What joblint reports under `directory` (relative to the repository),
    every rule selected, preview on, each fixture project's own configuration
    read as the CLI reads it."""
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        run = lint_paths(
            [Path(directory)], Config(root=ROOT, hierarchical=True, select=("ALL",), preview=True)
        )
    finally:
        os.chdir(here)
    if run.internal_errors:
        raise SystemExit(f"joblint failed on the fixtures: {run.internal_errors}")
    return {(f.path, f.span.line, f.code) for f in run.findings}


def scores(found: set[Line], marked: set[Line]) -> list[Score]:
    """One score per rule (and per other code found or marked), by code."""
    preview = {info.code: info.preview for info in catalog()}
    codes = sorted({*preview, *(line[2] for line in found | marked)})
    return [
        Score(
            code,
            preview.get(code, False),
            _count(found & marked, code),
            _count(found - marked, code),
            _count(marked - found, code),
        )
        for code in codes
    ]


def _count(lines: Iterable[Line], code: str) -> int:
    return sum(1 for line in lines if line[2] == code)


def table(rows: list[Score]) -> str:
    header = f"{'code':<7} {'':<8} {'TP':>4} {'FP':>4} {'miss':>5} {'precision':>10} {'recall':>7}"
    lines = [header, "-" * len(header)]
    for row in rows:
        kind = "preview" if row.preview else ""
        lines.append(
            f"{row.code:<7} {kind:<8} {row.true_positives:>4} {row.false_positives:>4} "
            f"{row.misses:>5} {_ratio(row.precision):>10} {_ratio(row.recall):>7}"
        )
    return "\n".join(lines)


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    args = parser.parse_args(argv)
    rows = scores(findings(FIXTURES), marked_lines(ROOT / FIXTURES, ROOT))
    if args.json:
        print(json.dumps([row.as_dict() for row in rows], indent=2))
    else:
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
