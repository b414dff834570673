"""Which files to lint: path expansion, excludes, .gitignore.

Discovery is a large share of a warm run, so the walk works on str
paths with `os.scandir`, resolves each directory once, builds a `Path` only for
the files it returns, and matches plain-name patterns (all of the default
excludes) with set lookups; pathspec is imported only for other patterns.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from joblint.config import Config, ConfigError, Configs
from joblint.globs import GlobPatterns, valid_patterns
from joblint.pipeline.listing import STRUCTURAL_NAMES, Directory, Listing

PYTHON_SUFFIXES = (".py", ".pyi")
_UNKNOWN = (0, 0)  # a scanned directory's signature, taken when it is recorded


@dataclass(slots=True)
class Discovery:
    files: list[Path] = field(default_factory=list)
    # One-line problems: a path that doesn't exist, a configuration file that
    # can't be read (its files are left out), an invalid exclude pattern.
    errors: list[str] = field(default_factory=list)
    # Paths found that can't be read (a directory without permission, a
    # symlink loop), with why: each is one JL001, and the walk goes on.
    unreadable: list[tuple[Path, str]] = field(default_factory=list)


def _join(directory: str, name: str) -> str:
    return directory + name if directory.endswith(os.sep) else f"{directory}{os.sep}{name}"


def _below(path: str, ancestor: str) -> str | None:
    """`Path(path).relative_to(ancestor).as_posix()` for normalised paths; None if not below."""
    if path == ancestor:
        return "."
    prefix = ancestor if ancestor.endswith(os.sep) else ancestor + os.sep
    if not path.startswith(prefix):
        return None
    relative = path[len(prefix) :]
    return relative if os.sep == "/" else relative.replace(os.sep, "/")


def _resolve(path: str) -> str:
    """`Path.resolve()` as a str: OSError(ELOOP) on a symlink loop, none for a dangling link."""
    resolved = os.path.realpath(path)
    try:
        os.stat(resolved)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise
    return resolved


class _Place(NamedTuple):
    """A directory seen from the config root: the prefix its children's paths get."""

    real: str | None  # resolved; None if it cannot be resolved
    prefix: str | None  # "" or "<relative>/"; None outside the root
    above: bool  # an exclude names one of its components


class _Excludes:
    """One configuration's exclude / extend-exclude: each group of patterns
    matched against the path relative to the directory of the file that set
    it (`_RootedExcludes`)."""

    def __init__(self, config: Config, errors: list[str]) -> None:
        self.groups = [
            _RootedExcludes(root, patterns, errors) for root, patterns in config.exclude_groups()
        ]
        self.groups = [g for g in self.groups if g.active] or self.groups[:1]
        self.active = any(group.active for group in self.groups)

    def excluded(self, directory: str, name: str, is_dir: bool, is_link: bool) -> bool:
        return any(g.excluded(directory, name, is_dir, is_link) for g in self.groups)

    def key(self, directory: str, name: str, is_link: bool) -> str:
        return self.groups[0].key(directory, name, is_link)

    def real(self, directory: str) -> str:
        """The directory's resolved path ("" if it cannot be resolved)."""
        return self.groups[0].place(directory).real or ""


