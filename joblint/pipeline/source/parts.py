"""A long module parsed in parts, joined into the tree its whole parse gives.

LibCST's parse of a whole 50,000-line module took 5.2 s and 561 MB; of the
same module in parts of about 2,000 lines, 2.7 s and 100 MB for all the
parts' trees together (its native parser's working memory grows with the
text it is handed, and what it leaves behind stays in the process). A
module is cut where a top-level `def`, `class` or decorator starts after a
blank line, the line before it neither a decorator nor a comment: the
parser's state there is the start of a file's (no bracket, string or block
open, nothing a comment above may belong to), so the grammar composes, and
the parts' statements, one after another, are the module's. What only the
whole module decides is then taken over by the joined one:

- the blank lines after a part's last statement (its footer) go before the
  next part's first statement, as the whole parse puts them there;
- a block's indent is written only where it differs from the module's
  default, the first block's indent in the file: every part holding a block
  must have the same default, and the joined module takes it;
- so with newlines: every part must have the module's first newline as its
  default.

Where a part doesn't parse or a default differs, the whole module is parsed
as before: a syntax error is then reported as the whole parse reports it.
tests/test_parse_parts.py checks that the joined tree is the whole parse's
on modules of this repository, cut at every place they may be cut.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import libcst as cst

# Lines a part holds at least; a module of fewer than twice as many is one part.
PART_LINES = 2_000

# A top-level statement that can't continue the one before it (as `else:` would).
_STARTS = re.compile(r"(?:def |class |async def |@)")
# A carriage return alone ends a line for Python but not for `str.split("\n")`.
_LONE_CARRIAGE_RETURN = re.compile(r"\r(?!\n)")


def cuts(text: str, part_lines: int) -> list[int]:
    """Offsets in `text` where a part may start, at least `part_lines` apart."""
    if _LONE_CARRIAGE_RETURN.search(text):
        return []
    found: list[int] = []
    offset = lines = 0
    previous = ""  # the last line that isn't blank
    after_blank = False
    for line in text.split("\n"):
        if after_blank and lines >= part_lines and _may_start_part(line, previous):
            found.append(offset)
            lines = 0
        if line.strip():
            previous = line
            after_blank = False
        else:
            after_blank = line in ("", "\r")
        offset += len(line) + 1
        lines += 1
    return found


def _may_start_part(line: str, previous: str) -> bool:
    return bool(_STARTS.match(line)) and not previous.startswith(("@", "#"))


def parse_in_parts(text: str, part_lines: int | None = None) -> cst.Module | None:
    """The module's tree, parsed in parts of at least `part_lines` lines
    (`PART_LINES`); None where it is one part, a part doesn't parse, or the
    parts' defaults differ (parse it whole)."""
    part_lines = PART_LINES if part_lines is None else part_lines
    if text.count("\n") < 2 * part_lines:
        return None
    offsets = cuts(text, part_lines)
    if not offsets:
        return None
    bounds = [0, *offsets, len(text)]
    try:
        parts = [cst.parse_module(text[start:end]) for start, end in itertools.pairwise(bounds)]
    except Exception:  # the whole parse says what (a syntax error, too deep)
        return None
    # Parts without a block have LibCST's fallback indent, which says nothing.
    indents = {p.default_indent for p in parts if _holds_block(p)}
    newlines = {p.default_newline for p in parts}
    if len(indents) > 1 or len(newlines) > 1:
        return None
    indent = indents.pop() if indents else parts[0].default_indent
    newline = newlines.pop()
    return cst.Module(
        body=list(_joined(parts)),
        header=parts[0].header,
        footer=parts[-1].footer,
        encoding=parts[0].encoding,
        default_indent=indent,
        default_newline=newline,
        has_trailing_newline=parts[-1].has_trailing_newline,
    )


def _joined(
    parts: list[cst.Module],
) -> Iterator[cst.SimpleStatementLine | cst.BaseCompoundStatement]:
    yield from parts[0].body
    for before, part in itertools.pairwise(parts):
        first, *rest = part.body
        lines = [*before.footer, *part.header, *first.leading_lines]
        yield first.with_changes(leading_lines=lines)
        yield from rest


def _holds_block(module: cst.Module) -> bool:
    """Whether the module has an indented block (its default indent is then
    the first one's, not LibCST's fallback)."""
    return any(isinstance(suite, cst.IndentedBlock) for s in module.body for suite in _suites(s))


def _suites(node: cst.CSTNode) -> Iterator[cst.BaseSuite]:
    """The suites of a compound statement and of its clauses (`else`,
    `except`, `finally`, `case`): where its indented blocks are."""
    body = getattr(node, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield body
    if isinstance(node, cst.Match):
        yield from (case.body for case in node.cases)
    for handler in getattr(node, "handlers", ()):
        yield handler.body
    for name in ("orelse", "finalbody"):
        clause = getattr(node, name, None)
        if isinstance(clause, cst.If):
            yield from _suites(clause)
        elif clause is not None:
            yield clause.body
