from __future__ import annotations

import dataclasses
import json
import stat
from pathlib import Path

import pytest
from conftest import CLEAN, ENQUEUE_IN_ATOMIC, Run, write

from joblint.api import CheckOptions, RunOptions
from joblint.cli import _open_output, check

JSON_KEYS = {
    "code",
    "name",
    "message",
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "severity",
    "fix",
    "related",
}


def test_findings_exit_1_and_summary_on_stderr(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"shop/views.py": ENQUEUE_IN_ATOMIC, "shop/ok.py": CLEAN})
    result = run(".")
    assert result.code == 1
    assert "shop/views.py:8:9: JL101 [enqueue-in-transaction]" in result.stdout
    assert "^^^^" in result.stdout and "= help:" in result.stdout
    assert "joblint explain JL101" in result.stdout
    assert "Found 1 finding in 1 file (2 files checked)." in result.stderr
    assert "Found" not in result.stdout


def test_clean_exit_0(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"ok.py": CLEAN})
    result = run("check", ".")
    assert result.code == 0
    assert result.stdout == ""
    assert "All checks passed" in result.stderr


def test_json_is_exactly_the_array(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"views.py": ENQUEUE_IN_ATOMIC})
    result = run("check", "--format", "json", ".")
    data = json.loads(result.stdout)
    assert isinstance(data, list) and len(data) == 1
    assert set(data[0]) == JSON_KEYS
    assert data[0]["code"] == "JL101" and data[0]["name"] == "enqueue-in-transaction"
    assert (data[0]["path"], data[0]["line"], data[0]["column"]) == ("views.py", 8, 9)
    assert (data[0]["end_line"], data[0]["end_column"]) == (8, 37)
    assert data[0]["severity"] == "error"
    assert data[0]["fix"] is None or set(data[0]["fix"]) == {"safety", "message", "edits"}
    assert result.code == 1


def test_json_empty_array_when_clean(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"ok.py": CLEAN})
    result = run("--format", "json", ".")
    assert json.loads(result.stdout) == [] and result.code == 0


def test_concise(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"views.py": ENQUEUE_IN_ATOMIC})
    result = run("--format", "concise", ".")
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("views.py:8:9: JL101 task 'send_receipt' is enqueued")


def test_bad_files_among_good_ones(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "a_views.py": ENQUEUE_IN_ATOMIC,
            "b_syntax.py": "def broken(:\n    pass\n",
            "c_latin.py": b"x = '\xe9t\xe9'\n",
            "d_empty.py": "",
            "e_ok.py": CLEAN,
        },
    )
    result = run("--format", "concise", ".")
    assert result.code == 1
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("a_views.py:8:9: JL101") for line in lines)
    assert any(line.startswith("b_syntax.py:1:12: JL001 syntax error") for line in lines)
    assert any(line.startswith("c_latin.py:1:1: JL001 cannot decode as utf-8") for line in lines)
    assert not any(line.startswith(("d_empty.py", "e_ok.py")) for line in lines)
    assert "(5 files checked)" in result.stderr


def test_latin1_with_coding_cookie_is_linted(run: Run, tmp_path: Path) -> None:
    source = b"# -*- coding: latin-1 -*-\n" + ENQUEUE_IN_ATOMIC.replace(
        "order.save()", "x = '\xe9'"
    ).encode("latin-1")
    write(tmp_path, {"v.py": source})
    result = run("--format", "concise", ".")
    assert result.stdout.startswith("v.py:9:9: JL101")


def test_bad_config_key_exits_2_with_one_line(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.joblint]\nselekt = ['JL1']\n", "ok.py": CLEAN})
    result = run(".")
    assert result.code == 2
    assert result.stderr.count("\n") == 1
    assert "pyproject.toml [tool.joblint]: unknown key 'selekt'" in result.stderr


def test_wrong_type_and_unknown_code_in_config(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"joblint.toml": "preview = 'yes'\n", "ok.py": CLEAN})
    assert "'preview' must be true or false" in run(".").stderr
    write(tmp_path, {"joblint.toml": "ignore = ['JL999']\n"})
    result = run(".")
    assert result.code == 2 and "unknown rule code or prefix 'JL999'" in result.stderr


def test_select_and_ignore_on_the_command_line(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"views.py": ENQUEUE_IN_ATOMIC})
    assert run("--select", "JL102", ".").code == 0
    assert run("--ignore", "JL1", ".").code == 0
    assert run("--select", "JL1", ".").code == 1
    bad = run("--select", "XX1", ".")
    assert bad.code == 2 and "unknown rule code" in bad.stderr


def test_exit_zero_and_statistics(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC, "b.py": ENQUEUE_IN_ATOMIC})
    assert run("--exit-zero", ".").code == 0
    stats = run("--statistics", ".")
    assert stats.stdout.split() == ["2", "JL101", "enqueue-in-transaction"]


