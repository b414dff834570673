"""Tokens without which a rule cannot fire, per rule, as data for the prefilter.

A file whose bytes match none of the selected rules' patterns (nor the
whole-project fact patterns) is never parsed. Patterns are matched against the
lower-cased bytes (so they are written in lower case), after a cheap check for
one of the rule's literal anchors; a rule whose pattern is None is decided by
its anchors alone. Each pattern is derived from the
library tables where they name the trigger; it must stay conservative: a test
lints every rule example, the examples and the fixtures with and without the
prefilter and requires identical findings.
"""

from __future__ import annotations

import re

from joblint.knowledge import jobs, payloads

_ENQUEUE_METHODS = sorted({*jobs.ENQUEUE_METHODS, *payloads.PAYLOAD_SHAPES} - {"__call__"})
_ENQUEUE_FUNCTIONS = sorted({q.rsplit(".", 1)[-1] for q in jobs.ENQUEUE_FUNCTIONS})
_CANVAS = sorted({q.rsplit(".", 1)[-1] for q in jobs.CANVAS_CALLABLES})


def _alternatives(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in words)


def _method_calls(words: list[str]) -> str:
    """`.name(`: a method call, not the bare word. (A space before the
    parenthesis, which no formatter writes, is not looked for.)"""
    return rf"\.(?:{_alternatives(words)})\("


# A transaction scope: `atomic` (with, decorator, method_decorator), `.begin(`,
# `.transaction(`, Tortoise's `in_transaction`, psycopg's `with conn:`.
TRANSACTION = "|".join(
    [
        r"\batomic\b|in_transaction|psycopg",
        _method_calls(sorted({*jobs.TRANSACTION_METHODS} - {"atomic"})),
    ]
)

# Files that can hold whole-project facts read by rules that scan every file's
# facts (JL5's Celery settings and delays; django-q's ORM-broker switch). Facts
# looked up by name (tasks, classes, constants) are loaded on demand instead.
PROJECT_FACT_ANCHORS = (
    "celery",
    "broker",
    "time_limit",
    "visibility_timeout",
    "countdown",
    "eta=",
    "eta =",
    "q_cluster",
)
# An enqueue call: `x.delay(`, `.apply_async(`, `async_task(`, a canvas `chain(`.
_ENQUEUE_ANCHORS = (
    *(f".{m}(" for m in _ENQUEUE_METHODS),
    *(f"{f}(" for f in (*_ENQUEUE_FUNCTIONS, *_CANVAS)),
    "partial(",  # functools.partial(queue.enqueue, ...)
)

# Literal, lower-case substrings one of which every trigger of the rule contains.
RULE_ANCHORS: dict[str, tuple[str, ...]] = {
    "JL002": ("joblint", "noqa"),  # suppression comments
    # Inside a transaction scope; the enqueue may be a Huey task call (no token).
    "JL101": ("atomic", "in_transaction", "psycopg", ".begin", ".transaction"),
    "JL102": (".commit(",),
    "JL103": tuple(f".{m}(" for m in sorted(payloads.FORWARDED_OPTIONS)),
    "JL104": ("on_commit",),
    "JL105": tuple(f".{m}(" for m in sorted(payloads.ASYNC_ENQUEUE_METHODS)),
    # Payload rules look at enqueue arguments; Huey task calls are found by the
    # second phase (files naming a known Huey task).
    "JL201": _ENQUEUE_ANCHORS,
    "JL202": _ENQUEUE_ANCHORS,
    "JL301": ("retry", "backoff", "wait_", "sleep"),
    "JL302": ("retry", "backoff", "sleep", "max_attempts", "q_cluster"),
    "JL303": ("retry", "backoff", "on_exception"),
    "JL401": ("for",),
    # SET NX, setnx, `.lock(` (redis-py, django-redis), redis/redis_lock `Lock(`, Huey.
    "JL402": ("nx", "setnx", ".lock", "redis", "lock_task"),
    "JL403": ("nx",),
    "JL404": ("blocking", "nx", "pg_try_advisory"),
    # Whole-project rules: their findings sit where the settings and limits are.
    "JL501": PROJECT_FACT_ANCHORS,
    "JL502": PROJECT_FACT_ANCHORS,
}

# A precise confirmation, run on the lower-cased bytes after an anchor matched,
# where the anchors alone would let too many files through.
RULE_TOKENS: dict[str, str] = {
    "JL101": TRANSACTION,
    "JL401": r"for(?:\s+(?:no\s+key\s+)?update|\s+(?:key\s+)?share|_update)",
    "JL402": r"nx\s*=|setnx|\.lock\s*\(|redis|lock_task",
    "JL403": r"nx\s*=",
    "JL404": r"blocking\s*=|nx\s*=|pg_try_advisory",
}
