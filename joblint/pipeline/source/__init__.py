"""A file's bytes before LibCST: decoding, Python's own syntax check, JL001.

Everything here but `parse` is cheap and imports no LibCST: the prefilter's screening and
the syntax check of skipped files run in runs that never parse with LibCST
(a warm run with one file touched), and the CLI's start-up must not pay for it.
"""

from __future__ import annotations

import io
import os
import re
import symtable
import sys
import threading
import tokenize
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from joblint.index.ast_walk import quiet_ast_parse
from joblint.models import FileResult, Finding, Span
from joblint.pipeline.source import budget
from joblint.registry import BUILTIN_CODES
from joblint.settings import LintSettings

if TYPE_CHECKING:
    import libcst as cst

UNPARSEABLE = "JL001"
UNPARSEABLE_HELP = (
    "Make the file valid Python the running interpreter parses, or exclude it (extend-exclude)"
)
_CODING_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+", re.MULTILINE)


class SourceError(Exception):
    """The file can't be decoded or parsed; message is one line."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def decode(data: bytes) -> str:
    """Decode with PEP 263 (coding cookie, BOM, UTF-8 default)."""
    if b"\x00" in data:
        raise SourceError("file contains NUL bytes (binary file?)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if _CODING_COOKIE.search(b"\n".join(data.splitlines()[:2])):
            raise SourceError(f"bad encoding declaration: {exc.msg}") from None
        encoding = "utf-8"  # no cookie: undecodable UTF-8, reported below
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SourceError(
            f"cannot decode as {encoding}: invalid byte 0x{data[exc.start]:02x}"
            " (add a PEP 263 coding comment or save the file as UTF-8)",
            line,
        ) from None
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r}") from None


def checked_text(data: bytes) -> str:
    """The decoded text, if it is within joblint's budgets (`joblint.pipeline.source.budget`)."""
    over = budget.check_size(len(data))
    text = decode(data) if over is None else ""
    over = over or budget.check_shape(text)
    if over is not None:
        raise SourceError(over.message, over.line)
    return text


def unparseable_result(path: str, settings: LintSettings, exc: SourceError) -> FileResult:
    findings: tuple[Finding, ...] = ()
    if UNPARSEABLE in settings.codes:
        span = Span(exc.line, exc.column, exc.line, exc.column)
        name = BUILTIN_CODES[UNPARSEABLE]
        findings = (Finding(UNPARSEABLE, name, str(exc), path, span, UNPARSEABLE_HELP),)
    return FileResult(path, findings, parsed=False)


def syntax_check(path: str, data: bytes, settings: LintSettings) -> FileResult:
    """For files the prefilter skips: only whether they can be read and parsed
    (JL001), with Python's own parser, many times cheaper than LibCST's."""
    if _python_parses(data):
        return FileResult(path)
    return _why_unparseable(path, data, settings)


def _why_unparseable(path: str, data: bytes, settings: LintSettings) -> FileResult:
    """The syntax check by `ast.parse`, which says why a file doesn't parse.
    (The shape budgets guard LibCST; Python's parser refuses deep nesting itself.)"""
    try:
        over = budget.check_size(len(data))
        if over is not None:
            raise SourceError(over.message, over.line)
        quiet_ast_parse(decode(data))
    except SourceError as exc:
        return unparseable_result(path, settings, exc)
    except SyntaxError as exc:
        if _libcst_parses(data):
            return FileResult(path)  # newer syntax than this Python's (`type X = ...`)
        error = SourceError(f"syntax error: {exc.msg}", exc.lineno or 1, max(1, exc.offset or 1))
        return unparseable_result(path, settings, error)
    except (RecursionError, MemoryError, ValueError):
        return unparseable_result(path, settings, SourceError("too deeply nested to parse"))
    return FileResult(path)


