"""JUnit XML: one test suite per file, one failing test case per finding.

A clean run is one passing test case, so CI test tabs show that joblint ran.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby

from joblint.models import Finding
from joblint.pipeline.report.output import Output

# Characters XML 1.0 cannot hold, even escaped.
_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def tree(findings: list[Finding]) -> ET.Element:
    total = str(max(len(findings), 1))
    root = ET.Element(
        "testsuites", name="joblint", tests=total, failures=str(len(findings)), errors="0"
    )
    if not findings:
        suite = ET.SubElement(
            root, "testsuite", name="joblint", tests="1", failures="0", errors="0", skipped="0"
        )
        ET.SubElement(suite, "testcase", name="No findings", classname="joblint")
        return root
    ordered = sorted(findings, key=lambda f: f.sort_key)
    for path, group in groupby(ordered, key=lambda f: f.path):
        cases = list(group)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=_clean(path),
            tests=str(len(cases)),
            failures=str(len(cases)),
            errors="0",
            skipped="0",
        )
        for finding in cases:
            span = finding.span
            where = f"{finding.path}:{span.line}:{span.column}"
            case = ET.SubElement(
                suite,
                "testcase",
                name=_clean(f"{finding.code} {finding.name} at {where}"),
                classname=_clean(finding.path),
                file=_clean(finding.path),
                line=str(span.line),
            )
            failure = ET.SubElement(
                case, "failure", message=_clean(finding.message), type=finding.code
            )
            body = f"{where}: {finding.code} {finding.message}"
            if finding.help:
                body += f"\nhelp: {finding.help}"
            failure.text = _clean(body)
    return root


def render(findings: list[Finding], out: Output) -> None:
    root = tree(findings)
    ET.indent(root)
    out.stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.stream.write(ET.tostring(root, encoding="unicode"))
    out.stream.write("\n")
