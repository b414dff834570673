"""The content digests of the project's files, by what `stat` says of them.

A run that names some files reads the rest of the project only for what it
gives them (settings, the modules a call leads to), and finds those through
each file's content digest: its remembered screening, its cached facts. On a
warm cache, reading four thousand files to learn digests that haven't
changed is most of such a run. The manifest remembers each file's digest
with its size, modification and change times and inode; a file whose `stat`
still says the same is taken to hold the same bytes (as Ruff's cache and
git's index do), and is read only if a job needs its bytes. A file written
within the last seconds is not remembered: it may change again within the
same timestamp tick. One JSON file in the cache directory, written
atomically at the end of the run; a lost or damaged one only means reading.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from joblint.pipeline.cache import read_record, write_record

MANIFEST_NAME = "manifest.json"
# Files modified this recently may change again within one timestamp tick.
_SETTLED_NS = 2_000_000_000

Signature = tuple[int, int, int, int]


def signature(stat: os.stat_result) -> Signature:
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)


class Manifest:
    def __init__(self, directory: Path | None) -> None:
        self.path = directory / MANIFEST_NAME if directory is not None else None
        self._known = self._load()
        self._seen: dict[str, tuple[Signature, str]] = {}

    def _load(self) -> dict[str, tuple[Signature, str]]:
        if self.path is None:
            return {}
        known = {}
        for path, entry in read_record(self.path).items():
            if (
                isinstance(entry, list)
                and len(entry) == 5
                and all(isinstance(n, int) for n in entry[:4])
                and isinstance(entry[4], str)
            ):
                known[path] = ((entry[0], entry[1], entry[2], entry[3]), entry[4])
        return known

    def digest(self, path: Path, stat: os.stat_result) -> str | None:
        """The remembered digest of the file, if `stat` says it is unchanged."""
        found = self._known.get(str(path))
        if found is None or found[0] != signature(stat):
            return None
        self._seen[str(path)] = found
        return found[1]

    def remember(self, path: Path, stat: os.stat_result, digest: str) -> None:
        if time.time_ns() - stat.st_mtime_ns > _SETTLED_NS:
            self._seen[str(path)] = (signature(stat), digest)

    def save(self) -> None:
        """Write the entries of this run's files (the others are gone or elsewhere)."""
        if self.path is None or self._seen == self._known:
            return
        payload = json.dumps(
            {path: [*sig, digest] for path, (sig, digest) in self._seen.items()},
            separators=(",", ":"),
        )
        write_record(self.path, payload, self.path.parent)
