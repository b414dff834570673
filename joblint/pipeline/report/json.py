"""Exactly a JSON array of finding objects on stdout; nothing else.

Its schema is `findings.schema.json` beside this module (published, stable);
`from_dict` reads a record back (`joblint report` renders such files).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from joblint.models import Edit, Finding, Fix, Related, Span
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


def from_dict(record: Mapping[str, Any]) -> Finding:
    """The finding `as_dict` wrote as `record` (one the schema accepts): `help`,
    which the format doesn't hold, is empty."""
    return Finding(
        code=record["code"],
        name=record["name"],
        message=record["message"],
        path=record["path"],
        span=_span(record),
        fix=fix_from_dict(record["fix"]),
        related=tuple(Related(r["path"], _point(r), r["message"]) for r in record["related"]),
    )


def fix_from_dict(record: Mapping[str, Any] | None) -> Fix | None:
    if record is None:
        return None
    edits = tuple(Edit(_span(e), e["content"]) for e in record["edits"])
    return Fix(safety=record["safety"], message=record["message"], edits=edits)


def _span(record: Mapping[str, Any]) -> Span:
    # int(): JSON Schema's integers include 1.0.
    return Span(
        int(record["line"]),
        int(record["column"]),
        int(record["end_line"]),
        int(record["end_column"]),
    )


def _point(record: Mapping[str, Any]) -> Span:
    """A related place: the format holds where it starts only."""
    line, column = int(record["line"]), int(record["column"])
    return Span(line, column, line, column)


def render(findings: list[Finding], out: Output) -> None:
    json.dump([as_dict(f) for f in findings], out.stream, indent=2, ensure_ascii=False)
    out.stream.write("\n")
