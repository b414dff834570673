"""Where a report goes: the stream, a rich console when output is styled, and
the source lines a format quotes."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console

SourceLines = Callable[[str], list[str] | None]
# Variables that make rich style output that isn't a terminal (or not style a
# terminal): where one is set, rich decides, as it always has.
_RICH_ENVIRONMENT = ("FORCE_COLOR", "TTY_COMPATIBLE")


@dataclass(slots=True)
class Output:
    stream: TextIO
    # A rich console writing to `stream` when the output is styled (colour to
    # a terminal, --color always); None: plain text, written without rich
    # (importing it is a good part of a cached run's start-up).
    console: Console | None
    source_lines: SourceLines
    # Whether `--fix` applies unsafe fixes in this run: a finding is marked
    # fixable (`[*]`, as in Ruff) when its fix would be applied.
    unsafe_fixes: bool = False


def styled(stream: TextIO, color: str) -> bool:
    """Whether `color` ("auto", "always", "never") may style output to `stream`:
    rich's own test, except that where its environment variables are set the
    answer is yes and rich itself decides."""
    if color != "auto":
        return color == "always"
    if any(name in os.environ for name in _RICH_ENVIRONMENT):
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


def rich_console(stream: TextIO, color: str) -> Console:
    from rich.console import Console

    if color == "always":
        return Console(file=stream, force_terminal=True, highlight=False, soft_wrap=True)
    if color == "never":
        return Console(
            file=stream, no_color=True, highlight=False, soft_wrap=True, force_terminal=False
        )
    return Console(file=stream, highlight=False, soft_wrap=True)


def console_for(stream: TextIO, color: str) -> Console | None:
    """The console for `Output`: rich's where output may be styled, else None."""
    return rich_console(stream, color) if styled(stream, color) else None
