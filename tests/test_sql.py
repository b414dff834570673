"""The SQL step (joblint.analysis.sql): static text of string expressions and
what sqlglot makes of it. Random input must never crash it."""

from __future__ import annotations

import warnings

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from joblint.analysis.assignments import Assignments
from joblint.analysis.names import Resolver
from joblint.analysis.sql import (
    HOLE_PREFIX,
    Lookup,
    locking_reads,
    looks_like_sql,
    selected_functions,
    statements,
    static_sql,
)
from joblint.knowledge.locks import TRY_ADVISORY_FUNCTIONS
from joblint.pipeline.lint import lint_source
from joblint.settings import LintSettings, ModuleInfo

JL4 = LintSettings(frozenset({"JL401", "JL402", "JL403", "JL404"}))


def _text_of(source: str) -> str | None:
    """Static text of the value assigned last in `source` (a module)."""
    module = cst.parse_module(source)
    resolver = Resolver("m", False)
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import | cst.ImportFrom):
                    resolver.bind_import(small)
    last = module.body[-1]
    assert isinstance(last, cst.SimpleStatementLine)
    small = last.body[0]
    assert isinstance(small, cst.Assign | cst.Expr)
    lookup = Lookup(Assignments(module), (module,), "", resolver)
    found = static_sql(small.value, lookup)
    return found.text if found is not None else None


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('q = "SELECT 1"', "SELECT 1"),
        ('q = "SELECT " "1"', "SELECT 1"),
        ('q = "SELECT " + "1"', "SELECT 1"),
        ('q = """\n  SELECT 1\n"""', "\n  SELECT 1\n"),
        ('q = "SELECT %s, %(x)s, %%" % (a, b)', f"SELECT {HOLE_PREFIX}0, {HOLE_PREFIX}1, %"),
        ('q = "SELECT {} FROM {t}".format(a, t="jobs")', f"SELECT {HOLE_PREFIX}0 FROM jobs"),
        (
            'T = "jobs"\nq = f"SELECT * FROM {T} WHERE id = {x!r:>3}"',
            f"SELECT * FROM jobs WHERE id = {HOLE_PREFIX}0",
        ),
        ('q = f"SELECT {{1}}"', "SELECT {1}"),
        ('q = rf"SELECT \\d {x}"', f"SELECT \\d {HOLE_PREFIX}0"),
        ('from sqlalchemy import text\nq = text("SELECT 1")', "SELECT 1"),
        ('import textwrap\nq = textwrap.dedent("SELECT 1").strip()', "SELECT 1"),
        ('Q = "SELECT 1"\nq = Q', "SELECT 1"),
        ('Q = "SELECT 1"\nQ = "SELECT 2"\nq = Q', None),
        ("q = 1 + 2", None),
        ("q = name", None),
    ],
)
def test_static_text(source: str, expected: str | None) -> None:
    assert _text_of(source) == expected


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE", True),
        ("select id from jobs order by id limit 1 for update skip locked", False),
        ("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE OF jobs SKIP LOCKED", False),
        ("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR NO KEY UPDATE", True),
        ("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR SHARE NOWAIT", False),
        ("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE WAIT 5", True),
        ("SELECT id FROM jobs -- FOR UPDATE\nORDER BY id LIMIT 1", False),
        ("SELECT 'ORDER BY id LIMIT 1 FOR UPDATE' FROM jobs", False),
        ("SELECT * FROM jobs WHERE id = %s LIMIT 1 FOR UPDATE", False),
        ("SELECT * FROM jobs WHERE id = %s OR 1 = 1 LIMIT 1 FOR UPDATE", True),
        ("SELECT id FROM jobs FOR UPDATE", False),
        ("SELECT last_number FROM invoice_counter LIMIT 1 FOR UPDATE", False),
        ("SELECT id FROM jobs WHERE status = 'new' LIMIT 1 FOR UPDATE", True),
        ("SELECT id FROM jobs WHERE status = 'new' FOR UPDATE LIMIT 1", True),
        ("SELECT substring(a FROM 1 FOR 2) FROM jobs ORDER BY a LIMIT 1 FOR UPDATE", True),
        ("WITH n AS (SELECT id FROM jobs ORDER BY id LIMIT 9 FOR UPDATE) DELETE FROM jobs "
         "WHERE id IN (SELECT id FROM n)", True),
    ],
)
def test_locking_reads(text: str, flagged: bool) -> None:
    reads = locking_reads(text) or ()
    assert any(r.waits and r.picks_next and not r.pinned_by_key for r in reads) is flagged


