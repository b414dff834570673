"""Exactly a JSON array of finding objects on stdout; nothing else."""

from __future__ import annotations

import json
from typing import Any

from joblint.models import Finding, Fix
from joblint.pipeline.report.output import Output
from joblint.pipeline.report.safe import text


def as_dict(finding: Finding) -> dict[str, Any]:
    span = finding.span
    return {
        "code": finding.code,
        "name": finding.name,
        "message": text(finding.message),
        "path": text(finding.path),
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
        "severity": "error",
        "fix": fix_dict(finding.fix),
        "related": [
            {
                "path": text(r.path),
                "line": r.span.line,
                "column": r.span.column,
                "message": text(r.message),
            }
            for r in finding.related
        ],
    }


def fix_dict(fix: Fix | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {
        "safety": fix.safety,
        "message": text(fix.message),
        "edits": [
            {
                "line": e.span.line,
                "column": e.span.column,
                "end_line": e.span.end_line,
                "end_column": e.span.end_column,
                "content": e.content,
            }
            for e in fix.edits
        ],
    }


def render(findings: list[Finding], out: Output) -> None:
    json.dump([as_dict(f) for f in findings], out.stream, indent=2, ensure_ascii=False)
    out.stream.write("\n")
