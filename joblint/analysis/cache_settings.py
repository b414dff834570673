"""A cache framework's setting of its caches (`locks.CACHES_SETTING`: `CACHES =
{"default": {"BACKEND": "..."}}`), read statically: which backend each cache
alias is.

The JL4 lock rules need it to name the right keyword of a cache's `lock()`
(each backend's `CACHE_BACKENDS` entry says its keyword). The settings module
is usually another file than the lock, so the pairs become file facts and the
project step settles the message.
"""

from __future__ import annotations

import libcst as cst

from joblint.knowledge import locks

# An alias whose backend can't be read, or a CACHES that isn't a dict literal.
UNKNOWN = ""


def cache_backends(value: cst.BaseExpression) -> list[tuple[str, str]]:
    """(alias, backend) pairs of a `CACHES = {...}` value; the backend is
    UNKNOWN when it isn't a plain string, the alias UNKNOWN when the value
    isn't a dict literal (`CACHES = parse_caches()`)."""
    if not isinstance(value, cst.Dict):
        return [(UNKNOWN, UNKNOWN)]
    found: list[tuple[str, str]] = []
    for element in value.elements:
        if not isinstance(element, cst.DictElement):
            return [(UNKNOWN, UNKNOWN)]  # `**BASE_CACHES`: any alias may come from it
        alias = _string(element.key)
        if alias is None:
            return [(UNKNOWN, UNKNOWN)]
        found.append((alias, _backend(element.value)))
    return found


def _backend(options: cst.BaseExpression) -> str:
    if not isinstance(options, cst.Dict):
        return UNKNOWN
    for element in options.elements:
        if isinstance(element, cst.DictElement) and _string(element.key) == locks.CACHE_BACKEND_KEY:
            return _string(element.value) or UNKNOWN
    return UNKNOWN


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None
