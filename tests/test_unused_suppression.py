"""JL002 unused-suppression, through the engine and the CLI."""

from __future__ import annotations

from pathlib import Path

from conftest import Run, write

from joblint.analysis.context import Options
from joblint.pipeline.lint import lint_source
from joblint.pipeline.project import ProjectSettings, settle
from joblint.registry import select_codes
from joblint.settings import LintSettings, ModuleInfo

HEADER = """from django.db import transaction
from .tasks import send

def f(x):
    with transaction.atomic():
"""


def _findings(source: str, codes: frozenset[str]) -> list[tuple[str, int, int, str]]:
    settings = LintSettings(codes, Options())
    result = lint_source("app/m.py", source.encode(), settings, ModuleInfo("app.m"))
    return [
        (f.code, f.span.line, f.span.column, f.message)
        for f in settle([result], ProjectSettings(codes))
    ]


ALL_PREVIEW = select_codes(["ALL"], [], [], preview=True)


def test_used_code_is_not_reported() -> None:
    source = HEADER + "        send.delay(x)  # joblint: ignore[JL101]\n"
    assert _findings(source, ALL_PREVIEW) == []


def test_unused_and_partly_used_codes() -> None:
    source = HEADER + "        send.delay(x)  # joblint: ignore[JL101, JL102]\n"
    found = _findings(source, ALL_PREVIEW)
    assert [(c, line, col) for c, line, col, _ in found] == [("JL002", 6, 49)]
    assert "'JL102'" in found[0][3]


def test_prefix_used_by_a_finding_it_covers() -> None:
    source = HEADER + "        send.delay(x)  # noqa: JL1\n"
    assert _findings(source, ALL_PREVIEW) == []


def test_standalone_comment_above_and_file_level() -> None:
    source = (
        "# joblint: ignore-file[JL4]\n"
        + HEADER
        + "        # joblint: ignore[JL101]\n"
        + "        x.save()\n"
    )
    found = _findings(source, ALL_PREVIEW)
    assert [(c, line, col) for c, line, col, _ in found] == [("JL002", 1, 24), ("JL002", 7, 27)]


def test_unknown_codes_and_other_tools() -> None:
    source = "x = 1  # noqa: E501, JL9999\ny = 2  # joblint: ignore[JL10l]\n"
    found = _findings(source, ALL_PREVIEW)
    assert [(line, col) for _, line, col, _ in found] == [(1, 22), (2, 26)]
    assert all("unknown code" in message for *_, message in found)


def test_rules_not_running_and_project_rules_are_not_judged() -> None:
    source = "x = 1  # joblint: ignore[JL4, JL501]\n"
    assert _findings(source, frozenset({"JL002", "JL101"})) == []
    assert _findings(source, ALL_PREVIEW) == [
        ("JL002", 1, 26, "suppression code 'JL4' suppressed nothing here: remove it")
    ]


def test_jl002_can_suppress_itself_and_blanket_noqa_is_ignored() -> None:
    source = "x = 1  # joblint: ignore[JL101, JL002]\ny = 2  # noqa\n"
    assert _findings(source, ALL_PREVIEW) == []


def test_preview_only(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"m.py": "x = 1  # joblint: ignore[JL101]\n"})
    assert run("--format", "concise", ".").code == 0
    # JL002 judges a code only when a rule it covers runs: JL002 alone judges nothing.
    assert run("--format", "concise", "--select", "JL002", ".").code == 0
    for args in (["--preview"], ["--select", "JL002,JL1"], ["--extend-select", "JL002"]):
        result = run("--format", "concise", *args, ".")
        assert result.code == 1, args
        assert "m.py:1:26: JL002 suppression code 'JL101'" in result.stdout
    assert run("--format", "concise", "--select", "JL0", ".").code == 0
