"""A module of many statements reads as each of its parts would: positions,
the index's calls by place and the plain functions hold for each statement,
whichever order they are asked in; and linting it leaves the garbage
collector as it found it."""

from __future__ import annotations

import gc
import importlib.util
from pathlib import Path

from joblint.pipeline.lint import lint_source
from joblint.registry import all_codes
from joblint.settings import LintSettings, ModuleInfo

_SPEC = importlib.util.spec_from_file_location(
    "generated_module", Path(__file__).resolve().parents[1] / "benchmarks" / "generated_module.py"
)
assert _SPEC is not None and _SPEC.loader is not None
generated = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(generated)
HEADER, BLOCK, module_text = generated.HEADER, generated.BLOCK, generated.module_text

SETTINGS = LintSettings(frozenset(all_codes()))
MODULE = ModuleInfo("generated.jobs")


def _found(source: str) -> list[tuple[int, int, str, str]]:
    result = lint_source("generated/jobs.py", source.encode(), SETTINGS, MODULE)
    assert result.errors == ()
    return sorted((f.span.line, f.span.column, f.code, f.message) for f in result.findings)


def test_every_block_of_a_long_module_is_reported_as_the_block_alone() -> None:
    blocks = 120
    whole = _found(module_text(HEADER.count("\n") + blocks * BLOCK.count("\n")))
    alone = _found(HEADER + BLOCK.format(n=0))
    per_block = len(alone)
    assert per_block >= 2 and len(whole) == blocks * per_block
    header, block = HEADER.count("\n"), BLOCK.count("\n")
    for n in (0, 1, blocks // 2, blocks - 1):
        shifted = [
            (line + n * block, column, code, message.replace("_0", f"_{n}").replace("-0", f"-{n}"))
            for line, column, code, message in alone
        ]
        start, end = header + n * block, header + (n + 1) * block
        assert [f for f in whole if start < f[0] <= end] == shifted


def test_linting_leaves_the_collector_as_it_was() -> None:
    source = module_text(200).encode()
    was = gc.isenabled()
    try:
        gc.enable()
        lint_source("generated/jobs.py", source, SETTINGS, MODULE)
        assert gc.isenabled()
        gc.disable()
        lint_source("generated/jobs.py", source, SETTINGS, MODULE)
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_a_file_s_tree_is_let_go_once_its_lint_is_done() -> None:
    """Nothing kept between files holds the tree (the fix edits' cache of the
    last module fixed did): on a long module it is hundreds of megabytes."""
    import libcst as cst

    def trees() -> int:
        gc.collect()
        return sum(
            1
            for o in gc.get_objects()
            if type(o) is cst.FunctionDef and o.name.value == "nightly_7"
        )

    source = module_text(HEADER.count("\n") + 10 * BLOCK.count("\n")).encode()
    result = lint_source("generated/jobs.py", source, SETTINGS, MODULE)
    found = [*result.findings, *(p.finding for p in result.pending)]
    assert any(f.fix is not None for f in found)
    assert result.index is not None  # read after the tree was let go
    assert trees() == 0
