"""Which files to lint: path expansion, excludes, .gitignore."""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from joblint.config import Config

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(slots=True)
class Discovery:
    files: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _spec(patterns: Iterable[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


class _Matcher:
    """Exclude globs (gitignore syntax) matched against paths below the config root."""

    def __init__(self, config: Config) -> None:
        self.root = config.root
        self.spec = _spec([*config.exclude, *config.extend_exclude])
        # Resolved directories: a walk resolves each once, not once per file in it.
        self._resolved: dict[Path, Path | None] = {}

    def resolve(self, path: Path) -> Path:
        """`path.resolve()`, the directory part memoised (a file itself may be a link)."""
        if path.is_symlink():
            return path.resolve()
        parent = path.parent
        if parent not in self._resolved:
            try:
                self._resolved[parent] = parent.resolve()
            except (OSError, RuntimeError):
                self._resolved[parent] = None
        resolved = self._resolved[parent]
        if resolved is None:
            raise OSError(f"cannot resolve {parent}")
        return resolved / path.name

    def excluded(self, path: Path, is_dir: bool) -> bool:
        try:
            relative = self.resolve(path).relative_to(self.root).as_posix()
        except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (< 3.13)
            relative = path.name
        candidate = f"{relative}/" if is_dir else relative
        return self.spec.match_file(candidate) or self.spec.match_file(
            f"{path.name}/" if is_dir else path.name
        )


class _GitIgnores:
    """The .gitignore files that apply to a directory, from the repository root down."""

    def __init__(self) -> None:
        self._cache: dict[Path, pathspec.GitIgnoreSpec | None] = {}
        self._ancestors: dict[Path, list[Path]] = {}

    def _load(self, directory: Path) -> pathspec.GitIgnoreSpec | None:
        if directory not in self._cache:
            ignore = directory / ".gitignore"
            spec = None
            if ignore.is_file():
                try:
                    spec = _spec(ignore.read_text(encoding="utf-8", errors="replace").splitlines())
                except OSError:
                    spec = None
            self._cache[directory] = spec
        return self._cache[directory]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        path = path.absolute()
        parent = path.parent
        if parent not in self._ancestors:
            self._ancestors[parent] = _repo_ancestors(parent)
        for directory in self._ancestors[parent]:
            spec = self._load(directory)
            if spec is None:
                continue
            relative = path.relative_to(directory).as_posix()
            if spec.match_file(f"{relative}/" if is_dir else relative):
                return True
        return False


def _repo_ancestors(directory: Path) -> list[Path]:
    """`directory` and its parents up to the enclosing git repository's root."""
    chain: list[Path] = []
    for current in (directory, *directory.parents):
        chain.append(current)
        if (current / ".git").exists():
            return chain
    return [directory]


def discover(paths: Iterable[Path], config: Config) -> Discovery:
    result = Discovery()
    _package.cache_clear()  # packages may have changed since the last run in this process
    matcher = _Matcher(config)
    gitignores = _GitIgnores() if config.respect_gitignore else None
    seen: set[Path] = set()
    for path in paths:
        if not path.exists():
            result.errors.append(f"{path}: no such file or directory")
            continue
        if path.is_file():
            if config.force_exclude and _skip(path, False, matcher, gitignores):
                continue
            _add(result, seen, path, matcher)
            continue
        for found in _walk(path, matcher, gitignores, result.errors):
            _add(result, seen, found, matcher)
    result.files.sort()
    return result


def _add(result: Discovery, seen: set[Path], path: Path, matcher: _Matcher) -> None:
    try:
        key = matcher.resolve(path)
    except (OSError, RuntimeError) as exc:  # a symlink loop or a dangling link
        result.errors.append(f"{path}: cannot read: {_reason(exc)}")
        return
    if key not in seen:
        seen.add(key)
        result.files.append(path)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
        return "symlink loop"
    return getattr(exc, "strerror", None) or str(exc)


def _skip(path: Path, is_dir: bool, matcher: _Matcher, gitignores: _GitIgnores | None) -> bool:
    return matcher.excluded(path, is_dir) or (
        gitignores is not None and gitignores.ignored(path, is_dir)
    )


def _walk(
    top: Path, matcher: _Matcher, gitignores: _GitIgnores | None, errors: list[str]
) -> Iterator[Path]:
    def on_error(exc: OSError) -> None:
        errors.append(f"{exc.filename}: cannot read directory: {exc.strerror}")

    visited: set[tuple[int, int]] = set()
    for directory, dirnames, filenames in os.walk(top, onerror=on_error, followlinks=True):
        current = Path(directory)
        try:
            stat = current.stat()
        except OSError:
            dirnames[:] = []
            continue
        if (stat.st_dev, stat.st_ino) in visited:  # a symlink loop
            dirnames[:] = []
            continue
        visited.add((stat.st_dev, stat.st_ino))
        dirnames[:] = sorted(
            d for d in dirnames if not _skip(current / d, True, matcher, gitignores)
        )
        for name in sorted(filenames):
            if not name.endswith(PYTHON_SUFFIXES):
                continue
            path = current / name
            if not _skip(path, False, matcher, gitignores):
                yield path


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name from the package structure, and whether it is a package."""
    path = path.absolute()
    is_package = path.stem == "__init__"
    package = _package(path.parent)
    parts = [p for p in (package, "" if is_package else path.stem) if p]
    return ".".join(parts), is_package


@functools.lru_cache(maxsize=4096)
def _package(directory: Path) -> str:
    """The dotted package a directory is ("" outside packages)."""
    if not ((directory / "__init__.py").is_file() or (directory / "__init__.pyi").is_file()):
        return ""
    if directory.parent == directory:
        return directory.name
    parent = _package(directory.parent)
    return f"{parent}.{directory.name}" if parent else directory.name
