"""`LazyPositions` gives every node the range LibCST's PositionProvider gives."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from joblint.analysis.walk import children
from joblint.pipeline.positions import LazyPositions

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    [*(ROOT / "examples").rglob("*.py"), *(ROOT / "fixtures").rglob("*.py")],
    key=lambda p: p.as_posix(),
)

EDGE_CASES = {
    "header-comments": "#!/usr/bin/env python\n# a comment\n\n\nimport os\n\nx = 1\n",
    "crlf": "import os\r\n\r\ndef f():\r\n    return os.sep\r\n",
    "no-trailing-newline": "def f():\n    return 1\n\ny = f()",
    "decorated-and-nested": (
        "@outer(\n    1,\n)\nclass C:\n    @staticmethod\n    def m(a,\n          b):\n"
        "        with open(a) as f, open(b):\n            return [x for x in f]\n"
    ),
    "semicolons-and-tabs": "a = 1; b = 2\nif a:\n\tc = (a +\n\t     b)\n",
    "strings-spanning-lines": 'x = """one\ntwo\nthree"""\ny = f"{x}\\n"\nz = 3\n',
    "empty": "",
    "comments-only": "# nothing\n",
    # Statements whose code occurs twice are placed from the code before them.
    "repeated-statements": (
        "import os\nx = 1\n\nx = 1\ndef f():\n    pass\n\ndef f():\n    pass\nx = 1\n"
    ),
    "repeated-then-unique": "x = 1\nx = 1\n# lead\ny = 2\nx = 1\nz = 3\n",
    "old-mac-and-mixed-newlines": "a = 1\rb = 2\r\n\rc = (1,\r\n 2)\nd = 4\r",
    "statement-inside-a-string": 'x = """\ny = 2\n"""\ny = 2\n',
}


def _nodes(tree: cst.Module) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    for statement in reversed(tree.body):  # later statements first: out of order
        stack: list[cst.CSTNode] = [statement]
        while stack:
            node = stack.pop()
            found.append(node)
            stack.extend(children(node))
    return found


def _check(text: str) -> None:
    tree = cst.parse_module(text)
    expected = dict(MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider))
    nodes = _nodes(tree)
    # Without the text; with it, later statements first and earlier ones first
    # (a statement is found in the text after those before it, or before them).
    for lazy, order in (
        (LazyPositions(tree), nodes),
        (LazyPositions(tree, text), nodes),
        (LazyPositions(tree, text), nodes[::-1]),
    ):
        for node in order:
            assert lazy[node] == expected[node], tree.code_for_node(node)[:60]
        # Nodes no statement owns (the header's lines, commas) are there too.
        assert dict(lazy) == expected


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases_place_every_node_as_the_provider(name: str) -> None:
    _check(EDGE_CASES[name])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_repository_sources_place_every_node_as_the_provider(path: Path) -> None:
    _check(path.read_text(encoding="utf-8"))


def test_only_the_statements_asked_about_are_recorded() -> None:
    tree = cst.parse_module("a = 1\nb = 2\nc = 3\n")
    lazy = LazyPositions(tree)
    assert lazy[tree.body[2]].start.line == 3
    assert lazy.computed and all(r.start.line == 3 for r in lazy.computed.values())
    assert tree.body[0] not in lazy.computed


def test_a_statement_found_in_the_text_needs_no_code_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "import os\n\n\ndef f():\n    return os.sep\n\n# last\ny = f()\n"
    tree = cst.parse_module(text)
    generated: list[cst.CSTNode] = []
    code_for_node = cst.Module.code_for_node

    def watched(module: cst.Module, node: cst.CSTNode) -> str:
        generated.append(node)
        return code_for_node(module, node)

    monkeypatch.setattr(cst.Module, "code_for_node", watched)
    lazy = LazyPositions(tree, text)
    assert lazy[tree.body[2]].start.line == 8
    assert not {id(node) for node in generated} & {id(tree.body[0]), id(tree.body[1])}
    # Without the text, the code before it tells where it starts.
    assert LazyPositions(tree)[tree.body[2]].start.line == 8
    assert {id(tree.body[0]), id(tree.body[1])} <= {id(node) for node in generated}
