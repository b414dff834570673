"""The published schema of `--format json` and `joblint report`, which renders
findings JSON files (joblint's own, or another tool's in that schema) in any
output format."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import ENQUEUE_IN_ATOMIC, Result, Run, fuzz_settings, write
from hypothesis import given
from hypothesis import strategies as st

from joblint.models import Finding, Span
from joblint.pipeline.report import FORMATS, Output, renderer
from joblint.pipeline.report.json import as_dict, from_dict
from joblint.pipeline.report.read import merged
from joblint.pipeline.report.schema import SCHEMA_FILE, findings_schema, first_problem

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_PATH = ROOT / "joblint" / "pipeline" / "report" / SCHEMA_FILE
# Every rule, fixes and related places included: the widest output joblint writes.
CHECK_ARGS = ("--isolated", "--no-cache", "--preview", "--unsafe-fixes", "--include-tests")
TREES = ("fixtures", "examples")


@pytest.fixture(scope="module")
def checked() -> str:
    """`joblint check --format json` on fixtures/ and examples/, run at the
    repository's root (paths relative to it, as a user's run writes them)."""
    proc = subprocess.run(
        [sys.executable, "-m", "joblint", "check", *CHECK_ARGS, "--format", "json", *TREES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def records(checked: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(checked)
    return found


@pytest.fixture(scope="module")
def validator() -> Any:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _report(run: Run, *args: str, cwd: Path | None = None, stdin: str | None = None) -> Result:
    return run("report", *args, cwd=cwd, stdin=stdin)


def _write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# --- the schema ---


def test_check_json_conforms_to_the_schema(records: list[dict[str, Any]], validator: Any) -> None:
    validator.validate(records)
    assert first_problem(records) is None
    # What makes the schema's parts matter is in the output checked.
    assert any(r["fix"] is not None and r["fix"]["edits"] for r in records)
    assert any(r["fix"] is None for r in records)
    assert any(r["related"] for r in records)
    assert len({r["code"] for r in records}) > 15


def test_the_schema_is_package_data_the_reader_loads() -> None:
    assert findings_schema() == json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert findings_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# (mutation of a valid record, the problem the reader names)
MALFORMED = [
    (lambda r: r.pop("code"), "at $[0]: 'code' is a required property"),
    (lambda r: r.update(line=0), "at $[0].line: 0 is less than the minimum of 1"),
    (lambda r: r.update(column=-3), "at $[0].column: -3 is less than the minimum of 1"),
    (lambda r: r.update(end_line="7"), "at $[0].end_line: '7' is not of type 'integer'"),
    (lambda r: r.update(line=True), "at $[0].line: True is not of type 'integer'"),
    (lambda r: r.update(end_column=2.5), "at $[0].end_column: 2.5 is not of type 'integer'"),
    (lambda r: r.update(severity="warning"), "at $[0].severity: 'warning' is not one of ['error']"),
    (lambda r: r.update(code="jl101"), "at $[0].code: 'jl101' does not match '^[A-Z]+[0-9]+$'"),
    (lambda r: r.update(path=""), "at $[0].path: '' should be non-empty"),
    (
        lambda r: r.update(help="more"),
        "at $[0]: Additional properties are not allowed ('help' was unexpected)",
    ),
    (lambda r: r.update(fix=[]), "at $[0].fix: [] is not of type 'object', 'null'"),
    (
        lambda r: r.update(fix={"safety": "maybe", "message": "m", "edits": []}),
        "at $[0].fix.safety: 'maybe' is not one of ['safe', 'unsafe']",
    ),
    (
        lambda r: r.update(fix={"safety": "safe", "message": "m"}),
        "at $[0].fix: 'edits' is a required property",
    ),
    (
        lambda r: r.update(
            fix={
                "safety": "safe",
                "message": "m",
                "edits": [{"line": 1, "column": 1, "end_line": 1, "end_column": 0, "content": ""}],
            }
        ),
        "at $[0].fix.edits[0].end_column: 0 is less than the minimum of 1",
    ),
    (
        lambda r: r.update(related=[{"path": "a.py", "line": 1, "column": 1}]),
        "at $[0].related[0]: 'message' is a required property",
    ),
    (
        lambda r: r.update(related=[{"path": "a.py", "line": 1, "column": 1, "message": 3}]),
        "at $[0].related[0].message: 3 is not of type 'string'",
    ),
    (
        lambda r: r.update({"odd key": 1}),
        "at $[0]: Additional properties are not allowed ('odd key' was unexpected)",
    ),
]


@pytest.mark.parametrize(("mutate", "problem"), MALFORMED)
def test_a_malformed_record_is_rejected_at_its_path(
    records: list[dict[str, Any]], validator: Any, mutate: Any, problem: str
) -> None:
    record = copy.deepcopy(records[0])
    mutate(record)
    document = [record, records[1]]
    assert not validator.is_valid(document)
    assert first_problem(document) == problem


def test_a_document_that_is_no_array_is_rejected(validator: Any) -> None:
    for document, problem in [
        ({}, "at $: {} is not of type 'array'"),
        (None, "at $: None is not of type 'array'"),
        ([1], "at $[0]: 1 is not of type 'object'"),
    ]:
        assert not validator.is_valid(document)
        assert first_problem(document) == problem
    assert first_problem([]) is None


# --- the decoder ---


def test_from_dict_inverts_as_dict(records: list[dict[str, Any]]) -> None:
    for record in records:
        finding = from_dict(record)
        assert isinstance(finding, Finding)
        assert as_dict(finding) == record


def test_merged_sorts_as_check_and_keeps_one_of_identical_findings() -> None:
    def finding(path: str, line: int, code: str = "JL101") -> Finding:
        return Finding(code, "n", "m", path, Span(line, 1, line, 2))

    first = [finding("b.py", 3), finding("a.py", 9)]
    second = [finding("a.py", 9), finding("a.py", 2, "JL201")]
    assert merged([first, second]) == [
        finding("a.py", 2, "JL201"),
        finding("a.py", 9),
        finding("b.py", 3),
    ]


# --- joblint report ---


def test_round_trip_is_byte_identical(run: Run, tmp_path: Path, checked: str) -> None:
    findings = tmp_path / "findings.json"
    findings.write_text(checked, encoding="utf-8")
    result = _report(run, "--format", "json", str(findings), cwd=ROOT)
    assert result.code == 1, result.stderr
    assert result.stdout == checked
    assert result.stderr == ""  # like check: with json, nothing else


def test_report_sarif_validates(
    run: Run, tmp_path: Path, checked: str, records: list[dict[str, Any]], sarif_validator: Any
) -> None:
    findings = tmp_path / "findings.json"
    findings.write_text(checked, encoding="utf-8")
    result = _report(run, "--format", "sarif", str(findings), cwd=ROOT)
    assert result.code == 1, result.stderr
    document = json.loads(result.stdout)
    sarif_validator.validate(document)
    results = document["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [r["code"] for r in records]
    assert sum("relatedLocations" in r for r in results) == sum(bool(r["related"]) for r in records)


def test_two_files_are_merged_sorted_and_deduplicated(
    run: Run, tmp_path: Path, checked: str, records: list[dict[str, Any]]
) -> None:
    half = len(records) // 2
    # Overlapping halves, each in reverse order.
    _write(tmp_path / "a.json", records[: half + 10][::-1])
    _write(tmp_path / "b.json", records[half - 10 :][::-1])
    result = _report(run, "--format", "json", "a.json", "b.json")
    assert result.code == 1, result.stderr
    assert result.stdout == checked
    concise = _report(run, "--format", "concise", "a.json", "b.json")
    assert len(concise.stdout.splitlines()) == len(records)
    files = len({r["path"] for r in records})
    assert concise.stderr == (
        f"Found {len(records)} findings in {files} files (2 findings files given).\n"
    )


def test_every_format_renders_without_the_source_files(
    run: Run, tmp_path: Path, records: list[dict[str, Any]]
) -> None:
    """Paths are relative to where the findings were made: elsewhere the
    code frames are left out, nothing fails."""
    _write(tmp_path / "findings.json", records)
    for output_format in ("sarif", "gitlab"):  # they too read the source (fingerprints)
        result = _report(run, "--format", output_format, "findings.json")
        assert result.code == 1, (output_format, result.stderr)
        assert "Traceback" not in result.stderr and result.stdout
    full = _report(run, "findings.json")  # the default, as check's
    assert " | " not in full.stdout
    assert full.stdout.startswith(f"{records[0]['path']}:{records[0]['line']}:")


def test_full_format_quotes_the_source_where_it_is(
    run: Run, tmp_path: Path, checked: str, records: list[dict[str, Any]]
) -> None:
    findings = tmp_path / "findings.json"
    findings.write_text(checked, encoding="utf-8")
    result = _report(run, "--format", "full", str(findings), cwd=ROOT)
    first, line = records[0], records[0]["line"]
    source = (ROOT / first["path"]).read_text(encoding="utf-8").splitlines()[line - 1]
    assert f"{line} | {source}" in result.stdout.split("\n\n")[0]


def test_a_path_that_is_not_a_regular_file_is_not_read(run: Run, tmp_path: Path) -> None:
    record = {
        "code": "JL101",
        "name": "enqueue-in-transaction",
        "message": "m",
        "path": "/dev/zero",
        "line": 1,
        "column": 1,
        "end_line": 1,
        "end_column": 2,
        "severity": "error",
        "fix": None,
        "related": [],
    }
    _write(tmp_path / "findings.json", [record, {**record, "path": "/dev/stdin"}])
    result = _report(run, "--format", "full", "findings.json", stdin="")
    assert result.code == 1 and " | " not in result.stdout


@pytest.mark.parametrize(
    ("name", "content", "error"),
    [
        ("missing.json", None, "cannot read: No such file or directory"),
        ("broken.json", '[{"code": ', "not valid JSON: Expecting value (line 1, column 11)"),
        ("empty.json", "", "not valid JSON: Expecting value (line 1, column 1)"),
        ("nan.json", "[NaN]", "not valid JSON: NaN is not a JSON value"),
        ("latin1.json", b'["caf\xe9"]', "not valid JSON: not UTF-8 text"),
        (
            "schema.json",
            '[{"code": "JL101"}]',
            "not in joblint's findings schema: at $[0]: 'name' is a required property",
        ),
        (
            "line.json",
            "LINE_ZERO",
            "not in joblint's findings schema: at $[1].line: 0 is less than the minimum of 1",
        ),
        (
            "object.json",
            "{}",
            "not in joblint's findings schema: at $: {} is not of type 'array'",
        ),
    ],
)
def test_a_bad_file_is_one_line_exit_2_and_the_others_are_rendered(
    run: Run,
    tmp_path: Path,
    records: list[dict[str, Any]],
    name: str,
    content: str | bytes | None,
    error: str,
) -> None:
    good = records[:2]
    _write(tmp_path / "good.json", good)
    if content == "LINE_ZERO":
        content = json.dumps([good[0], {**good[1], "line": 0}])
    if isinstance(content, bytes):
        (tmp_path / name).write_bytes(content)
    elif content is not None:
        (tmp_path / name).write_text(content, encoding="utf-8")
    result = _report(run, "--format", "concise", name, "good.json")
    assert result.code == 2
    assert result.stderr.splitlines() == [
        f"joblint: error: {name}: {error}",
        "Found 2 findings in 1 file and 1 error (2 findings files given).",
    ]
    assert [line.split(":")[:2] for line in result.stdout.splitlines()] == [
        [r["path"], str(r["line"])] for r in good
    ]


def test_a_directory_is_a_bad_file(run: Run, tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    result = _report(run, "--format", "json", "folder")
    assert result.code == 2
    assert result.stderr == "joblint: error: folder: cannot read: Is a directory\n"
    assert json.loads(result.stdout) == []


def test_exit_status_follows_check(run: Run, tmp_path: Path, records: list[dict[str, Any]]) -> None:
    _write(tmp_path / "none.json", [])
    _write(tmp_path / "some.json", records[:1])
    clean = _report(run, "--format", "concise", "none.json")
    assert (clean.code, clean.stdout, clean.stderr) == (
        0,
        "",
        "No findings (1 findings file given).\n",
    )
    assert _report(run, "some.json").code == 1
    assert _report(run, "--exit-zero", "some.json").code == 0
    # --exit-zero covers findings, never a bad file.
    assert _report(run, "--exit-zero", "some.json", "missing.json").code == 2
    usage = _report(run)
    assert usage.code == 2 and "Missing argument" in usage.stderr


def test_standard_input(run: Run, records: list[dict[str, Any]]) -> None:
    result = _report(run, "--format", "json", "-", stdin=json.dumps(records[:3]))
    assert result.code == 1 and json.loads(result.stdout) == records[:3]


def test_output_file(
    run: Run, tmp_path: Path, records: list[dict[str, Any]], sarif_validator: Any
) -> None:
    _write(tmp_path / "findings.json", records)
    result = _report(run, "--format", "sarif", "--output-file", "out.sarif", "findings.json")
    assert result.code == 1 and result.stdout == ""
    sarif_validator.validate(json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8")))
    # An input written over by the output: every input is read first.
    again = _report(run, "--format", "json", "-o", "findings.json", "findings.json")
    assert again.code == 1
    assert json.loads((tmp_path / "findings.json").read_text(encoding="utf-8")) == records
    unwritable = _report(run, "-o", "no/such/dir/out.txt", "findings.json")
    assert unwritable.code == 2
    assert unwritable.stderr.startswith("joblint: error: no/such/dir/out.txt: cannot write:")


@fuzz_settings()  # type: ignore[misc]
@given(
    spans=st.lists(
        st.tuples(*[st.integers(1, 40)] * 4, st.integers(1, 40), st.integers(1, 40)),
        min_size=1,
        max_size=4,
    )
)
def test_any_span_the_schema_allows_renders_in_every_format(
    spans: list[tuple[int, int, int, int, int, int]],
) -> None:
    """Findings from elsewhere may point anywhere in a file that has changed
    since: past its end, backwards, mid-character."""
    path = "examples/shop/billing.py"
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines(keepends=True)
    findings = [
        from_dict(
            {
                "code": "JL101",
                "name": "enqueue-in-transaction",
                "message": "m",
                "path": path,
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
                "severity": "error",
                "fix": None,
                "related": [{"path": path, "line": at, "column": at_column, "message": "r"}],
            }
        )
        for line, column, end_line, end_column, at, at_column in spans
    ]
    for output_format in FORMATS:
        stream = io.StringIO()
        renderer(output_format)(findings, Output(stream, None, lambda _: lines))
        assert stream.getvalue()


def test_full_report_of_check_json_is_what_check_shows(run: Run, tmp_path: Path) -> None:
    """The findings format holds no help line: `joblint report` gives each of
    joblint's findings its rule's back, so the full report of a check's JSON
    reads as the check did (JL001's included)."""
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC, "b.py": "def broken(:\n"})
    shown = run("--format", "full", "--no-cache", ".")
    recorded = run("--format", "json", "--no-cache", "--output-file", "out.json", ".")
    assert (shown.code, recorded.code) == (1, 1)
    reported = _report(run, "--format", "full", "out.json", cwd=tmp_path)
    assert reported.stdout == shown.stdout
    assert reported.stdout.count("= help:") == 2
