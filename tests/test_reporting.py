"""What a plain run tells its reader: fixable markers and the fix summary,
statistics, errors in the summary, malformed suppressions, code frames of
multi-line spans, help lines that add something, colour, diff headers, and
docs that describe what joblint does today."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import ENQUEUE_IN_ATOMIC, Run, write

from joblint.config import _KEYS
from joblint.models import Finding, Span
from joblint.pipeline.fix.apply import FixedFile
from joblint.pipeline.fix.run import unified_diff
from joblint.pipeline.report.full import layout

ROOT = Path(__file__).resolve().parents[1]

# JL401 (an unsafe fix) on a SQL string over several lines, and JL102 (no fix).
CLAIM = '''\
def claim(conn):
    with conn.cursor() as cur:
        cur.execute("""
            SELECT id FROM jobs
            ORDER BY id
            LIMIT 1
            FOR UPDATE
        """)
        return cur.fetchone()
'''
BEFORE_COMMIT = """\
from .tasks import send_receipt


def checkout(session, order):
    session.add(order)
    send_receipt.delay(order.id)
    session.commit()
"""


def _project(tmp_path: Path) -> None:
    write(tmp_path, {"claims.py": CLAIM, "shop/views.py": BEFORE_COMMIT})


# --- fixable markers and the summary ---


def test_a_plain_run_counts_the_hidden_unsafe_fixes(run: Run, tmp_path: Path) -> None:
    _project(tmp_path)
    result = run("--format", "concise", ".")
    assert result.code == 1
    assert "[*]" not in result.stdout  # every fix is unsafe: --fix alone fixes nothing
    assert (
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)."
        in result.stderr
    )


def test_unsafe_fixes_mark_the_fixable_findings(run: Run, tmp_path: Path) -> None:
    _project(tmp_path)
    for output_format in ("concise", "full"):
        result = run("--format", output_format, "--unsafe-fixes", ".")
        marked = [line for line in result.stdout.splitlines() if "[*]" in line]
        assert len(marked) == 1 and "JL401 [*]" in marked[0], result.stdout
        assert "JL102 [*]" not in result.stdout
        assert "[*] 1 fixable with the `--fix` option." in result.stderr
    write(tmp_path, {"joblint.toml": "unsafe-fixes = true\n"})
    assert "JL401 [*]" in run("--format", "concise", ".").stdout


def test_no_fix_line_when_nothing_is_fixable(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"shop/views.py": BEFORE_COMMIT})
    result = run(".")
    assert result.code == 1
    assert "fix" not in result.stderr.lower()


def test_statistics_mark_fixable_rules(run: Run, tmp_path: Path) -> None:
    _project(tmp_path)
    lines = run("--statistics", "--unsafe-fixes", ".").stdout.splitlines()
    assert sorted(lines) == sorted(
        ["    1\tJL401\t[*] for-update-without-skip-locked", "    1\tJL102\tenqueue-before-commit"]
    )


def test_statistics_follow_format_json(run: Run, tmp_path: Path) -> None:
    _project(tmp_path)
    result = run("--statistics", "--format", "json", ".")
    rows = json.loads(result.stdout)
    assert sorted(rows, key=lambda r: r["code"]) == [
        {"code": "JL102", "name": "enqueue-before-commit", "count": 1, "fixable": 0},
        {"code": "JL401", "name": "for-update-without-skip-locked", "count": 1, "fixable": 0},
    ]
    assert json.loads(run("--statistics", "--format", "json", "--unsafe-fixes", ".").stdout)


# --- errors in the summary ---


def test_a_missing_path_is_never_all_checks_passed(run: Run, tmp_path: Path) -> None:
    result = run("nope.py")
    assert result.code == 2
    assert "joblint: error: nope.py: no such file or directory" in result.stderr
    assert "All checks passed" not in result.stderr
    assert "Found 1 error (0 files checked)." in result.stderr
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC})
    both = run("nope.py", "a.py")
    assert "Found 1 finding in 1 file and 1 error (1 file checked)." in both.stderr


# --- malformed suppressions ---


def test_a_suppression_without_codes_is_a_warning(run: Run, tmp_path: Path) -> None:
    source = ENQUEUE_IN_ATOMIC.replace(
        "send_receipt.delay(order.pk)", "send_receipt.delay(order.pk)  # joblint: ignore"
    )
    write(tmp_path, {"views.py": source, "other.py": source.replace("ignore", "ignore[]")})
    result = run("--format", "concise", ".")
    assert result.code == 1  # the finding stands
    assert "views.py:8:9: JL101" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "joblint: warning: other.py:8: `# joblint: ignore[]` suppresses nothing: name the "
        "codes, as in `# joblint: ignore[JL101]` or `# joblint: ignore-file[JL4]`",
        "joblint: warning: views.py:8: `# joblint: ignore` suppresses nothing: name the "
        "codes, as in `# joblint: ignore[JL101]` or `# joblint: ignore-file[JL4]`",
    ]


def test_well_formed_suppressions_warn_nothing(run: Run, tmp_path: Path) -> None:
    source = ENQUEUE_IN_ATOMIC.replace(
        "send_receipt.delay(order.pk)", "send_receipt.delay(order.pk)  # joblint: ignore[JL101]"
    )
    write(tmp_path, {"views.py": f"# joblint: ignore-file[JL4]\n{source}"})
    result = run(".")
    assert result.code == 0
    assert "warning" not in result.stderr


# --- the code frame and the help line ---


def test_a_multi_line_sql_string_is_shown_whole(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"claims.py": CLAIM})
    frame = run("claims.py").stdout.splitlines()
    assert frame[1:11] == [
        "  |",
        "2 |       with conn.cursor() as cur:",
        '3 |           cur.execute("""',
        "  |  _____________________^",
        "4 | |             SELECT id FROM jobs",
        "5 | |             ORDER BY id",
        "6 | |             LIMIT 1",
        "7 | |             FOR UPDATE",
        '8 | |         """)',
        "  | |___________^ JL401",
    ]


