"""The sub-projects of a run: projects whose code can't reach each other's
are modelled apart.

A monorepo holds several projects, each with its own settings, tasks and
request handlers, and often module names in common (`tests`, `config`,
`api`). Modelled as one project, their modules of one name are taken for
one module, one project's settings (`ATOMIC_REQUESTS`) govern the others,
and every search by name (who calls a function named `save`) reads every
project. So a run's files are cut into parts, each modelled alone:

- a *sub-project* is a directory holding a project file (`PROJECT_FILES`)
  with the files imported from below it (their import root, from their
  `__init__.py` packages) that no nearer such directory holds; files below
  none are one sub-project of their own;
- two sub-projects are one part when a file of either imports a top-level
  package that only the other defines, so a shared library and the
  services that import it stay one model. A package the importing
  sub-project defines itself is its own, as Python would find it first.
  Dotted strings don't join parts: in real code most are app labels
  (`"api.Project"`), URL names and file names, which would join every
  project with a `config` or an `api` package to every other.

An import in doubt joins parts (a docstring that reads like an import
statement counts as one): a joined part only costs time, a split one may
lose a caller. A run with one sub-project (most runs) reads no file for this.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from joblint.pipeline.schedule.sources import Source
from joblint.settings import ModuleInfo

# A directory holding one of these is a project of its own.
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "manage.py")

# `from x...` and `import x, y.z as w` at a line's start (inside a block too);
# a docstring that looks like one only joins parts, never splits them.
_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)|import[ \t]+([^\r\n#;]+))", re.M)
_NAME = re.compile(rb"[A-Za-z_]\w*")


@dataclass(slots=True)
class Part:
    """Files modelled together, and their sub-projects' directories."""

    sources: list[Source] = field(default_factory=list)
    homes: list[str] = field(default_factory=list)


def parts(sources: Sequence[Source]) -> list[Part]:
    """`sources` cut into the parts modelled apart, each in the order given
    (one part, the whole run, when its files hold one sub-project)."""
    homes = _Homes()
    home_of = [homes.of(_import_root(source.path, source.module)) for source in sources]
    distinct = sorted(set(home_of), key=home_of.index)
    if len(distinct) < 2:
        return [Part(list(sources), distinct)]
    joined = _Joined(distinct)
    _join_importers(sources, home_of, joined)
    grouped: dict[str, Part] = {}
    for home in distinct:
        grouped.setdefault(joined.find(home), Part()).homes.append(home)
    for source, home in zip(sources, home_of, strict=True):
        grouped[joined.find(home)].sources.append(source)
    return list(grouped.values())


def home_of(path: Path, module: ModuleInfo) -> str:
    """The sub-project of the file at `path`, whose module is `module`."""
    return _Homes().of(_import_root(path, module))


def _import_root(path: Path, module: ModuleInfo) -> str:
    """The directory a file's module is imported from (where `sys.path`
    would point): a project file inside a package (a test app's
    `manage.py`) leaves the package's files with the project above it."""
    directory = os.path.dirname(os.path.abspath(path))
    package = module.name
    if not module.is_package:  # the module's name less its file's stem
        package = package[: len(package) - len(path.stem)].rstrip(".")
    levels = package.count(".") + 1 if package else 0
    for _ in range(levels):
        directory = os.path.dirname(directory)
    return directory


class _Homes:
    """Each directory's sub-project: the nearest directory at or above it
    holding a project file ("" for none), looked up once per directory."""

    def __init__(self) -> None:
        self._known: dict[str, str] = {}

    def of(self, directory: str) -> str:
        known = self._known.get(directory)
        if known is not None:
            return known
        if any(os.path.isfile(os.path.join(directory, name)) for name in PROJECT_FILES):
            home = directory
        else:
            parent = os.path.dirname(directory)
            home = "" if parent == directory else self.of(parent)
        self._known[directory] = home
        return home


class _Joined:
    """Sub-projects joined into parts (union-find by sub-project)."""

    def __init__(self, homes: Iterable[str]) -> None:
        self._parent = {home: home for home in homes}

    def find(self, home: str) -> str:
        while self._parent[home] != home:
            self._parent[home] = self._parent[self._parent[home]]
            home = self._parent[home]
        return home

    def join(self, one: str, other: str) -> None:
        one, other = self.find(one), self.find(other)
        if one != other:
            self._parent[max(one, other)] = min(one, other)


def _join_importers(sources: Sequence[Source], home_of: list[str], joined: _Joined) -> None:
    """Join each file's sub-project with those defining a top-level package
    it imports, unless it defines that package itself."""
    definers: dict[bytes, set[str]] = {}  # top-level package -> the sub-projects defining it
    for source, home in zip(sources, home_of, strict=True):
        top = source.module.name.partition(".")[0]
        if top:
            definers.setdefault(top.encode(), set()).add(home)
    for source, home in zip(sources, home_of, strict=True):
        for imported in _imported(source.data):
            found = definers.get(imported)
            if found and home not in found:
                for other in found:
                    joined.join(home, other)


def _imported(data: bytes) -> set[bytes]:
    """The top-level packages a file imports (absolute imports only: a
    relative one stays in its package)."""
    imported: set[bytes] = set()
    for found in _IMPORT.finditer(data):
        if found.group(1):
            imported.add(found.group(1))
            continue
        for each in found.group(2).split(b","):
            first = _NAME.match(each.strip().lstrip(b"("))
            if first:
                imported.add(first.group())
    return imported
