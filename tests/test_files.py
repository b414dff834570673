"""File discovery (joblint/pipeline/discover.py) gives the same results as a
plain pathlib + pathspec walk, and the plain-name fast path is exactly
pathspec's matching.

Two property tests carry the proof: `GlobPatterns` against `pathspec.GitIgnoreSpec`
on generated patterns and paths, and `discover`/`module_name` against the
plain pathlib + pathspec implementation (`_Reference` below) on
generated trees with nested .gitignore files, repositories, symlinks (loops,
dangling, outside the root), odd and undecodable names.
"""

from __future__ import annotations

import errno
import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pathspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from joblint.config import DEFAULT_EXCLUDE, Config
from joblint.globs import GlobPatterns, _plain_name
from joblint.pipeline import discover as files
from joblint.pipeline.discover import Discovery, discover, module_name

# --------------------------------------------------------------------------
# The implementation this module replaced (commit 09d993f), as the oracle.


def _ref_spec(patterns: Iterable[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


class _RefMatcher:
    def __init__(self, config: Config) -> None:
        self.root = config.root
        self.spec = _ref_spec([*config.exclude, *config.extend_exclude])
        self._resolved: dict[Path, Path | None] = {}

    def resolve(self, path: Path) -> Path:
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
        except (ValueError, OSError, RuntimeError):
            relative = path.name
        candidate = f"{relative}/" if is_dir else relative
        return self.spec.match_file(candidate) or self.spec.match_file(
            f"{path.name}/" if is_dir else path.name
        )


class _RefGitIgnores:
    def __init__(self) -> None:
        self._cache: dict[Path, pathspec.GitIgnoreSpec | None] = {}
        self._ancestors: dict[Path, list[Path]] = {}

    def _load(self, directory: Path) -> pathspec.GitIgnoreSpec | None:
        if directory not in self._cache:
            ignore = directory / ".gitignore"
            spec = None
            if ignore.is_file():
                try:
                    spec = _ref_spec(
                        ignore.read_text(encoding="utf-8", errors="replace").splitlines()
                    )
                except OSError:
                    spec = None
            self._cache[directory] = spec
        return self._cache[directory]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        path = path.absolute()
        parent = path.parent
        if parent not in self._ancestors:
            self._ancestors[parent] = _ref_repo_ancestors(parent)
        for directory in self._ancestors[parent]:
            spec = self._load(directory)
            if spec is None:
                continue
            relative = path.relative_to(directory).as_posix()
            if spec.match_file(f"{relative}/" if is_dir else relative):
                return True
        return False


def _ref_repo_ancestors(directory: Path) -> list[Path]:
    chain: list[Path] = []
    for current in (directory, *directory.parents):
        chain.append(current)
        if (current / ".git").exists():
            return chain
    return [directory]


def _ref_discover(paths: Iterable[Path], config: Config) -> Discovery:
    result = Discovery()
    _ref_package.cache_clear()
    matcher = _RefMatcher(config)
    gitignores = _RefGitIgnores() if config.respect_gitignore else None
    seen: set[Path] = set()
    for path in paths:
        if not path.exists():
            try:
                os.stat(path)
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # a named link that leads back to itself
                    result.unreadable.append((path, f"cannot read: {_ref_reason(exc)}"))
                    continue
            result.errors.append(f"{path}: no such file or directory")
            continue
        if path.is_file():
            if config.force_exclude and _ref_skip(path, False, matcher, gitignores):
                continue
            _ref_add(result, seen, path, matcher)
            continue
        for found in _ref_walk(path, matcher, gitignores, result.unreadable):
            _ref_add(result, seen, found, matcher)
    result.files.sort()
    return result


def _ref_add(result: Discovery, seen: set[Path], path: Path, matcher: _RefMatcher) -> None:
    try:
        key = matcher.resolve(path)
    except (OSError, RuntimeError) as exc:
        result.unreadable.append((path, f"cannot read: {_ref_reason(exc)}"))
        return
    if key not in seen:
        seen.add(key)
        result.files.append(path)


def _ref_reason(exc: BaseException) -> str:
    if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
        return "symlink loop (following its links never reaches a file)"
    return getattr(exc, "strerror", None) or str(exc)


def _ref_skip(
    path: Path, is_dir: bool, matcher: _RefMatcher, gitignores: _RefGitIgnores | None
) -> bool:
    return matcher.excluded(path, is_dir) or (
        gitignores is not None and gitignores.ignored(path, is_dir)
    )


def _ref_walk(
    top: Path,
    matcher: _RefMatcher,
    gitignores: _RefGitIgnores | None,
    unreadable: list[tuple[Path, str]],
) -> Iterator[Path]:
    def on_error(exc: OSError) -> None:
        unreadable.append((Path(exc.filename), f"cannot read directory: {exc.strerror}"))

    visited: set[tuple[int, int]] = set()
    for directory, dirnames, filenames in os.walk(top, onerror=on_error, followlinks=True):
        current = Path(directory)
        try:
            stat = current.stat()
        except OSError:
            dirnames[:] = []
            continue
        if (stat.st_dev, stat.st_ino) in visited:
            dirnames[:] = []
            continue
        visited.add((stat.st_dev, stat.st_ino))
        dirnames[:] = sorted(
            d for d in dirnames if not _ref_skip(current / d, True, matcher, gitignores)
        )
        for name in sorted(filenames):
            if not name.endswith(files.PYTHON_SUFFIXES):
                continue
            path = current / name
            if not _ref_skip(path, False, matcher, gitignores):
                yield path


def _ref_module_name(path: Path) -> tuple[str, bool]:
    path = path.absolute()
    is_package = path.stem == "__init__"
    package = _ref_package(path.parent)
    parts = [p for p in (package, "" if is_package else path.stem) if p]
    return ".".join(parts), is_package


@functools.lru_cache(maxsize=4096)
def _ref_package(directory: Path) -> str:
    if directory.name and not directory.name.isidentifier():
        return ""  # no import can name it
    if not ((directory / "__init__.py").is_file() or (directory / "__init__.pyi").is_file()):
        # A namespace package inside a package is imported by its dotted name.
        above = _ref_package(directory.parent) if directory.parent != directory else ""
        return f"{above}.{directory.name}" if above else ""
    if directory.parent == directory:
        return directory.name
    parent = _ref_package(directory.parent)
    return f"{parent}.{directory.name}" if parent else directory.name


# --------------------------------------------------------------------------
# Patterns: the plain-name fast path is pathspec's matching, exactly.

# Characters chosen to hit every special case: glob syntax, escapes, negation,
# comments, whitespace (stripped or not), newlines (pathspec's regexes treat
# them specially), dots, non-ASCII and an undecodable-name surrogate.
_CHARS = st.sampled_from([*"ab.-*?[]!#\\ \n\té", "\udcff"])
_COMPONENT = st.one_of(
    st.sampled_from(
        ["a", "b", "build", "venv", ".git", ".", "..", "a b", "x\n", "\udcff", "ab", "a.b", "ba"]
    ),
    st.text(_CHARS, min_size=1, max_size=3),
)
_PATTERN = st.one_of(
    st.builds(
        lambda negate, name, slash: f"{negate}{name}{slash}",
        st.sampled_from(["", "", "!"]),
        _COMPONENT,
        st.sampled_from(["", "", "/"]),
    ),
    st.sampled_from(
        [
            *["*", "**", "*/", "*.py", "/a", "a/b", "**/b", "a/**", "# c", "", "  ", "\\#a"],
            *[" a", "a ", "a*", "*b", "a?", "?", "a*/", "*.b/", "a*b?", "*a*", "a**b", "é*"],
        ]
    ),
    st.text(_CHARS, max_size=4),
)


def _spec_or_error(lines: list[str]) -> pathspec.GitIgnoreSpec | type[Exception]:
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception as exc:
        return type(exc)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(_PATTERN, max_size=5),
    parents=st.lists(_COMPONENT, max_size=3),
    name=_COMPONENT,
    is_dir=st.booleans(),
    lead=st.sampled_from(["", "", "./", "/", "//"]),
)
def test_patterns_match_exactly_as_pathspec(
    lines: list[str], parents: list[str], name: str, is_dir: bool, lead: str
) -> None:
    expected = _spec_or_error(lines)
    if not isinstance(expected, pathspec.GitIgnoreSpec):
        with pytest.raises(expected):
            GlobPatterns(lines)
        return
    patterns = GlobPatterns(lines)
    candidate = lead + "/".join([*parents, name]) + ("/" if is_dir else "")
    assert patterns.match(candidate) == expected.match_file(candidate), candidate
    # The walk's form: a relative prefix (no "." components, as the walk builds them).
    if "." not in parents and not (not parents and name == "."):
        prefix = "".join(f"{part}/" for part in parents)
        walk = patterns.match_child(patterns.parts_hit(parents), prefix, name, is_dir)
        assert walk == expected.match_file(prefix + name + ("/" if is_dir else ""))


def test_default_excludes_are_plain_names() -> None:
    assert all(_plain_name(pattern) for pattern in DEFAULT_EXCLUDE)
    assert _plain_name("build/") == ("build", True)
    for pattern in ("*.py", "a/b", "/a", "!a", "#a", "a ", "\\a", "a[b]"):
        assert _plain_name(pattern) is None


def test_negations_send_only_what_they_re_include_to_pathspec() -> None:
    """A .gitignore with negations (`.*` then `!.github`, as many have):
    only a path a negation's pattern matches is decided by pathspec with
    every pattern in order; the rest take the fast path, as without
    negations. Where pathspec reads a negation otherwise than its pattern
    (`!/`), everything goes to pathspec."""
    lines = [".*", "!.github", "build/", "*.log", "!keep.log", "/media/"]
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    patterns = GlobPatterns(lines)
    asked: list[str] = []
    whole = patterns._whole_spec()
    real = whole.match_file

    def match_file(path: str) -> bool:
        asked.append(path)
        return real(path)

    whole.match_file = match_file  # type: ignore[method-assign,assignment]
    candidates = [".env", ".github/", "a/.github/x.py", "build/", "x/debug.log", "keep.log"]
    candidates += ["media/", "a/media/", "pkg/views.py", "pkg/"]
    assert [patterns.match(c) for c in candidates] == [spec.match_file(c) for c in candidates]
    assert asked == [".github/", "a/.github/x.py", "keep.log"]
    assert GlobPatterns(["a", "!/"])._reincluding is None


def test_no_pathspec_import_for_plain_names(tmp_path: Path) -> None:
    """Default excludes, the cache's own `*` .gitignore and names with
    wildcards (`*.pyi`, the default test paths' `test_*.py`) need no
    pathspec (~45 ms); a path with a slash does."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("# comment\n\nbuild/\n.env\n")
    (tmp_path / ".joblint_cache").mkdir()
    (tmp_path / ".joblint_cache" / ".gitignore").write_text("# joblint\n*\n")
    (tmp_path / ".joblint_cache" / "x.py").write_text("")
    (tmp_path / "a.py").write_text("")
    code = (
        "import sys; from pathlib import Path; from joblint.config import Config; "
        "from joblint.pipeline.discover import discover; "
        "found = discover([Path('.')], Config(root=Path.cwd())); "
        "print([str(p) for p in found.files], 'pathspec' in sys.modules); "
        "discover([Path('.')], Config(root=Path.cwd(), extend_exclude=('*.pyi',))); "
        "print('pathspec' in sys.modules); "
        "discover([Path('.')], Config(root=Path.cwd(), extend_exclude=('docs/*.py',))); "
        "print('pathspec' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.stdout.splitlines() == ["['a.py'] False", "False", "True"], out.stderr


# --------------------------------------------------------------------------
# Discovery: generated trees, the new implementation against the old one.

_DIRS = ["a", "b", "build", "venv", "gen", ".hidden", "pkg", "x y", "n\nl", "\udcff"]
_FILES = ["m.py", "n.pyi", "__init__.py", "build.py", "notes.txt", "e\nx.py", "\udcfe.py"]
_LINES = [
    "build", "gen/", "*.pyi", "!m.py", "a/m.py", "/pkg", "# c", "", "*", "x y", "**/b",
    "venv/", "m.py", "\\#x", " gen", "n\nl", "__init__.py", "\udcff/", "!",
]  # fmt: skip
_REL_DIR = st.lists(st.sampled_from(_DIRS), max_size=3).map(lambda parts: "/".join(parts))
_ARGS = ["ABS", ".", "a", "build", "a/m.py", "build/m.py", "l", "l.py", "nope.py", "../outside"]
_ARGS += ["a/../b", "venv/m.py"]
_TARGETS = st.sampled_from(["parent", "self", "missing", "outside", "root", "sibling"])


@dataclass(frozen=True)
class _Tree:
    """A project under proj/ (and a sibling outside/), its config and the arguments."""

    files: list[tuple[str, str]]  # (directory, name)
    gitignores: list[tuple[str, list[str]]]  # (directory, lines)
    repos: list[str]  # directories holding a .git
    links: list[tuple[str, str, str]]  # (directory, name, target kind)
    root: str  # the config root, relative to the temporary directory
    exclude: tuple[str, ...]
    extend: tuple[str, ...]
    respect: bool
    force: bool
    args: list[str]


_TREES = st.builds(
    _Tree,
    files=st.lists(st.tuples(_REL_DIR, st.sampled_from(_FILES)), min_size=1, max_size=12),
    gitignores=st.lists(
        st.tuples(_REL_DIR, st.lists(st.sampled_from(_LINES), max_size=4)), max_size=3
    ),
    repos=st.lists(_REL_DIR, max_size=2),
    links=st.lists(
        st.tuples(_REL_DIR, st.sampled_from(["l", "l.py", "m.py"]), _TARGETS), max_size=3
    ),
    root=st.sampled_from(["proj", "proj/a", "."]),
    exclude=st.sampled_from(
        [DEFAULT_EXCLUDE, (), ("gen", "*.pyi"), ("!build", "build"), ("a/", "/b")]
    ),
    extend=st.lists(st.sampled_from(_LINES[:-1]), max_size=2).map(tuple),
    respect=st.booleans(),
    force=st.booleans(),
    args=st.lists(st.sampled_from(_ARGS), min_size=1, max_size=3),
)


def _write(base: Path, relative: str, text: str) -> Path | None:
    path = base / relative
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() and not path.is_symlink():
            path.write_bytes(text.encode("utf-8", "surrogateescape"))
    except OSError:  # a file where a directory is wanted, or the reverse
        return None
    return path


def _build(tmp: Path, tree: _Tree) -> None:
    proj = tmp / "proj"
    proj.mkdir()
    _write(tmp / "outside", "o.py", "")
    for directory, name in tree.files:
        _write(proj, f"{directory}/{name}".lstrip("/"), "")
    for directory, lines in tree.gitignores:
        _write(proj, f"{directory}/.gitignore".lstrip("/"), "\n".join(lines) + "\n")
    for directory in tree.repos:
        _write(proj, f"{directory}/.git/HEAD".lstrip("/"), "ref\n")
    for directory, name, target in tree.links:
        _link(proj, proj / directory / name, target)


def _link(proj: Path, link: Path, target: str) -> None:
    to = {
        "parent": link.parent,
        "self": link,
        "missing": link.parent / "missing",
        "outside": proj.parent / "outside",
        "root": proj,
        "sibling": link.parent / "m.py",
    }[target]
    try:
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(to)
    except OSError:
        pass


def _outcome(call: Callable[[], Discovery]) -> object:
    try:
        found = call()
    except Exception as exc:  # the reference, on an invalid .gitignore line
        return type(exc)
    return [str(p) for p in found.files], found.errors, found.unreadable


@pytest.mark.skipif(
    sys.version_info >= (3, 13),
    reason="the reference finds symlink loops by Path.resolve(), which stopped raising in 3.13",
)
@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(tree=_TREES)
def test_discover_matches_previous_implementation(tree: _Tree) -> None:
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name).resolve()
        _build(tmp, tree)
        root = (tmp / tree.root).resolve()
        root.mkdir(parents=True, exist_ok=True)
        config = Config(
            root=root,
            exclude=tree.exclude,
            extend_exclude=tree.extend,
            respect_gitignore=tree.respect,
            force_exclude=tree.force,
        )
        args = [tmp / "proj" if a == "ABS" else Path(a) for a in tree.args]
        os.chdir(tmp / "proj")
        try:
            expected = _outcome(lambda: _ref_discover(args, config))
            found_now = _outcome(lambda: discover(args, config))
            if isinstance(expected, type) and issubclass(expected, ValueError):
                # The reference crashed on an invalid pattern; joblint skips it.
                assert isinstance(found_now, tuple)
                return
            assert found_now == expected
            if isinstance(expected, tuple):
                found = discover(args, config).files
                assert [module_name(p) for p in found] == [_ref_module_name(p) for p in found]
        finally:
            os.chdir(cwd)


# --------------------------------------------------------------------------
# The behaviours by name.


def _tree(base: Path, paths: Iterable[str]) -> None:
    for relative in paths:
        _write(base, relative, "")


def _found(result: Discovery, base: Path) -> list[str]:
    return [
        p.relative_to(base).as_posix() if p.is_absolute() else p.as_posix() for p in result.files
    ]


def test_excludes_match_by_name_at_any_depth_and_by_relative_path(tmp_path: Path) -> None:
    _tree(tmp_path, ["src/a.py", "src/build/b.py", "build.py", "x/venv/c.py", "e.pyi"])
    _tree(tmp_path, ["src/gen/d.py", "gen/d.py"])  # "src/gen" is anchored to the root
    config = Config(root=tmp_path, extend_exclude=("src/gen", "*.pyi"))
    assert _found(discover([tmp_path], config), tmp_path) == ["build.py", "gen/d.py", "src/a.py"]


def test_excluded_file_named_explicitly_needs_force_exclude(tmp_path: Path) -> None:
    _tree(tmp_path, ["build/c.py"])
    named = [tmp_path / "build" / "c.py"]
    assert discover(named, Config(root=tmp_path)).files == named
    assert discover(named, Config(root=tmp_path, force_exclude=True)).files == []


def test_gitignore_from_repository_root_down(tmp_path: Path) -> None:
    _tree(tmp_path, ["repo/.git/HEAD", "repo/a/gen/x.py", "repo/a/b/y.py", "repo/a/z.py"])
    (tmp_path / "repo" / ".gitignore").write_text("gen/\n")
    (tmp_path / "repo" / "a" / ".gitignore").write_text("b\n")
    top = tmp_path / "repo" / "a"
    assert _found(discover([top], Config(root=top)), top) == ["z.py"]
    unignored = discover([top], Config(root=top, respect_gitignore=False))
    assert _found(unignored, top) == ["b/y.py", "gen/x.py", "z.py"]


def test_invalid_patterns_are_skipped_like_git_and_excludes_reported(tmp_path: Path) -> None:
    """A .gitignore line pathspec can't read (`!` alone, a trailing backslash)
    is skipped, as git skips it; an invalid exclude is a one-line error and
    the run goes on with the other patterns."""
    _tree(tmp_path, ["repo/.git/HEAD", "repo/gen/x.py", "repo/keep.py", "repo/b/y.py"])
    (tmp_path / "repo" / ".gitignore").write_text("!\ngen/\nfoo\\\n")
    top = tmp_path / "repo"
    found = discover([top], Config(root=top, extend_exclude=("!", "b")))
    assert _found(found, top) == ["keep.py"]
    assert found.errors == ["exclude: invalid pattern '!', ignored"]


def test_outside_a_repository_only_a_directorys_own_gitignore_applies(tmp_path: Path) -> None:
    _tree(tmp_path, ["a/gen/x.py", "a/y.py"])
    (tmp_path / ".gitignore").write_text("gen/\n")
    assert _found(discover([tmp_path / "a"], Config(root=tmp_path)), tmp_path) == [
        "a/gen/x.py",
        "a/y.py",
    ]


def test_symlinks_followed_deduplicated_and_loops_reported(tmp_path: Path) -> None:
    _tree(tmp_path, ["pkg/a.py"])
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg", target_is_directory=True)
    (tmp_path / "alias").symlink_to(tmp_path / "pkg", target_is_directory=True)
    (tmp_path / "self.py").symlink_to(tmp_path / "self.py")
    result = discover([tmp_path], Config(root=tmp_path))
    assert _found(result, tmp_path) == ["alias/a.py"]  # the first path in walk order
    assert result.errors == []
    loop = "cannot read: symlink loop (following its links never reaches a file)"
    assert result.unreadable == [(tmp_path / "self.py", loop)]


def test_symlinked_directory_is_excluded_by_its_target(tmp_path: Path) -> None:
    _tree(tmp_path, ["build/gen/a.py", "src/b.py"])
    (tmp_path / "src" / "link").symlink_to(tmp_path / "build" / "gen", target_is_directory=True)
    assert _found(discover([tmp_path / "src"], Config(root=tmp_path)), tmp_path) == ["src/b.py"]


def test_odd_and_undecodable_names(tmp_path: Path) -> None:
    names = ["new\nline.py", os.fsdecode(b"\xff.py"), "sp ace.py"]
    _tree(tmp_path, names)
    assert _found(discover([tmp_path], Config(root=tmp_path)), tmp_path) == sorted(names)


def test_unreadable_directory_is_one_unreadable_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path, ["a.py", "locked/b.py"])
    real = os.scandir

    def scandir(path: str) -> object:
        if path.endswith("locked"):
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = discover([tmp_path], Config(root=tmp_path))
    assert _found(result, tmp_path) == ["a.py"]
    assert result.errors == []
    assert result.unreadable == [(tmp_path / "locked", "cannot read directory: Permission denied")]


def test_module_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, ["app/__init__.py", "app/sub/__init__.pyi", "app/sub/m.py", "loose/x.py"])
    monkeypatch.chdir(tmp_path)
    assert module_name(Path("app/sub/m.py")) == ("app.sub.m", False)
    assert module_name(tmp_path / "app" / "sub" / "__init__.pyi") == ("app.sub", True)
    assert module_name(Path("app/__init__.py")) == ("app", True)
    assert module_name(Path("loose/x.py")) == ("x", False)
    (tmp_path / "loose" / "__init__.py").write_text("")
    discover([tmp_path], Config(root=tmp_path))  # forgets packages: they may have changed
    assert module_name(Path("loose/x.py")) == ("loose.x", False)


def test_a_directory_no_import_can_name_is_no_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository root with an `__init__.py` of its own, named so that no
    import can name it (`shop-v2`): its packages are top-level, as the
    project's imports name them."""
    _tree(
        tmp_path,
        [
            "shop-v2/__init__.py",
            "shop-v2/billing/__init__.py",
            "shop-v2/billing/api.py",
            "plain/__init__.py",
            "plain/orders.py",
        ],
    )
    monkeypatch.chdir(tmp_path)
    discover([tmp_path], Config(root=tmp_path))
    assert module_name(Path("shop-v2/billing/api.py")) == ("billing.api", False)
    assert module_name(Path("plain/orders.py")) == ("plain.orders", False)


def test_a_directory_above_the_user_may_not_search_holds_no_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking for the enclosing git root up from the current directory: a
    directory above that can't be searched ends the look there, no traceback."""
    from joblint.pipeline.schedule.roots import project_root

    inner = tmp_path / "outer" / "inner"
    inner.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    unsearchable = str(tmp_path / "outer" / ".git")
    real_stat = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(path) == unsearchable:
            raise PermissionError(errno.EACCES, "Permission denied", unsearchable)
        return real_stat(path, *args, **kwargs)

    monkeypatch.chdir(inner)
    monkeypatch.setattr(os, "stat", stat)
    assert project_root(Config(root=inner)) == tmp_path.resolve()
