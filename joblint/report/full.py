"""The default view: each finding with a code frame, the span underlined, and help."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from joblint.models import Finding
from joblint.report import Output
from joblint.report.safe import terminal

CONTEXT_LINES = 1


def render(findings: list[Finding], out: Output) -> None:
    for finding in findings:
        _render_one(finding, out)


def _render_one(finding: Finding, out: Output) -> None:
    console = out.console
    span = finding.span
    header = Text()
    header.append(f"{terminal(finding.path)}:{span.line}:{span.column}", style="bold")
    header.append(": ")
    header.append(finding.code, style="bold red")
    header.append(f" [{finding.name}] ", style="dim")
    header.append(terminal(finding.message))
    console.print(header, soft_wrap=True)
    lines = out.source_lines(finding.path)
    if lines:
        _frame(finding, lines, out)
    if finding.help:
        console.print(f"  [cyan]= help:[/] {escape(terminal(finding.help))}", soft_wrap=True)
    if finding.code != "JL001":
        console.print(f"  [cyan]= see:[/]  joblint explain {finding.code}", soft_wrap=True)
    console.print()


def _frame(finding: Finding, lines: list[str], out: Output) -> None:
    span = finding.span
    if not 1 <= span.line <= len(lines):
        return  # e.g. "unexpected end of file" one line past the last
    first = max(1, span.line - CONTEXT_LINES)
    last = min(len(lines), span.line)
    width = len(str(last))
    console = out.console
    console.print(f"{'':>{width}} [blue]|[/]", soft_wrap=True)
    for number in range(first, last + 1):
        text = terminal(lines[number - 1].rstrip("\n").expandtabs(1))
        console.print(Text.assemble((f"{number:>{width}} | ", "blue"), text), soft_wrap=True)
    # Columns count characters of the raw line; escapes shown for control
    # characters are wider, so the carets are placed on the escaped text.
    source_line = lines[span.line - 1].rstrip("\n").expandtabs(1)
    start = len(terminal(source_line[: span.column - 1]))
    end_column = span.end_column - 1 if span.end_line == span.line else len(source_line)
    end = len(terminal(source_line[:end_column]))
    carets = "^" * max(1, end - start)
    console.print(
        Text.assemble(
            (f"{'':>{width}} | ", "blue"), " " * start, (f"{carets} {finding.code}", "bold red")
        ),
        soft_wrap=True,
    )
