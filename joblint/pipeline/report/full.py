"""The default view: each finding with a code frame, the span underlined, and
its help (every finding has one).

A finding is laid out once, as lines of (text, style) pieces; unstyled output
is their text, written directly, and only styled output goes through rich
(a cached run writing to a pipe or a file never imports it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from joblint.models import Finding
from joblint.pipeline.report.output import Output
from joblint.pipeline.report.safe import terminal

if TYPE_CHECKING:
    from rich.console import Console

CONTEXT_LINES = 1
# A span over more lines than this shows its first and last lines only.
MAX_SPAN_LINES = 8
FIXABLE = "[*]"  # Ruff's marker for a finding `--fix` fixes

Piece = tuple[str, str]  # (text, rich style; "" = unstyled)
Line = list[Piece]

_WORD = re.compile(r"[a-z0-9_]+")
# Words that carry no advice: a help line is not new for repeating these.
_FILLER = frozenset(
    {
        *("a", "an", "the", "it", "its", "of", "to", "or", "and", "in", "on", "with"),
        *("for", "e", "g", "s", "is", "be", "use", "let", "then", "after", "before"),
    }
)
# A help line whose words the message already has (its advice, reworded) adds
# nothing where space is short (an editor's hover: `joblint.server`).
REPEATED_HELP = 0.75


def render(findings: list[Finding], out: Output) -> None:
    for finding in findings:
        lines = layout(finding, out.source_lines(finding.path), out.unsafe_fixes)
        if out.console is None:
            out.stream.write("".join(_plain(line) for line in lines))
        else:
            _print(lines, out.console)


def layout(finding: Finding, source: list[str] | None, unsafe: bool = False) -> list[Line]:
    """The finding's lines: header, code frame, help, where to read more, a blank."""
    span = finding.span
    header: Line = [
        (f"{terminal(finding.path)}:{span.line}:{span.column}", "bold"),
        (": ", ""),
        (finding.code, "bold red"),
    ]
    if finding.fixable(unsafe):
        header.extend([(" ", ""), (FIXABLE, "cyan")])
    header.extend([(f" [{finding.name}] ", "dim"), (terminal(finding.message), "")])
    lines: list[Line] = [header]
    if source:
        lines.extend(_frame(finding, source))
    # Always, as in Ruff: the fix in a line of its own, found at a glance
    # (even where the message's last sentence says it in other words).
    if finding.help:
        lines.append([("  ", ""), ("= help:", "cyan"), (f" {terminal(finding.help)}", "")])
    if finding.code != "JL001":
        lines.append([("  ", ""), ("= see:", "cyan"), (f"  joblint explain {finding.code}", "")])
    lines.append([])
    return lines


def adds_to(message: str, help_text: str) -> bool:
    """Whether `help_text` says more than `message` already does."""
    words = [w for w in _WORD.findall(help_text.lower()) if w not in _FILLER]
    if not words:
        return False
    said = set(_WORD.findall(message.lower()))
    return sum(w in said for w in words) / len(words) < REPEATED_HELP


def _frame(finding: Finding, lines: list[str]) -> list[Line]:
    span = finding.span
    if not 1 <= span.line <= len(lines):
        return []  # e.g. "unexpected end of file" one line past the last
    if span.line < span.end_line <= len(lines):
        return _multiline_frame(finding, lines)
    first = max(1, span.line - CONTEXT_LINES)
    last = min(len(lines), span.line)
    width = len(str(last))
    frame: list[Line] = [[(f"{'':>{width}} ", ""), ("|", "blue")]]
    for number in range(first, last + 1):
        frame.append([(f"{number:>{width}} | ", "blue"), (_shown(lines, number), "")])
    # Columns count characters of the raw line; escapes shown for control
    # characters are wider, so the carets are placed on the escaped text.
    source_line = _raw(lines, span.line)
    start = len(terminal(source_line[: span.column - 1]))
    end_column = span.end_column - 1 if span.end_line == span.line else len(source_line)
    end = len(terminal(source_line[:end_column]))
    carets = "^" * max(1, end - start)
    frame.append(
        [(f"{'':>{width}} | ", "blue"), (" " * start, ""), (f"{carets} {finding.code}", "bold red")]
    )
    return frame


def _multiline_frame(finding: Finding, lines: list[str]) -> list[Line]:
    """A span over several lines (a SQL string, a call) shown whole, as rustc
    and Ruff do: a line from its first column down the left, to its last."""
    span = finding.span
    first = max(1, span.line - CONTEXT_LINES)
    inner = list(range(span.line + 1, span.end_line + 1))
    if len(inner) > MAX_SPAN_LINES:
        half = MAX_SPAN_LINES // 2
        inner = [*inner[:half], 0, *inner[-half:]]  # 0: the lines left out
    width = len(str(span.end_line))
    gutter = f"{'':>{width}} | "
    frame: list[Line] = [[(f"{'':>{width}} ", ""), ("|", "blue")]]
    for number in range(first, span.line + 1):
        frame.append([(f"{number:>{width}} | ", "blue"), ("  " + _shown(lines, number), "")])
    start = len(terminal(_raw(lines, span.line)[: span.column - 1]))
    frame.append([(gutter, "blue"), (" " + "_" * (start + 1) + "^", "bold red")])
    for number in inner:
        if number == 0:
            frame.append([(f"{'...':>{width}}", "blue"), ("  ", ""), ("|", "bold red")])
            continue
        text = _shown(lines, number)
        frame.append([(f"{number:>{width}} | ", "blue"), ("|", "bold red"), (f" {text}", "")])
    end = len(terminal(_raw(lines, span.end_line)[: span.end_column - 1]))
    underline = "|" + "_" * max(0, end) + "^"
    frame.append([(gutter, "blue"), (f"{underline} {finding.code}", "bold red")])
    return frame


def _raw(lines: list[str], number: int) -> str:
    return lines[number - 1].rstrip("\n").expandtabs(1)


def _shown(lines: list[str], number: int) -> str:
    return terminal(_raw(lines, number))


def _plain(line: Line) -> str:
    return "".join(text for text, _ in line) + "\n"


def _print(lines: list[Line], console: Console) -> None:
    from rich.text import Text

    for line in lines:
        pieces = [(text, style) if style else text for text, style in line]
        console.print(Text.assemble(*pieces), soft_wrap=True)
