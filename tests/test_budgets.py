"""Regular expressions on user text are linear-time, and large
inputs cost a bounded amount of work. No wall-clock assertions here (speed is
measured in benchmarks); where a test could hang it runs in a subprocess with a
generous timeout, as a hang guard only."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import joblint
from joblint.analysis import sql
from joblint.pipeline.lint import lint_source
from joblint.pipeline.source import budget
from joblint.registry import rule_by_code
from joblint.settings import LintSettings

try:  # Python 3.11+
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

ALL = LintSettings(frozenset(rule_by_code()) | {"JL001"})
REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT}

# Patterns with a repetition inside a repetition, reviewed: why each is linear.
REVIEWED = {
    # match() at the start, nothing after the `*`: it never has to backtrack, and
    # its alternatives start with different characters (space, `--`, `/*`, `(`).
    "joblint.analysis.sql._LEADING_NOISE",
    # separators `[,\s]`, letters and digits are disjoint classes: each character
    # of a comment can only be matched one way.
    "joblint.suppressions._NOQA",
    # `of a, b, c`: a comma separates the names, so the list splits one way; when
    # the lookahead fails only the last name is given back (measured linear).
    "joblint.rules.locks.for_update_without_skip_locked._LOCK_CLAUSE",
}


def _patterns() -> dict[str, re.Pattern[Any]]:
    found: dict[str, re.Pattern[Any]] = {}
    for info in pkgutil.walk_packages(joblint.__path__, "joblint."):
        if ".runtime" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                found[f"{info.name}.{name}"] = value
    return found


def _nested_repeat(items: Any, inside: bool) -> bool:
    for op, arg in items:
        if op in REPEATS:
            _low, high, sub = arg
            unbounded = high == sre_constants.MAXREPEAT or high > 100
            if inside and unbounded:
                return True
            if _nested_repeat(sub, inside or high > 1):
                return True
        elif op == sre_constants.SUBPATTERN:
            if _nested_repeat(arg[-1], inside):
                return True
        elif op == sre_constants.BRANCH:
            if any(_nested_repeat(branch, inside) for branch in arg[1]):
                return True
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT) and _nested_repeat(
            arg[1], inside
        ):
            return True
    return False


def test_no_unreviewed_nested_quantifiers() -> None:
    patterns = _patterns()
    assert "joblint.pipeline.source.budget._TOKEN" in patterns
    assert "joblint.suppressions._JOBLINT" in patterns
    nested = set()
    for name, pattern in patterns.items():
        source = pattern.pattern
        if isinstance(source, bytes):
            source = source.decode("latin-1")
        if _nested_repeat(sre_parse.parse(source, pattern.flags & ~re.UNICODE), False):
            nested.add(name)
    assert nested <= REVIEWED, sorted(nested - REVIEWED)
    assert _nested_repeat(sre_parse.parse(r"(a+)+$"), False)  # the detector detects


# Inputs that make a backtracking regex quadratic or worse; run under a hang guard.
_ADVERSARIAL = r"""
import sys
sys.path.insert(0, sys.argv[1])
from joblint import suppressions
from joblint.pipeline.source import budget
from joblint.analysis import sql
n = 200_000
suppressions.parse("x = 1  " + "# joblint: ignore[" * n + "\n" + "# noqa: A1, " * n, 1)
list(sql._PERCENT.finditer("%(" * n + "%.%#0- +" * n))
sql.looks_like_sql("/*" + " " * n + "--" * n + "(" * n)
budget.check_shape("'" + "\\" * n)
budget.check_shape('"' * 3 + '\\"' * n)
budget.check_shape("x = f" + "(" * 150 + "a," * n)
from joblint.rules.locks.for_update_without_skip_locked import _LOCK_CLAUSE
list(_LOCK_CLAUSE.finditer("for update of " + "a, " * n + "a skip locked"))
list(_LOCK_CLAUSE.finditer("for update of " + "a" * n + " skip locked"))
print("done")
"""


def test_regexes_on_adversarial_text_finish() -> None:
    root = str(Path(joblint.__file__).parents[1])
    proc = subprocess.run(
        [sys.executable, "-c", _ADVERSARIAL, root], capture_output=True, text=True, timeout=300
    )
    assert proc.stdout.strip() == "done", proc.stderr


def test_one_megabyte_sql_string_is_not_given_to_the_sql_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sqlglot

    calls: list[int] = []
    real = sqlglot.parse

    def counting(text: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(sqlglot, "parse", counting)
    sql.statements.cache_clear()
    sql.locking_reads.cache_clear()
    where = " OR ".join(f"name = 'n{i}'" for i in range(60_000))
    query = f"SELECT id FROM jobs WHERE {where} FOR UPDATE"
    assert len(query) > 1_000_000
    for source in (
        f"def f(cur):\n    cur.execute({query!r})\n",
        f'def f(cur):\n    q = """{query}"""\n    cur.execute(q)\n',
        f"def f(cur, a):\n    cur.execute({('%(' * 500_000)!r} % a)\n",
    ):
        result = lint_source("big.py", source.encode(), ALL)
        assert not result.errors and [f.code for f in result.findings] == []
    # Only strings up to the SQL step's limit reach sqlglot; the megabyte never does.
    assert all(size <= sql._MAX_SQL_CHARS for size in calls)


def test_the_shape_scan_reads_each_character_once() -> None:
    # Bounded work: the scan's token count grows linearly with the input.
    counts = []
    for size in (10_000, 20_000, 40_000):
        text = "x = [" + ", ".join(["(a + b) * f(c)[0]"] * size) + "]\n"
        counts.append(sum(1 for _ in budget._TOKEN.finditer(text)) / len(text))
    assert max(counts) - min(counts) < 0.01


# Pieces of code the shape checks read differently: brackets, operators that
# count or reset, keywords, strings and comments holding any of them, line ends
# of every kind and continuations.
_PIECES = [
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "a",
    "f",
    "1",
    "1if",
    ".",
    "+",
    "-",
    "**",
    "==",
    "<=",
    "->",
    "...",
    ":",
    ":=",
    "=",
    "+=",
    ",",
    ";",
    " ",
    "\n",
    "\r",
    "\r\n",
    "\\\n",
    "not",
    "lambda",
    "if",
    "else",
    "and",
    "is",
    "'s(",
    "')'",
    '"[+"',
    "'''(\n]'''",
    'b"x"',
    "# (+\n",
    "'",
    '"',
    "\\",
    "x'",
    "\x0c",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=80))
@settings(max_examples=600, deadline=None)
def test_the_quick_bound_passes_only_what_the_scan_passes(pieces: list[str]) -> None:
    # Small limits, so that short texts reach every one of them.
    text = "".join(pieces)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (("MAX_CHAIN", 5), ("DEEP_FROM", 3), ("MAX_DEEP_WORK", 4)):
            patch.setattr(budget, name, value)
        patch.setattr(budget, "MAX_NESTING", 6)
        if budget._clearly_within(text):
            assert budget._scan_shape(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "x = (\n" + "a +\n" * 1_500 + "a)\n",  # one chain over many lines, inside brackets
        "x = " + " + ".join(["f(a, b)"] * 600) + "\n",  # commas inside calls don't end it
        "x = " + " not" * 1_100 + " a\n",
        ")(\n" + "a +\n" * 1_100 + "a)\n",  # the scan's depth stops at zero: the chain is inside
        "x = " + "(" * 17 + "a" + ")" * 17 + "\n",
    ],
)
def test_the_quick_bound_leaves_near_misses_to_the_scan(text: str) -> None:
    assert not budget._clearly_within(text)


def test_the_quick_bound_settles_real_code_as_the_scan_does() -> None:
    import email
    import json as json_module

    settled = 0
    paths = sorted(Path(email.__file__).parent.rglob("*.py")) + sorted(
        Path(json_module.__file__).parent.rglob("*.py")
    )
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if budget._clearly_within(text):
            settled += 1
            assert budget._scan_shape(text) is None, path
    assert settled == len(paths)
