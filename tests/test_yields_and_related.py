"""One finding per place across rules that yield to another (JL106 to
JL101), and related locations a file rule names (JL106's write)."""

from __future__ import annotations

from pathlib import Path

from joblint.api import lint_paths
from joblint.config import Config
from joblint.models import Finding, Span
from joblint.pipeline.project.settling import _one_per_place


def _finding(code: str, line: int) -> Finding:
    return Finding(code, code.lower(), "message", "app/views.py", Span(line, 5, line, 20))


def test_a_rule_yields_to_the_rule_it_names_at_the_same_place() -> None:
    kept = _one_per_place([_finding("JL101", 6), _finding("JL106", 6), _finding("JL106", 9)])
    assert [(f.code, f.span.line) for f in kept] == [("JL101", 6), ("JL106", 9)]


def test_the_rule_named_does_not_yield_back() -> None:
    kept = _one_per_place([_finding("JL106", 6), _finding("JL101", 6)])
    assert [f.code for f in kept] == ["JL101"]


def test_an_enqueue_before_write_names_the_write_as_a_related_place(tmp_path: Path) -> None:
    (tmp_path / "services.py").write_text(
        "from .tasks import charge\n\n"
        "def pay(order):\n"
        "    charge.delay(order.pk)\n"
        "    order.paid = True\n"
        "    order.save()\n",
        encoding="utf-8",
    )
    config = Config(root=tmp_path, select=("JL106",), preview=True)
    (finding,) = lint_paths([tmp_path / "services.py"], config).findings
    assert (finding.code, finding.span.line) == ("JL106", 4)
    (related,) = finding.related
    assert (related.path, related.span.line) == (finding.path, 6)
    assert related.message == "order's row is written here"
