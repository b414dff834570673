"""Suppression comments, applied by the engine after rules report.

- `# joblint: ignore[JL101]` / `# joblint: ignore[JL101, JL2]`: trailing on the
  reported line or on the last line of its statement, or alone on the line above.
- `# joblint: ignore-file[JL4]` before the first statement: the whole file.
- `# noqa: JL101` (flake8/Ruff habit) and a blanket `# noqa`, on the same lines.

Comments are found with `tokenize`, so `#` inside strings never counts.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field

# `[^\]#]`: the codes end at the next `#`, so an unclosed `[` costs one scan, not one per `#`.
_JOBLINT = re.compile(r"#\s*joblint:\s*(ignore|ignore-file)\[([^\]#]*)\]", re.IGNORECASE)
# flake8's own pattern: a bare noqa comment, or noqa followed by a colon and codes.
_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
_CODES = re.compile(r"[A-Za-z]+[0-9]*")
# Any `# joblint: ...` directive: one `_JOBLINT` doesn't read with a code is
# malformed, and the user is told (as Ruff warns of a malformed noqa comment).
_DIRECTIVE = re.compile(r"#\s*joblint\s*:\s*[^#]*", re.IGNORECASE)
# What JL002 checks: each comma/space-separated word (`JL10l` is one unknown code).
_WORDS = re.compile(r"[^\s,]+")


@dataclass(frozen=True, slots=True)
class Suppression:
    line: int
    codes: frozenset[str]  # empty = every code (blanket noqa)
    standalone: bool  # the comment is alone on its line


@dataclass(frozen=True, slots=True)
class CodeMention:
    """One code written in a suppression comment, where it is written (JL002)."""

    line: int  # 0-based columns below; `line` is 1-based
    start: int
    end: int
    code: str  # upper-cased, as it matches finding codes
    kind: str  # "ignore", "ignore-file" or "noqa"

    @property
    def key(self) -> tuple[int, str]:
        """What `Suppressions.used` records: (line, code); line 0 = file-level."""
        return (0 if self.kind == "ignore-file" else self.line, self.code)


@dataclass(slots=True)
class Suppressions:
    by_line: dict[int, list[Suppression]] = field(default_factory=dict)
    file_codes: set[str] = field(default_factory=set)
    # Every code written in a comment (honoured or not), and the (line, code)
    # pairs that suppressed something: JL002 reports the difference.
    mentions: list[CodeMention] = field(default_factory=list)
    used: set[tuple[int, str]] = field(default_factory=set)
    # (line, directive text) of `# joblint:` comments that suppress nothing
    # because they are malformed (no codes, no brackets, an unknown word).
    malformed: list[tuple[int, str]] = field(default_factory=list)

    def warnings(self, path: str) -> tuple[str, ...]:
        """One line per malformed directive, for the run's warnings."""
        return tuple(
            f"{path}:{line}: `{text}` suppresses nothing: name the codes, as in "
            "`# joblint: ignore[JL101]` or `# joblint: ignore-file[JL4]`"
            for line, text in self.malformed
        )

    def suppresses(self, code: str, lines: tuple[int, ...], lines_above: tuple[int, ...]) -> bool:
        file_prefixes = [p for p in self.file_codes if code.startswith(p)]
        if file_prefixes:
            self.used.update((0, p) for p in file_prefixes)
            return True
        for line in lines:
            for sup in self.by_line.get(line, ()):
                if _covers(sup, code):
                    self._use(sup, code)
                    return True
        for line in lines_above:
            for sup in self.by_line.get(line, ()):
                if sup.standalone and _covers(sup, code):
                    self._use(sup, code)
                    return True
        return False

    def _use(self, sup: Suppression, code: str) -> None:
        self.used.update((sup.line, p) for p in sup.codes if code.startswith(p))

    def compact(self) -> tuple[tuple[int, tuple[str, ...], bool], ...]:
        """A picklable form for whole-project rules: (line, codes, standalone);
        line 0 holds the file-level codes."""
        rows = [(0, tuple(sorted(self.file_codes)), False)] if self.file_codes else []
        for line, sups in sorted(self.by_line.items()):
            rows.extend((line, tuple(sorted(s.codes)), s.standalone) for s in sups)
        return tuple(rows)

    @classmethod
    def from_compact(cls, rows: tuple[tuple[int, tuple[str, ...], bool], ...]) -> Suppressions:
        result = cls()
        for line, codes, standalone in rows:
            if line == 0:
                result.file_codes.update(codes)
            else:
                sup = Suppression(line, frozenset(codes), standalone)
                result.by_line.setdefault(line, []).append(sup)
        return result


