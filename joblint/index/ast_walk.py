"""Python's own `ast`, as the screen's confirm steps read it: parsed without the
warnings it prints about the user's code, walked scope by scope (a walk of a
function's own nodes doesn't enter the functions, classes and lambdas inside it),
pruned to the lines naming a word (`WordLines`), or parsed a few top-level
statements at a time (`ModuleParts`). The rule families' confirm steps share it.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from collections.abc import Iterable, Iterator
from itertools import accumulate

from joblint.index.nodes import child_nodes


def quiet_ast_parse(source: str | bytes) -> ast.Module:
    """`ast.parse` without the SyntaxWarnings it prints about the user's code."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source)


# What a walk of a scope's own nodes does not enter.
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def body_nodes(node: ast.AST, scopes: tuple[type[ast.AST], ...] = SCOPES) -> Iterator[ast.AST]:
    """The nodes under `node`, not entering nested functions, classes or
    lambdas (or whatever else `scopes` names)."""
    stack = child_nodes(node)
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, scopes):
            stack.extend(child_nodes(child))


class WordLines:
    """The lines that may hold a call of `word` (`sleep`, `on_commit`): those
    naming it or a name it is imported as. A check looking at such calls (and
    the loops around them) enters only nodes spanning one of these lines."""

    def __init__(self, lowered: bytes, word: bytes) -> None:
        alias = re.compile(rb"\b" + re.escape(word) + rb"\s+as\s+(\w+)")
        words = {word, *alias.findall(lowered)}
        self.words = frozenset(w.decode() for w in words)
        self.numbers = [
            number
            for number, line in enumerate(lowered.splitlines(), start=1)
            if any(word in line for word in words)
        ]

    def may_hold(self, node: ast.AST) -> bool:
        start = getattr(node, "lineno", None)
        end = getattr(node, "end_lineno", None)
        if start is None or end is None:
            return True  # no position (arguments, comprehensions): look inside
        index = bisect.bisect_left(self.numbers, start)
        return index < len(self.numbers) and self.numbers[index] <= end


# A line starting a top-level definition, where a module splits into parts that
# parse on their own (a decorator's line starts the definition it decorates).
_PART_START = re.compile(rb"^(?:    )?(?:@|(?:async[ \t]+)?def[ \t])|^class[ \t(:]", re.MULTILINE)
# A line starting at column 0 that is neither blank nor a comment.
_CODE_AT_COLUMN_0 = re.compile(rb"\n[^ \t\r\n#]")


class ModuleParts:
    """A module's source cut before each top-level definition, and a
    top-level class's before each of its methods (at four spaces), each part
    parsed with `ast` only when a check asks for it, at its own lines (so a
    node's line is the file's; a method in a class of its own, `class _:`,
    which no check tells from the real one: a class is no loop and no
    function). A cut inside a string or brackets makes a part that doesn't
    parse: `SyntaxError`, and the caller parses the whole."""

    def __init__(self, data: bytes, lowered: bytes) -> None:
        self.data = data
        self.lowered = lowered
        starts = [0]
        methods: set[int] = set()  # the parts that are a class's methods
        in_class = False
        read = 0  # where the class's lines have been read up to
        for match in _PART_START.finditer(lowered):
            start = match.start()
            indented = lowered.startswith(b" ", start)
            previous = lowered.rfind(b"\n", 0, start - 1) + 1 if start else 0
            decorated = lowered.startswith(b"    @" if indented else b"@", previous)
            if not indented:
                in_class = lowered.startswith(b"class", start)
            elif in_class and _CODE_AT_COLUMN_0.search(lowered, read, start):
                in_class = False  # the class has ended (or a string holds the line)
            read = start
            if not start or decorated or (indented and not in_class):
                continue
            if indented:
                methods.add(len(starts))
            starts.append(start)
        self.spans = list(zip(starts, [*starts[1:], len(data)], strict=True))
        self.methods = methods
        lines = accumulate(data.count(b"\n", start, end) for start, end in self.spans)
        self.first_lines = [1, *(count + 1 for count in lines)][: len(self.spans)]
        self._bodies: dict[int, list[ast.stmt]] = {}

    def having(self, words: Iterable[bytes]) -> set[int]:
        """The parts whose (lower-cased) text holds one of `words`."""
        found = list(words)
        return {
            index
            for index, (start, end) in enumerate(self.spans)
            if any(self.lowered.find(word, start, end) != -1 for word in found)
        }

    def naming(self, names: Iterable[str]) -> set[int]:
        """The parts whose text holds one of `names` as a word."""
        return self._matching(names, rb"\b")

    def assigning(self, names: Iterable[str]) -> set[int]:
        """The parts that may assign one of `names` (`x = `, `self.x: T = `,
        `(x) = `, `a = x = `): the name, then a `=` or `:` after nothing but
        blanks, closing parentheses and line continuations. More than
        assignments (`f(x=1)`, `{x: 1}`), never fewer."""
        return self._matching(names, rb"(?:[\s)\\])*[:=]")

    def _matching(self, names: Iterable[str], after: bytes) -> set[int]:
        words = sorted({name.lower().encode() for name in names})
        if not words:
            return set()
        pattern = re.compile(rb"\b(?:" + b"|".join(map(re.escape, words)) + rb")" + after)
        return {
            index
            for index, (start, end) in enumerate(self.spans)
            if pattern.search(self.lowered, start, end) is not None
        }

    def tree(self, chosen: Iterable[int]) -> ast.Module:
        """The chosen parts' statements, parsed (once each), at their own lines."""
        body: list[ast.stmt] = []
        for index in sorted(chosen):
            if index not in self._bodies:
                start, end = self.spans[index]
                line = self.first_lines[index]
                # A method's part opens its class on the line before its own.
                head = b"\n" * (line - 2) + b"class _:\n" if index in self.methods else b""
                padding = head or b"\n" * (line - 1)
                self._bodies[index] = quiet_ast_parse(padding + self.data[start:end]).body
            body.extend(self._bodies[index])
        return ast.Module(body=body, type_ignores=[])
