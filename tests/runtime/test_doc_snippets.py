"""Every Python block of docs/runtime.md is marked and run, and the linter agrees with
the page: it finds nothing in what the page recommends and reports, in each
"before" block, the rule its section is about."""

from __future__ import annotations

from pathlib import Path

import pytest

from joblint.api import lint_paths
from joblint.config import Config

from .docs_world import PREAMBLE
from .test_runtime_docs import RUN_BY_WORKERS, SPECS
from .workers import DocBlock, doc_blocks

BACKENDS = {"sqlite", "postgres"}


def test_every_python_block_is_marked_and_run() -> None:
    blocks = doc_blocks()
    unmarked = [block.line for block in blocks if not block.name]
    assert unmarked == [], (
        f"docs/runtime.md: the Python blocks at lines {unmarked} have no "
        "<!-- test: NAME [sqlite] [postgres] --> marker, so nothing runs them"
    )
    names = [block.name for block in blocks]
    assert len(names) == len(set(names)), "two blocks share a marker name"
    assert not set(RUN_BY_WORKERS) & set(SPECS)
    assert set(names) == set(RUN_BY_WORKERS) | set(SPECS), (
        "every marked block needs an entry in test_runtime_docs.SPECS "
        "(or a worker test), and every entry a block"
    )
    for block in blocks:
        assert set(block.backends) <= BACKENDS, (block.name, block.backends)
        compile(block.source, block.name, "exec")


def test_the_worker_blocks_are_run_by_their_worker_tests() -> None:
    here = Path(__file__).parent
    for name, test_file in RUN_BY_WORKERS.items():
        assert f'doc_snippet("{name}")' in (here / test_file).read_text()


def _lint(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, text in files.items():
        (tmp_path / f"{name.replace('-', '_')}.py").write_text(text + "\n")
    run = lint_paths([tmp_path], Config(root=tmp_path, preview=True))
    assert run.internal_errors == []
    return [(Path(f.path).stem.replace("_", "-"), f.span.line, f.code) for f in run.findings]


def _as_linted(block: DocBlock) -> str:
    """A worker block is a module of its own; the others run after PREAMBLE."""
    return block.source if block.name in RUN_BY_WORKERS else PREAMBLE + "\n" + block.source


def _preamble_lines(block: DocBlock) -> int:
    return 0 if block.name in RUN_BY_WORKERS else PREAMBLE.count("\n") + 1


def test_the_linter_finds_nothing_in_the_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the page recommends, preview rules included: the "after" blocks and
    the integration blocks, each with the app it runs in."""
    recommended = {
        block.name: _as_linted(block)
        for block in doc_blocks()
        if block.name in RUN_BY_WORKERS
        or (SPECS[block.name].linted and not SPECS[block.name].reports)
    }
    assert len(recommended) >= 20
    monkeypatch.chdir(tmp_path)
    assert _lint(tmp_path, recommended) == []


def test_the_linter_reports_the_rule_of_each_before_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = {
        block.name: block
        for block in doc_blocks()
        if SPECS.get(block.name, None) and SPECS[block.name].reports
    }
    assert len(before) >= 10
    monkeypatch.chdir(tmp_path)
    findings = _lint(tmp_path, {name: _as_linted(block) for name, block in before.items()})
    for name, block in before.items():
        lines = range(
            _preamble_lines(block) + 1, _preamble_lines(block) + 1 + len(block.source.splitlines())
        )
        reported = {code for found, line, code in findings if found == name and line in lines}
        assert reported == set(SPECS[name].reports), (name, findings)
    # Nothing outside the blocks: the preamble itself is clean.
    assert all(line > PREAMBLE.count("\n") + 1 for _name, line, _code in findings)