def _covers(sup: Suppression, code: str) -> bool:
    return not sup.codes or any(code.startswith(prefix) for prefix in sup.codes)


def ignore_comment(codes: Iterable[str]) -> str:
    """The comment suppressing `codes` on its line (alone on a line: on the next)."""
    return f"# joblint: ignore[{', '.join(codes)}]"


def ignored_codes(comment: str) -> tuple[int, frozenset[str]] | None:
    """The codes of the comment's first `# joblint: ignore[...]` that names
    any, and the offset in `comment` just after the last of them (where
    another code joins them); None when it has none."""
    for match in _JOBLINT.finditer(comment):
        raw = match.group(2)
        if match.group(1).lower() != "ignore" or not _CODES.search(raw):
            continue
        codes = frozenset(c.group().upper() for c in _CODES.finditer(raw))
        return match.start(2) + len(raw.rstrip(" \t,")), codes
    return None


def comments(source: str) -> list[tuple[int, int, str, bool]]:
    """(line, column, comment text, alone on its line) for every comment."""
    found: list[tuple[int, int, str, bool]] = []
    lines = source.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return _comments_fallback(lines)
    for token in tokens:
        if token.type == tokenize.COMMENT:
            line = token.start[0]
            before = lines[line - 1][: token.start[1]] if line - 1 < len(lines) else ""
            found.append((line, token.start[1], token.string, not before.strip()))
    return found


def _comments_fallback(lines: list[str]) -> list[tuple[int, int, str, bool]]:
    found = []
    for number, text in enumerate(lines, start=1):
        index = text.find("#")
        if index >= 0:
            found.append((number, index, text[index:], not text[:index].strip()))
    return found


def has_markers(source: str) -> bool:
    """Whether the source may hold a suppression comment at all (a cheap test)."""
    return "joblint" in source or "noqa" in source.lower()


def parse(source: str, first_statement_line: int) -> Suppressions:
    result = Suppressions()
    if not has_markers(source):
        return result
    for line, column, text, standalone in comments(source):
        _parse_comment(result, line, column, text, standalone, first_statement_line)
    return result


def _parse_comment(
    result: Suppressions,
    line: int,
    column: int,
    text: str,
    standalone: bool,
    first_statement_line: int,
) -> None:
    for directive in _DIRECTIVE.finditer(text):
        match = _JOBLINT.match(directive.group())
        if match is None or not _CODES.search(match.group(2)):
            result.malformed.append((line, directive.group().strip()))
    for match in _JOBLINT.finditer(text):
        kind, raw_codes = match.group(1).lower(), match.group(2)
        found = list(_CODES.finditer(raw_codes))
        codes = frozenset(c.group().upper() for c in found)
        if not codes:
            continue  # codes are required: a bare `ignore[]` suppresses nothing
        if kind == "ignore-file" and line >= first_statement_line:
            continue  # not honoured after the first statement (and not checked by JL002)
        offset = column + match.start(2)
        result.mentions.extend(
            CodeMention(line, offset + w.start(), offset + w.end(), w.group().upper(), kind)
            for w in _WORDS.finditer(raw_codes)
        )
        if kind == "ignore-file":
            result.file_codes.update(codes)
            continue
        result.by_line.setdefault(line, []).append(Suppression(line, codes, standalone))
    noqa = _NOQA.search(text)
    if noqa is not None:
        raw = noqa.group("codes")
        found = list(_CODES.finditer(raw)) if raw else []
        codes = frozenset(c.group().upper() for c in found)
        offset = column + noqa.start("codes") if raw else 0
        result.mentions.extend(
            CodeMention(line, offset + c.start(), offset + c.end(), c.group().upper(), "noqa")
            for c in found
        )
        result.by_line.setdefault(line, []).append(Suppression(line, codes, False))
