"""One module per library: its names, defaults and shapes as data.

Each module here defines `LIBRARIES` (see `joblint.libraries.base.Library`) for
its job and database APIs and may define further declarations of other kinds
(`collect(name)` gathers one kind from every module, e.g. the retry APIs of
`joblint.libraries.retry_api`); a library with none of the first, like the
standard library's `python`, declares only the others. Modules are found by
walking the package, so adding a library is adding a module.
`joblint.knowledge` merges their tables into the lookups the analysis reads;
rules and analysis never spell a library's names.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType
from typing import Any

from joblint.libraries.base import Library

# Modules of this package that are not libraries: the kinds of declarations.
_NOT_LIBRARIES = frozenset({"base", "job_work", "locking", "objects", "queries", "retry_api"})


def library_modules() -> tuple[str, ...]:
    """The library module names, sorted (a directory listing)."""
    names = (info.name for info in pkgutil.iter_modules(__path__))
    return tuple(sorted(n for n in names if n not in _NOT_LIBRARIES and not n.startswith("_")))


@cache
def _modules() -> tuple[ModuleType, ...]:
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in library_modules())


@cache
def all_libraries() -> tuple[Library, ...]:
    """Every library every module declares, sorted by key: the merge order
    (when two libraries share a method, the first named is the primary one)."""
    found: list[Library] = list(collect("LIBRARIES"))
    return tuple(sorted(found, key=lambda library: library.key))


def collect(name: str) -> tuple[Any, ...]:
    """Every module's declarations of one kind (the tuple a module binds to
    `name`), in module order."""
    return tuple(item for module in _modules() for item in getattr(module, name, ()))
