"""Text from analysed files made safe to print.

File names and source lines are the analysed project's bytes: a name or a
line can hold ANSI escape sequences, bidi overrides or undecodable bytes.

- `text`: undecodable bytes in a path (Python's surrogate escapes) become
  `\\xNN`, so any encoder (UTF-8 JSON, XML) accepts the string;
- `terminal`: also control characters (C0, DEL, C1) and bidirectional-text
  controls become visible escapes (`\\x1b`, `\\u202e`), so nothing from the
  analysed file can move the cursor, recolour, retitle or reorder the terminal.
"""

from __future__ import annotations

import re
from dataclasses import replace

from joblint.models import Finding

# C0 controls, DEL, C1 controls, and the Unicode bidi embedding/override/isolate marks.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
# The same but CR and LF, for formats that encode line ends themselves.
_UNSAFE_INLINE = re.compile(f"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_END = re.compile(r"\r\n|\r|\n")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _surrogate(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as os.fsdecode() keeps it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def source_lines(source: str) -> list[str]:
    """Lines as Python numbers them: only CR LF, CR and LF end a line (not the
    form feeds, U+2028 and the like that `str.splitlines` also splits on)."""
    lines = _LINE_END.split(source)
    return lines[:-1] if lines and lines[-1] == "" else lines


def text(value: str) -> str:
    """`value` with lone surrogates (undecodable path bytes) as `\\xNN` escapes."""
    return _SURROGATE.sub(_surrogate, value)


def terminal(value: str) -> str:
    """`text(value)` with control and bidi characters shown as escapes."""
    return _UNSAFE.sub(_escape, text(value))


def terminal_keeping_line_ends(value: str) -> str:
    """`terminal(value)`, but CR and LF left for the format to encode (GitHub's
    workflow commands percent-encode them: a message may span lines)."""
    return _UNSAFE_INLINE.sub(_escape, text(value))


def displayable(findings: list[Finding]) -> tuple[list[Finding], dict[str, str]]:
    """Findings with `text` applied to path, message and help (so any format can
    encode them), and each changed path's original, to read its source lines."""
    shown: list[Finding] = []
    originals: dict[str, str] = {}
    for finding in findings:
        path = text(finding.path)
        if path != finding.path:
            originals[path] = finding.path
        shown.append(
            replace(finding, path=path, message=text(finding.message), help=text(finding.help))
        )
    return shown, originals