class _RootedExcludes:
    """Patterns matched against the resolved path relative to their root (a
    symlink by where it points) and against the bare name."""

    def __init__(self, root: Path, patterns: tuple[str, ...], errors: list[str]) -> None:
        invalid: list[str] = []
        self.patterns = valid_patterns(list(patterns), invalid)
        errors.extend(f"exclude: invalid pattern {line!r}, ignored" for line in invalid)
        self.active = bool(self.patterns)
        self.root = str(root)
        self._places: dict[str, _Place] = {}

    def place(self, directory: str) -> _Place:
        place = self._places.get(directory)
        if place is None:
            place = self._places[directory] = self._locate(directory)
        return place

    def _locate(self, directory: str) -> _Place:
        try:
            real = _resolve(directory)
        except OSError:
            return _Place(None, None, False)
        relative = _below(real, self.root)
        if relative is None:
            return _Place(real, None, False)
        if relative == ".":
            return _Place(real, "", False)
        return _Place(real, relative + "/", self.patterns.parts_hit(relative.split("/")))

    def excluded(self, directory: str, name: str, is_dir: bool, is_link: bool) -> bool:
        if not self.active:
            return False
        place = self.place(directory)
        bare = self.patterns.match_child(False, "", name, is_dir)
        if place.prefix is not None and not is_link:
            return bare or self.patterns.match_child(place.above, place.prefix, name, is_dir)
        relative = self._relative(place, directory, name, is_link)
        if relative is None:
            return bare
        return bare or self.patterns.match(f"{relative}/" if is_dir else relative)

    def _relative(self, place: _Place, directory: str, name: str, is_link: bool) -> str | None:
        """The slow path: a symlink, or a directory outside the root (whose child may be it)."""
        try:
            real = _resolve(_join(directory, name)) if is_link else None
        except OSError:
            return None
        if real is None:
            if place.real is None:
                return None
            real = _join(place.real, name)
        return _below(real, self.root)

    def key(self, directory: str, name: str, is_link: bool) -> str:
        """The resolved path that identifies a file, for deduplication."""
        if is_link:
            return _resolve(_join(directory, name))
        real = self.place(directory).real
        if real is None:
            raise OSError(f"cannot resolve {Path(directory)}")
        return _join(real, name)


class _Scope:
    """A directory as seen from one directory whose .gitignore applies to it."""

    __slots__ = ("_hit", "directory", "parents", "prefix")

    def __init__(self, directory: str, parents: tuple[str, ...]) -> None:
        self.directory = directory  # where the .gitignore is
        self.parents = parents  # the components of the path from there
        self.prefix = "".join(f"{part}/" for part in parents)
        self._hit: bool | None = None

    def matches(self, patterns: GlobPatterns, name: str, is_dir: bool) -> bool:
        if self._hit is None:  # a pattern names one of the parents: once per directory
            self._hit = patterns.parts_hit(self.parents)
        return patterns.match_child(self._hit, self.prefix, name, is_dir)


class _GitIgnores:
    """The .gitignore files that apply to a directory, from the repository root
    down (only its own outside a repository), matched against lexical absolute paths."""

    def __init__(self) -> None:
        self._patterns: dict[str, GlobPatterns | None] = {}
        self._chains: dict[str, tuple[str, ...] | None] = {}
        self._scopes: dict[str, tuple[_Scope, ...]] = {}

    def ignored(self, directory: str, name: str, is_dir: bool) -> bool:
        scopes = self._scopes.get(directory)
        if scopes is None:
            scopes = self._scopes[directory] = self._scopes_of(directory)
        for scope in scopes:
            patterns = self._load(scope.directory)  # lazily: only until one matches
            if patterns is not None and scope.matches(patterns, name, is_dir):
                return True
        return False

    def _scopes_of(self, directory: str) -> tuple[_Scope, ...]:
        scopes = []
        for ancestor in self._chain(directory) or (directory,):
            relative = _below(directory, ancestor)  # never None: an ancestor by dirname()
            parents = () if relative is None or relative == "." else tuple(relative.split("/"))
            scopes.append(_Scope(ancestor, parents))
        return tuple(scopes)

    def _chain(self, directory: str) -> tuple[str, ...] | None:
        """`directory` and its parents up to its repository's root (None: not in a repository)."""
        if directory not in self._chains:
            parent = os.path.dirname(directory)
            chain: tuple[str, ...] | None
            if os.path.exists(_join(directory, ".git")):
                chain = (directory,)
            elif parent == directory:
                chain = None
            else:
                above = self._chain(parent)
                chain = None if above is None else (directory, *above)
            self._chains[directory] = chain
        return self._chains[directory]

    def _load(self, directory: str) -> GlobPatterns | None:
        if directory not in self._patterns:
            self._patterns[directory] = _read_gitignore(_join(directory, ".gitignore"))
        return self._patterns[directory]


def _read_gitignore(path: str) -> GlobPatterns | None:
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    # Git ignores a line it can't read as a pattern (`!` alone); so does joblint.
    patterns = valid_patterns(lines, [])
    return patterns if patterns else None


class _Entry(NamedTuple):
    name: str
    is_dir: bool
    is_link: bool


