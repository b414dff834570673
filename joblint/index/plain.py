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
from collections import Counter
from collections.abc import Iterator

from joblint.index.nodes import last_name
from joblint.knowledge import jobs, locks

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_STAR_IMPORT = re.compile(rb"\bimport[\s\\(]*\*")
_CALLED = re.compile(rb"\s*\(")
# What may stand between `def` or `class` and the name they bind.
_BLANKS = frozenset(b" \t\f\r\n\\")
_WORD = re.compile(rb"\w")
_ASCII_WORD = re.compile(rb"\w+")
_WHOLE_WORD = re.compile(rb"(?<![\w.])(\w+)")
# Up to this many names, each is counted over the text on its own (cheaper
# than splitting the text into words).
_FEW_NAMES = 16


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
    written = _times_written(data, names)
    # A name written once is written by its `def`.
    plain = [name for name, count in written.items() if count == 1]
    others = [name.encode("utf-8") for name, count in written.items() if count > 1]
    if others:
        plain.extend(w.decode("utf-8") for w in _only_called(data, others))
    return sorted(plain)


def _times_written(data: bytes, names: set[str]) -> dict[str, int]:
    """For each name, 1 exactly when it is written once in `data`, inside
    longer words too (then its `def` alone writes it), else more. Many ASCII
    names are counted in one pass over the words: counting each name's
    occurrences over the whole text costs names x text."""
    if len(names) <= _FEW_NAMES or not all(name.isascii() for name in names):
        return {name: data.count(name.encode("utf-8")) for name in names}
    words = Counter(_ASCII_WORD.findall(data))
    encoded = {name: name.encode("ascii") for name in names}
    # A name also met inside a longer word counts more than once: those go
    # through `_only_called`, which tells words apart, as any name written twice.
    inside = _written_inside(words, set(encoded.values()))
    return {name: words[word] + (word in inside) for name, word in encoded.items()}


def _written_inside(words: Counter[bytes], names: set[bytes]) -> set[bytes]:
    """The names written as part of a longer word."""
    lengths = sorted({len(name) for name in names})
    inside: set[bytes] = set()
    for word in words:
        for length in lengths:
            if length >= len(word):
                break
            inside.update(
                word[start : start + length]
                for start in range(len(word) - length + 1)
                if word[start : start + length] in names
            )
    return inside


def _whole_words(data: bytes, words: list[bytes]) -> Iterator[re.Match[bytes]]:
    """Each place one of `words` is written as a whole word, not after a dot
    (group 1: the word)."""
    if all(word.isascii() for word in words):
        wanted = set(words)
        return (m for m in _WHOLE_WORD.finditer(data) if m.group(1) in wanted)
    alternatives = b"|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rb"(?<![\w.])(" + alternatives + rb")(?!\w)").finditer(data)


def _only_called(data: bytes, words: list[bytes]) -> list[bytes]:
    """Of `words`, those written once after `def` and otherwise only as a
    call or an attribute."""
    defined: dict[bytes, int] = {}
    rebound: set[bytes] = set()
    for match in _whole_words(data, words):
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


# A class's unique keys (`joblint.analysis.model_keys`) are each declared with
# one of these words in its body; a class whose text holds none has none.
_UNIQUE_WORDS = tuple(
    word.lower().encode()
    for word in sorted(
        {
            *locks.PRIMARY_KEY_KEYWORDS,
            *locks.UNIQUE_KEYWORDS,
            *locks.UNIQUE_FIELD_CLASSES,
            *locks.UNIQUE_CONSTRAINT_CLASSES,
            *locks.OPTIONS_UNIQUE_TOGETHER,
            *locks.OPTIONS_CONSTRAINTS,
        }
    )
)
_GLOBAL = re.compile(rb"\bglobal\b")


def plain_classes(tree: ast.Module, text: str | bytes) -> list[str]:
    """The module's classes that may be plain: a module-level `class` with
    no decorator and no keyword (a metaclass, `table=True`), bound by
    nothing else at module level (nor declared `global` anywhere), whose
    text declares no unique key. The facts list such a class as a plain
    definition whose kinds come from its bases alone; the index reader
    keeps those whose bases it resolves, none of them a base that gives
    a kind (`joblint.index.classes`). Not a class-based task (a base
    written `Task`)."""
    data = _as_python_reads_names(text)
    classes = [
        statement
        for statement in tree.body
        if isinstance(statement, ast.ClassDef)
        and not statement.decorator_list
        and not statement.keywords
        and not any(_names_a_task_base(base) for base in statement.bases)
    ]
    if not classes or (b"*" in data and _STAR_IMPORT.search(data)):
        return []
    bound: dict[str, int] = {}
    for name in _module_bindings(tree, data):
        bound[name] = bound.get(name, 0) + 1
    lines = data.lower().splitlines(keepends=True)
    return sorted(
        node.name
        for node in classes
        if bound.get(node.name) == 1 and not _declares_keys(lines, node)
    )


def _names_a_task_base(base: ast.expr) -> bool:
    """A base written `Task` or `celery.Task`: a class-based task, not plain."""
    return last_name(base) in jobs.TASK_BASE_CLASS_NAMES


def _declares_keys(lines: list[bytes], node: ast.ClassDef) -> bool:
    end = node.end_lineno or len(lines)
    body = b"".join(lines[node.lineno - 1 : end])
    return any(word in body for word in _UNIQUE_WORDS)


def _module_bindings(tree: ast.Module, data: bytes) -> Iterator[str]:
    """Every name bound at module level (in its compound statements too, and
    by `:=` in its expressions), and every name declared `global` anywhere."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        yield from (name for name, _ in bound_names(node))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stack.extend([*node.decorator_list, *_signature(node)])
        elif isinstance(node, ast.Lambda):
            stack.extend(_defaults(node.args))
        else:
            stack.extend(ast.iter_child_nodes(node))
    if _GLOBAL.search(data):
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                yield from node.names


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.AST]:
    """What a definition evaluates where it stands: bases and keywords, or
    defaults (a `:=` there binds in the module)."""
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *(keyword.value for keyword in node.keywords)]
    return _defaults(node.args)


def _defaults(arguments: ast.arguments) -> list[ast.AST]:
    return [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]


def bound_names(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """The names a node binds in the scope it stands in (or declares
    `global`/`nonlocal` there), each with the node binding it."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        yield node.id, node
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name, node
    elif isinstance(node, ast.alias):
        yield (node.asname or node.name).split(".")[0], node
    elif isinstance(node, ast.Global | ast.Nonlocal):
        yield from ((name, node) for name in node.names)
    elif isinstance(node, ast.arg):
        yield node.arg, node
    elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        yield node.name, node
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest, node