def _python_parses(data: bytes) -> bool:
    """True if Python certainly parses the file, checked by building its
    symbol table: the same parser as `ast.parse` without turning the tree
    into Python objects (about a third of its cost). False means "ask `ast.parse`",
    which tells why (symbol-table errors such as a misplaced `nonlocal` are
    not syntax errors to joblint, as LibCST parses those files)."""
    if budget.check_size(len(data)) is not None:
        return False
    try:
        # Plain ASCII goes to the parser as bytes: a tenth cheaper than
        # decoding it here for the parser to encode it again.
        source = data if _plain_ascii(data) else decode(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            symtable.symtable(source, "<joblint>", "exec")  # type: ignore[arg-type]
    except Exception:  # SyntaxError, SourceError, RecursionError, ...: the slow path decides
        return False
    return True


def _plain_ascii(data: bytes) -> bool:
    """ASCII with no coding cookie: `decode` and Python's parser read it
    alike (both refuse NUL bytes)."""
    if not data.isascii():
        return False  # the parser lets invalid UTF-8 in a comment through
    head = data[: data.find(b"\n", data.find(b"\n") + 1) + 1 or len(data)]
    return b"coding" not in head


def parse(text: str) -> cst.Module:
    """The file's LibCST tree; a one-line `SourceError` when it has none."""
    import libcst as cst  # here: screening and warm runs never parse with LibCST

    from joblint.pipeline.source.parts import parse_in_parts

    try:
        with _unvalidated_nodes():
            joined = parse_in_parts(text)
            return joined if joined is not None else cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise _syntax_error(text, exc) from None
    except RecursionError:
        raise SourceError("too deeply nested to parse") from None
    except Exception as exc:  # the parser's own failures: one line, never a traceback
        raise SourceError(f"cannot parse: {type(exc).__name__}: {exc}") from None


# One parse at a time skips validation: the switch is the class's, not the thread's.
_UNVALIDATED = threading.Lock()
# While a parse has it switched off: LibCST's node class and its own `__post_init__`.
_switched_off: tuple[Any, Any] | None = None


@contextmanager
def _unvalidated_nodes() -> Iterator[None]:
    """LibCST checks every node it builds (`CSTNode.__post_init__` calls
    `_validate`), those its parser builds from source too, which are valid by
    construction (LibCST's own comment there says so): an eighth of a parse.
    Nodes built elsewhere meanwhile (a fix's) go unchecked, never changed."""
    global _switched_off
    from libcst._nodes.base import CSTNode

    with _UNVALIDATED:
        validating = CSTNode.__dict__.get("__post_init__")
        if validating is None:  # a LibCST that validates elsewhere: nothing to switch
            yield
            return
        _switched_off = (CSTNode, validating)
        CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign,assignment]
        try:
            yield
        finally:
            _switch_on()


def _switch_on() -> None:
    global _switched_off
    if _switched_off is not None:
        node_class, validating = _switched_off
        node_class.__post_init__ = validating
        _switched_off = None


def _unchecked(node: object) -> None:
    return None


def _after_fork_in_child() -> None:
    """A child forked while a parse had validation off (a worker pool started
    by a long-lived process) gets it back on, and the switch's lock free."""
    global _UNVALIDATED
    _UNVALIDATED = threading.Lock()
    _switch_on()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _syntax_error(text: str, exc: cst.ParserSyntaxError) -> SourceError:
    """Python's own message and position where it has one: LibCST's are less precise."""
    try:
        quiet_ast_parse(text)
    except SyntaxError as syntax:
        return SourceError(
            f"syntax error: {syntax.msg}", syntax.lineno or 1, max(1, syntax.offset or 1)
        )
    except (ValueError, RecursionError, MemoryError):
        pass
    reason = exc.message.removeprefix("parser error: ")
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    return SourceError(
        f"LibCST cannot parse this file (Python {python} can): {reason}",
        exc.raw_line,
        exc.raw_column + 1,
    )


def _libcst_parses(data: bytes) -> bool:
    """LibCST parses grammars newer than the running Python's: a file joblint
    would lint fine is not JL001 because it was skipped. (Rare: LibCST is
    imported only here.)"""
    from joblint.pipeline.source import deep

    try:
        text = checked_text(data)
        deep.call(lambda: parse(text))
    except (SourceError, RecursionError, MemoryError):
        return False
    return True
