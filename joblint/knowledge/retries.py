"""The retry APIs and the retry vocabulary, merged from the library modules.

Each library declares its retry APIs in its own module
(`joblint.libraries.<library>`, with the kinds of `joblint.libraries.retry_api`):
tenacity, backoff and urllib3 their calls, Celery and procrastinate their task
options and retry method, django-q its settings; Python's standard library and
the async runtimes their sleeps, clocks and random modules. This module joins
them into the lookups `joblint.rules.retries._facts.retry_policies` and
`joblint.analysis.expressions` read; the rules and the analysis never spell a
library's names.

What stays here is no library's: name heuristics, joblint's own advice, and
what a conflict is across the database and cache clients (the exceptions a
retry loop may retry on without failing).
"""

from __future__ import annotations

from collections.abc import Iterable

from joblint.libraries import collect
from joblint.libraries.joblint_runtime import FULL_JITTER as FULL_JITTER
from joblint.libraries.joblint_runtime import FULL_JITTER_ALIASES as FULL_JITTER_ALIASES
from joblint.libraries.joblint_runtime import FULL_JITTER_CALL
from joblint.libraries.retry_api import REFERENCE_ATTEMPTS as REFERENCE_ATTEMPTS
from joblint.libraries.retry_api import (
    GrowthFunction,
    RetryCall,
    RetrySetting,
    RetryVocabulary,
    Says,
)
from joblint.libraries.retry_api import TaskRetries as TaskRetries

_VOCABULARY: tuple[RetryVocabulary, ...] = collect("RETRY_VOCABULARY")


def _merged(names_of: Iterable[Iterable[str]]) -> frozenset[str]:
    return frozenset(name for names in names_of for name in names)


# --- the shared expression analysis: randomness, growth, sleeping ----------

RANDOM_MODULES: tuple[str, ...] = tuple(m for v in _VOCABULARY for m in v.random_modules)
JITTER_HELPERS: frozenset[str] = _merged(v.jitter_helpers for v in _VOCABULARY)
GROWTH_FUNCTIONS: dict[str, GrowthFunction] = {
    f.qualname: f for v in _VOCABULARY for f in v.growth_functions
}
POWER_FUNCTIONS: frozenset[str] = _merged(v.power_functions for v in _VOCABULARY)
PURE_FUNCTIONS: frozenset[str] = _merged(v.pure_functions for v in _VOCABULARY)
PURE_MODULES: tuple[str, ...] = tuple(m for v in _VOCABULARY for m in v.pure_modules)
SLEEP_FUNCTIONS: dict[str, str] = {q: keyword for v in _VOCABULARY for q, keyword in v.sleeps}
COUNTING_ITERABLES: frozenset[str] = _merged(v.counting_iterables for v in _VOCABULARY)
ENUMERATING_ITERABLES: frozenset[str] = _merged(v.enumerating_iterables for v in _VOCABULARY)
CLOCK_FUNCTIONS: frozenset[str] = _merged(v.clocks for v in _VOCABULARY)
BROAD_EXCEPTIONS: frozenset[str] = _merged(v.broad_exceptions for v in _VOCABULARY)
EXCEPTION_FILTERS: frozenset[str] = _merged(v.exception_filters for v in _VOCABULARY)
# A draw of a fresh value (`uuid.uuid4()`, `secrets.token_hex()`): calls into
# these modules make a colliding insert try a new value.
FRESH_VALUE_MODULES: tuple[str, ...] = (
    *(m for v in _VOCABULARY for m in v.fresh_value_modules),
    *RANDOM_MODULES,
)

# An unresolved callee or attribute whose last name contains one of these is
# taken as random (`self._jitter()`, `add_random_spread(x)`): a documented
# heuristic that can only make the rules report less.
RANDOM_NAME_HINTS: tuple[str, ...] = ("jitter", "random")
# A callee whose name holds one of these draws a fresh value (`get_random_string(8)`).
FRESH_VALUE_HINTS: tuple[str, ...] = ("random", "uuid")

# --- the retry APIs ----------

RETRY_CALL_APIS: tuple[RetryCall, ...] = collect("RETRY_CALLS")
# Qualified name of the callee -> the call's declaration.
RETRY_CALLS: dict[str, RetryCall] = {name: api for api in RETRY_CALL_APIS for name in api.callees}
# Decorators also used bare (`@retry`), with the library's defaults.
BARE_RETRY_DECORATORS: dict[str, RetryCall] = {
    name: api for api in RETRY_CALL_APIS for name in api.bare
}
TASK_RETRIES: tuple[TaskRetries, ...] = collect("TASK_RETRIES")
# The keywords of the job libraries' retry methods setting the delay (`countdown=`).
TASK_DELAY_KEYWORDS: frozenset[str] = frozenset(
    keyword for r in TASK_RETRIES if r.method is not None for keyword in r.method.delay_keywords
)
RETRY_SETTINGS: dict[str, RetrySetting] = {s.setting: s for s in collect("RETRY_SETTINGS")}

# --- conflicts: retried on purpose, not failures ----------

# Another writer got there first, and the next pass re-reads what it changed
# (Redis WATCH/MULTI, optimistic locking, a serialisation failure). Retrying on
# these alone is not an unbounded retry.
CONFLICT_EXCEPTIONS: frozenset[str] = frozenset(
    {
        "redis.WatchError",
        "redis.exceptions.WatchError",
        "redis.asyncio.WatchError",
        "sqlalchemy.orm.exc.StaleDataError",
        "concurrency.exceptions.RecordModifiedError",
        "psycopg2.errors.SerializationFailure",
        "psycopg.errors.SerializationFailure",
        "asyncpg.SerializationError",
        "asyncpg.exceptions.SerializationError",
    }
)
# A unique-key collision: a conflict only when the loop tries a new value on
# each pass (a fresh code, slug or token); the same insert again is a failure.
COLLISION_EXCEPTIONS: frozenset[str] = frozenset(
    {
        "django.db.IntegrityError",
        "django.db.utils.IntegrityError",
        "sqlalchemy.exc.IntegrityError",
        "psycopg2.IntegrityError",
        "psycopg2.errors.UniqueViolation",
        "psycopg.IntegrityError",
        "psycopg.errors.UniqueViolation",
        "asyncpg.UniqueViolationError",
        "asyncpg.exceptions.UniqueViolationError",
        "sqlite3.IntegrityError",
        "pymysql.err.IntegrityError",
        "MySQLdb.IntegrityError",
    }
)

# --- joblint's advice, whatever the library ----------

# The helper the fixes of computed delays call (`FULL_JITTER`), in a message.
FIX_FULL_JITTER = FULL_JITTER_CALL
FIX_ATTEMPT_LOOP = (
    f"Count attempts (for attempt in range({REFERENCE_ATTEMPTS}): ...) and re-raise after the last"
)
FIX_TRANSIENT = (
    "a tuple of transient exception types (timeouts, connection errors, 5xx, 429), "
    "so bugs fail fast to the dead-letter queue"
)

# What a finding says about a retry loop written by hand.
SLEEP_LOOP = Says("Sleep between retries", f"Use {FIX_FULL_JITTER}")
WHILE_TRUE_LOOP = Says(
    "This while True loop retries on error forever (nothing gives up)", FIX_ATTEMPT_LOOP
)
