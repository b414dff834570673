"""Work budgets checked before a file reaches LibCST.

LibCST's native parser is super-linear on some shapes of code and recursive
on all of them: a left-associative chain of 4,000 `+` takes minutes, 1,000
nested subscripts seconds and hundreds of MB, and 3,000 nested parentheses
overflow an 8 MB C stack (a segfault, not an exception). A generated 20 MB
file takes many minutes even when it is flat. So before parsing, joblint
measures the text with one linear scan and refuses, with a one-line JL001
reason, a file that is:

- larger than `MAX_FILE_BYTES`;
- nested deeper than `MAX_NESTING` brackets (CPython itself refuses more
  than 200: "too many nested parentheses");
- holding much code deep in brackets: more than `MAX_DEEP_WORK` token-levels
  below `DEEP_FROM` brackets (parsing costs size x depth there);
- holding an expression with more than `MAX_CHAIN` operators, trailers
  (`.x`, `(...)`, `[...]`) or `not`/`lambda`/`if`/`else` keywords in a row
  at one bracket level (commas, `=` and statement ends start a new count).

The scan is an estimate (it doesn't fully tokenize f-strings with nested
quotes, Python 3.12+), so the limits sit far above hand-written code. It
runs token by token in Python, about as long as parsing the file with
`ast`; so a bound computed in a few passes of C first (`_clearly_within`)
settles almost every file: with strings and comments blanked as the scan
reads them, no bracket deeper than `DEEP_FROM`, and no logical line holding
more than `MAX_CHAIN` characters that could count toward a chain. Every
regular expression here is linear-time: alternatives inside a repetition
start with different characters, and unterminated strings match to the end
of their line or of the file instead of failing and being retried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate, compress, pairwise

MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_NESTING = 200
MAX_CHAIN = 1000
# LibCST re-parses what a bracket holds at each enclosing level: work grows with
# size x depth. Each token deeper than DEEP_FROM brackets costs (depth - DEEP_FROM).
DEEP_FROM = 16
MAX_DEEP_WORK = 100_000

# A string literal after its prefix, a comment and a line continuation, as
# the scan reads them.
_STRING = r"""
    (?:'''(?:[^'\\]|\\.|'(?!''))*(?:'''|\\?\Z)
    |\"\"\"(?:[^"\\]|\\.|"(?!""))*(?:\"\"\"|\\?\Z)
    |'(?:[^'\\\r\n]|\\.)*(?:'|(?=[\r\n])|\\?\Z)
    |"(?:[^"\\\r\n]|\\.)*(?:"|(?=[\r\n])|\\?\Z))
"""
_COMMENT = r"\#[^\r\n]*"
_CONTINUATION = r"\\(?:\r\n?|\n)"
_TOKEN = re.compile(
    rf"""
    (?P<string>(?i:[rbuft]{{0,2}}){_STRING})
    |(?P<comment>{_COMMENT})
    |(?P<name>[^\W\d]\w*)
    |(?P<number>\.?\d(?:[eE][-+]|[\w.])*)
    |(?P<open>[(\[{{])
    |(?P<close>[)\]}}])
    |(?P<op>\*\*=?|//=?|<<=?|>>=?|->|\.\.\.|[-+*/%@|^&~<>!=:]=?|[.,;]|\r\n?|\n)
    |(?P<other>{_CONTINUATION}|[^\S\r\n]+|.)
    """,
    re.VERBOSE | re.DOTALL,
)

# Keywords that nest the expression after them (LibCST recurses on each).
_NESTING_KEYWORDS = frozenset({"not", "await", "lambda", "if", "else", "and", "or", "in", "is"})
_NEUTRAL_OPS = frozenset({"==", "!=", "<=", ">=", "->", "...", ":"})
_RESETS = frozenset({",", ";"})
_NEWLINES = frozenset({"\n", "\r", "\r\n"})
_OPERAND_KINDS = frozenset({"name", "string", "number", "close"})

# What `_TOKEN` reads as a string, a comment or a line continuation: a quote
# or `#` outside them always starts one, so the leftmost matches are the
# scan's, whatever comes before them.
_BLANKED = re.compile(rf"{_STRING}|{_COMMENT}|{_CONTINUATION}", re.VERBOSE | re.DOTALL)
# Whole words only, as the scan's names: a keyword glued to a number is part of it.
_KEYWORD = re.compile(r"\b(?:" + "|".join(sorted(_NESTING_KEYWORDS)) + r")\b")
# Every character of an operator the scan may count is one of these; the
# keywords are replaced by `~` first.
_NOT_COUNTED = re.compile(r"[^()\[\]{}\n+\-*/%@|^&~<>!=:.]+")
_TO_STEPS = str.maketrans(
    {
        **dict.fromkeys("([{", "("),
        **dict.fromkeys(")]}", ")"),
        **dict.fromkeys("+-*/%@|^&~<>!=:.", "+"),
    }
)
_DEPTH_CHANGE = {"(": 1, ")": -1, "+": 0, "\n": 0}
_COUNTED = {"(": 1, ")": 0, "+": 1, "\n": 0}


@dataclass(frozen=True, slots=True)
class OverBudget:
    """Why a file is not analysed: a one-line message and where."""

    message: str
    line: int = 1


def check_size(size: int) -> OverBudget | None:
    if size <= MAX_FILE_BYTES:
        return None
    return OverBudget(
        f"not analysed: the file is {_megabytes(size)}, over joblint's"
        f" {_megabytes(MAX_FILE_BYTES)} limit (generated code? exclude it)"
    )


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


class _Scan:
    """Bracket depth and the operator count at each open bracket level."""

    def __init__(self) -> None:
        self.counts: list[int] = [0]
        self.previous = ""  # kind of the last significant token
        self.deep_work = 0

    def token(self, kind: str, value: str) -> str | None:
        """Feed one token; a reason when a budget is exceeded."""
        if kind == "open":
            if self.previous in _OPERAND_KINDS:
                self.counts[-1] += 1  # a trailer: call or subscript
            self.counts.append(0)
            if len(self.counts) - 1 > MAX_NESTING:
                return f"brackets nested more than {MAX_NESTING} deep (Python's own limit)"
        elif kind == "close":
            if len(self.counts) > 1:
                self.counts.pop()
        elif kind == "op":
            self._op(value)
        elif kind == "name" and value in _NESTING_KEYWORDS:
            self.counts[-1] += 1
            kind = "keyword"
        if kind not in ("comment", "other"):
            self.previous = kind
            self.deep_work += max(0, len(self.counts) - 1 - DEEP_FROM)
            if self.deep_work > MAX_DEEP_WORK:
                return f"too much code nested over {DEEP_FROM} brackets deep (too slow to parse)"
        if self.counts[-1] > MAX_CHAIN:
            return f"more than {MAX_CHAIN} operators in a row in one expression (too slow to parse)"
        return None

    def _op(self, value: str) -> None:
        if value in _NEWLINES:
            if len(self.counts) == 1:
                self.counts[0] = 0  # a logical line ends
        elif value in _RESETS or value == ":=" or (value[-1] == "=" and value not in _NEUTRAL_OPS):
            self.counts[-1] = 0  # a new element, target or assigned value
        elif value not in _NEUTRAL_OPS:
            self.counts[-1] += 1


def check_shape(text: str) -> OverBudget | None:
    """None when LibCST can be given the text."""
    return None if _clearly_within(text) else _scan_shape(text)


def _scan_shape(text: str) -> OverBudget | None:
    """One linear pass, token by token: the reason and line, if any."""
    scan = _Scan()
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        reason = scan.token(kind, match.group())
        if reason is not None:
            line = text.count("\n", 0, match.start()) + 1
            return OverBudget(f"not analysed: {reason}", line)
    return None


def _clearly_within(text: str) -> bool:
    """True only where the scan finds nothing: no bracket deeper than
    `DEEP_FROM` (so no deep work and no nesting over the limit), and no
    logical line with more than `MAX_CHAIN` characters that could count
    toward a chain (every counted operator has one, every bracket opened,
    every keyword; a count never outlives its logical line). False says
    nothing: the scan decides, as it does where a bracket closes more than
    were opened (the scan's depth stops at zero there)."""
    code = _BLANKED.sub(" ", text).replace("\r\n", "\n").replace("\r", "\n")
    steps = _NOT_COUNTED.sub("", _KEYWORD.sub("~", code)).translate(_TO_STEPS)
    if not steps:
        return True
    depths = list(accumulate(map(_DEPTH_CHANGE.__getitem__, steps)))
    if min(depths) < 0 or max(depths) > DEEP_FROM:
        return False
    counted = list(accumulate(map(_COUNTED.__getitem__, steps)))
    at_line_ends = [s == "\n" and d == 0 for s, d in zip(steps, depths, strict=True)]
    ends = [0, *compress(counted, at_line_ends), counted[-1]]
    return max(end - start for start, end in pairwise(ends)) <= MAX_CHAIN
