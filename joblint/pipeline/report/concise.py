"""One line per finding: `path:line:col: CODE message` (editors and grep).

A line says what is wrong, as Ruff's do: the message's first sentence (what
happens and why it matters; the advice that follows is `full`'s, and every
format but this one keeps the whole message). A first sentence longer than
`MESSAGE_BUDGET` loses its details first (asides naming other places or a
chain of calls, which `full` and the related locations of JSON and SARIF
carry), then every aside, and only then is cut at a word (`…`), in the
middle where that keeps its consequence whole.

Coloured like the full view's header when the output is styled; a fixable
finding carries Ruff's `[*]` after its code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from joblint.models import Finding
from joblint.pipeline.report.full import FIXABLE, Line
from joblint.pipeline.report.output import Output
from joblint.pipeline.report.safe import terminal

# The characters of a concise message: with `:line:col: JL101 [*] ` the
# line stays within ~160 characters beyond its path, a terminal's width or
# two, and the longest first sentences (chains of calls across modules) fit
# once their details go.
MESSAGE_BUDGET = 140
ELLIPSIS = "…"
# A consequence kept whole when the middle is cut, and the characters the
# start keeps then; a longer consequence is cut at its end instead (most of
# it is worth less than the numbers and names before it).
MAX_CONSEQUENCE = 60
MIN_HEAD = 50

# A sentence ends at a period followed by a space and a capital (or a quote
# or backquote opening the next sentence's code), or at the end of the
# message. A period inside code (`obj.id`, `1.5`) has no space after it;
# "e.g." and "i.e." are followed by an example, never a new sentence.
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)\.(?= [A-Z`'\"]|$)")
# A place in the project ("views.py:12") and the phrase naming it.
_PLACE = r"[\w./\\-]+\.pyi?:\d+"
_AT_PLACE = re.compile(r" at " + _PLACE)
ARROW = " → "


def pieces(finding: Finding, unsafe: bool = False) -> Line:
    span = finding.span
    line: Line = [
        (f"{terminal(finding.path)}:{span.line}:{span.column}", "bold"),
        (": ", ""),
        (finding.code, "bold red"),
    ]
    if finding.fixable(unsafe):
        line.extend([(" ", ""), (FIXABLE, "cyan")])
    line.append((f" {terminal(brief(finding.message))}", ""))
    return line


def line(finding: Finding, unsafe: bool = False) -> str:
    return "".join(text for text, _ in pieces(finding, unsafe))


def render(findings: list[Finding], out: Output) -> None:
    if out.console is None:
        for finding in findings:
            out.stream.write(line(finding, out.unsafe_fixes) + "\n")
        return
    from rich.text import Text

    for finding in findings:
        line_pieces = pieces(finding, out.unsafe_fixes)
        styled = [(text, style) if style else text for text, style in line_pieces]
        out.console.print(Text.assemble(*styled), soft_wrap=True)


def first_sentence(message: str) -> str:
    """The message up to the end of its first sentence (without its period)."""
    end = _SENTENCE_END.search(message)
    return message[: end.start()] if end else message


def brief(message: str, budget: int = MESSAGE_BUDGET) -> str:
    """The message as a concise line shows it: its first sentence, within
    `budget` characters."""
    text = first_sentence(message)
    if len(text) <= budget:
        return text
    text = _chain_ends(_AT_PLACE.sub("", _without_asides(text, _names_a_place)))
    if len(text) <= budget:
        return text
    text = _without_asides(text, lambda aside: True)
    if len(text) <= budget:
        return text
    return _shortened(text, budget)


def _shortened(text: str, budget: int) -> str:
    """`text` cut to `budget` characters. Its consequence (the clause after
    its last colon: "a worker may run it before COMMIT") is what a reader
    acts on: a short one stays whole, and the middle is cut, where that
    leaves the start enough room to say what is wrong."""
    head, colon, consequence = text.rpartition(": ")
    room = budget - len(consequence) - len(ELLIPSIS + colon)
    if colon and len(consequence) <= MAX_CONSEQUENCE and room >= MIN_HEAD:
        return _words(head, room) + ELLIPSIS + colon + consequence
    return _words(text, budget - len(ELLIPSIS)) + ELLIPSIS


def _words(text: str, room: int) -> str:
    """The start of `text` within `room` characters, cut after a word."""
    cut = text.rfind(" ", 0, room + 1)
    return text[: cut if cut > 0 else room].rstrip(" ,:;→")


def _chain_ends(text: str) -> str:
    """A chain of three or more calls (`a() → b() → c()`) told by its ends
    (`a() → … → c()`), where the text holds one chain (its inner steps one
    word each)."""
    parts = text.split(ARROW)
    if len(parts) < 3 or any(" " in step for step in parts[1:-1]):
        return text
    return ARROW.join([parts[0], ELLIPSIS, parts[-1]])


def _names_a_place(aside: str) -> bool:
    return ARROW in aside or re.search(_PLACE, aside) is not None


def _without_asides(text: str, dropped: Callable[[str], bool]) -> str:
    """`text` without its asides (a parenthesis opened after a space, never
    a call's arguments) for which `dropped` says yes."""
    for start, end in reversed(list(_asides(text))):
        if dropped(text[start + 1 : end]):
            text = text[:start] + text[end:]
    return text


def _asides(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each outermost ` (...)` in `text`, its space included."""
    depth, start = 0, -1
    for index, char in enumerate(text):
        if char == "(":
            if depth == 0:
                start = index - 1 if index > 0 and text[index - 1] == " " else -1
            depth += 1
        elif char == ")" and depth:
            depth -= 1
            if depth == 0 and start >= 0:
                yield start, index + 1
