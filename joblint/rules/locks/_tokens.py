"""The locks family's prefilter vocabulary: what names a Redis lock's or a cache's receiver.

A lock method is often an ordinary word (`.lock(`, `.add(`): it counts where the
file names a Redis client's or a framework cache's module. Derived from the lock
tables (`joblint.knowledge.locks`).
"""

from __future__ import annotations

from collections.abc import Iterable

from joblint.knowledge import locks
from joblint.knowledge.tokens import alternatives, tops

# A `nx=` keyword (Redis SET NX).
NX = r"\bnx\s*="


def modules_of(qualnames: Iterable[str]) -> str:
    """One of the modules the names are imported from, as a word."""
    return rf"\b(?:{alternatives(tops(qualnames))})\b"


def _modules_named(modules: set[str]) -> str:
    """One of `modules` imported (`import a.b.c`, `from a.b.c import x`) or
    imported from its parent (`from a.b import c`; any parent with any last
    name: more than those, never less), as one pattern."""
    parents = {m.rpartition(".")[0] for m in modules if "." in m}
    lasts = {m.rpartition(".")[2] for m in modules if "." in m}
    return (
        rf"\b(?:{alternatives(modules)})\b"
        rf"|\bfrom\s+(?:{alternatives(parents)})\s+import\b[^\n]*\b(?:{alternatives(lasts)})\b"
    )


# A framework cache's module is named (`from django.core.cache import cache`,
# a `RedisCache` annotation's module): the receivers a cache's `add` lock needs.
CACHE_MODULES = _modules_named(
    {name.rsplit(".", 1)[0] for name in [*locks.CACHE_OBJECTS, *locks.CACHE_CLASSES]}
)

# A Redis client or a framework cache is named (`redis.Redis(...)`,
# `get_redis_connection`, `from django.core.cache import cache`): the receivers
# `.lock(name)` needs.
REDIS_CLIENTS = modules_of(
    [*locks.REDIS_CLIENT_CONSTRUCTORS, *locks.REDIS_CLIENT_CLASSES, *locks.CACHE_OBJECTS]
)
