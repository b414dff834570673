"""A run's file as the passes share it (`Source`: its path as shown, its
bytes read once, when first needed, its content digest, module name and
screening), and how paths are shown (relative to the current directory
when below it)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from joblint.pipeline.discover import module_name
from joblint.pipeline.manifest import Manifest
from joblint.pipeline.screen.verdicts import Screening, digest
from joblint.settings import ModuleInfo


def display_path(path: Path, cwd: Path | None = None) -> str:
    """Relative to the current directory when below it, else as given."""
    here = cwd or Path.cwd()
    absolute = path.absolute()
    try:
        return absolute.relative_to(here).as_posix()
    except ValueError:
        return path.as_posix()


def read_file(path: Path) -> bytes | str:
    """The file's bytes, or a one-line reason it can't be read (unbuffered:
    the file is read whole, and a buffer in between costs a copy and half
    the time of a small file's read)."""
    try:
        with open(path, "rb", buffering=0) as stream:
            return stream.readall()
    except FileNotFoundError:
        return "file disappeared before it could be read"
    except IsADirectoryError:
        return "is a directory"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"


@dataclass(slots=True)
class Source:
    """One file of the run: read once, when its bytes are first needed."""

    path: Path
    shown: str
    # None: not read yet (its digest came from the manifest); read when asked.
    _data: bytes | None
    _module: ModuleInfo | None = None
    _key: str = ""
    screening: Screening | None = None
    # Its size in bytes, from `stat` when it isn't read yet (the progress bar's weight).
    _size: int = -1

    @property
    def data(self) -> bytes:
        if self._data is None:
            read = read_file(self.path)
            self._data = read if isinstance(read, bytes) else b""  # gone since: nothing
            if digest(self._data) != self._key:  # changed within a timestamp tick
                self._key, self.screening = "", None
        return self._data

    @property
    def read_lazily(self) -> bool:
        """Not read yet: the manifest gave its digest."""
        return self._data is None

    @property
    def size(self) -> int:
        return len(self.data) if self._size < 0 or self._data is not None else self._size

    @property
    def key(self) -> str:
        """The content digest."""
        if not self._key:
            self._key = digest(self.data)
        return self._key

    @property
    def module(self) -> ModuleInfo:
        if self._module is None:
            name, is_package = module_name(self.path)
            self._module = ModuleInfo(name, is_package)
        return self._module


def source_of(path: Path, shown: str, manifest: Manifest) -> Source | str:
    """The file, or a one-line reason it can't be read. One the manifest
    knows unchanged is read only when its bytes are needed: a run replayed
    from the memo reads none (a file made unreadable since has a new change
    time, so it is read, and reported)."""
    try:
        stat: os.stat_result | None = os.stat(path)
    except OSError:
        stat = None
    if stat is not None:
        known = manifest.digest(path, stat)
        if known is not None:
            return Source(path, shown, None, _key=known, _size=stat.st_size)
    data = read_file(path)
    if isinstance(data, str):
        return data
    source = Source(path, shown, data)
    if stat is not None:
        manifest.remember(path, stat, source.key)
    return source


class DisplayPaths:
    """`display_path` for many paths: the current directory looked up once."""

    def __init__(self) -> None:
        self.cwd = os.getcwd()
        self.below = os.path.join(self.cwd, "")

    def __call__(self, path: Path) -> str:
        text = str(path)
        if not os.path.isabs(text):
            return path.as_posix()  # below the current directory already
        if text.startswith(self.below) and os.sep == "/" and "/." not in text:
            return text[len(self.below) :]  # what `relative_to` gives, without parsing
        return display_path(path, Path(self.cwd))
