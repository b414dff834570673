from __future__ import annotations

from joblint.analysis.context import Options
from joblint.pipeline.lint import lint_source
from joblint.pipeline.project import settle
from joblint.settings import LintSettings, ModuleInfo

CODES = LintSettings(frozenset({"JL101", "JL102"}), Options())

HEADER = """from django.db import transaction
from .tasks import send

def f(x):
    with transaction.atomic():
"""


def _lines(body: str) -> list[int]:
    result = lint_source("m.py", (HEADER + body).encode(), CODES, ModuleInfo("app.m"))
    return [f.span.line for f in settle([result])]


def test_unsuppressed_finding() -> None:
    assert _lines("        send.delay(x)\n") == [6]


def test_trailing_joblint_ignore() -> None:
    assert _lines("        send.delay(x)  # joblint: ignore[JL101]\n") == []


def test_ignore_with_other_code_keeps_finding() -> None:
    assert _lines("        send.delay(x)  # joblint: ignore[JL102]\n") == [6]


def test_prefix_and_several_codes() -> None:
    assert _lines("        send.delay(x)  # joblint: ignore[JL4, JL1]\n") == []


def test_comment_alone_on_line_above() -> None:
    assert _lines("        # joblint: ignore[JL101]\n        send.delay(x)\n") == []


def test_trailing_comment_on_line_above_does_not_count() -> None:
    assert _lines("        y = 1  # joblint: ignore[JL101]\n        send.delay(x)\n") == [7]


def test_last_line_of_multiline_statement() -> None:
    body = "        send.delay(\n            x,\n        )  # joblint: ignore[JL101]\n"
    assert _lines(body) == []


def test_codes_are_required() -> None:
    assert _lines("        send.delay(x)  # joblint: ignore[]\n") == [6]


def test_noqa_with_code_and_blanket_noqa() -> None:
    assert _lines("        send.delay(x)  # noqa: JL101\n") == []
    assert _lines("        send.delay(x)  # noqa:JL101,E501\n") == []
    assert _lines("        send.delay(x)  # noqa: E501\n") == [6]
    assert _lines("        send.delay(x)  # noqa\n") == []


def test_marker_inside_a_string_is_not_a_comment() -> None:
    assert _lines("        send.delay('# joblint: ignore[JL101]')\n") == [6]


def test_ignore_file_before_first_statement() -> None:
    source = "# joblint: ignore-file[JL1]\n" + HEADER + "        send.delay(x)\n"
    result = lint_source("m.py", source.encode(), CODES, ModuleInfo("app.m"))
    assert settle([result]) == []


def test_ignore_file_after_first_statement_is_not_honoured() -> None:
    source = HEADER + "        send.delay(x)\n# joblint: ignore-file[JL1]\n"
    result = lint_source("m.py", source.encode(), CODES, ModuleInfo("app.m"))
    assert [f.code for f in settle([result])] == ["JL101"]
