"""Where a call comes from: the project's code, its tests, or a library.

A frame is the project's when its file is under the rootdir and not in an
installed package (a virtual environment inside the project included). Among
the project's files, the test modules (pytest's ``python_files`` patterns,
``conftest.py``, and every file under a ``tests`` folder) are the tests; the
rest is the code under test.
"""

from __future__ import annotations

import fnmatch
import os
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType

_HERE = str(Path(__file__).resolve().parent)
_TEST_FOLDERS = frozenset({"tests", "test", "testing"})


@dataclass(frozen=True)
class Place:
    """A location in a file, as joblint reports one (1-based columns)."""

    path: str
    line: int
    column: int = 1
    end_line: int = 0
    end_column: int = 0
    function: str = ""


def _installed_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(key, "") for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots.update(path for path in sys.path if path.endswith(("site-packages", "dist-packages")))
    return tuple(sorted(os.path.realpath(root) for root in roots if root))


class Places:
    """Tells the project's frames from the libraries', and its tests from its code."""

    def __init__(self, rootdir: Path, test_patterns: tuple[str, ...]) -> None:
        self.rootdir = os.path.realpath(rootdir)
        self._test_patterns = (*test_patterns, "conftest.py")
        self._installed = _installed_roots()
        self._verdicts: dict[str, str] = {}

    def kind(self, filename: str) -> str:
        """'code', 'test' or 'library' for a frame's file name."""
        verdict = self._verdicts.get(filename)
        if verdict is None:
            verdict = self._kind(filename)
            self._verdicts[filename] = verdict
        return verdict

    def _kind(self, filename: str) -> str:
        if filename.startswith("<"):
            return "library"
        real = os.path.realpath(filename)
        if real.startswith(_HERE) or not real.startswith(self.rootdir + os.sep):
            return "library"
        if any(real.startswith(root + os.sep) for root in self._installed if root):
            return "library"
        if os.sep + "site-packages" + os.sep in real or os.sep + "dist-packages" + os.sep in real:
            return "library"
        name = os.path.basename(real)
        if any(fnmatch.fnmatch(name, pattern) for pattern in self._test_patterns):
            return "test"
        # Factories, fixtures and helpers beside the tests are test code too.
        folders = os.path.relpath(os.path.dirname(real), self.rootdir).split(os.sep)
        if any(folder in _TEST_FOLDERS for folder in folders):
            return "test"
        return "code"

    def relative(self, filename: str) -> str:
        """A project file relative to the rootdir; an installed one as its
        import path shows it (``django/db/models/query.py``)."""
        real = os.path.realpath(filename)
        if self.kind(filename) != "library" or (
            real.startswith(self.rootdir + os.sep)
            and not any(real.startswith(root + os.sep) for root in self._installed)
        ):
            return Path(os.path.relpath(real, self.rootdir)).as_posix()
        roots = [os.path.realpath(p) for p in sys.path if p] + list(self._installed)
        inside = [root for root in roots if real.startswith(root + os.sep)]
        if inside:
            return Path(os.path.relpath(real, max(inside, key=len))).as_posix()
        return Path(real).as_posix()

    def place(self, frame: FrameType) -> Place:
        line, column, end_line, end_column = _position(frame)
        return Place(
            self.relative(frame.f_code.co_filename),
            line,
            column,
            end_line,
            end_column,
            frame.f_code.co_name,
        )

    def definition(self, code: CodeType) -> Place:
        return Place(self.relative(code.co_filename), code.co_firstlineno, 1, 0, 0, code.co_name)

    def first_project_frame(self, frame: FrameType | None) -> FrameType | None:
        """The innermost frame of the project's own files (code or tests), outward from `frame`."""
        while frame is not None and self.kind(frame.f_code.co_filename) == "library":
            frame = frame.f_back
        return frame


def _position(frame: FrameType) -> tuple[int, int, int, int]:
    """The line and columns of the instruction the frame is at (the call)."""
    line = frame.f_lineno or frame.f_code.co_firstlineno
    positions = getattr(frame.f_code, "co_positions", None)
    if positions is None:
        return line, 1, line, 1
    try:
        start, end, column, end_column = list(positions())[frame.f_lasti // 2]
    except (IndexError, ValueError):
        return line, 1, line, 1
    if start is None or column is None:
        return line, 1, line, 1
    return start, column + 1, end or start, (end_column or column) + 1
