"""`joblint explain` and `joblint rules` as a terminal user reads them: every
word at any width and piped, the teaching examples only, a pager for long
pages, JL001 listed and documented, names never cut."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from joblint.cli import main
from joblint.docs_gen import DOCS_DIR, rule_markdown
from joblint.registry import documented_rules, examples, lookup
from joblint.rules._builtin import UnparseableFile
from joblint.testing import lint_example

ROOT = Path(__file__).resolve().parents[1]
_ESCAPES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|\x1b\]8;[^\x1b]*\x1b\\")


def _words(text: str) -> str:
    """The text's word characters run together: a word folded across lines
    still matches, a word lost or cut does not."""
    return "".join(re.findall(r"\w+", text))


def _rendered_words(markdown: str) -> str:
    """What rendering keeps of a page: not a fence's language, not a link's target."""
    markdown = re.sub(r"```\w+", "```", markdown)
    return _words(re.sub(r"\]\([^)]*\)", "]", markdown))


def _explain(*args: str, columns: int = 80) -> str:
    result = CliRunner().invoke(main, ["explain", *args], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.stdout


RULES = [pytest.param(rule, id=rule.CODE) for rule in documented_rules()]


@pytest.mark.parametrize("columns", [40, 80, 200])
@pytest.mark.parametrize("rule", RULES)
def test_explain_renders_every_word_at_any_width(rule: type, columns: int) -> None:
    page = rule_markdown(rule, teaching_only=True)
    shown = _ESCAPES.sub("", _explain(rule.CODE, "--color", "always", columns=columns))
    assert _words(shown) == _rendered_words(page)
    assert max(len(line) for line in shown.splitlines()) <= columns


@pytest.mark.parametrize("rule", RULES)
def test_explain_piped_is_the_page_itself(rule: type) -> None:
    assert _explain(rule.CODE) == rule_markdown(rule, teaching_only=True)


def test_explain_shows_the_teaching_examples_and_points_to_the_rest() -> None:
    rule = lookup("JL101")
    assert rule is not None
    suite_only = [e for e in examples(rule).invalid if e not in rule.INVALID]
    assert suite_only, "JL101 has a full example suite"
    shown = _explain("JL101")
    assert all(e.code.strip() in shown for e in rule.INVALID)
    assert not any(e.code.strip() in shown for e in suite_only)
    assert "more examples: `joblint explain JL101 --all-examples`" in shown
    # The docs page keeps them all.
    page = (DOCS_DIR / "JL101.md").read_text(encoding="utf-8")
    assert all(e.code.strip() in page for e in suite_only)


def test_explain_all_examples_shows_the_whole_suite_from_the_package() -> None:
    """A pip-installed user has no docs/ folder: the full suite comes from the
    package itself, and is the docs page's text."""
    rule = lookup("JL101")
    assert rule is not None
    shown = _explain("JL101", "--all-examples")
    assert all(e.code.strip() in shown for e in examples(rule).all)
    assert "more examples" not in shown
    assert shown == rule_markdown(rule)


def test_jl001_is_listed_and_explained() -> None:
    listing = json.loads(CliRunner().invoke(main, ["rules", "--format", "json"]).stdout)
    assert {"code": "JL001", "name": "unparseable-file", "preview": False}.items() <= next(
        r for r in listing if r["code"] == "JL001"
    ).items()
    assert _explain("JL001").startswith("# JL001 unparseable-file")
    assert _explain("unparseable-file") == _explain("JL001")
    assert (DOCS_DIR / "JL001.md").is_file()
    # Listed, not run: no traversal rule and no trigger in the catalogue.
    from joblint.registry import all_rules, catalog

    assert "JL001" not in {r.CODE for r in all_rules()}
    assert "JL001" not in {info.code for info in catalog()}


def test_jl001_examples_hold() -> None:
    for example in UnparseableFile.INVALID:
        found = lint_example(UnparseableFile, example, example.code)
        spans = sorted((f.span.line, f.span.column) for f in found if f.code == "JL001")
        assert spans == sorted((e.line, e.column) for e in example.expected)
        assert all(e.message in f.message for e, f in zip(example.expected, found, strict=True))
    for valid in UnparseableFile.VALID:
        found = lint_example(UnparseableFile, valid, valid.code)
        assert [f for f in found if f.code == "JL001"] == []