def _entry(entry: os.DirEntry[str]) -> _Entry:
    # As os.walk: an entry whose target cannot be stat'ed (a dangling link, a loop) is a file.
    try:
        is_dir = entry.is_dir()
    except OSError:
        is_dir = False
    try:
        is_link = entry.is_symlink()
    except OSError:
        is_link = False
    return _Entry(entry.name, is_dir, is_link)


class _ListingStale(Exception):
    """The remembered listing no longer holds below a directory: walk again without it."""


class _Discoverer:
    """One discover() call: what it found, and what it has resolved and read so far.

    Each directory's files are matched against the excludes of its own
    configuration (the closest configuration file, `Configs`), built once
    per configuration; `.gitignore` and `--force-exclude` are the run's."""

    def __init__(
        self, config: Config, configs: Configs | None = None, cache: Path | None = None
    ) -> None:
        self.config = config
        self.cache = cache
        self._seen_since: set[str] = set()
        self.result = Discovery()
        self.excludes = _Excludes(config, self.result.errors)
        self.configs = configs if configs is not None and config.hierarchical else None
        self._by_config: dict[int, _Excludes] = {id(config): self.excludes}
        # The default excludes, for the directories of a configuration file that doesn't read.
        self._defaults: _Excludes | None = None
        self.gitignores = _GitIgnores() if config.respect_gitignore else None
        self.force_exclude = config.force_exclude
        self._seen: set[str] = set()

    def _excludes_of(self, absolute: str) -> _Excludes:
        """The excludes of the configuration of the directory `absolute`."""
        if self.configs is None:
            return self.excludes
        config = self._governing(absolute)
        if config is None:  # its files are left out; its subdirectories still walked
            if self._defaults is None:
                self._defaults = _Excludes(Config(root=self.config.root), self.result.errors)
            return self._defaults
        found = self._by_config.get(id(config))
        if found is None:
            found = self._by_config[id(config)] = _Excludes(config, self.result.errors)
        return found

    def _governing(self, absolute: str) -> Config | None:
        """The configuration of the files in the directory `absolute`; None when
        the configuration file that governs them doesn't read or validate (said
        once: a run of files other configurations govern is not its concern)."""
        if self.configs is None:
            return self.config
        try:
            return self.configs.for_directory(absolute)
        except ConfigError as exc:
            message = f"{exc}; the files it governs were not checked"
            if message not in self.result.errors:
                self.result.errors.append(message)
            return None

    def argument(self, path: Path) -> None:
        if not path.exists():
            if _loops(path):
                self._unreadable(path, str(path.absolute().parent), f"cannot read: {_LOOP}")
            else:
                self.result.errors.append(f"{path}: no such file or directory")
        elif not path.is_file():
            self.walk(path)
        else:
            directory, name, is_link = str(path.parent), path.name, path.is_symlink()
            absolute = path.absolute()
            if self._governing(str(absolute.parent)) is None:
                return
            if self.force_exclude and self.skip(
                directory, str(absolute.parent), name, False, is_link
            ):
                return
            self.add(directory, name, is_link, path)

    def skip(self, directory: str, absolute: str, name: str, is_dir: bool, is_link: bool) -> bool:
        excludes = self._excludes_of(absolute)
        return excludes.excluded(directory, name, is_dir, is_link) or (
            self.gitignores is not None and self.gitignores.ignored(absolute, name, is_dir)
        )

    def add(self, directory: str, name: str, is_link: bool, path: Path) -> None:
        """Keep a file unless its resolved path was seen: a link and its target are one file."""
        try:
            key = self.excludes.key(directory, name, is_link)
        except OSError as exc:  # a symlink loop or an unresolvable directory
            self.result.unreadable.append((path, f"cannot read: {_reason(exc)}"))
            return
        self._keep(key, path)

    def _unreadable(self, path: Path, parent: str, reason: str) -> None:
        """A JL001 for `path`, unless the configuration of its directory (the
        absolute `parent`) doesn't read: its files are not checked."""
        if self._governing(parent) is not None:
            self.result.unreadable.append((path, reason))

    def _keep(self, key: str, path: Path) -> None:
        if key not in self._seen:
            self._seen.add(key)
            self._seen_since.add(key)
            self.result.files.append(path)

    def walk(self, top: Path) -> None:
        """os.walk(top, followlinks=True) order: a directory's files, then its
        subdirectories depth-first, by name; a directory seen before is a loop.
        With a cache, directories unchanged since the last walk give what they
        gave then (`joblint.pipeline.listing`)."""
        if self.cache is None:
            self._walk(top, None)
            return
        listing = Listing(self.cache, os.fspath(top), self.config)
        found = self.result
        files, errors, unreadable = len(found.files), len(found.errors), len(found.unreadable)
        if not self._walk(top, listing):  # a structural file changed: walk it all again
            del found.files[files:], found.errors[errors:], found.unreadable[unreadable:]
            self._seen.difference_update(self._seen_since)
            listing.known = {}
            self._walk(top, listing)
        problems = len(found.errors) > errors or len(found.unreadable) > unreadable
        if problems or self.configs_read():
            listing.remember = False
        listing.save()

    def _walk(self, top: Path, listing: Listing | None) -> bool:
        """False when the listing met a directory whose structural files
        changed, or a symlink: what is below them may differ."""
        visited: set[tuple[int, int]] = set()
        self._seen_since = set()
        stack = [(os.fspath(top), str(top.absolute()), "")]
        while stack:
            directory, absolute, real = stack.pop()
            # Taken before the scan: a change made during it shows the next time.
            stat = _stat(directory)
            links: frozenset[str] = frozenset()
            found = self._known(directory, stat, listing, visited)
            if found is None:
                try:
                    scanned = self._visit(directory, absolute, stat, listing, visited)
                except _ListingStale:
                    return False
                if scanned is None:
                    continue
                (found, links), real = scanned, ""
            elif not real:
                real = self.excludes.real(directory)
            stack.extend(
                (_join(directory, name), _join(absolute, name), real and _join(real, name))
                for name in reversed(found.subdirectories)
            )
            self._add_all(directory, found.files, links, real)
        return True

    def _add_all(
        self, directory: str, names: tuple[str, ...], links: frozenset[str], real: str
    ) -> None:
        if not names:
            return
        folder = Path(directory)  # one Path per directory: a child parses only its name
        child = getattr(folder, "_make_child_relpath", folder.joinpath)
        for name in names:
            if real:  # a remembered directory has no symlink: its resolved path is known
                self._keep(_join(real, name), child(name))
            else:
                self.add(directory, name, name in links, child(name))

    @staticmethod
    def _known(
        directory: str,
        stat: os.stat_result | None,
        listing: Listing | None,
        visited: set[tuple[int, int]],
    ) -> Directory | None:
        if listing is None or not listing.known or stat is None:
            return None  # (a directory that can't be stat'ed is scanned, to say why)
        found = listing.lookup(directory, stat)
        if found is not None:
            visited.add((stat.st_dev, stat.st_ino))
        return found

    def _visit(
        self,
        directory: str,
        absolute: str,
        stat: os.stat_result | None,
        listing: Listing | None,
        visited: set[tuple[int, int]],
    ) -> tuple[Directory, frozenset[str]] | None:
        """Scan a directory: what it gives the walk and which of its files are
        links; None if it can't be read or was seen before."""
        entries = self._scan(directory)
        if isinstance(entries, str):
            self._unreadable(Path(directory), os.path.dirname(absolute), entries)
            return None
        if stat is None or not _first_visit(stat, visited):
            return None
        subdirectories = tuple(
            e.name
            for e in entries
            if e.is_dir and not self.skip(directory, absolute, e.name, True, e.is_link)
        )
        governed = self.configs is None or self._governing(absolute) is not None
        files = tuple(
            e.name
            for e in entries
            if governed
            and not e.is_dir
            and e.name.endswith(PYTHON_SUFFIXES)
            and not self.skip(directory, absolute, e.name, False, e.is_link)
        )
        structural = tuple(e.name for e in entries if e.name in STRUCTURAL_NAMES)
        links = frozenset(e.name for e in entries if e.is_link)
        # A link to a directory or a Python file is walked by where it points.
        walked = any(e.is_dir or e.name.endswith(PYTHON_SUFFIXES) for e in entries if e.is_link)
        found = Directory(_UNKNOWN, files, subdirectories, structural, tuple(sorted(links)))
        if listing is not None:
            self._record(directory, stat, found, walked, listing)
        return found, links

    @staticmethod
    def _record(
        directory: str, stat: os.stat_result, found: Directory, walked: bool, listing: Listing
    ) -> None:
        if walked:
            listing.remember = False
        if listing.known and (walked or listing.structure_changed(directory, found.structural)):
            raise _ListingStale
        listing.record(directory, stat, found)

    def configs_read(self) -> bool:
        """Whether the walk read a configuration file besides the run's own."""
        return self.configs is not None and len(self.configs.loaded()) > 1

    @staticmethod
    def _scan(directory: str) -> list[_Entry] | str:
        """The directory's entries by name, or why it can't be read."""
        try:
            with os.scandir(directory) as scan:
                entries = [_entry(entry) for entry in scan]
        except OSError as exc:
            return f"cannot read directory: {_reason(exc)}"
        entries.sort(key=lambda e: e.name)
        return entries