def test_output_file(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC})
    result = run("--format", "json", "--output-file", "out.json", "a.py")
    assert result.stdout == ""
    assert json.loads((tmp_path / "out.json").read_text())[0]["code"] == "JL101"


def test_an_output_file_is_replaced_whole_keeping_its_mode(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC})
    report = tmp_path / "out.json"
    report.write_text("the last report")
    report.chmod(0o640)
    assert run("--format", "json", "--output-file", "out.json", "a.py").code == 1
    assert json.loads(report.read_text())[0]["code"] == "JL101"
    assert stat.S_IMODE(report.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_report_that_fails_while_rendered_leaves_the_last_one(tmp_path: Path) -> None:
    report = tmp_path / "out.txt"
    report.write_text("the last report")
    with pytest.raises(RuntimeError), _open_output(report) as stream:
        stream.write("half of a new one")
        raise RuntimeError("rendering failed")
    assert report.read_text() == "the last report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_an_output_file_that_is_a_device_is_written_as_a_stream(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC})
    result = run("--format", "json", "--output-file", "/dev/null", "a.py")
    assert (result.code, result.stdout, result.stderr) == (1, "", "")


def test_stdin_with_filename(run: Run) -> None:
    result = run(
        "--format", "concise", "--stdin-filename", "shop/views.py", "-", stdin=ENQUEUE_IN_ATOMIC
    )
    assert result.stdout.startswith("shop/views.py:8:9: JL101")
    assert result.code == 1


def test_missing_path_is_one_line_and_the_rest_runs(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC})
    result = run("--format", "concise", "nope.py", "a.py")
    assert "joblint: error: nope.py: no such file or directory" in result.stderr
    assert result.stdout.startswith("a.py:8:9: JL101")
    assert result.code == 2


def test_default_excludes_gitignore_and_force_exclude(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            ".gitignore": "generated/\n",
            "generated/a.py": ENQUEUE_IN_ATOMIC,
            ".venv/lib/b.py": ENQUEUE_IN_ATOMIC,
            "build/c.py": ENQUEUE_IN_ATOMIC,
            "src/d.py": ENQUEUE_IN_ATOMIC,
        },
    )
    result = run("--format", "concise", ".")
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["src/d.py"]
    named = run("--format", "concise", "build/c.py")
    assert named.stdout.startswith("build/c.py:8:9")
    assert run("--force-exclude", "build/c.py").code == 0


def test_respect_gitignore_false_and_extend_exclude(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".git/HEAD": "x\n",
            ".gitignore": "generated/\n",
            "generated/a.py": ENQUEUE_IN_ATOMIC,
            "legacy/b.py": ENQUEUE_IN_ATOMIC,
            "pyproject.toml": (
                "[tool.joblint]\nrespect-gitignore = false\nextend-exclude = ['legacy']\n"
            ),
        },
    )
    result = run("--format", "concise", ".")
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["generated/a.py"]


def test_per_file_ignores(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "tests/test_a.py": ENQUEUE_IN_ATOMIC,
            "app/a.py": ENQUEUE_IN_ATOMIC,
            "joblint.toml": "[per-file-ignores]\n'tests/**' = ['JL1']\n",
        },
    )
    result = run("--format", "concise", ".")
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["app/a.py"]


def test_isolated_ignores_config(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC, "joblint.toml": "ignore = ['JL101']\n"})
    assert run(".").code == 0
    assert run("--isolated", ".").code == 1


def test_rules_json_and_table(run: Run) -> None:
    data = json.loads(run("rules", "--format", "json").stdout)
    names = {r["code"]: r["name"] for r in data}
    assert names["JL101"] == "enqueue-in-transaction"
    assert names["JL102"] == "enqueue-before-commit"
    assert "enqueue-in-transaction" in run("rules").stdout


def test_explain_by_code_and_name(run: Run) -> None:
    by_code = run("explain", "JL101")
    assert by_code.code == 0 and "Why is this bad?" in by_code.stdout
    assert "Why is this bad?" in run("explain", "enqueue-before-commit").stdout
    unknown = run("explain", "JL999")
    assert unknown.code == 2 and "unknown rule 'JL999'" in unknown.stderr


def test_version(run: Run) -> None:
    from joblint import __version__

    assert run("--version").stdout.strip().endswith(__version__)


# --- rule options and celery-django-task ------------------------------------------------

LOCK = """import redis

r = redis.Redis()


def run():
    with r.lock("report"):
        pass
"""


