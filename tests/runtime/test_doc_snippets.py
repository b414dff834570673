"""The integration blocks of docs/runtime.md: each is run by a worker test, and
the linter whose findings point to them finds nothing in them."""

from __future__ import annotations

from pathlib import Path

import pytest

from joblint.api import lint_paths
from joblint.config import Config

from .workers import doc_snippets

RUN_BY = {
    "celery-tasks": "test_celery.py",
    "rq-jobs": "test_rq.py",
    "dramatiq-actors": "test_dramatiq.py",
}


def test_every_marked_block_is_run_by_its_worker_test() -> None:
    snippets = doc_snippets()
    assert set(snippets) == set(RUN_BY)
    here = Path(__file__).parent
    for name, test_file in RUN_BY.items():
        compile(snippets[name], name, "exec")
        assert f'doc_snippet("{name}")' in (here / test_file).read_text()


def test_the_linter_finds_nothing_in_the_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, body in doc_snippets().items():
        (tmp_path / f"{name.replace('-', '_')}.py").write_text(body + "\n")
    monkeypatch.chdir(tmp_path)
    run = lint_paths([tmp_path], Config(root=tmp_path))
    assert run.internal_errors == []
    assert [(f.path, f.span.line, f.code) for f in run.findings] == []
