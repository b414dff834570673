"""Our walker must see the same nodes in the same order as LibCST's own visit
(minus formatting nodes), or rules would silently miss code."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import libcst as cst
import pytest

from joblint.analysis.walk import FORMATTING_TYPES, walk

ROOT = Path(__file__).resolve().parents[1]
STDLIB = Path(sysconfig.get_paths()["stdlib"])
SAMPLES = [
    *sorted((ROOT / "joblint").rglob("*.py")),
    *sorted((ROOT / "fixtures").rglob("*.py")),
    *(STDLIB / name for name in ("ast.py", "dataclasses.py", "asyncio/tasks.py", "typing.py")),
]
FORMATTING = tuple(FORMATTING_TYPES)


class _Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.entered: list[cst.CSTNode] = []
        self.left: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.entered.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.left.append(original_node)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_same_nodes_same_order_as_libcst(path: Path) -> None:
    tree = cst.parse_module(path.read_bytes())
    recorder = _Recorder()
    tree.visit(recorder)
    entered: list[cst.CSTNode] = []
    left: list[cst.CSTNode] = []
    walk(tree, entered.append, left.append)
    expected = [n for n in recorder.entered if not isinstance(n, FORMATTING)]
    assert [id(n) for n in entered] == [id(n) for n in expected]
    assert [id(n) for n in left] == [id(n) for n in recorder.left if not isinstance(n, FORMATTING)]


def test_deep_nesting_does_not_recurse() -> None:
    source = "x = " + "(" * 900 + "1" + ")" * 900 + "\n"
    tree = cst.parse_module(source)
    count = 0

    def enter(node: cst.CSTNode) -> None:
        nonlocal count
        count += 1

    walk(tree, enter, lambda node: None)
    assert count > 3
