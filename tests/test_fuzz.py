"""Property tests. Linting any module never raises, and every
finding has a valid position inside the file.

`make test` runs the `fast` profile; the long run is by hand:

    HYPOTHESIS_PROFILE=fuzz python -m pytest tests/test_fuzz.py -q

Generated modules come from hypothesmith: `from_grammar()` (any text the
grammar allows, usually nonsense) and `from_node()` (LibCST trees turned back
into code: closer to real programs). A job-code prelude is mixed in so the
rules have something to look at, and arbitrary bytes probe decoding.
"""

from __future__ import annotations

import hypothesmith
from conftest import ENQUEUE_IN_ATOMIC, fuzz_settings
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from joblint.analysis import sql
from joblint.models import FileResult, Finding
from joblint.pipeline.lint import lint_source
from joblint.pipeline.report.safe import source_lines
from joblint.registry import rule_by_code
from joblint.settings import LintSettings

ALL = LintSettings(frozenset(rule_by_code()) | {"JL001"})
PRELUDES = st.sampled_from(["", ENQUEUE_IN_ATOMIC, "import celery\nfrom rq import Queue\n"])


def check(data: bytes) -> FileResult:
    """Lint; assert nothing escaped, no internal error, and every position is in the file."""
    result = lint_source("fuzz.py", data, ALL)
    assert not result.errors, result.errors
    # Undecodable bytes: JL001 points at the line of the bad byte.
    lines = source_lines(data.decode("utf-8-sig", "replace"))
    for finding in (*result.findings, *(p.finding for p in result.pending)):
        _assert_in_file(finding, lines)
    return result


def _assert_in_file(finding: Finding, lines: list[str]) -> None:
    span = finding.span
    assert span.line >= 1 and span.column >= 1
    assert (span.end_line, span.end_column) >= (span.line, span.column)
    if finding.code == "JL001":
        # a syntax error may point one line past the end ("unexpected EOF")
        assert span.line <= len(lines) + 1
        return
    assert span.end_line <= len(lines), (span, len(lines))
    assert span.column <= len(lines[span.line - 1]) + 1
    assert span.end_column <= len(lines[span.end_line - 1]) + 1


@fuzz_settings()  # type: ignore[misc]
@given(prelude=PRELUDES, module=hypothesmith.from_grammar())
def test_from_grammar(prelude: str, module: str) -> None:
    check((prelude + module).encode("utf-8", "surrogatepass"))


@fuzz_settings()  # type: ignore[misc]
@given(prelude=PRELUDES, module=hypothesmith.from_node())
def test_from_node(prelude: str, module: str) -> None:
    check((prelude + module).encode("utf-8", "surrogatepass"))


@fuzz_settings()  # type: ignore[misc]
@given(data=st.binary(max_size=2000))
def test_arbitrary_bytes(data: bytes) -> None:
    check(data)


@fuzz_settings()  # type: ignore[misc]
@given(module=hypothesmith.from_node(), cut=st.integers(min_value=0))
def test_unfinished_edits(module: str, cut: int) -> None:
    """A valid module cut anywhere, as an editor saves it mid-edit."""
    assume(module)
    check((ENQUEUE_IN_ATOMIC + module[: cut % (len(module) + 1)]).encode("utf-8", "surrogatepass"))


# --- the SQL step -----------------------------------------------------------------------

SQL_WORDS = st.sampled_from(
    [
        "SELECT", "FROM", "WHERE", "FOR", "UPDATE", "SKIP", "LOCKED", "NOWAIT", "SHARE",
        "NO", "KEY", "OF", "LIMIT", "ORDER", "BY", "id", "=", "%s", "%(x)s", "$1", ":n",
        "(", ")", ",", "'", '"', "--", "/*", "*/", ";", "IN", "AND", "OR", "joblint_hole_0",
        "jobs", "t.id", "pg_try_advisory_lock", "WITH", "AS", "UNION", "\n", "*", "1",
    ]
)  # fmt: skip
SQL_TEXT = st.one_of(st.text(max_size=300), st.lists(SQL_WORDS, max_size=40).map(" ".join))


@fuzz_settings()  # type: ignore[misc]
@given(text=SQL_TEXT)
def test_sql_step_never_raises(text: str) -> None:
    """joblint.analysis.sql: parsing any text gives trees or None, never an exception."""
    sql.statements.cache_clear()
    sql.locking_reads.cache_clear()
    sql.looks_like_sql(text)
    assert sql.statements(text) is None or isinstance(sql.statements(text), tuple)
    assert sql.locking_reads(text) is None or isinstance(sql.locking_reads(text), tuple)
    names = frozenset({"pg_try_advisory_lock", "now"})
    for found in (sql.selected_functions(text, names), sql.called_functions(text, names)):
        assert found is None or all(name in names for name in found)


@settings(parent=fuzz_settings(), suppress_health_check=list(HealthCheck))  # type: ignore[misc]
@given(text=SQL_TEXT, how=st.sampled_from(["plain", "percent", "format", "concat"]))
def test_sql_strings_in_code(text: str, how: str) -> None:
    """SQL text reaching the rules through the code paths that build it."""
    literal = repr(text)
    expression = {
        "plain": literal,
        "percent": f"{literal} % (a, b)",
        "format": f"{literal}.format(a, b=c)",
        "concat": f"{literal} + x + {literal}",
    }[how]
    check(f"def f(cur, a, b, c, x):\n    cur.execute({expression})\n".encode())
