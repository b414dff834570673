"""Applying fixes: edits to text, and the fix loop.

A fix is a set of non-overlapping edits (`joblint.models.Fix`) on the decoded
text; everything outside them is kept byte for byte (comments, formatting,
line endings, encoding). The loop applies every applicable fix that does not
overlap another, re-lints and repeats until nothing applies, at most
`MAX_ROUNDS` times.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from joblint.models import Edit, Finding, Fix, Span
from joblint.pipeline.source import SourceError, decode, parse

MAX_ROUNDS = 10
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")

# Re-lint a file's new bytes: its findings, settled with the rest of the project.
Relint = Callable[[bytes], list[Finding]]


class FixError(Exception):
    """The fixes did not settle, or produced code that does not parse."""


def applicable(finding: Finding, unsafe: bool) -> bool:
    return finding.fixable(unsafe)


def _line_starts(text: str) -> list[int]:
    """Offsets of each line's first character (LibCST's lines: \\n, \\r\\n or \\r)."""
    starts = [0]
    for match in _LINE.finditer(text):
        if match.end() == match.start():
            break
        starts.append(match.end())
    return starts


def _offset(starts: list[int], text: str, line: int, column: int) -> int:
    if line - 1 >= len(starts):
        return len(text)  # the line after the last one
    return min(starts[line - 1] + column - 1, len(text))


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with the (non-overlapping) `edits` applied."""
    starts = _line_starts(text)
    pieces: list[str] = []
    position = 0
    for edit in sorted(set(edits), key=lambda e: e.span):
        start = _offset(starts, text, edit.span.line, edit.span.column)
        end = _offset(starts, text, edit.span.end_line, edit.span.end_column)
        if start < position:
            raise ValueError(f"overlapping edit at {edit.span.line}:{edit.span.column}")
        content = edit.content
        if start == len(text) and text and not text.endswith(("\n", "\r")):
            content = "\n" + content  # an insertion after a last line without newline
        pieces.extend((text[position:start], content))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _overlaps(a: Span, b: Span) -> bool:
    a_start, a_end = (a.line, a.column), (a.end_line, a.end_column)
    b_start, b_end = (b.line, b.column), (b.end_line, b.end_column)
    if a == b:
        return True
    return a_start < b_end and b_start < a_end


def compatible(fixes: Sequence[Fix]) -> list[Fix]:
    """The fixes that can be applied together: in order, skipping any whose
    edits overlap an earlier one's (identical edits, e.g. the same import, are
    applied once)."""
    taken: list[Edit] = []
    chosen: list[Fix] = []
    for fix in fixes:
        new = [e for e in fix.edits if e not in taken]
        if any(_overlaps(e.span, t.span) for e in new for t in taken):
            continue
        taken.extend(new)
        chosen.append(fix)
    return chosen


@dataclass(slots=True)
class FixedFile:
    """The outcome of the fix loop for one file."""

    path: str
    original: bytes
    data: bytes
    fixed: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.data != self.original


def encoding_of(data: bytes) -> str:
    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:
        return "utf-8"


def fix_file(
    path: str, data: bytes, findings: list[Finding], relint: Relint, unsafe: bool
) -> FixedFile:
    """Apply fixes to `data` until none applies; `findings` are its current ones."""
    outcome = FixedFile(path, data, data, remaining=list(findings))
    if not any(applicable(f, unsafe) for f in findings):
        return outcome
    encoding = encoding_of(data)
    text = decode(data)
    for _ in range(MAX_ROUNDS):
        todo = [f for f in outcome.remaining if applicable(f, unsafe)]
        chosen = compatible([f.fix for f in todo if f.fix is not None])
        new_text = apply_edits(text, (e for fix in chosen for e in fix.edits))
        if not todo or new_text == text:
            return _drop_released_imports(outcome, text, encoding, relint)
        applied = [f for f in todo if any(f.fix is c for c in chosen)]
        _check_parses(path, new_text, applied)
        text = new_text
        outcome.data = text.encode(encoding)
        outcome.fixed.extend(applied)
        outcome.remaining = relint(outcome.data)
    rules = sorted({f.code for f in outcome.remaining if applicable(f, unsafe)})
    if not rules:
        return _drop_released_imports(outcome, text, encoding, relint)
    raise FixError(
        f"{path}: fixes did not settle after {MAX_ROUNDS} rounds (rules: {', '.join(rules)});"
        " please report this"
    )


def _drop_released_imports(
    outcome: FixedFile, text: str, encoding: str, relint: Relint
) -> FixedFile:
    """Remove the imports the applied fixes released (`Fix.releases`) that
    nothing reads any more, once every fix is in: LibCST's RemoveImportsVisitor
    decides by the module's scopes (a name still used, or listed in `__all__`,
    stays)."""
    releases = sorted({r for f in outcome.fixed if f.fix is not None for r in f.fix.releases})
    if not releases:
        return outcome
    # Imported here: codemod and the scope analysis only serve `--fix` runs.
    import libcst as cst
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import RemoveImportsVisitor

    wrapper = cst.MetadataWrapper(parse(text))
    context = CodemodContext(wrapper=wrapper)
    for module, name, alias in releases:
        RemoveImportsVisitor.remove_unused_import(context, module, name, alias or None)
    new_text = wrapper.visit(RemoveImportsVisitor(context)).code
    if new_text != text:
        _check_parses(outcome.path, new_text, outcome.fixed)
        outcome.data = new_text.encode(encoding)
        outcome.remaining = relint(outcome.data)
    return outcome


def _check_parses(path: str, text: str, applied: list[Finding]) -> None:
    try:
        parse(text)
    except SourceError as exc:
        rules = ", ".join(sorted({f.code for f in applied}))
        raise FixError(
            f"{path}: fixes by {rules} produced code that does not parse ({exc});"
            " please report this"
        ) from None