def _stat(directory: str) -> os.stat_result | None:
    try:
        return os.stat(directory)
    except OSError:
        return None


def _first_visit(stat: os.stat_result, visited: set[tuple[int, int]]) -> bool:
    identity = (stat.st_dev, stat.st_ino)
    if identity in visited:  # a symlink loop, or a second link to one directory
        return False
    visited.add(identity)
    return True


def discover(
    paths: Iterable[Path],
    config: Config,
    configs: Configs | None = None,
    cache: Path | None = None,
) -> Discovery:
    """The files below `paths`; with `configs`, each directory's excludes are
    those of its closest configuration file; with a cache directory, the
    directories unchanged since the last walk are not scanned again."""
    _packages.clear()  # packages may have changed since the last run in this process
    discoverer = _Discoverer(config, configs, cache)
    for path in paths:
        discoverer.argument(path)
    discoverer.result.files.sort(key=_sort_key if os.sep == "/" else None)
    return discoverer.result


def _sort_key(path: Path) -> list[str]:
    """The parts `PurePosixPath` compares, from its string (faster than its own)."""
    parts = str(path).split("/")
    if parts[0] == "":
        parts[0] = "/"
    return parts


_LOOP = "symlink loop (following its links never reaches a file)"


def _loops(path: Path) -> bool:
    """Whether `path` is a symlink that leads back to itself."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return _LOOP
    return exc.strerror or str(exc)


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name from the package structure, and whether it is a package."""
    # `path.absolute()` as a str: str joins cost a fraction of a Path's parsing.
    shown = str(path)
    absolute = shown if os.path.isabs(shown) else os.path.join(os.getcwd(), shown)
    # `Path.stem`, from the string (a file's path always has a name).
    name = os.path.basename(shown)
    stem = os.path.splitext(name)[0] if name and name != "." else Path(absolute).stem
    is_package = stem == "__init__"
    package = _package(os.path.dirname(absolute))
    parts = [p for p in (package, "" if is_package else stem) if p]
    return ".".join(parts), is_package


