"""The code stays readable in pieces a newcomer can hold: every module says what
it is for, no hand-written module grows past 800 lines, no class past 25
methods. Generated modules (the rule catalogue) are exempt."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "joblint"
GENERATED = {PACKAGE / "rules" / "_catalog.py"}
MAX_MODULE_LINES = 800
MAX_CLASS_METHODS = 25


def _modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if path not in GENERATED)


def _relative(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def test_every_module_and_package_says_what_it_is_for() -> None:
    lacking = []
    for path in _modules():
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if len(docstring.split()) < 5 or docstring.lower().startswith(("placeholder", "todo")):
            lacking.append(_relative(path))
    assert lacking == []


def test_no_hand_written_module_is_over_the_line_budget() -> None:
    long = {
        _relative(path): lines
        for path in _modules()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_class_is_over_the_method_budget() -> None:
    large = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = [
                    item
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                ]
                if len(methods) > MAX_CLASS_METHODS:
                    large[f"{_relative(path)}:{node.name}"] = len(methods)
    assert large == {}


def test_the_budgets_see_what_they_measure() -> None:
    # Were the walk to find nothing, the tests above would prove nothing.
    assert len(_modules()) > 200
    assert any(path.name == "registry.py" for path in _modules())
