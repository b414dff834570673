"""GitLab Code Quality report (a JSON array, Code Climate issue subset).

Fingerprints come from `joblint.pipeline.report.identity`: stable across unrelated edits, so
merge request widgets show only findings that are really new or fixed. Paths
are made relative to `CI_PROJECT_DIR` when GitLab sets it (GitLab expects
repository-relative paths).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from joblint.models import Finding
from joblint.pipeline.report.identity import identities
from joblint.pipeline.report.output import Output


def _path(path: str) -> str:
    root = os.environ.get("CI_PROJECT_DIR")
    if not root:
        return path
    try:
        return Path(path).absolute().relative_to(Path(root).absolute()).as_posix()
    except ValueError:
        return path


def issues(findings: list[Finding], out: Output) -> list[dict[str, Any]]:
    found = []
    for finding, identity in zip(findings, identities(findings, out.source_lines), strict=True):
        span = finding.span
        found.append(
            {
                "type": "issue",
                "check_name": finding.code,
                "description": f"{finding.code} {finding.name}: {finding.message}",
                "categories": ["Bug Risk"],
                "severity": "major",
                "fingerprint": identity.fingerprint,
                "location": {
                    "path": _path(finding.path),
                    "lines": {"begin": span.line, "end": max(span.end_line, span.line)},
                },
            }
        )
    return found


def render(findings: list[Finding], out: Output) -> None:
    json.dump(issues(findings, out), out.stream, indent=2, ensure_ascii=False)
    out.stream.write("\n")