def test_rule_options_errors_are_one_line(run: Run, tmp_path: Path) -> None:
    cases = {
        "[tool.joblint.rules.JL999]\nx = 1\n": "'rules' has unknown rule 'JL999'",
        "[tool.joblint.rules.JL101]\nx = 1\n": "'rules.JL101': JL101 has no options",
        "[tool.joblint.rules.JL402]\ntimeout = 1\n": "unknown option 'timeout'",
        "[tool.joblint.rules.JL402]\ndefault-lock-timeout = '60'\n": "must be a positive integer",
        "[tool.joblint.rules.JL402]\ndefault-lock-timeout = 0\n": "must be a positive integer",
        "[tool.joblint]\nrules = 5\n": "'rules' must be a table",
        "[tool.joblint]\ncelery-django-task = 'yes'\n": "'celery-django-task' must be true",
    }
    for toml, message in cases.items():
        write(tmp_path, {"pyproject.toml": toml, "ok.py": CLEAN})
        result = run(".")
        assert result.code == 2, toml
        assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


def test_default_lock_timeout_enables_the_jl402_fix(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"jobs.py": LOCK})
    assert run("--diff", "--unsafe-fixes", "jobs.py").stdout == ""
    toml = "[tool.joblint.rules.lock-without-expiry]\ndefault-lock-timeout = 90\n"
    write(tmp_path, {"pyproject.toml": toml})
    result = run("--diff", "--unsafe-fixes", "jobs.py")
    assert result.code == 1
    assert '+    with r.lock("report", timeout=90):' in result.stdout


def test_celery_django_task_switches_the_jl101_fix(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"views.py": ENQUEUE_IN_ATOMIC})
    result = run("--diff", "--unsafe-fixes", "views.py")
    assert "+        transaction.on_commit(lambda: send_receipt.delay(order.pk))" in result.stdout
    write(tmp_path, {"pyproject.toml": "[tool.joblint]\ncelery-django-task = true\n"})
    result = run("--diff", "--unsafe-fixes", "views.py")
    assert "+        send_receipt.delay_on_commit(order.pk)" in result.stdout


# --- --fix on standard input writes the fixed source to stdout, nothing else ----------

FIXED_ENQUEUE = ENQUEUE_IN_ATOMIC.replace(
    "        send_receipt.delay(order.pk)",
    "        transaction.on_commit(lambda: send_receipt.delay(order.pk))",
)


def test_fix_on_stdin_writes_only_the_fixed_source_to_stdout(run: Run) -> None:
    args = ("--fix", "--unsafe-fixes", "--stdin-filename", "shop/views.py", "-")
    result = run(*args, stdin=ENQUEUE_IN_ATOMIC)
    assert (result.code, result.stdout) == (0, FIXED_ENQUEUE)
    assert "Fixed 1 finding, 0 remaining." in result.stderr
    # Findings that remain go to stderr, in any format; stdout is still the source.
    result = run("--fix", "--format", "json", "-", stdin=ENQUEUE_IN_ATOMIC)
    assert (result.code, result.stdout) == (1, ENQUEUE_IN_ATOMIC)
    assert '"code": "JL101"' in result.stderr
    assert "1 more fixable with --unsafe-fixes" in result.stderr.replace("finding ", "")
    result = run("--fix-only", "--unsafe-fixes", "-", stdin=ENQUEUE_IN_ATOMIC)
    assert (result.code, result.stdout) == (0, FIXED_ENQUEUE)


def test_fix_on_stdin_keeps_source_it_cannot_fix(run: Run) -> None:
    broken = "def f(:\n    pass\n"
    result = run("--fix", "--unsafe-fixes", "-", stdin=broken)
    assert (result.code, result.stdout) == (1, broken)
    assert "JL001" in result.stderr
    result = run("--fix", "--unsafe-fixes", "-", stdin=CLEAN)
    assert (result.code, result.stdout) == (0, CLEAN)


def test_diff_on_stdin(run: Run) -> None:
    args = ("--diff", "--unsafe-fixes", "--stdin-filename", "shop/views.py", "-")
    result = run(*args, stdin=ENQUEUE_IN_ATOMIC)
    assert result.code == 1
    assert result.stdout.startswith("--- a/shop/views.py\n+++ b/shop/views.py\n")
    assert "+        transaction.on_commit(lambda: send_receipt.delay(order.pk))" in result.stdout


def test_check_options_hold_every_option_of_check_by_its_name() -> None:
    """`check` builds `CheckOptions(**given)` from click's parameters: a field
    for each option (but the paths), named and defaulted as the option."""
    given = check.make_context("check", []).params  # what `check` is called with
    given.pop("paths")
    assert {f.name: f.default for f in dataclasses.fields(CheckOptions)} == given


def test_check_options_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        CheckOptions().jobs = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        RunOptions().jobs = 2  # type: ignore[misc]
    assert CheckOptions(jobs=3, no_cache=True).run_options() == RunOptions(jobs=3, cache=False)
