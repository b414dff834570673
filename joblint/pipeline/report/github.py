"""GitHub Actions workflow commands: one `::error ...::message` line per finding.

Escaping follows the Actions toolkit (`@actions/core` command.ts): in the
message `%`, CR and LF are percent-encoded; in property values also `:` and `,`.
Other control and bidi characters from the analysed files become visible
escapes first: the annotations are printed in the job's log, a terminal.
"""

from __future__ import annotations

from joblint.models import Finding
from joblint.pipeline.report.output import Output
from joblint.pipeline.report.safe import terminal_keeping_line_ends


def escape_data(value: str) -> str:
    value = terminal_keeping_line_ends(value)
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def line(finding: Finding) -> str:
    span = finding.span
    properties = [
        ("file", finding.path),
        ("line", str(span.line)),
        ("col", str(span.column)),
        ("endLine", str(span.end_line)),
        ("endColumn", str(span.end_column)),
        ("title", f"{finding.code} {finding.name}"),
    ]
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    message = f"{finding.code} {finding.message}"
    if finding.help:
        message += f"\nhelp: {finding.help}"
    return f"::error {joined}::{escape_data(message)}"


def render(findings: list[Finding], out: Output) -> None:
    for finding in findings:
        out.stream.write(line(finding) + "\n")