def test_a_long_span_shows_its_ends() -> None:
    lines = ["x = (", *[f"    {n}," for n in range(20)], ")"]
    finding = Finding("JL999", "rule", "message", "a.py", Span(1, 5, 22, 2))
    shown = ["".join(text for text, _ in line) for line in layout(finding, lines)]
    assert " 2 | |     0," in shown and "21 | |     19," in shown
    assert not any("    10," in line for line in shown)
    assert "...  |" in shown


def _shown(finding: Finding) -> list[str]:
    return ["".join(text for text, _ in line) for line in layout(finding, ["x = 1"])]


def test_help_is_shown_even_where_the_message_ends_with_the_same_advice() -> None:
    """As in Ruff, the fix has a line of its own under every finding."""
    span = Span(1, 1, 1, 2)
    repeating = Finding(
        "JL102",
        "enqueue-before-commit",
        "a worker may run it first. Enqueue it after the "
        "commit, or register it with an on-commit hook",
        "a.py",
        span,
        "Enqueue after the commit, or register it with an on-commit hook",
    )
    assert "  = help: Enqueue after the commit, or register it with an on-commit hook" in (
        _shown(repeating)
    )
    adding = Finding(
        "JL101",
        "enqueue-in-transaction",
        "enqueued in a transaction",
        "a.py",
        span,
        "Use Django's transaction.on_commit or joblint.runtime.outbox",
    )
    assert "  = help: Use Django's transaction.on_commit or joblint.runtime.outbox" in _shown(
        adding
    )


def test_concise_is_coloured_when_asked(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC})
    coloured = run("--format", "concise", "--color", "always", "a.py").stdout
    assert "\x1b[" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == run("--format", "concise", "a.py").stdout


# --- fixes: plurals and diff headers ---


def test_diff_summary_counts_files_in_words(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"claims.py": CLAIM})
    assert "Would fix 0 findings in 0 files." in run("--diff", "claims.py").stderr
    assert "Would fix 1 finding in 1 file." in run("--diff", "--unsafe-fixes", "claims.py").stderr


def test_diff_headers_of_absolute_paths_have_one_slash() -> None:
    fixed = FixedFile("/tmp/shop/claims.py", b"a = 1\n", b"a = 2\n")
    head = unified_diff(fixed).splitlines()[:2]
    assert head == ["--- a/tmp/shop/claims.py", "+++ b/tmp/shop/claims.py"]
    assert unified_diff(FixedFile("claims.py", b"a\n", b"b\n")).startswith("--- a/claims.py\n")


# --- the docs say what joblint does today ---


def test_every_config_key_is_documented() -> None:
    documented = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [key for key in _KEYS if f"| `{key}` |" not in documented]
    assert missing == []


def test_docs_promise_no_fix_that_exists_or_is_still_to_come() -> None:
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    stale = [
        str(page.relative_to(ROOT))
        for page in pages
        if re.search(r"will come|no `--fix`", page.read_text(encoding="utf-8"))
    ]
    assert stale == []


def _link_targets(page: Path) -> list[str]:
    """The page's relative link targets, outside code blocks."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t for t in targets if not re.match(r"[a-z]+:|#", t)]


def test_readme_and_docs_link_only_to_files_in_the_repository() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        for target in _link_targets(page):
            linked = (page.parent / target.split("#")[0]).resolve()
            if not (linked.is_relative_to(ROOT) and linked.exists()):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_readme_set_up_starts_in_a_virtual_environment() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    set_up = readme.split("## Set-up", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    first, second = [line.split("  #", 1)[0].strip() for line in set_up.strip().splitlines()]
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e .")
    assert second == "make test"
