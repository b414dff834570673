"""The project's directory listing, remembered between runs.

Walking a project of a few thousand files (scanning every directory and
matching every entry against the excludes and the `.gitignore` files) is a
large share of a warm run, most of all of one that names a single file and
still reads the rest of the project for its facts. What a directory gives the
walk (the files it keeps, the subdirectories it enters) depends only on its
entries and on the rules that apply to it; a directory's modification time
changes whenever an entry is added, removed or renamed. So the walk keeps,
per directory, its modification time and inode with what it gave, and a
later walk scans again only the directories whose `stat` says otherwise.

The rules are what the run's configuration says (the listing is keyed by
it) and what the structural files say: `.gitignore`, `.git`, configuration
files, in every directory walked and in every directory above the walk. Their
`stat` is kept too; when one changed, appeared or went away, the walk starts
over without the listing. So do other symlinks (to a file that isn't
Python): whether each points to a directory is kept. A walk that meets a
symlink to a directory or a Python file, an unreadable directory or a
configuration file of its own below the run's is not remembered (what those
give depends on more than one directory's entries),
nor are directories modified within the last seconds (they may change again
within the same timestamp tick). One JSON file in the cache directory,
written atomically; a lost or damaged one only means walking.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from joblint.config import CONFIG_NAMES, Config
from joblint.pipeline.cache import read_record, write_record

LISTING_NAME = "listing.json"
# The names whose presence or contents change which entries a walk keeps below them.
STRUCTURAL_NAMES = frozenset({".git", ".gitignore", "pyproject.toml", *CONFIG_NAMES})
# A repository's `.git` changes with every commit; only whether it is there matters.
_KIND_ONLY = frozenset({".git"})
# Directories modified this recently may change again within one timestamp tick.
_SETTLED_NS = 2_000_000_000
MAX_LISTINGS = 4  # walks of different roots or configurations kept
_UNSETTLED = (-1, -1)

# A structural file's signature (None: absent); a path's kind ("dir", "other", "absent").
Signature = list[int] | None
Watch = dict[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Directory:
    """What one directory gave a walk."""

    signature: tuple[int, int]  # (mtime_ns, inode)
    files: tuple[str, ...]
    subdirectories: tuple[str, ...]
    structural: tuple[str, ...]  # its entries named in STRUCTURAL_NAMES
    # Symlinks to what is not Python: where they point may become a directory.
    links: tuple[str, ...] = ()


def directory_signature(stat: os.stat_result) -> tuple[int, int]:
    return (stat.st_mtime_ns, stat.st_ino)


def file_signature(path: str) -> Signature:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


def kind(path: str) -> str:
    if os.path.isdir(path):
        return "dir"
    return "other" if os.path.exists(path) else "absent"


def _current(watch: Watch) -> Watch:
    return {
        "files": {path: file_signature(path) for path in watch["files"]},
        "kinds": {path: kind(path) for path in watch["kinds"]},
    }


def listing_key(top: str, config: Config) -> str:
    """What, besides the directories, decides the walk from `top`."""
    parts = (
        os.path.abspath(top),
        top,
        [(str(root), list(patterns)) for root, patterns in config.exclude_groups()],
        config.respect_gitignore,
        config.hierarchical,
        str(config.source),
    )
    return hashlib.blake2b(json.dumps(parts).encode(), digest_size=16).hexdigest()


class Listing:
    """One walk's remembered directories: read at the start, written at the end."""

    def __init__(self, cache: Path, top: str, config: Config) -> None:
        self.path = cache / LISTING_NAME
        self.cache = cache
        self.key = listing_key(top, config)
        self.top = top
        self._others: dict[str, Any] = {}
        self.known: dict[str, Directory] = {}
        self._loaded_watch: Watch = {}
        self.seen: dict[str, Directory] = {}
        self.remember = True  # false once the walk met what it can't keep
        self._load(self.path)

    def _load(self, path: Path) -> None:
        record = read_record(path)
        listings = record.get("listings")
        if not isinstance(listings, dict):
            return
        self._others = {k: v for k, v in listings.items() if k != self.key}
        mine = listings.get(self.key)
        if not isinstance(mine, dict):
            return
        try:
            watch = _watch_value(mine["watch"])
            known = {str(d): _directory(v) for d, v in mine["directories"].items()}
        except (KeyError, TypeError, ValueError, AttributeError):
            return
        if _current(watch) == watch:
            self.known, self._loaded_watch = known, watch

    def lookup(self, directory: str, stat: os.stat_result) -> Directory | None:
        """What the directory gave the last walk, if its `stat` says it is unchanged."""
        found = self.known.get(directory)
        if found is None or found.signature != directory_signature(stat):
            return None
        self.seen[directory] = found
        return found

    def structure_changed(self, directory: str, structural: tuple[str, ...]) -> bool:
        """Whether a directory scanned again gained or lost a structural file."""
        found = self.known.get(directory)
        return found is not None and found.structural != structural

    def record(self, directory: str, stat: os.stat_result, found: Directory) -> None:
        settled = time.time_ns() - stat.st_mtime_ns > _SETTLED_NS
        signature = directory_signature(stat) if settled else _UNSETTLED
        self.seen[directory] = replace(found, signature=signature)

    def save(self) -> None:
        if not self.remember:
            return
        watch = self._watch()
        if watch is None:
            return
        if self.seen == self.known and watch == self._loaded_watch:
            return
        mine = {
            "watch": watch,
            "directories": {
                d: [list(e.signature), e.files, e.subdirectories, e.structural, e.links]
                for d, e in self.seen.items()
            },
        }
        others = dict(list(self._others.items())[-(MAX_LISTINGS - 1) :])
        payload = json.dumps({"listings": {**others, self.key: mine}}, separators=(",", ":"))
        write_record(self.path, payload, self.cache)

    def _watch(self) -> Watch | None:
        """The structural files and links of the walked directories and the
        structural files above the walk; None when one changed too recently
        to be trusted."""
        names: list[str] = []
        kinds: list[str] = []
        for directory, entry in self.seen.items():
            for name in entry.structural:
                (kinds if name in _KIND_ONLY else names).append(os.path.join(directory, name))
            kinds.extend(os.path.join(directory, name) for name in entry.links)
        above = os.path.dirname(os.path.abspath(self.top))
        while True:
            for name in sorted(STRUCTURAL_NAMES):
                (kinds if name in _KIND_ONLY else names).append(os.path.join(above, name))
            parent = os.path.dirname(above)
            if parent == above:
                break
            above = parent
        watch = _current({"files": dict.fromkeys(names), "kinds": dict.fromkeys(kinds)})
        now = time.time_ns()
        for signature in watch["files"].values():
            if signature is not None and now - signature[1] <= _SETTLED_NS:
                return None
        return watch


def _watch_value(value: Any) -> Watch:
    files, kinds = value["files"], value["kinds"]
    for signature in files.values():
        if signature is not None and not (
            isinstance(signature, list)
            and len(signature) == 4
            and all(isinstance(n, int) for n in signature)
        ):
            raise ValueError(signature)
    if not all(isinstance(k, str) for k in kinds.values()):
        raise ValueError(kinds)
    return {"files": dict(files), "kinds": dict(kinds)}


def _names(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise ValueError(value)
    return tuple(value)


def _directory(value: Any) -> Directory:
    signature, files, subdirectories, structural, links = value
    mtime, inode = signature
    if not isinstance(mtime, int) or not isinstance(inode, int):
        raise ValueError(value)
    return Directory(
        (mtime, inode), _names(files), _names(subdirectories), _names(structural), _names(links)
    )
