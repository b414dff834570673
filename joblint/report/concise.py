"""One line per finding: `path:line:col: CODE message` (editors and grep)."""

from __future__ import annotations

from joblint.models import Finding
from joblint.report import Output


def line(finding: Finding) -> str:
    span = finding.span
    return f"{finding.path}:{span.line}:{span.column}: {finding.code} {finding.message}"


def render(findings: list[Finding], out: Output) -> None:
    for finding in findings:
        out.stream.write(line(finding) + "\n")
