"""SARIF, GitHub, GitLab and JUnit output, validated against their specifications."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import ENQUEUE_IN_ATOMIC, Run, write

from joblint.models import Finding, Span
from joblint.pipeline.report import junit
from joblint.registry import BUILTIN_CODES, all_rules

# GitHub's documented syntax (workflow commands, "Setting an error message"):
# ::error file={name},line={line},endLine={endLine},title={title}::{message}
# Property values escape % CR LF : , and the message % CR LF (@actions/core).
_VALUE = r"(?:[^%\r\n:,]|%25|%0D|%0A|%3A|%2C)*"
_DATA = r"(?:[^%\r\n]|%25|%0D|%0A)*"
GITHUB_LINE = re.compile(
    rf"^::error file=(?P<file>{_VALUE}),line=(?P<line>\d+),col=(?P<col>\d+),"
    rf"endLine=(?P<end_line>\d+),endColumn=(?P<end_col>\d+),"
    rf"title=(?P<title>{_VALUE})::(?P<message>{_DATA})$"
)

# (A token in the broken file: the prefilter skips files no rule could fire on.)
BAD_AND_UNPARSEABLE = {
    "shop/views.py": ENQUEUE_IN_ATOMIC,
    "shop/broken.py": "import celery\ndef f(:\n",
}


def _unescape(value: str) -> str:
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        value = value.replace(escaped, raw)
    return value


def test_sarif_validates_and_describes_every_rule(
    run: Run, tmp_path: Path, sarif_validator: Any
) -> None:
    write(tmp_path, BAD_AND_UNPARSEABLE)
    result = run("--format", "sarif", ".")
    assert result.code == 1
    document = json.loads(result.stdout)
    sarif_validator.validate(document)
    (sarif_run,) = document["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted([*BUILTIN_CODES, *(r.CODE for r in all_rules())])
    for descriptor in rules:
        assert descriptor["name"] and descriptor["shortDescription"]["text"]
        assert descriptor["fullDescription"]["text"]
        assert descriptor["helpUri"].startswith("https://")
        assert descriptor["helpUri"].endswith(f"/docs/rules/{descriptor['id']}.md")
        page = Path(__file__).resolve().parents[1] / "docs" / "rules" / f"{descriptor['id']}.md"
        assert page.is_file()
    results = sarif_run["results"]
    assert [r["ruleId"] for r in results] == ["JL001", "JL101"]
    for item in results:
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"]
        assert item["level"] == "error" and item["message"]["text"]
    location = results[1]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "shop/views.py"
    assert location["region"] == {"startLine": 8, "startColumn": 9, "endLine": 8, "endColumn": 37}


def test_sarif_empty_run_and_odd_paths_validate(
    run: Run, tmp_path: Path, sarif_validator: Any
) -> None:
    write(tmp_path, {"ok.py": "x = 1\n"})
    empty = json.loads(run("--format", "sarif", ".").stdout)
    sarif_validator.validate(empty)
    assert empty["runs"][0]["results"] == []
    write(tmp_path, {"my dir/v%1.py": ENQUEUE_IN_ATOMIC})
    document = json.loads(run("--format", "sarif", ".").stdout)
    sarif_validator.validate(document)
    uri = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert uri["artifactLocation"]["uri"] == "my%20dir/v%251.py"


def test_github_annotations_follow_the_documented_syntax(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a,b:c%.py": ENQUEUE_IN_ATOMIC, "z.py": "import celery\ndef f(:\n"})
    result = run("--format", "github", ".")
    assert result.code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    parsed = [GITHUB_LINE.match(line) for line in lines]
    assert all(parsed), lines
    first = parsed[0]
    assert first is not None
    assert first["file"] == "a%2Cb%3Ac%25.py" and _unescape(first["file"]) == "a,b:c%.py"
    assert (first["line"], first["col"], first["end_line"], first["end_col"]) == (
        "8",
        "9",
        "8",
        "37",
    )
    assert _unescape(first["title"]) == "JL101 enqueue-in-transaction"
    message = _unescape(first["message"])
    assert message.startswith("JL101 task 'send_receipt'") and "\nhelp: " in message


def test_gitlab_code_quality_with_stable_fingerprints(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"views.py": ENQUEUE_IN_ATOMIC})
    first = json.loads(run("--format", "gitlab", ".").stdout)
    assert len(first) == 1
    issue = first[0]
    assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
    assert issue["check_name"] == "JL101" and issue["severity"] == "major"
    assert issue["location"] == {"path": "views.py", "lines": {"begin": 8, "end": 8}}
    # Lines added above: same fingerprint. A second identical call: a new one.
    shifted = "# a comment\n\n" + ENQUEUE_IN_ATOMIC + "        send_receipt.delay(order.pk)\n"
    write(tmp_path, {"views.py": shifted})
    second = json.loads(run("--format", "gitlab", ".").stdout)
    fingerprints = [i["fingerprint"] for i in second]
    assert fingerprints[0] == issue["fingerprint"]
    assert len(set(fingerprints)) == 2


def test_junit_is_valid_xml_with_one_testcase_per_finding(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {**BAD_AND_UNPARSEABLE, "shop/more.py": ENQUEUE_IN_ATOMIC})
    result = run("--format", "junit", ".")
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites" and root.get("failures") == "3"
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 3
    assert {c.get("file") for c in cases} == {"shop/views.py", "shop/more.py", "shop/broken.py"}
    failures = [c.find("failure") for c in cases]
    assert all(f is not None and f.get("type", "").startswith("JL") for f in failures)
    write(tmp_path, {"shop/views.py": "", "shop/more.py": "", "shop/broken.py": ""})
    clean = ET.fromstring(run("--format", "junit", ".").stdout)
    assert clean.get("failures") == "0" and len(clean.findall("./testsuite/testcase")) == 1


def test_junit_escapes_markup_and_drops_characters_xml_cannot_hold() -> None:
    finding = Finding("JL101", "x", 'a <b> & "c" \x01 \udcff', "p&q.py", Span(1, 1, 1, 2))
    text = ET.tostring(junit.tree([finding]), encoding="unicode")
    failure = ET.fromstring(text).find("./testsuite/testcase/failure")
    assert failure is not None and failure.get("message") == 'a <b> & "c" \ufffd \ufffd'


@pytest.mark.parametrize("output_format", ["sarif", "github", "gitlab", "junit"])
def test_every_format_through_output_file(run: Run, tmp_path: Path, output_format: str) -> None:
    write(tmp_path, {"views.py": ENQUEUE_IN_ATOMIC})
    result = run("--format", output_format, "--output-file", "out.txt", ".")
    assert result.code == 1 and result.stdout == ""
    assert "views.py" in (tmp_path / "out.txt").read_text(encoding="utf-8")


def test_sarif_carries_a_chain_as_related_locations_and_a_code_flow(
    run: Run, tmp_path: Path, sarif_validator: Any
) -> None:
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "project_model"
    shutil.copytree(fixture, tmp_path / "project_model")
    result = run("check", "--isolated", "--format", "sarif", ".")
    document = json.loads(result.stdout)
    sarif_validator.validate(document)
    results = document["runs"][0]["results"]
    chained = next(r for r in results if "mail.send_invoice_mail()" in r["message"]["text"])
    related = chained["relatedLocations"]
    assert [
        (r["id"], r["physicalLocation"]["artifactLocation"]["uri"], r["message"]["text"])
        for r in related
    ] == [
        (1, "project_model/bakery/notify.py", "notify_customer() calls mail.send_invoice_mail()"),
        (2, "project_model/bakery/mail.py", "send_invoice_mail() calls Mailer().send()"),
        (3, "project_model/bakery/mail.py", "send() calls email_invoice.apply_async()"),
    ]
    (flow,) = chained["codeFlows"]
    steps = [s["location"]["physicalLocation"] for s in flow["threadFlows"][0]["locations"]]
    assert [(s["artifactLocation"]["uri"], s["region"]["startLine"]) for s in steps] == [
        ("project_model/bakery/views.py", 15),
        ("project_model/bakery/notify.py", 6),
        ("project_model/bakery/mail.py", 14),
        ("project_model/bakery/mail.py", 10),
    ]
    # A finding without a chain carries neither.
    direct = next(r for r in results if "traced_atomic()" in r["message"]["text"])
    assert "relatedLocations" not in direct and "codeFlows" not in direct
