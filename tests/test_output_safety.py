"""Names and messages with quotes, newlines, ANSI escapes,
non-ASCII and undecodable bytes give valid JSON/SARIF/XML/annotations, and the
terminal formats never pass a raw control character from the analysed files."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import ENQUEUE_IN_ATOMIC, Run, write
from rich.console import Console

from joblint.models import Finding, Span
from joblint.pipeline.report import FORMATS, Output, console_for, renderers, rich_console
from joblint.pipeline.report.safe import (
    displayable,
    source_lines,
    terminal,
    terminal_keeping_line_ends,
    text,
)

NASTY = 'q"uo\'te\nnew\rline\x1b[31mred\x1b]0;title\x07 \u202eevil\x9b2J é 日本 \udcff'
# Raw control characters the terminal formats must never print (\n ends lines).
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _finding(path: str = NASTY + ".py", message: str = NASTY) -> Finding:
    return Finding("JL101", "enqueue-in-transaction", message, path, Span(2, 3, 2, 9), NASTY)


def _render(fmt: str, lines: list[str] | None) -> str:
    stream = io.StringIO()
    console = Console(file=stream, no_color=True, highlight=False, force_terminal=False)
    shown, _ = displayable([_finding()])  # as the CLI gives findings to every format
    renderers()[fmt](shown, Output(stream, console, lambda _path: lines))
    # As the CLI's streams do: undecodable path bytes become `\udcff` escapes.
    return stream.getvalue().encode("utf-8", "backslashreplace").decode("utf-8")


SOURCE = ["x = '\x1b[2J\u202e'", "def f(): send.delay('\x1b]52;c;aGk=\x07')", "y = 1"]


def _validate(fmt: str, output: str) -> None:
    if fmt in ("json", "sarif", "gitlab"):
        json.loads(output)
    elif fmt == "junit":
        ET.fromstring(output.encode("utf-8"))
    elif fmt == "github":
        assert all(line.startswith("::error ") for line in output.splitlines())
    if fmt in ("full", "concise", "github"):  # printed to terminals (GitHub's log too)
        assert UNSAFE.search(output) is None, repr(output)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_is_valid_and_safe(fmt: str) -> None:
    _validate(fmt, _render(fmt, SOURCE))
    _validate(fmt, _render(fmt, None))


def test_json_keeps_the_data() -> None:
    [entry] = json.loads(_render("json", SOURCE))
    assert entry["message"] == NASTY.replace("\udcff", "\\xff")
    assert entry["path"].endswith("\\xff.py")


def test_code_frame_escapes_the_source_and_keeps_carets_aligned() -> None:
    output = _render("full", SOURCE)
    assert "\\x1b[2J" in output and "\\u202e" in output and "\\x07" in output
    frame = [line for line in output.splitlines() if line.startswith(("2 |", "  |"))]
    code, carets = frame[-2], frame[-1]
    assert carets.index("^") == code.index("f f()")


def test_safe_helpers() -> None:
    assert terminal("a\tb\x1b\x9b\u202e\udcfe") == "a\\x09b\\x1b\\x9b\\u202e\\xfe"
    assert terminal_keeping_line_ends("a\r\nb\x1b\u202e") == "a\r\nb\\x1b\\u202e"
    assert text("ok \udcff \ud83d é") == "ok \\xff \\ud83d é"
    assert source_lines("a\r\nb\rc\nd\x0ce\u2028f\n") == ["a", "b", "c", "d\x0ce\u2028f"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")
@pytest.mark.parametrize("fmt", [f for f in ("full", "json", "sarif", "github") if f in FORMATS])
def test_nasty_file_names_end_to_end(run: Run, tmp_path: Path, fmt: str) -> None:
    name = os.fsencode('q"\'\x1b[31m\nnew é\u202e') + b"\xff.py"
    write(tmp_path, {"placeholder.py": ""})
    (tmp_path / os.fsdecode(name)).write_bytes(
        ENQUEUE_IN_ATOMIC.encode() + b"x = '\x1b[2J'  # \xe2\x80\xae\n"
    )
    (tmp_path / os.fsdecode(b"bad\x1b[2J\xfe.py")).write_bytes(b"send.delay(\x00)\n")
    result = run("--format", fmt, ".")
    assert "Traceback" not in result.stderr
    assert result.code == 1, result.stderr
    _validate(fmt, result.stdout)
    assert UNSAFE.search(result.stderr) is None


def _full(findings: list[Finding], console: Console | None, lines: list[str] | None) -> str:
    stream = io.StringIO()
    if console is not None:
        console.file = stream
    renderers()["full"](findings, Output(stream, console, lambda _path: lines))
    return stream.getvalue()


@pytest.mark.parametrize("lines", [SOURCE, None], ids=["frame", "no-source"])
@pytest.mark.parametrize("columns", [10, 200])
def test_unstyled_full_output_is_what_rich_writes_without_a_terminal(
    lines: list[str] | None, columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without colour the default format is written without rich (a cached run
    mustn't import it): byte for byte what rich writes, whatever the width."""
    from joblint.registry import all_rules

    _no_colour_forced(monkeypatch)

    findings = [
        Finding(r.CODE, r.name(), NASTY, NASTY + ".py", Span(2, 3, 2, 9), r.HELP)
        for r in all_rules()
    ]
    findings += [_finding(), Finding("JL001", "unparseable-file", "x", "p.py", Span(9, 1, 9, 1))]
    shown, _ = displayable(findings)
    for color in ("never", "auto"):
        console = rich_console(io.StringIO(), color)
        console.width = columns
        assert _full(shown, None, lines) == _full(shown, console, lines)


def _no_colour_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)


def test_plain_output_needs_no_console(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_colour_forced(monkeypatch)
    stream = io.StringIO()
    assert console_for(stream, "auto") is None and console_for(stream, "never") is None
    assert console_for(stream, "always") is not None
