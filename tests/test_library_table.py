"""docs/libraries.md: every row's example is a line of the enqueue-API fixture
that joblint reports (the fixture's marks are checked in test_examples.py),
or, for a row saying the call enqueues nothing, a line it does not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "libraries.md"
FIXTURE = ROOT / "fixtures" / "enqueue_apis" / "shop"
# `file.py`: `the call`, in the last column of a row.
EXAMPLE = re.compile(r"^`(?P<file>[\w.]+\.py)`: `(?P<code>.+)`$")
NO_ENQUEUE = "*no enqueue*"


def _rows() -> list[list[str]]:
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith("| Library"):
            continue
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


ROWS = _rows()


def test_the_table_has_a_row_for_every_library_joblint_enqueues_with() -> None:
    libraries = {re.sub(r" [\d.]+$", "", row[0].split(" (")[0]) for row in ROWS}
    expected = {"Celery", "RQ", "django-rq", "Dramatiq", "Huey", "django-q2", "Django tasks"}
    expected |= {"arq", "taskiq", "procrastinate", "kombu", "SQS"}
    assert expected <= libraries
    assert len(ROWS) >= 40


@pytest.mark.parametrize("row", ROWS, ids=[f"{r[0]}: {r[1]}" for r in ROWS])
def test_each_rows_example_is_a_checked_line(row: list[str]) -> None:
    assert len(row) == 4, row
    library, _api, rules, example = row
    assert re.search(r"\d+\.\d+|SQS", library), f"no version read for {library}"
    found = EXAMPLE.match(example)
    assert found is not None, f"example not as `file.py`: `call`: {example}"
    lines = (FIXTURE / found["file"]).read_text(encoding="utf-8").splitlines()
    matching = [line for line in lines if line.strip().split("  #")[0] == found["code"]]
    assert len(matching) == 1, f"{found['code']!r} is not one line of {found['file']}"
    marked = matching[0].endswith("# JL101")
    assert marked == (NO_ENQUEUE not in rules), (rules, matching[0])
