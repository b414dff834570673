"""Our walker must see the same nodes in the same order as LibCST's own visit
(minus formatting nodes), or rules would silently miss code."""

from __future__ import annotations

import dataclasses
import inspect
import re
import sysconfig
from pathlib import Path

import libcst as cst
import pytest

from joblint.analysis import walk as walk_module
from joblint.analysis.walk import FORMATTING_TYPES, subclasses, walk

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


# The field name LibCST's visit helpers take, in the method's source.
_FIELD_CALL = re.compile(r"visit_\w+\(\s*self,\s*\"(\w+)\"")


def _fields_by_source(node_type: type[cst.CSTNode]) -> tuple[str, ...] | None:
    """The child fields by the visit method's source: the names it hands
    the visit helpers, if every one is a field of the node (else None)."""
    method = node_type._visit_and_replace_children
    if method is cst.CSTNode._visit_and_replace_children or method.__qualname__.startswith(
        "BaseLeaf."
    ):
        return ()
    names = list(dict.fromkeys(_FIELD_CALL.findall(inspect.getsource(method))))
    declared = {f.name for f in dataclasses.fields(node_type)}
    if not names or any(name not in declared for name in names):
        return None
    formatting = walk_module._FORMATTING_FIELDS
    return tuple(n for n in names if n not in formatting and not n.startswith("whitespace"))


NODE_TYPES = sorted(subclasses(cst.CSTNode), key=lambda t: str(t.__qualname__))


@pytest.mark.parametrize("node_type", NODE_TYPES, ids=lambda t: str(t.__qualname__))
def test_child_fields_are_those_the_node_visits_in_its_source(node_type: type[cst.CSTNode]) -> None:
    """The walk reads a node's child fields off its compiled visit method:
    exactly the fields, in the order, its source hands the visit helpers
    (less formatting), for every node type of the installed LibCST."""
    assert walk_module._child_fields(node_type) == _fields_by_source(node_type)
