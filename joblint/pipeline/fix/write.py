"""Writing the user's files: only where the user may, and atomically.

Whether joblint may write a file is decided from its mode bits and the
kernel's permission rules (`os.access`), never by trying: a process running as
root could write a read-only (0444) file or into a read-only (0555)
directory, and joblint must not. A file is replaced through a temporary file
in its own directory, fsync'd, given the original's mode bits and (where the
process may) its owner and group, then renamed over it; the temporary file is
removed on any failure, so the file is always either the old bytes or the
new ones.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

READ_ONLY = "the file is read-only"  # no write bit at all
NOT_PERMITTED = "no permission to write it"  # write bits, none for this user
READ_ONLY_DIRECTORY = "cannot write in its directory"
_ANY_WRITE_BIT = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


class WriteRefused(Exception):
    """Why a file was not written: one line, without the file's path."""


def may_write(path: Path, info: os.stat_result) -> bool:
    """Whether the user may write `path` (`info`: its stat): some write bit set
    (root included: a file no one may write stays untouched) and the kernel's
    rules allow it (owner, group, other, ACLs, a read-only file system)."""
    if not info.st_mode & _ANY_WRITE_BIT:
        return False
    effective = os.access in os.supports_effective_ids
    wanted = os.W_OK | os.X_OK if stat.S_ISDIR(info.st_mode) else os.W_OK
    return os.access(path, wanted, effective_ids=effective)


def refusal(path: Path, replace: bool = True) -> str | None:
    """Why joblint must not write `path`, or None. `replace`: by renaming a new
    file over it (its directory must be writable); else in place (an existing
    file must be writable; a new one needs its directory)."""
    target = path.resolve()
    try:
        info = target.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"cannot write: {exc.strerror or exc}"
    if info is not None and not may_write(target, info):
        return READ_ONLY if not info.st_mode & _ANY_WRITE_BIT else NOT_PERMITTED
    if info is None or replace:
        try:
            directory = target.parent.stat()
        except OSError as exc:
            return f"cannot write: {exc.strerror or exc}"
        if not may_write(target.parent, directory):
            return READ_ONLY_DIRECTORY
    return None


def write_atomic(path: Path, original: bytes | None, data: bytes) -> bool:
    """Replace `path`'s bytes `original` by `data` (`original` None: whatever
    it holds, or a new file). False, and nothing written, when the file no
    longer holds `original`; `WriteRefused` when the user may not write it or
    writing failed (the file is left as it was)."""
    target = path.resolve()
    if original is not None and _read(target) != original:
        return False
    problem = refusal(target)
    if problem is not None:
        raise WriteRefused(problem)
    temporary = ""
    try:
        info = target.stat() if original is not None or target.exists() else None
        fd, temporary = _create_beside(target, private=info is not None)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            _keep_owner_and_mode(handle.fileno(), temporary, info)
            os.fsync(handle.fileno())
        if original is not None and _read(target) != original:
            os.unlink(temporary)
            return False
        os.replace(temporary, target)
    except OSError as exc:
        _remove(temporary)
        raise WriteRefused(f"cannot write: {exc.strerror or exc}") from None
    except BaseException:
        _remove(temporary)
        raise
    _sync_directory(target.parent)
    return True


@contextlib.contextmanager
def replaced_whole(path: Path) -> Iterator[TextIO]:
    """A text stream whose text replaces `path` whole (`write_atomic`) when
    the block ends without an error, else leaves it as it was: a report is
    the last one or the new one, never half of it. A device or a pipe
    (`/dev/stdout`), or a file in a directory the user may not write, is
    written in place, as the block writes. `WriteRefused` when it can't be
    written. Undecodable characters (lone surrogates) become escapes."""
    if _is_stream(path) or refusal(path) is not None:
        try:
            handle = path.open("w", encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            raise WriteRefused(f"cannot write: {exc.strerror or exc}") from None
        with handle:
            yield handle
        return
    text = io.StringIO()
    yield text
    write_atomic(path, None, text.getvalue().encode("utf-8", "backslashreplace"))


def _is_stream(path: Path) -> bool:
    """Whether `path` is an existing file other than a regular one."""
    try:
        return not stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _read(target: Path) -> bytes:
    try:
        return target.read_bytes()
    except OSError as exc:
        raise WriteRefused(f"cannot read: {exc.strerror or exc}") from None


def _create_beside(target: Path, private: bool) -> tuple[int, str]:
    """A new temporary file in `target`'s directory (the rename stays on one
    file system). A replacement starts private (its mode comes next); a new
    file gets the usual mode, as the umask has it."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = str(target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(name, flags, 0o600 if private else 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target.name}")


def _keep_owner_and_mode(fd: int, name: str, info: os.stat_result | None) -> None:
    """The original's owner and group where the process may give them (root;
    an owner its own groups), then its mode bits (after: a change of owner
    clears set-user-ID bits)."""
    if info is None:
        return
    if hasattr(os, "fchown"):
        for owner in (info.st_uid, -1):
            with contextlib.suppress(OSError):
                os.fchown(fd, owner, info.st_gid)
                break
    if hasattr(os, "fchmod"):
        os.fchmod(fd, stat.S_IMODE(info.st_mode))
    else:
        os.chmod(name, stat.S_IMODE(info.st_mode))


def _remove(temporary: str) -> None:
    if temporary:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