@pytest.mark.parametrize("columns", [40, 200])
def test_rules_never_cut_names(columns: int) -> None:
    names = [rule.name() for rule in documented_rules()]
    for args in (["rules"], ["rules", "--color", "always"]):
        result = CliRunner().invoke(main, args, env={"COLUMNS": str(columns)})
        shown = _ESCAPES.sub("", result.stdout)
        assert result.exit_code == 0
        missing = [name for name in names if not re.search(rf"(?<![\w-]){name}(?![\w-])", shown)]
        assert missing == [], (args, shown)


def test_rules_piped_is_one_whole_line_per_rule() -> None:
    lines = CliRunner().invoke(main, ["rules"], env={"COLUMNS": "40"}).stdout.splitlines()
    rules = documented_rules()
    assert len(lines) == len(rules)
    for line, rule in zip(lines, rules, strict=True):
        assert line.split()[:2] == [rule.CODE, rule.name()]
        assert line.endswith(rule.SUMMARY)


# --- the pager: on a terminal, for a page longer than it ---


def _on_terminal(args: list[str], env: dict[str, str], tmp_path: Path) -> str:
    """Run `joblint ARGS` with its stdout on a pseudo-terminal; what it showed."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "joblint", *args],
        stdout=terminal,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), **env},
    )
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    assert process.wait(timeout=60) == 0
    return shown.decode("utf-8", "replace")


def _pager_script(tmp_path: Path) -> Path:
    """A pager that records what it was given (and shows nothing)."""
    script = tmp_path / "pager.py"
    script.write_text(
        "import sys, pathlib\npathlib.Path(sys.argv[1]).write_bytes(sys.stdin.buffer.read())\n",
        encoding="utf-8",
    )
    return script


def test_a_long_page_on_a_terminal_goes_through_the_pager(tmp_path: Path) -> None:
    paged = tmp_path / "paged.txt"
    pager = f"{sys.executable} {_pager_script(tmp_path)} {paged}"
    env = {"PAGER": pager, "LINES": "20", "COLUMNS": "80"}
    shown = _on_terminal(["explain", "JL101"], env, tmp_path)
    assert "JL101 enqueue-in-transaction" in _ESCAPES.sub("", paged.read_text(encoding="utf-8"))
    assert "Why is this bad?" not in shown  # the pager showed it, not joblint


def test_no_pager_and_short_pages_print_directly(tmp_path: Path) -> None:
    paged = tmp_path / "paged.txt"
    pager = f"{sys.executable} {_pager_script(tmp_path)} {paged}"
    shown = _on_terminal(
        ["explain", "--no-pager", "JL101"], {"PAGER": pager, "LINES": "20"}, tmp_path
    )
    assert "Why is this bad?" in shown
    shown = _on_terminal(["explain", "JL001"], {"PAGER": pager, "LINES": "5000"}, tmp_path)
    assert "What it does" in shown
    assert not paged.exists()


def test_a_pager_that_cannot_start_prints_the_page(tmp_path: Path) -> None:
    env = {"PAGER": str(tmp_path / "no-such-pager"), "LINES": "20"}
    assert "Why is this bad?" in _on_terminal(["explain", "JL101"], env, tmp_path)


def _runtime_sections() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "runtime.md").read_text(encoding="utf-8")
    return re.findall(r"^## (JL\d{3}) ([a-z-]+)", text, re.M)


def test_runtime_docs_name_the_rules_as_explain_does() -> None:
    """docs/runtime.md's sections are headed by each rule's code and name,
    as `joblint explain` gives them (preview rules too)."""
    sections = _runtime_sections()
    assert ("JL601", "unguarded-side-effect-in-retried-task") in sections
    for code, name in sections:
        rule = lookup(code)
        assert rule is not None, code
        assert rule.name() == name


@pytest.mark.parametrize(
    ("code", "helpers"),
    [
        ("JL601", ("joblint_runtime.idempotency", "@idempotent", "IdempotencyGuard")),
        ("JL602", ("joblint_runtime.chunked", "run_chunk")),
    ],
)
def test_idempotency_and_chunking_rules_point_to_their_runtime_helpers(
    code: str, helpers: tuple[str, ...]
) -> None:
    """`joblint explain` names the runtime helpers docs/runtime.md gives for the rule."""
    result = CliRunner().invoke(main, ["explain", code])
    assert result.exit_code == 0, result.output
    runtime = (ROOT / "docs" / "runtime.md").read_text(encoding="utf-8")
    section = runtime.split(f"## {code} ", 1)[1].split("\n## ", 1)[0]
    for helper in helpers:
        assert helper in result.output, helper
        assert helper.split(".")[-1] in runtime, helper
    assert "import" in section
