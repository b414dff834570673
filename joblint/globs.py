"""gitignore-style patterns, matched fast: plain names as set lookups, names
with `*` and `?` as one regular expression per component, the rest by
pathspec (imported only when a pattern needs it: about 45 ms).

Used by discovery (excludes, `.gitignore`), the config layer (validating
`test-paths`) and the project step (which files are test code).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec


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


def _wild_name(pattern: str) -> tuple[str, bool] | None:
    """`(regular expression of one path component, directories only)` when
    `pattern` is a name with `*`/`?` wildcards and nothing else of glob
    syntax (`test_*.py`), else None. pathspec compiles it as a plain name
    with `*` as `[^/]*` and `?` as `[^/]` (`^(?:.+/)?test_[^/]*\\.py(?:/.*)?$`):
    a component of the path that matches; checked against pathspec by
    tests/test_files.py. (`*` and `**` alone mean more.)"""
    name = pattern[:-1] if pattern.endswith("/") else pattern
    if not name or name[0] in "!#" or name in ("*", "**") or "**" in name:
        return None
    if any(c in "[]\\/" or c.isspace() for c in name) or not any(c in "*?" for c in name):
        return None
    regex = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in name)
    return regex, name != pattern


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

    Plain names are set lookups, names with `*`/`?` one regular expression
    per component, `*` (the joblint cache's .gitignore) matches everything,
    and the rest goes to pathspec. The split is exact because with
    no negation a path is matched when any one pattern matches. With a
    negation ("!") order matters: a path one of the negations matches goes
    to pathspec with every pattern; any other is matched when one of the
    other patterns matches, as without negations (the negations, matched
    as the patterns they re-include, are a `GlobPatterns` of their own).
    Where a negation's pattern reads otherwise without its "!" (`!#a`,
    ` !a`), everything goes to pathspec. Candidates with a newline, empty,
    or starting with "/" once normalised (never built by the walk) also go
    to pathspec: its regexes treat them specially (`.` does not match a
    newline, `$` matches before one).
    """

    __slots__ = (
        "_any_depth",
        "_dir_names",
        "_everything",
        "_lines",
        "_names",
        "_reincluding",
        "_rest",
        "_whole",
        "_wild",
        "_wild_dirs",
    )

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = tuple(line for line in lines if not _is_null(line))
        negations = [line for line in self._lines if line.lstrip().startswith("!")]
        # What the negations re-include: None where there are none, or where
        # one can't be read apart (then `negated`: everything to pathspec).
        self._reincluding = _reincluding(negations)
        negated = bool(negations) and self._reincluding is None
        names: set[str] = set()
        dir_names: set[str] = set()
        wild: list[str] = []
        wild_dirs: list[str] = []
        rest: list[str] = []
        self._everything = False
        for line in self._lines:
            if self._reincluding is not None and line.startswith("!"):
                continue  # decided by pathspec, with every pattern in order
            plain = None if negated else _plain_name(line)
            wildcard = None if negated or plain is not None else _wild_name(line)
            if not negated and line in ("*", "**"):
                self._everything = True
            elif plain is not None:
                (dir_names if plain[1] else names).add(plain[0])
            elif wildcard is not None:
                (wild_dirs if wildcard[1] else wild).append(wildcard[0])
            else:
                rest.append(line)
        self._names = frozenset(names)
        self._dir_names = frozenset(dir_names)
        self._any_depth = self._names | self._dir_names  # names that match as a parent
        # A component matching a wildcard name (directories only: a parent's).
        self._wild = _components(wild)
        self._wild_dirs = _components([*wild, *wild_dirs])
        # Compiled now, as before: an invalid pattern raises here, not mid-walk.
        self._rest = _spec(rest) if rest else None
        self._whole = self._rest if len(rest) == len(self._lines) else None

    def __bool__(self) -> bool:
        return bool(self._lines)

    def parts_hit(self, parents: Iterable[str]) -> bool:
        """Whether a name matches one of `parents`, a candidate's directories."""
        wild = self._wild_dirs
        if wild is None:
            return not self._any_depth.isdisjoint(parents)
        found = list(parents)
        return not self._any_depth.isdisjoint(found) or any(wild.fullmatch(p) for p in found)

    def match(self, candidate: str) -> bool:
        """Whether `candidate` (a relative path, ending in "/" for a directory) is matched."""
        path = _normalize(candidate)
        if not path or path.startswith("/") or "\n" in path or self._reincluded(candidate):
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
        if "\n" in candidate or self._reincluded(candidate):
            return self.match(candidate)
        return self._plain_match(above, name, is_dir) or (
            self._rest is not None and self._rest.match_file(candidate)
        )

    def _reincluded(self, candidate: str) -> bool:
        """Whether a negation's pattern matches `candidate`: then the order
        of the patterns decides."""
        return self._reincluding is not None and self._reincluding.match(candidate)

    def _plain_match(self, above: bool, last: str, is_dir: bool) -> bool:
        # `last` is "" for a candidate ending in "/" (its name is then a parent).
        if above or self._everything or last in self._names or (is_dir and last in self._dir_names):
            return True
        wild = self._wild_dirs if is_dir else self._wild
        return wild is not None and wild.fullmatch(last) is not None

    def _whole_spec(self) -> pathspec.GitIgnoreSpec:
        if self._whole is None:
            self._whole = _spec(self._lines)
        return self._whole


def _reincluding(negations: list[str]) -> GlobPatterns | None:
    """The patterns the negations re-include, matched as patterns of their
    own; None for no negation, or one pathspec doesn't read as its pattern
    with "!" before it (`!/`, `!#a`, ` !a`: see `_negates`)."""
    if not negations or not all(_negates(line, line[1:]) for line in negations):
        return None
    return GlobPatterns([line[1:] for line in negations])


def _negates(line: str, pattern: str) -> bool:
    """Whether pathspec compiles `line` to `pattern`'s expression, excluding
    where `pattern` includes (asked of pathspec itself: which lines are
    comments, escapes or nothing differs with a "!" before them)."""
    if not line.startswith("!") or _is_null(pattern):
        return False
    try:
        (negation,) = _spec([line]).patterns
        (plain,) = _spec([pattern]).patterns
    except ValueError:  # an invalid pattern: the whole set is refused where it is compiled
        return False
    if negation.regex is None or plain.regex is None:
        return False
    same = negation.regex.pattern == plain.regex.pattern
    return same and negation.include is False and plain.include is True


def _components(regexes: list[str]) -> re.Pattern[str] | None:
    """One expression a path component matches when it matches one of them."""
    if not regexes:
        return None
    return re.compile("|".join(f"(?:{r})" for r in regexes), re.DOTALL)


def valid_patterns(lines: list[str], invalid: list[str]) -> GlobPatterns:
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