def test_not_sql() -> None:
    assert statements("Select the next job for update, please") is None
    assert locking_reads("Select the next job for update, please") is None
    assert not looks_like_sql("Selecting is fun")
    assert looks_like_sql("  /* claim */ -- next\n (SELECT 1)")


@pytest.mark.parametrize(
    "prose",
    [
        "select one job for update order by age limit 1",  # no FROM: locks no row
        "select the job from the queue for update, order by age limit 1",
        "Select rows from jobs for update order by priority limit 1",
        "select a from jobs for update where state = 1",
    ],
)
def test_prose_the_parser_accepts_is_not_a_locking_read(prose: str) -> None:
    assert statements(prose) is not None
    assert not locking_reads(prose)


def test_selected_functions() -> None:
    assert selected_functions("SELECT pg_try_advisory_lock(1)", TRY_ADVISORY_FUNCTIONS) == (
        "pg_try_advisory_lock",
    )
    where = "SELECT id FROM jobs WHERE pg_try_advisory_lock(id) LIMIT 1"
    assert selected_functions(where, TRY_ADVISORY_FUNCTIONS) == ()


# --- properties: never a crash -----------------------------------------------------------

_SQL_WORDS = st.sampled_from(
    [
        "SELECT", "select", "FROM", "jobs", "WHERE", "id", "=", "%s", "%(x)s", "$1", ":n", "?",
        "ORDER", "BY", "LIMIT", "1", "FOR", "UPDATE", "NO", "KEY", "SHARE", "OF", "SKIP",
        "LOCKED", "NOWAIT", "WAIT", "(", ")", ",", ";", "'", "'x'", '"', "--", "/*", "*/", "\n",
        "WITH", "AS", "UPDATE", "SET", "RETURNING", "pg_try_advisory_lock", "IN", "AND", "OR",
        "{", "}", "{}", "\\", "`", "joblint_hole_0", "*", "ANY", "FETCH", "FIRST", "ROWS", "ONLY",
    ]
)
_SQLISH = st.one_of(
    st.lists(_SQL_WORDS, max_size=40).map(" ".join),
    st.lists(_SQL_WORDS, max_size=40).map("".join),
    st.text(max_size=200),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_SQLISH)
def test_sql_step_never_crashes(text: str) -> None:
    reads = locking_reads(text)
    assert reads is None or isinstance(reads, tuple)
    found = selected_functions(text, TRY_ADVISORY_FUNCTIONS)
    assert found is None or isinstance(found, tuple)
    looks_like_sql(text)


_PIECES = st.lists(st.one_of(_SQL_WORDS, st.text(max_size=8)), max_size=12).map(" ".join)


def _python_literals() -> st.SearchStrategy[str]:
    """Python string expressions: plain, raw, bytes, triple-quoted, f-strings,
    concatenations, % and .format templates (repr keeps them valid)."""
    plain = _PIECES.map(repr)
    raw = _PIECES.filter(lambda s: "'" not in s and not s.endswith("\\") and "\n" not in s).map(
        lambda s: f"r'{s}'"
    )
    triple = _PIECES.filter(lambda s: '"""' not in s and "\\" not in s and not s.endswith('"')).map(
        lambda s: f'"""{s}"""'
    )
    fstring = _PIECES.filter(lambda s: "\\" not in s and "'" not in s and "\n" not in s).map(
        lambda s: "f'" + s.replace("{", "{{").replace("}", "}}") + " {x} {y!r:>4}'"
    )
    bytes_ = _PIECES.filter(str.isascii).map(lambda s: "b" + repr(s))
    atom = st.one_of(plain, raw, triple, fstring, bytes_)
    return st.recursive(
        atom,
        lambda inner: st.one_of(
            st.tuples(inner, inner).map(" ".join),
            st.tuples(inner, inner).map(" + ".join),
            inner.map(lambda s: f"({s}) % (a, b)"),
            inner.map(lambda s: f"({s}).format(1, t='jobs')"),
        ),
        max_leaves=4,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_python_literals())
def test_python_literals_never_crash(literal: str) -> None:
    source = (
        f"Q = {literal}\n\n"
        "def claim(cursor, x, y, a, b):\n"
        "    cursor.execute(Q)\n"
        f"    cursor.execute({literal})\n"
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "m.py", "exec")
        cst.parse_module(source)
    except (SyntaxError, ValueError, cst.ParserSyntaxError, cst.CSTValidationError):
        return  # the generator made invalid Python: not the SQL step's concern
    result = lint_source("m.py", source.encode(), JL4, ModuleInfo("m"))
    assert result.parsed
    assert result.errors == ()
    assert not [f for f in result.findings if f.code == "JL001"]
