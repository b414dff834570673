"""`benchmarks/score.py`: it runs, and our own fixtures hold every rule to
the precision and recall we promise (a shape lost shows here first)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (precision, recall) each rule must keep on the fixtures: the rules on by
# default, and the preview ones.
ON_BY_DEFAULT = (0.97, 0.95)
PREVIEW = (0.95, 0.85)
MEASURED_PREVIEW = ("JL601", "JL602")


def _score_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("score", ROOT / "benchmarks" / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up
    spec.loader.exec_module(module)
    return module


def test_every_rule_keeps_its_precision_and_recall_on_the_fixtures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _score_module().main(["--json"]) == 0
    rows = {row["code"]: row for row in json.loads(capsys.readouterr().out)}
    measured = [c for c, row in rows.items() if not row["preview"]] + list(MEASURED_PREVIEW)
    for code in measured:
        assert rows[code]["recall"] is not None, f"{code} has no marked line in the fixtures"
    for code, row in rows.items():
        if row["preview"] and code not in MEASURED_PREVIEW:
            continue
        precision, recall = PREVIEW if row["preview"] else ON_BY_DEFAULT
        if row["precision"] is not None:
            assert row["precision"] >= precision, row
        if row["recall"] is not None:
            assert row["recall"] >= recall, row


def test_the_table_names_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    module = _score_module()
    rows = module.scores(
        {("a.py", 1, "JL101"), ("a.py", 2, "JL101")}, {("a.py", 1, "JL101"), ("a.py", 3, "JL101")}
    )
    jl101 = next(row for row in rows if row.code == "JL101")
    assert (jl101.true_positives, jl101.false_positives, jl101.misses) == (1, 1, 1)
    assert (jl101.precision, jl101.recall) == (0.5, 0.5)
    print(module.table(rows))
    out = capsys.readouterr().out
    assert "JL601" in out and "preview" in out
