"""The module's plain functions, told from its `ast` and its text.

A finding that asks whether a name is a class, a task or a queue object
(`task.delay(get_subject(order))`: does the argument come from a model's
constructor?) has the name's module read for its facts, with LibCST, unless
the project already knows the name: a module-level function no decorator
wraps, which `FileFacts.plain_definitions` lists. The index tells the same
of most such functions for a fraction of the cost, so the module's facts are
read only where they can tell more.

Told conservatively: a module-level `def` without decorators is plain when
its name occurs in the module's text only as that one `def`, as a call
(`name(`), as an attribute (`obj.name`) or as a string of its own
(`__all__ = ["name"]`). Every way Python binds a name
(an assignment, an import, `global`, `del`, `for`, `with ... as`, a second
`def` or a `class`) writes it some other way, so no other binding can hide
in the file; a star import could bind any name, and then none is plain.
Words in strings and comments only ever make a name fail the test.
"""

from __future__ import annotations

import ast
import re
import unicodedata

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_STAR_IMPORT = re.compile(rb"\bimport[\s\\(]*\*")
_CALLED = re.compile(rb"\s*\(")
# What may stand between `def` or `class` and the name they bind.
_BLANKS = frozenset(b" \t\f\r\n\\")
_WORD = re.compile(rb"\w")


def plain_functions(tree: ast.Module, text: str | bytes) -> list[str]:
    """The names of the module's plain functions (see the module's docstring)."""
    data = _as_python_reads_names(text)
    names = {
        statement.name
        for statement in tree.body
        if isinstance(statement, _FUNCTIONS) and not statement.decorator_list
    }
    if not names or (b"*" in data and _STAR_IMPORT.search(data)):
        return []
    written = {name: data.count(name.encode("utf-8")) for name in names}
    # A name written once is written by its `def`.
    plain = [name for name, count in written.items() if count == 1]
    others = [name.encode("utf-8") for name, count in written.items() if count > 1]
    if others:
        plain.extend(w.decode("utf-8") for w in _only_called(data, others))
    return sorted(plain)


def _only_called(data: bytes, words: list[bytes]) -> list[bytes]:
    """Of `words`, those written once after `def` and otherwise only as a
    call or an attribute."""
    alternatives = b"|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    pattern = re.compile(rb"(?<![\w.])(" + alternatives + rb")(?!\w)")
    defined: dict[bytes, int] = {}
    rebound: set[bytes] = set()
    for match in pattern.finditer(data):
        word = match.group(1)
        keyword = _keyword_before(data, match.start())
        if keyword == b"def":
            defined[word] = defined.get(word, 0) + 1
        elif keyword == b"class" or not (_called(data, match) or _quoted(data, match)):
            rebound.add(word)
    return [w for w in words if defined.get(w) == 1 and w not in rebound]


def _called(data: bytes, match: re.Match[bytes]) -> bool:
    return _CALLED.match(data, match.end()) is not None


def _quoted(data: bytes, match: re.Match[bytes]) -> bool:
    """A string of the name alone (`"send_mail"`): where a quote stands
    before the name it opens a string (a string closed just before a name
    would not parse), which the same quote after it closes."""
    start, end = match.span()
    quote = data[start - 1 : start]
    return start > 0 and quote in (b'"', b"'") and data[end : end + 1] == quote


def _keyword_before(data: bytes, end: int) -> bytes:
    """`def` or `class` when one stands before `end` (blanks and line
    continuations between), else b""."""
    while end > 0 and data[end - 1] in _BLANKS:
        end -= 1
    for keyword in (b"def", b"class"):
        start = end - len(keyword)
        if start < 0 or data[start:end] != keyword:
            continue
        if start == 0 or _WORD.match(data, start - 1) is None:
            return keyword
    return b""


def _as_python_reads_names(text: str | bytes) -> bytes:
    """The text as UTF-8, normalised as Python normalises identifiers (NFKC:
    `ﬁle` is `file`), so that every spelling of a name is found."""
    if isinstance(text, bytes) and text.isascii():
        return text
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return text.encode("utf-8", "surrogatepass")
