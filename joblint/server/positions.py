"""Positions in a buffer: joblint's (1-based lines, 1-based columns in code
points) and the protocol's (0-based lines, columns in the code units of the
negotiated encoding: UTF-16 unless the client offers another).

Lines end at `\\n`, `\\r\\n` or `\\r`, as the protocol and LibCST both count
them (`str.splitlines` also breaks at form feeds and other separators, which
would shift every line after one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsprotocol import types

from joblint.models import Span

# The protocol's position encodings (`PositionEncodingKind`'s values).
UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its line break."""
    return _LINE.findall(text)


def _without_break(line: str) -> str:
    return line.rstrip("\r\n")


def _units(text: str, encoding: str) -> int:
    """How many code units of `encoding` `text` takes."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


@dataclass(slots=True)
class Lines:
    """A text's lines, to turn joblint's positions into the protocol's."""

    lines: list[str]
    encoding: str = UTF16
    # The text isn't known (a file that can't be read): columns are taken as they are.
    unknown: bool = False

    @classmethod
    def of(cls, text: str, encoding: str = UTF16) -> Lines:
        return cls(split_lines(text), encoding)

    @classmethod
    def of_unknown_text(cls) -> Lines:
        return cls([], unknown=True)

    def position(self, line: int, column: int) -> types.Position:
        """The protocol's position of joblint's (line, column); a position
        past the text is the end of the text."""
        if self.unknown:
            return types.Position(line=max(line - 1, 0), character=max(column - 1, 0))
        if line - 1 >= len(self.lines) or line < 1:
            return self.end() if line >= 1 else types.Position(line=0, character=0)
        text = _without_break(self.lines[line - 1])
        prefix = text[: max(column - 1, 0)]
        return types.Position(line=line - 1, character=_units(prefix, self.encoding))

    def range(self, span: Span) -> types.Range:
        start = self.position(span.line, span.column)
        end = self.position(span.end_line, span.end_column)
        if (end.line, end.character) < (start.line, start.character):
            end = start
        return types.Range(start=start, end=end)

    def end(self) -> types.Position:
        """Where the text ends: after the last line's break, the line after it."""
        if not self.lines:
            return types.Position(line=0, character=0)
        last = self.lines[-1]
        if last != _without_break(last):
            return types.Position(line=len(self.lines), character=0)
        return types.Position(line=len(self.lines) - 1, character=_units(last, self.encoding))

    def line_start(self, index: int) -> types.Position:
        """The start of the 0-based line `index` (the end of the text past it)."""
        if index >= len(self.lines):
            return self.end()
        return types.Position(line=index, character=0)

    def lines_of(self, selection: types.Range) -> tuple[int, int]:
        """The 1-based first and last lines a protocol range touches."""
        first = selection.start.line + 1
        last = selection.end.line + 1
        if selection.end.character == 0 and selection.end.line > selection.start.line:
            last -= 1  # a selection of whole lines ends at the next line's start
        return first, last
