"""A progress display on stderr for long runs in a terminal (never in CI,
pipes, machine-readable output or `--quiet`, never on stdout).

A run is three stages, each labelled: checking the files (a bar of the work
done and left, and the files counted), then the project model (the rest of
the project read where a finding depends on it), then the whole-project
rules (pending findings settled, the settings-wide rules). The last two have
no count to show: the bar pulses under their label.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

# Short runs finish before a bar would help; start it only after this long.
SHOW_AFTER_SECONDS = 1.0


# What happened to a file (the progress callback's argument).
SKIPPED = "skipped"  # by the prefilter: never parsed by LibCST
CACHED = "cached"  # its result came from the cache
CHECKED = "checked"

# The stages of a run (the stage callback's argument), as the display labels them.
CHECKING_FILES = "checking files"
PROJECT_MODEL = "project model"
PROJECT_RULES = "whole-project rules"


# What screening a file costs beside parsing it with LibCST and running the
# rules, per byte (saleor, 4,300 files: ~1 ms to screen a file, ~30-60 ms to
# lint one of ~17 KB). A skipped or cached file's work is this share of its bytes.
SCREEN_SHARE = 0.03


class FileProgress:
    """Files counted by what happened to them; the bar shows the work done
    and left, in bytes to parse, so its rate is honest where most files are
    skipped in the first second and a few big ones take the rest."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.total = 0
        self.done = 0
        self.skipped = 0
        self.cached = 0
        # The work: every file's bytes until it is known not to be parsed.
        self.work_total = 0.0
        self.work_done = 0.0
        self.started = time.monotonic()
        self.stage = CHECKING_FILES
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def set_total(self, total: int, size: int = 0) -> None:
        """`total` files of `size` bytes in all."""
        self.total = total
        self.work_total = float(size)

    def advance(self, kind: str = CHECKED, size: int = 0) -> None:
        """A file of `size` bytes was skipped, came from the cache or was checked."""
        self.done += 1
        self.skipped += kind == SKIPPED
        self.cached += kind == CACHED
        if kind == CHECKED:
            self.work_done += size
        else:  # screened only: the rest of its work never comes
            self.work_done += size * SCREEN_SHARE
            self.work_total -= size * (1 - SCREEN_SHARE)
        self._show()

    def set_stage(self, stage: str) -> None:
        """The run moved on to `stage` (`PROJECT_MODEL`, `PROJECT_RULES`)."""
        moved, self.stage = stage != self.stage, stage
        self._show()
        if moved and self._progress is not None:
            self._progress.refresh()  # the new label at once, not at the next tick

    def _show(self) -> None:
        if not self.enabled:
            return
        if self._progress is None and time.monotonic() - self.started > SHOW_AFTER_SECONDS:
            self._start()
        if self._progress is not None and self._task is not None:
            counting = self.stage == CHECKING_FILES
            self._progress.update(
                self._task,
                description=self.stage,
                # No total: rich pulses the bar (a stage with nothing to count).
                completed=self.work_done if counting else 0,
                total=(self.work_total or None) if counting else None,
                files=self.files if counting else f"{self.done} files checked",
                details=self.details,
            )

    @property
    def files(self) -> str:
        return f"{self.done}/{self.total} files"

    @property
    def details(self) -> str:
        return f"{self.skipped} skipped by the prefilter, {self.cached} from the cache"

    def _start(self) -> None:
        # Imported here: most runs never show a bar, and rich is slow to import.
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        console = Console(file=sys.stderr)
        self._progress = Progress(
            TextColumn("{task.description:<19}"),
            BarColumn(),
            TextColumn("{task.fields[files]}"),
            TimeElapsedColumn(),
            TextColumn("({task.fields[details]})"),
            console=console,
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(self.stage, files=self.files, details=self.details)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def wanted(output_format: str, to_file: bool, stream: TextIO | None = None) -> bool:
    """Whether a person watches `stream` (stderr): a terminal, outside CI,
    while a format for people is written to the terminal."""
    isatty = getattr(stream or sys.stderr, "isatty", None)
    try:
        interactive = bool(isatty is not None and isatty()) and not os.environ.get("CI")
    except ValueError:  # a closed stream
        return False
    return interactive and output_format in ("full", "concise") and not to_file


@contextmanager
def file_progress(enabled: bool) -> Iterator[FileProgress]:
    progress = FileProgress(enabled)
    try:
        yield progress
    finally:
        progress.stop()
