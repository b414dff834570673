"""SARIF 2.1.0 (GitHub code scanning, Azure DevOps, IDE viewers).

One run; the tool driver lists every rule (and built-in code) with its id,
name, descriptions and a help URI to its docs page; each result points at its
rule by id and index. Columns are Unicode code points (`columnKind`), as
joblint counts them.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from joblint import DOCS_URL, PROJECT_URL, __version__
from joblint.models import Finding
from joblint.pipeline.report.identity import identities
from joblint.pipeline.report.output import Output

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "joblint/v1"
BUILTIN_DESCRIPTIONS = {
    "JL001": "A file that can't be read or parsed: reported, and the run goes on.",
}


def help_uri(code: str) -> str:
    """The page documenting the rule `code` (the built-in codes have theirs too)."""
    return f"{DOCS_URL}/rules/{code}.md"


def rule_descriptors() -> list[dict[str, Any]]:
    from joblint.registry import BUILTIN_CODES, all_rules

    rows: list[tuple[str, str, str, str, str, str, bool]] = [
        (
            code,
            name,
            name.replace("-", " ").capitalize(),
            BUILTIN_DESCRIPTIONS.get(code, name.replace("-", " ").capitalize()),
            "",
            help_uri(code),
            False,
        )
        for code, name in BUILTIN_CODES.items()
    ]
    for rule in all_rules():
        rows.append(
            (
                rule.CODE,
                rule.name(),
                rule.SUMMARY,
                _what_it_does(rule.docs()) or rule.SUMMARY,
                rule.docs(),
                help_uri(rule.CODE),
                rule.PREVIEW,
            )
        )
    rows.sort()
    descriptors = []
    for code, name, short, full, docs, uri, preview in rows:
        descriptor: dict[str, Any] = {
            "id": code,
            "name": name,
            "shortDescription": {"text": short},
            "fullDescription": {"text": full},
            "helpUri": uri,
            "help": {"text": f"See {uri}", "markdown": docs or f"See [{code}]({uri})."},
            "defaultConfiguration": {"level": "error", "enabled": not preview},
            "properties": {"tags": ["background-jobs"], "preview": preview},
        }
        descriptors.append(descriptor)
    return descriptors


def _what_it_does(docs: str) -> str:
    """The 'What it does' section as one paragraph of plain text."""
    lines = docs.splitlines()
    try:
        start = lines.index("## What it does") + 1
    except ValueError:
        return ""
    body = []
    for line in lines[start:]:
        if line.startswith("## "):
            break
        body.append(line.strip())
    return " ".join(" ".join(body).split())


def artifact_location(path: str) -> dict[str, Any]:
    posix = PurePosixPath(path.replace("\\", "/"))
    if posix.is_absolute():
        return {"uri": "file://" + quote(posix.as_posix())}
    return {"uri": quote(posix.as_posix()), "uriBaseId": "%SRCROOT%"}


def document(findings: list[Finding], out: Output) -> dict[str, Any]:
    rules = rule_descriptors()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for finding, identity in zip(findings, identities(findings, out.source_lines), strict=True):
        span = finding.span
        region = {
            "startLine": span.line,
            "startColumn": span.column,
            "endLine": max(span.end_line, span.line),
            "endColumn": max(span.end_column, 1),
        }
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "level": "error",
            "message": {"text": _message(finding)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact_location(finding.path),
                        "region": region,
                    }
                }
            ],
            "partialFingerprints": {FINGERPRINT_KEY: identity.fingerprint},
        }
        if finding.code in index:
            result["ruleIndex"] = index[finding.code]
        if finding.related:
            result.update(_chain(finding))
        results.append(result)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "joblint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": PROJECT_URL,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {
                    "%SRCROOT%": {"description": {"text": "The directory joblint ran in."}}
                },
                "results": results,
            }
        ],
    }


def _chain(finding: Finding) -> dict[str, Any]:
    """The finding's other places as related locations, and as a code flow
    from the reported call through each of them, which code-scanning shows
    step by step."""
    related = [
        {
            "id": number,
            "physicalLocation": {
                "artifactLocation": artifact_location(place.path),
                "region": {"startLine": place.span.line, "startColumn": place.span.column},
            },
            "message": {"text": place.message},
        }
        for number, place in enumerate(finding.related, start=1)
    ]
    start = {
        "physicalLocation": {
            "artifactLocation": artifact_location(finding.path),
            "region": {"startLine": finding.span.line, "startColumn": finding.span.column},
        },
        "message": {"text": "reported here"},
    }
    steps = [start, *({k: v for k, v in place.items() if k != "id"} for place in related)]
    flow = {"threadFlows": [{"locations": [{"location": step} for step in steps]}]}
    return {"relatedLocations": related, "codeFlows": [flow]}


def _message(finding: Finding) -> str:
    if finding.help:
        return f"{finding.message} (help: {finding.help})"
    return finding.message


def render(findings: list[Finding], out: Output) -> None:
    json.dump(document(findings, out), out.stream, indent=2, ensure_ascii=False)
    out.stream.write("\n")
