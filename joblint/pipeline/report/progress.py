"""A progress bar on stderr for long runs in a terminal (never in CI, pipes or
machine-readable output, never on stdout)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

# Short runs finish before a bar would help; start it only after this long.
SHOW_AFTER_SECONDS = 1.0


# What happened to a file (the progress callback's argument).
SKIPPED = "skipped"  # by the prefilter: never parsed by LibCST
CACHED = "cached"  # its result came from the cache
CHECKED = "checked"


class FileProgress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.total = 0
        self.done = 0
        self.skipped = 0
        self.cached = 0
        self.started = time.monotonic()
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def set_total(self, total: int) -> None:
        self.total = total

    def advance(self, kind: str = CHECKED) -> None:
        self.done += 1
        self.skipped += kind == SKIPPED
        self.cached += kind == CACHED
        if not self.enabled:
            return
        if self._progress is None and time.monotonic() - self.started > SHOW_AFTER_SECONDS:
            self._start()
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=self.done, details=self.details)

    @property
    def details(self) -> str:
        return f"{self.skipped} skipped by the prefilter, {self.cached} from the cache"

    def _start(self) -> None:
        # Imported here: most runs never show a bar, and rich is slow to import.
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        console = Console(file=sys.stderr)
        self._progress = Progress(
            TextColumn("checking"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("files"),
            TimeElapsedColumn(),
            TextColumn("({task.fields[details]})"),
            console=console,
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(
            "files", total=self.total or None, details=self.details
        )

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def wanted(output_format: str, to_file: bool) -> bool:
    interactive = sys.stderr.isatty() and not os.environ.get("CI")
    return interactive and output_format in ("full", "concise") and not to_file


@contextmanager
def file_progress(enabled: bool) -> Iterator[FileProgress]:
    progress = FileProgress(enabled)
    try:
        yield progress
    finally:
        progress.stop()
