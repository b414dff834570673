"""A long module parsed in parts is the tree its whole parse gives, or is
parsed whole: cut at every place a part may start, on modules of this
repository, and where a cut can't hold (a string, a decorator, mixed
defaults, a syntax error). (Cut so, 15,822 modules of saleor, the standard
library, the benchmark's site-packages and its monorepo gave their whole
parse too.)"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import libcst as cst
import pytest

from joblint.pipeline import lint as engine
from joblint.pipeline.source import SourceError, parse, parts
from joblint.registry import all_codes
from joblint.settings import LintSettings, ModuleInfo

ROOT = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location(
    "generated_module", ROOT / "benchmarks" / "generated_module.py"
)
assert _SPEC is not None and _SPEC.loader is not None
_generated = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_generated)
module_text = _generated.module_text


def _same(joined: cst.Module, whole: cst.Module) -> bool:
    return (
        joined.deep_equals(whole)
        and joined.code == whole.code
        and (joined.default_indent, joined.default_newline, joined.has_trailing_newline)
        == (whole.default_indent, whole.default_newline, whole.has_trailing_newline)
        and joined.encoding == whole.encoding
    )


def _our_modules() -> list[Path]:
    """A varied sample of this repository (all of it takes half a minute):
    the examples and fixtures, the runtime, the benchmarks, the pipeline."""
    folders = ("examples", "fixtures", "runtime", "benchmarks", "joblint/pipeline")
    found = [path for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))]
    assert len(found) > 300
    return found


def test_modules_of_this_repository_cut_everywhere_are_their_whole_parse() -> None:
    cut = 0
    for path in _our_modules():
        text = path.read_text(encoding="utf-8")
        try:
            whole = cst.parse_module(text)
        except cst.ParserSyntaxError:
            continue  # a fixture that doesn't parse: no parts either
        joined = parts.parse_in_parts(text, part_lines=1)
        if joined is None:
            continue
        assert _same(joined, whole), path
        cut += 1
    assert cut > 150  # most modules have somewhere to cut


def _module(*statements: str) -> str:
    return "\n\n".join(statements) + "\n"


def test_the_blank_lines_and_comments_between_parts_go_where_the_whole_parse_puts_them() -> None:
    text = (
        "# header\n\nimport os\n\n\n"
        "def first():\n    return 1\n    # said inside, after the return\n\n\n"
        "class Second:\n    pass\n\n# about the third\n\n"
        "def third():\n    pass\n\n\n"
        "@decorated\n\ndef fourth():\n    pass\n\n# the end\n"
    )
    joined = parts.parse_in_parts(text, part_lines=1)
    assert joined is not None and _same(joined, cst.parse_module(text))
    # Not before the def a decorator and a blank line stand above, nor after a comment.
    assert text.index("def fourth") not in parts.cuts(text, 1)
    assert text.index("def third") not in parts.cuts(text, 1)
    assert text.index("class Second") in parts.cuts(text, 1)


@pytest.mark.parametrize(
    "text",
    [
        # The first block's indent is a tab; a later part's first is four spaces.
        _module("def f():\n\treturn 1", "def g():\n    return 2"),
        # The first newline is \r\n; a later part's first is \n.
        "def f():\r\n    return 1\r\n\r\ndef g():\n    return 2\n",
    ],
)
def test_parts_whose_defaults_differ_are_parsed_whole(text: str) -> None:
    assert parts.parse_in_parts(text, part_lines=1) is None
    assert _same(parse(text), cst.parse_module(text))


def test_a_cut_inside_a_string_or_brackets_leaves_the_module_whole() -> None:
    text = 'DOC = """\n\ndef inside_a_string():\n"""\n\nx = (1\n\n@ 2)\n'
    assert parts.cuts(text, 1)  # a cut that a part's parse refuses
    assert parts.parse_in_parts(text, part_lines=1) is None
    assert _same(parse(text), cst.parse_module(text))


def test_a_lone_carriage_return_means_no_cut() -> None:
    assert parts.cuts("x = 1\r\rdef f():\r    pass\r", 1) == []


def test_a_syntax_error_in_a_later_part_is_reported_as_the_whole_parse_reports_it() -> None:
    text = _module("def f():\n    pass", "def g(:\n    pass")
    with pytest.raises(SourceError) as raised:
        parse(text)
    assert (str(raised.value), raised.value.line) == ("syntax error: invalid syntax", 4)


def test_a_module_of_fewer_than_two_parts_lines_is_parsed_whole() -> None:
    text = _module(*(f"def f{n}():\n    pass" for n in range(10)))
    assert parts.parse_in_parts(text, part_lines=15) is None
    assert parts.parse_in_parts(text, part_lines=10) is not None


def test_a_long_module_lints_in_parts_as_it_lints_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    source = module_text(2 * parts.PART_LINES + 100).encode()
    settings, module = LintSettings(frozenset(all_codes())), ModuleInfo("generated.jobs")
    cut: list[int] = []
    real = parts.parse_in_parts

    def counting(text: str, part_lines: int | None = None) -> cst.Module | None:
        joined = real(text, part_lines)
        cut.append(len(parts.cuts(text, parts.PART_LINES)) if joined is not None else 0)
        return joined

    monkeypatch.setattr(parts, "parse_in_parts", counting)
    in_parts = engine.lint_source("generated/jobs.py", source, settings, module)
    monkeypatch.setattr(parts, "PART_LINES", 500)
    small_parts = engine.lint_source("generated/jobs.py", source, settings, module)
    assert 0 < cut[0] < cut[1]
    monkeypatch.setattr(parts, "parse_in_parts", lambda text, part_lines=None: None)
    whole = engine.lint_source("generated/jobs.py", source, settings, module)
    assert len(whole.findings) > 300 and whole.index is not None
    assert in_parts == whole and small_parts == whole


_LONG = module_text(400)


@pytest.mark.parametrize(
    "text",
    [
        _LONG.replace("\n", "\r\n"),
        "\ufeff" + _LONG,
        "# -*- coding: latin-1 -*-\n" + _LONG,
        _LONG.replace("\n\n\nclass Order3", "\n\x0c\n\nclass Order3"),
        _LONG.replace("    ", "\t"),
        _LONG.rstrip("\n"),
        _LONG + "\n# the end\n\n",
    ],
    ids=["crlf", "bom", "coding", "form-feed", "tabs", "no-last-newline", "comment-after"],
)
def test_a_long_module_s_own_ways_survive_its_parts(text: str) -> None:
    joined = parts.parse_in_parts(text, part_lines=20)
    assert joined is not None and _same(joined, cst.parse_module(text))
