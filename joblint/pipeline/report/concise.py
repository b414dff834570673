"""One line per finding: `path:line:col: CODE message` (editors and grep)."""

from __future__ import annotations

from joblint.models import Finding
from joblint.pipeline.report.output import Output
from joblint.pipeline.report.safe import terminal


def line(finding: Finding) -> str:
    span = finding.span
    where = f"{terminal(finding.path)}:{span.line}:{span.column}"
    return f"{where}: {finding.code} {terminal(finding.message)}"


def render(findings: list[Finding], out: Output) -> None:
    for finding in findings:
        out.stream.write(line(finding) + "\n")
