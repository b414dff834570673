"""Showing long text through a pager, as git and Ruff do.

The pager is `$PAGER`, else `less -R` (`-R`: let the colours through); `LESS`
defaults to `FRX` as git sets it: quit when the text fits, keep the screen,
colours. `PAGER=` (empty) or `cat` prints the text. A pager that can't be
started prints the text too: paging is a convenience, never a failure.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

DEFAULT_PAGER = "less -R"


def longer_than_terminal(text: str) -> bool:
    return text.count("\n") >= shutil.get_terminal_size().lines


def pager_command() -> list[str] | None:
    """The pager's argv, or None for none (`PAGER` empty or `cat`)."""
    configured = os.environ.get("PAGER")
    command = DEFAULT_PAGER if configured is None else configured
    try:
        argv = shlex.split(command)
    except ValueError:  # an unbalanced quote: no pager rather than an error
        return None
    if not argv or argv[0] == "cat":
        return None
    return argv


def page(text: str) -> None:
    argv = pager_command()
    if argv is None:
        sys.stdout.write(text)
        return
    environment = dict(os.environ)
    environment.setdefault("LESS", "FRX")
    sys.stdout.flush()
    try:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, env=environment)
    except OSError:
        sys.stdout.write(text)
        return
    try:
        assert process.stdin is not None
        process.stdin.write(text.encode(sys.stdout.encoding or "utf-8", "replace"))
        process.stdin.close()
    except BrokenPipeError:  # the reader quit before the end: that is fine
        pass
    process.wait()
