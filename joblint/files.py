"""Which files to lint: path expansion, excludes, .gitignore.

Discovery is a large share of a warm run (issue #8), so the walk works on str
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
from typing import TYPE_CHECKING, NamedTuple

from joblint.config import Config

if TYPE_CHECKING:
    import pathspec

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(slots=True)
class Discovery:
    files: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _spec(lines: Iterable[str]) -> pathspec.GitIgnoreSpec:
    import pathspec  # here, not at the top: it costs ~40 ms and most runs need no globs

    return pathspec.GitIgnoreSpec.from_lines(lines)


# Characters that make a pattern more than a plain name: glob syntax, escapes,
# and the separator. Whitespace is left to pathspec too (trailing whitespace is
# stripped unless escaped, and pathspec versions disagree about leading spaces).
_GLOB_CHARS = frozenset("*?[]\\/")


def _plain_name(pattern: str) -> tuple[str, bool] | None:
    """`(name, directories only)` when `pattern` is a plain name, else None.

    gitignore syntax: a pattern without a slash (but a trailing one) matches a
    file or directory of that name at any depth, and everything below it; with
    the trailing slash only a directory. pathspec compiles `name` to
    `^(?:.+/)?name(?:/|$)` and `name/` to `^(?:.+/)?name/`: that is, `name` is a
    component of the path, and for `name/` one followed by a slash. That exact
    subset is what `GlobPatterns` matches by set membership; the equivalence is
    checked against pathspec by tests/test_files.py.
    """
    name = pattern[:-1] if pattern.endswith("/") else pattern
    if not name or name[0] in "!#" or any(c in _GLOB_CHARS or c.isspace() for c in name):
        return None
    return name, name != pattern


def _is_null(line: str) -> bool:
    """A blank or comment line: pathspec compiles it to nothing."""
    stripped = line if line.endswith("\\ ") else line.rstrip()
    return not stripped or stripped.startswith("#")


def _normalize(candidate: str) -> str:
    """What `pathspec.util.normalize_file` makes of a POSIX candidate."""
    if candidate.startswith("/"):
        return candidate[1:]
    return candidate[2:] if candidate.startswith("./") else candidate


class GlobPatterns:
    """gitignore-syntax patterns; `match(c)` is `GitIgnoreSpec.match_file(c)`.

    Plain names are set lookups, `*` (the joblint cache's .gitignore) matches
    everything, and the rest goes to pathspec. The split is exact because with
    no negation a path is matched when any one pattern matches; with a
    negation ("!") order matters and everything goes to pathspec. Candidates
    with a newline, empty, or starting with "/" once normalised (never built by
    the walk) also go to pathspec: its regexes treat them specially (`.` does
    not match a newline, `$` matches before one).
    """

    __slots__ = ("_any_depth", "_dir_names", "_everything", "_lines", "_names", "_rest", "_whole")

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = tuple(line for line in lines if not _is_null(line))
        negated = any(line.lstrip().startswith("!") for line in self._lines)
        names: set[str] = set()
        dir_names: set[str] = set()
        rest: list[str] = []
        self._everything = False
        for line in self._lines:
            plain = None if negated else _plain_name(line)
            if not negated and line in ("*", "**"):
                self._everything = True
            elif plain is None:
                rest.append(line)
            else:
                (dir_names if plain[1] else names).add(plain[0])
        self._names = frozenset(names)
        self._dir_names = frozenset(dir_names)
        self._any_depth = self._names | self._dir_names  # names that match as a parent
        # Compiled now, as before: an invalid pattern raises here, not mid-walk.
        self._rest = _spec(rest) if rest else None
        self._whole = self._rest if len(rest) == len(self._lines) else None

    def __bool__(self) -> bool:
        return bool(self._lines)

    def parts_hit(self, parents: Iterable[str]) -> bool:
        """Whether a plain name matches one of `parents`, a candidate's directories."""
        return not self._any_depth.isdisjoint(parents)

    def match(self, candidate: str) -> bool:
        """Whether `candidate` (a relative path, ending in "/" for a directory) is matched."""
        path = _normalize(candidate)
        if not path or path.startswith("/") or "\n" in path:
            return self._whole_spec().match_file(candidate)
        parts = path.split("/")
        return self._plain_match(self.parts_hit(parts[:-1]), parts[-1], False) or (
            self._rest is not None and self._rest.match_file(candidate)
        )

    def match_child(self, above: bool, prefix: str, name: str, is_dir: bool) -> bool:
        """`match(prefix + name)` (plus "/" for a directory), for the walk.

        `prefix` is "" or a relative directory ending in "/" and `above` is
        `parts_hit` of its components, computed once per directory.
        """
        candidate = f"{prefix}{name}/" if is_dir else prefix + name
        if "\n" in candidate:
            return self.match(candidate)
        return self._plain_match(above, name, is_dir) or (
            self._rest is not None and self._rest.match_file(candidate)
        )

    def _plain_match(self, above: bool, last: str, is_dir: bool) -> bool:
        # `last` is "" for a candidate ending in "/" (its name is then a parent).
        return (
            above or self._everything or last in self._names or (is_dir and last in self._dir_names)
        )

    def _whole_spec(self) -> pathspec.GitIgnoreSpec:
        if self._whole is None:
            self._whole = _spec(self._lines)
        return self._whole


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
    """exclude / extend-exclude, matched against the resolved path relative to the
    config root (a symlink by where it points) and against the bare name."""

    def __init__(self, config: Config, errors: list[str]) -> None:
        invalid: list[str] = []
        self.patterns = _valid_patterns([*config.exclude, *config.extend_exclude], invalid)
        errors.extend(f"exclude: invalid pattern {line!r}, ignored" for line in invalid)
        self.active = bool(self.patterns)
        self.root = str(config.root)
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
    patterns = _valid_patterns(lines, [])
    return patterns if patterns else None


def _valid_patterns(lines: list[str], invalid: list[str]) -> GlobPatterns:
    """The patterns of `lines`, less those pathspec refuses (added to `invalid`)."""
    try:
        return GlobPatterns(lines)
    except ValueError:  # pathspec's GitIgnorePatternError
        kept = []
        for line in lines:
            try:
                GlobPatterns([line])
            except ValueError:
                invalid.append(line)
            else:
                kept.append(line)
        return GlobPatterns(kept)


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


class _Discoverer:
    """One discover() call: what it found, and what it has resolved and read so far."""

    def __init__(self, config: Config) -> None:
        self.result = Discovery()
        self.excludes = _Excludes(config, self.result.errors)
        self.gitignores = _GitIgnores() if config.respect_gitignore else None
        self.force_exclude = config.force_exclude
        self._seen: set[str] = set()

    def argument(self, path: Path) -> None:
        if not path.exists():
            self.result.errors.append(f"{path}: no such file or directory")
        elif not path.is_file():
            self.walk(path)
        else:
            directory, name, is_link = str(path.parent), path.name, path.is_symlink()
            absolute = path.absolute()
            if self.force_exclude and self.skip(
                directory, str(absolute.parent), name, False, is_link
            ):
                return
            self.add(directory, name, is_link, path)

    def skip(self, directory: str, absolute: str, name: str, is_dir: bool, is_link: bool) -> bool:
        return self.excludes.excluded(directory, name, is_dir, is_link) or (
            self.gitignores is not None and self.gitignores.ignored(absolute, name, is_dir)
        )

    def add(self, directory: str, name: str, is_link: bool, path: Path) -> None:
        """Keep a file unless its resolved path was seen: a link and its target are one file."""
        try:
            key = self.excludes.key(directory, name, is_link)
        except OSError as exc:  # a symlink loop or an unresolvable directory
            self.result.errors.append(f"{path}: cannot read: {_reason(exc)}")
            return
        if key not in self._seen:
            self._seen.add(key)
            self.result.files.append(path)

    def walk(self, top: Path) -> None:
        """os.walk(top, followlinks=True) order: a directory's files, then its
        subdirectories depth-first, by name; a directory seen before is a loop."""
        visited: set[tuple[int, int]] = set()
        stack = [(os.fspath(top), str(top.absolute()))]
        while stack:
            directory, absolute = stack.pop()
            entries = self._scan(directory)
            if entries is None or not _first_visit(directory, visited):
                continue
            subdirectories = [
                (_join(directory, e.name), _join(absolute, e.name))
                for e in entries
                if e.is_dir and not self.skip(directory, absolute, e.name, True, e.is_link)
            ]
            stack.extend(reversed(subdirectories))
            # One Path per directory: `folder / name` parses only the name.
            folder: Path | None = None
            for e in entries:
                if (
                    not e.is_dir
                    and e.name.endswith(PYTHON_SUFFIXES)
                    and not self.skip(directory, absolute, e.name, False, e.is_link)
                ):
                    folder = folder or Path(directory)
                    self.add(directory, e.name, e.is_link, folder / e.name)

    def _scan(self, directory: str) -> list[_Entry] | None:
        try:
            with os.scandir(directory) as scan:
                entries = [_entry(entry) for entry in scan]
        except OSError as exc:
            self.result.errors.append(f"{exc.filename}: cannot read directory: {exc.strerror}")
            return None
        entries.sort(key=lambda e: e.name)
        return entries


def _first_visit(directory: str, visited: set[tuple[int, int]]) -> bool:
    try:
        stat = os.stat(directory)
    except OSError:
        return False
    identity = (stat.st_dev, stat.st_ino)
    if identity in visited:  # a symlink loop, or a second link to one directory
        return False
    visited.add(identity)
    return True


def discover(paths: Iterable[Path], config: Config) -> Discovery:
    _packages.clear()  # packages may have changed since the last run in this process
    discoverer = _Discoverer(config)
    for path in paths:
        discoverer.argument(path)
    discoverer.result.files.sort()
    return discoverer.result


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    return exc.strerror or str(exc)


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name from the package structure, and whether it is a package."""
    # `path.absolute()` as a str: str joins cost a fraction of a Path's parsing.
    shown = str(path)
    absolute = shown if os.path.isabs(shown) else os.path.join(os.getcwd(), shown)
    stem = path.stem if path.name else Path(absolute).stem
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
    if not (
        os.path.isfile(_join(directory, "__init__.py"))
        or os.path.isfile(_join(directory, "__init__.pyi"))
    ):
        return ""
    parent, name = os.path.dirname(directory), os.path.basename(directory)
    if parent == directory:
        return name
    above = _package(parent)
    return f"{above}.{name}" if above else name
