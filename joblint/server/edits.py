"""Edits a code action makes: a buffer's new text as the protocol's text
edits, and the text with a finding suppressed by a `# joblint: ignore[...]`
comment (`joblint.suppressions` reads it).

A fix is applied by joblint's own fix loop (`joblint.pipeline.fix.apply`),
which gives the whole new text; the edits are the lines that differ, so a
client moves no cursor or mark outside them.
"""

from __future__ import annotations

import difflib
import io
import tokenize
from dataclasses import dataclass

from lsprotocol import types

from joblint.server.positions import Lines, split_lines
from joblint.suppressions import comments, ignore_comment, ignored_codes


def text_edits(old: str, new: str, encoding: str) -> list[types.TextEdit]:
    """Edits turning `old` into `new`, one per run of differing lines."""
    before, after = split_lines(old), split_lines(new)
    lines = Lines(before, encoding)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    edits = []
    for tag, first, last, new_first, new_last in matcher.get_opcodes():
        if tag == "equal":
            continue
        where = types.Range(start=lines.line_start(first), end=lines.line_start(last))
        edits.append(types.TextEdit(range=where, new_text="".join(after[new_first:new_last])))
    return edits


@dataclass(frozen=True, slots=True)
class _Layout:
    """Which lines of a text a comment may not be added to: those ending, or
    starting, inside a token that spans lines (a triple-quoted string), and
    those continued by a backslash; and each line's comment."""

    ends_inside: frozenset[int]
    starts_inside: frozenset[int]
    continued: frozenset[int]
    comments: dict[int, tuple[int, str, bool]]  # line -> (column, text, alone on its line)


def _layout(text: str, lines: list[str]) -> _Layout:
    ends_inside: set[int] = set()
    starts_inside: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            first, last = token.start[0], token.end[0]
            if last > first and token.type not in (tokenize.NEWLINE, tokenize.NL):
                ends_inside.update(range(first, last))
                starts_inside.update(range(first + 1, last + 1))
    except (tokenize.TokenError, SyntaxError):
        pass  # a file that doesn't tokenize: the lines as they look
    found = {line: (column, comment, alone) for line, column, comment, alone in comments(text)}
    continued = {
        number
        for number, line in enumerate(lines, start=1)
        if number not in found and line.rstrip("\r\n").rstrip().endswith("\\")
    }
    return _Layout(frozenset(ends_inside), frozenset(starts_inside), frozenset(continued), found)


def suppressed(text: str, code: str, line: int) -> str | None:
    """`text` with the finding of `code` on `line` (1-based) suppressed:
    the line's `# joblint: ignore[...]` comment (or one alone on the line
    above) extended with the code, else such a comment added at the end of
    the line, or alone on the line above where the line's end is inside a
    string or continued. None when the comment has no place."""
    lines = split_lines(text)
    if not 1 <= line <= len(lines):
        return None
    layout = _layout(text, lines)
    for number, alone_only in ((line, False), (line - 1, True)):
        known = _ignore_comment(layout, number, alone_only)
        if known is None:
            continue
        at, codes = known
        if any(code.startswith(prefix) for prefix in codes):
            return None  # suppressed already
        written = lines[number - 1]
        lines[number - 1] = f"{written[:at]}, {code}{written[at:]}"
        return "".join(lines)
    target = lines[line - 1]
    body = target.rstrip("\r\n")
    ending = target[len(body) :]
    if line not in layout.ends_inside and line not in layout.continued:
        lines[line - 1] = f"{body.rstrip()}  {ignore_comment([code])}{ending}"
        return "".join(lines)
    if line not in layout.starts_inside and line - 1 not in layout.continued:
        indent = body[: len(body) - len(body.lstrip())]
        lines.insert(line - 1, f"{indent}{ignore_comment([code])}{ending or _break(lines)}")
        return "".join(lines)
    return None


def _ignore_comment(
    layout: _Layout, number: int, alone_only: bool
) -> tuple[int, frozenset[str]] | None:
    """Where another code joins line `number`'s `# joblint: ignore[...]`
    comment (the column in the line) and the codes it names, if it has one
    (`alone_only`: only a comment alone on its line)."""
    found = layout.comments.get(number)
    if found is None or (alone_only and not found[2]):
        return None
    column, comment, _ = found
    known = ignored_codes(comment)
    if known is None:
        return None
    end, codes = known
    return column + end, codes


def _break(lines: list[str]) -> str:
    """The text's line break (its first line's)."""
    first = lines[0] if lines else ""
    body = first.rstrip("\r\n")
    return first[len(body) :] or "\n"
