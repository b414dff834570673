"""One line per finding: `path:line:col: CODE message` (editors and grep).

Coloured like the full view's header when the output is styled; a fixable
finding carries Ruff's `[*]` after its code.
"""

from __future__ import annotations

from joblint.models import Finding
from joblint.pipeline.report.full import FIXABLE, Line
from joblint.pipeline.report.output import Output
from joblint.pipeline.report.safe import terminal


def pieces(finding: Finding, unsafe: bool = False) -> Line:
    span = finding.span
    line: Line = [
        (f"{terminal(finding.path)}:{span.line}:{span.column}", "bold"),
        (": ", ""),
        (finding.code, "bold red"),
    ]
    if finding.fixable(unsafe):
        line.extend([(" ", ""), (FIXABLE, "cyan")])
    line.append((f" {terminal(finding.message)}", ""))
    return line


def line(finding: Finding, unsafe: bool = False) -> str:
    return "".join(text for text, _ in pieces(finding, unsafe))


def render(findings: list[Finding], out: Output) -> None:
    if out.console is None:
        for finding in findings:
            out.stream.write(line(finding, out.unsafe_fixes) + "\n")
        return
    from rich.text import Text

    for finding in findings:
        line_pieces = pieces(finding, out.unsafe_fixes)
        styled = [(text, style) if style else text for text, style in line_pieces]
        out.console.print(Text.assemble(*styled), soft_wrap=True)
