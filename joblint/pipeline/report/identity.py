"""A finding's identity that survives unrelated edits (baselines, GitLab fingerprints).

Line numbers are not part of it: a finding is (rule code, path, enclosing
function or class, a hash of the normalised offending code) plus an occurrence
index among findings that share all of those, in file order. Adding lines above
a finding keeps its identity; a second identical call in the same function
gets occurrence 1, so it is a new finding.

Computed from the reported span of the source text (the engine reports the
offending node's span), so reporters and the baseline need only the findings
and a way to read the files (`Output.source_lines`).
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from joblint.models import Finding

SourceLines = Callable[[str], list[str] | None]

_SKIP_TOKENS = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class Identity:
    code: str
    path: str
    context: str  # "Class.method", "function", "" at module level
    digest: str  # hash of the normalised offending code
    occurrence: int

    @property
    def fingerprint(self) -> str:
        key = "\0".join((self.code, self.path, self.context, self.digest, str(self.occurrence)))
        return hashlib.sha256(key.encode()).hexdigest()


def identities(findings: Iterable[Finding], source_lines: SourceLines) -> list[Identity]:
    """One identity per finding, in the order given."""
    findings = list(findings)
    contexts: dict[str, _Scopes] = {}
    partial: list[tuple[str, str, str, str]] = []
    for finding in findings:
        lines = source_lines(finding.path)
        if finding.path not in contexts:
            contexts[finding.path] = _Scopes(lines)
        context = contexts[finding.path].at(finding.span.line)
        partial.append((finding.code, finding.path, context, _digest(finding, lines)))
    # Occurrence indexes follow file order, whatever order the findings came in.
    order = sorted(range(len(findings)), key=lambda i: findings[i].sort_key)
    seen: dict[tuple[str, str, str, str], int] = {}
    occurrence = [0] * len(findings)
    for i in order:
        occurrence[i] = seen.get(partial[i], 0)
        seen[partial[i]] = occurrence[i] + 1
    return [Identity(*partial[i], occurrence[i]) for i in range(len(findings))]


def snippet(finding: Finding, lines: list[str] | None) -> str | None:
    """The source text of the finding's span (its whole first line if empty)."""
    span = finding.span
    if lines is None or not 1 <= span.line <= len(lines):
        return None
    last = min(span.end_line, len(lines))
    if (span.end_line, span.end_column) <= (span.line, span.column):
        return lines[span.line - 1]
    if last == span.line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    parts = [lines[span.line - 1][span.column - 1 :], *lines[span.line : last - 1]]
    tail = lines[last - 1]
    parts.append(tail[: span.end_column - 1] if last == span.end_line else tail)
    return "\n".join(parts)


def normalise(code: str) -> str:
    """Tokens joined by single spaces: whitespace, line breaks and comments don't count."""
    try:
        tokens = [
            t.string
            for t in tokenize.generate_tokens(io.StringIO(code.strip() + "\n").readline)
            if t.type not in _SKIP_TOKENS
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return " ".join(code.split())
    return " ".join(tokens)


def _digest(finding: Finding, lines: list[str] | None) -> str:
    text = snippet(finding, lines)
    if text is None:  # the file can't be read: the message, without its numbers
        text = _DIGITS.sub("#", finding.message)
    return hashlib.sha256(normalise(text).encode()).hexdigest()[:16]


class _Scopes:
    """Enclosing `def`/`class` names by line, from Python's own parser."""

    def __init__(self, lines: list[str] | None) -> None:
        self.scopes: list[tuple[int, int, str]] = []  # (first line, last line, dotted name)
        if lines is None:
            return
        try:
            tree = ast.parse("\n".join(lines))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return
        self._collect(tree, "")

    def _collect(self, node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                self.scopes.append((first, child.end_lineno or child.lineno, name))
                self._collect(child, name + ".")
            else:
                self._collect(child, prefix)

    def at(self, line: int) -> str:
        """The innermost scope holding `line` (scopes are collected outermost first)."""
        found = ""
        for first, last, name in self.scopes:
            if first <= line <= last and len(name) >= len(found):
                found = name
        return found