# directory -> the dotted package it is; a file's siblings share one entry.
_packages: dict[str, str] = {}
_MAX_PACKAGES = 4096  # a long-lived process that never calls discover() stays bounded


def _package(directory: str) -> str:
    """The dotted package a directory is ("" outside packages)."""
    package = _packages.get(directory)
    if package is None:
        if len(_packages) >= _MAX_PACKAGES:
            _packages.clear()
        package = _packages[directory] = _find_package(directory)
    return package


def _find_package(directory: str) -> str:
    """A directory with an `__init__.py` is a package, unless no import can
    name it (`Mayan-EDMS`, `shop+v2`: a repository root holding an
    `__init__.py` of its own): its packages are then top-level. A directory
    without one inside a package is a namespace package Python imports by
    the same dotted name (`shop/external/mail/tasks.py` is
    `shop.external.mail.tasks` where `shop/external` is a package)."""
    parent, name = os.path.dirname(directory), os.path.basename(directory)
    if name and not name.isidentifier():
        return ""
    if not (
        os.path.isfile(_join(directory, "__init__.py"))
        or os.path.isfile(_join(directory, "__init__.pyi"))
    ):
        above = _package(parent) if parent != directory else ""
        return f"{above}.{name}" if above else ""
    if parent == directory:
        return name
    above = _package(parent)
    return f"{above}.{name}" if above else name
