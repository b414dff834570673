"""The default view: each finding with a code frame, the span underlined, and help.

A finding is laid out once, as lines of (text, style) pieces; unstyled output
is their text, written directly, and only styled output goes through rich
(a cached run writing to a pipe or a file never imports it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from joblint.models import Finding
from joblint.pipeline.report.output import Output
from joblint.pipeline.report.safe import terminal

if TYPE_CHECKING:
    from rich.console import Console

CONTEXT_LINES = 1

Piece = tuple[str, str]  # (text, rich style; "" = unstyled)
Line = list[Piece]


def render(findings: list[Finding], out: Output) -> None:
    for finding in findings:
        lines = layout(finding, out.source_lines(finding.path))
        if out.console is None:
            out.stream.write("".join(_plain(line) for line in lines))
        else:
            _print(lines, out.console)


def layout(finding: Finding, source: list[str] | None) -> list[Line]:
    """The finding's lines: header, code frame, help, where to read more, a blank."""
    span = finding.span
    lines: list[Line] = [
        [
            (f"{terminal(finding.path)}:{span.line}:{span.column}", "bold"),
            (": ", ""),
            (finding.code, "bold red"),
            (f" [{finding.name}] ", "dim"),
            (terminal(finding.message), ""),
        ]
    ]
    if source:
        lines.extend(_frame(finding, source))
    if finding.help:
        lines.append([("  ", ""), ("= help:", "cyan"), (f" {terminal(finding.help)}", "")])
    if finding.code != "JL001":
        lines.append([("  ", ""), ("= see:", "cyan"), (f"  joblint explain {finding.code}", "")])
    lines.append([])
    return lines


def _frame(finding: Finding, lines: list[str]) -> list[Line]:
    span = finding.span
    if not 1 <= span.line <= len(lines):
        return []  # e.g. "unexpected end of file" one line past the last
    first = max(1, span.line - CONTEXT_LINES)
    last = min(len(lines), span.line)
    width = len(str(last))
    frame: list[Line] = [[(f"{'':>{width}} ", ""), ("|", "blue")]]
    for number in range(first, last + 1):
        text = terminal(lines[number - 1].rstrip("\n").expandtabs(1))
        frame.append([(f"{number:>{width}} | ", "blue"), (text, "")])
    # Columns count characters of the raw line; escapes shown for control
    # characters are wider, so the carets are placed on the escaped text.
    source_line = lines[span.line - 1].rstrip("\n").expandtabs(1)
    start = len(terminal(source_line[: span.column - 1]))
    end_column = span.end_column - 1 if span.end_line == span.line else len(source_line)
    end = len(terminal(source_line[:end_column]))
    carets = "^" * max(1, end - start)
    frame.append(
        [(f"{'':>{width}} | ", "blue"), (" " * start, ""), (f"{carets} {finding.code}", "bold red")]
    )
    return frame


def _plain(line: Line) -> str:
    return "".join(text for text, _ in line) + "\n"


def _print(lines: list[Line], console: Console) -> None:
    from rich.text import Text

    for line in lines:
        pieces = [(text, style) if style else text for text, style in line]
        console.print(Text.assemble(*pieces), soft_wrap=True)
