"""What row locks, Redis locks and SQL-running calls look like, merged from the libraries.

Each library declares its own data in `joblint.libraries.<library>` (the kinds
of `joblint.libraries.locking` and `joblint.libraries.queries`); this module
joins them into the lookups the JL4 rules and `joblint.analysis` read. What
is no library's (SQL itself, the words of a lock key, joblint's own fixes)
is here. Rules and analysis never spell a library's names.

Qualified names have the meaning `Resolver.qualified_name` gives them: the
dotted path a name was imported from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

from joblint.libraries import collect
from joblint.libraries.joblint_runtime import ADVISORY_LOCK, JOB_QUEUE_CLAIM, REDIS_LOCK
from joblint.libraries.locking import CacheBackend as CacheBackend
from joblint.libraries.locking import CacheFramework as CacheFramework
from joblint.libraries.locking import KeyCommands as KeyCommands
from joblint.libraries.locking import KeyLockCommand as KeyLockCommand
from joblint.libraries.locking import LockApi as LockApi
from joblint.libraries.locking import LockReceiver as LockReceiver
from joblint.libraries.locking import NonBlockingAcquire as NonBlockingAcquire
from joblint.libraries.locking import RedisClients as RedisClients
from joblint.libraries.locking import ResponseCache as ResponseCache
from joblint.libraries.locking import TryLockContext as TryLockContext
from joblint.libraries.queries import ModelKeyApi as ModelKeyApi
from joblint.libraries.queries import QueryApi as QueryApi
from joblint.libraries.queries import RowLockApi as RowLockApi
from joblint.libraries.queries import SqlApi as SqlApi
from joblint.settings import LOCK_TIMEOUT_OPTION


def _names(groups: Iterable[Iterable[str]]) -> frozenset[str]:
    """Every name the libraries declare ("" is a field a library leaves unset)."""
    return frozenset(name for group in groups for name in group if name)


def _single(what: str, values: Iterable[str]) -> str:
    """The one value the libraries declaring `what` agree on ("" when none does)."""
    found = {value for value in values if value}
    if len(found) > 1:
        raise ValueError(f"libraries disagree on {what}: {sorted(found)}")
    return found.pop() if found else ""


# --- SQL in Python strings ----------------------------------------------------

_SQL: tuple[SqlApi, ...] = collect("SQL_APIS")

# Methods whose string argument is SQL whatever the receiver (DB-API cursors,
# asyncpg connections, SQLAlchemy sessions, Django's `Manager.raw`). A string
# passed to one of these is analysed even if it doesn't start like SQL.
SQL_METHODS: frozenset[str] = _names(api.methods for api in _SQL)

# Functions/classes whose first argument is SQL text (also accepted by bare
# name, e.g. after `from sqlalchemy import text`).
SQL_FUNCTIONS: frozenset[str] = _names(api.text_functions for api in _SQL)
# The last dotted part of those, for receivers we can't resolve (`sa.text`).
SQL_FUNCTION_NAMES: frozenset[str] = frozenset(q.rsplit(".", 1)[-1] for q in SQL_FUNCTIONS)
# Functions that return their string argument's text reshaped (`dedent`), by
# qualified name and by bare name; string methods that keep the text.
_WRAPPERS = _names(api.text_wrappers for api in _SQL)
TEXT_WRAPPERS: frozenset[str] = _WRAPPERS | frozenset(q.rsplit(".", 1)[-1] for q in _WRAPPERS)
TEXT_METHODS: frozenset[str] = _names(api.text_methods for api in _SQL)

# Keyword arguments that carry SQL text in any call.
SQL_KEYWORDS: frozenset[str] = frozenset({"sql", "query", "statement", "stmt", "operation"})

# Receivers whose every method takes SQL (`cursor.execute`, `cur.callproc`...):
# a receiver whose last dotted part contains one of these words.
SQL_RECEIVER_WORDS: tuple[str, ...] = ("cursor",)

# First keywords of a string that "starts like SQL".
SQL_LEADING_KEYWORDS: frozenset[str] = frozenset(
    {"select", "with", "update", "insert", "delete", "merge", "lock", "values"}
)

# SQL functions whose boolean result says whether a lock was taken
# (PostgreSQL's `pg_try_advisory_lock`).
TRY_ADVISORY_FUNCTIONS: frozenset[str] = frozenset(collect("TRY_LOCK_SQL_FUNCTIONS"))

# --- ORM row-locking calls ------------------------------------------------------

ROW_LOCK_METHODS: dict[str, RowLockApi] = {api.method: api for api in collect("ROW_LOCK_APIS")}

_QUERIES: tuple[QueryApi, ...] = collect("QUERY_APIS")

# Columns that pin one row by key when compared by equality (or IN) in WHERE,
# or in an ORM filter (`pk=`, `id__in=`, `Job.id == x`): `id` and `uuid` by
# convention, and the ORMs' names for the primary key.
KEY_COLUMNS: frozenset[str] = frozenset({"id", "uuid"}) | _names(q.key_aliases for q in _QUERIES)
# The lookups that pin key columns (`pk=`/`pk__exact=`, `id__in=`).
KEY_PIN_LOOKUPS: frozenset[str] = _names(q.key_pin_lookups for q in _QUERIES)

# Chain methods that pick the next row(s) among many (one row, or a LIMIT). An
# ORM `.order_by()` alone is not one: locking every matching row in key order is
# the usual way to avoid deadlocks, and nothing is picked.
PICK_NEXT_METHODS: frozenset[str] = _names(q.pick_next_methods for q in _QUERIES)
# Those that take a row count (`limit(1)`).
LIMIT_METHODS: frozenset[str] = _names(q.limit_methods for q in _QUERIES)
# Those a result of a statement a session ran picks with (`.first()`).
RESULT_PICK_METHODS: frozenset[str] = PICK_NEXT_METHODS - LIMIT_METHODS
# Chain methods that filter: their keywords or comparisons may pin the row by key.
FILTER_METHODS: frozenset[str] = _names(q.filter_methods for q in _QUERIES)
# Chain methods whose conditions only ever remove rows: they never pin one.
EXCLUDE_METHODS: frozenset[str] = _names(q.exclude_methods for q in _QUERIES)
# Chain methods that order the rows: a filter with one of them picks among rows.
ORDERING_METHODS: frozenset[str] = _names(q.ordering_methods for q in _QUERIES)
# Calls whose first argument is the model a query reads (`select(Job)`).
ENTITY_CALLS: frozenset[str] = _names(q.entity_calls for q in _QUERIES)
# Calls combining conditions: all must hold (read each), or any may (never pins).
AND_CALLS: frozenset[str] = _names(q.and_calls for q in _QUERIES)
OR_CALLS: frozenset[str] = _names(q.or_calls for q in _QUERIES)
# A chain ending in one of these fetches one row by its arguments: never pick-next.
SINGLE_ROW_METHODS: frozenset[str] = _names(q.single_row_methods for q in _QUERIES)
# Methods running a statement given as their first argument, and those of
# their result that give its rows still (`session.scalars(stmt).all()`).
EXECUTE_METHODS: frozenset[str] = _names(q.execute_methods for q in _QUERIES)
RESULT_ROWS_METHODS: frozenset[str] = _names(q.result_rows_methods for q in _QUERIES)
# Column methods meaning "key IN (...)", and the other column operators: a
# condition that is no equality.
IN_METHODS: frozenset[str] = _names(q.in_methods for q in _QUERIES)
COLUMN_OPERATOR_METHODS: frozenset[str] = _names(q.column_operator_methods for q in _QUERIES)
# The attribute that holds a table's columns (`jobs.c.status`).
TABLE_COLUMNS_ATTRIBUTES: frozenset[str] = _names(q.table_columns_attributes for q in _QUERIES)
# Keyword lookups (`name__lt=`): the separator, the lookup of a keyword that
# names none, every lookup, and those meaning "equals" (any other is a range
# or set condition).
LOOKUP_SEPARATOR = _single("the lookup separator", (q.lookup_separator for q in _QUERIES))
DEFAULT_LOOKUP = _single("the default lookup", (q.default_lookup for q in _QUERIES))
LOOKUPS: frozenset[str] = _names(q.lookups for q in _QUERIES)
EQUALITY_LOOKUPS: frozenset[str] = _names(q.equality_lookups for q in _QUERIES)
# Lookups through a relation to the related row's key (`user__pk=`): the same
# as comparing the foreign key itself.
RELATED_KEY_LOOKUPS: frozenset[str] = _names(q.related_key_lookups for q in _QUERIES)
# The suffix of a foreign key's column (`user_id` for `user`).
FOREIGN_KEY_SUFFIX = _single("the foreign key suffix", (q.foreign_key_suffix for q in _QUERIES))


def keyword_lookup(key: str) -> tuple[list[str], str]:
    """A filter keyword's field path and lookup: `user__pk__in` -> (["user",
    "pk"], "in"); a keyword naming no lookup has the default one."""
    parts = key.split(LOOKUP_SEPARATOR) if LOOKUP_SEPARATOR else [key]
    if len(parts) > 1 and parts[-1] in LOOKUPS:
        return parts[:-1], parts[-1]
    return parts, DEFAULT_LOOKUP


def keyword_pins_key(key: str) -> bool:
    """A filter keyword that pins rows by key (`pk=`, `id__in=`)."""
    parts, lookup = keyword_lookup(key)
    return len(parts) == 1 and parts[0] in KEY_COLUMNS and lookup in KEY_PIN_LOOKUPS


# Calls that stand for a column, not a value (`F("other")`): a comparison with
# one compares two columns.
COLUMN_REFERENCE_CALLS: frozenset[str] = _names(q.column_reference_calls for q in _QUERIES)

# --- what happens to the locked rows afterwards ------------------------------------

# Chain methods that fetch one row: what they return is the locked row itself.
ROW_FETCH_METHODS: frozenset[str] = _names(q.row_fetch_methods for q in _QUERIES)
# A row is claimed by writing or deleting it: `row.save()`, `qs.update(...)`,
# `qs.delete()`, or a call of these that names it (`X.objects.filter(pk=row.pk)
# .update(...)`, `session.delete(row)`, `bulk_update(rows, ...)`).
ROW_SAVE_METHODS: frozenset[str] = _names(q.save_methods for q in _QUERIES)
ROW_WRITE_CALLS: frozenset[str] = _names(q.write_calls for q in _QUERIES)
# Calls that put rows into a collection (the collection then holds them).
COLLECT_METHODS: frozenset[str] = frozenset(collect("COLLECT_METHODS"))
# Calls that create a row: on the same model, in a branch that tests the locked
# lookup, they make the lock a find-or-create (`if not row: X.objects.create()`).
ROW_CREATE_METHODS: frozenset[str] = _names(q.create_methods for q in _QUERIES)

# --- model keys: which columns pin one row ---------------------------------------

_MODEL_KEYS: tuple[ModelKeyApi, ...] = collect("MODEL_KEY_APIS")

# Field keywords that make the field (or, for several primary-key fields, all of
# them together) identify one row.
PRIMARY_KEY_KEYWORDS: frozenset[str] = _names((m.primary_key_keyword,) for m in _MODEL_KEYS)
UNIQUE_KEYWORDS: frozenset[str] = _names((m.unique_keyword,) for m in _MODEL_KEYS)
# Field classes (by their last dotted name) that are unique by construction.
UNIQUE_FIELD_CLASSES: frozenset[str] = _names(m.unique_field_classes for m in _MODEL_KEYS)
# Fields whose string arguments together are the primary key.
COMPOSITE_KEY_CLASSES: frozenset[str] = _names(m.composite_key_classes for m in _MODEL_KEYS)
# Constraints whose string arguments (or fields keyword) identify one row; one
# with a partial keyword holds only for some rows and pins nothing in general.
UNIQUE_CONSTRAINT_CLASSES: frozenset[str] = _names(m.unique_constraint_classes for m in _MODEL_KEYS)
UNIQUE_CONSTRAINT_FIELDS_KEYWORDS: frozenset[str] = _names(
    (m.constraint_fields_keyword,) for m in _MODEL_KEYS
)
PARTIAL_CONSTRAINT_KEYWORDS: frozenset[str] = _names(
    (m.partial_constraint_keyword,) for m in _MODEL_KEYS
)
# Where the declarations live: an inner options class and its attributes, or
# a class attribute of table constraints.
OPTIONS_CLASSES: frozenset[str] = _names((m.options_class,) for m in _MODEL_KEYS)
OPTIONS_UNIQUE_TOGETHER: frozenset[str] = _names((m.options_unique_together,) for m in _MODEL_KEYS)
OPTIONS_CONSTRAINTS: frozenset[str] = _names((m.options_constraints,) for m in _MODEL_KEYS)
TABLE_ARGS_ATTRIBUTES: frozenset[str] = _names((m.table_args_attribute,) for m in _MODEL_KEYS)

# --- Redis clients and caches --------------------------------------------------------

_CLIENTS: tuple[RedisClients, ...] = collect("REDIS_CLIENTS")
_FRAMEWORKS: tuple[CacheFramework, ...] = collect("CACHE_FRAMEWORKS")
_BACKENDS: tuple[CacheBackend, ...] = collect("CACHE_BACKENDS")

# Calls that return a Redis client (sync or asyncio).
REDIS_CLIENT_CONSTRUCTORS: frozenset[str] = _names(c.constructors for c in _CLIENTS)
# Classes that, as a parameter or attribute annotation, make the name a client.
REDIS_CLIENT_CLASSES: frozenset[str] = _names(c.classes for c in _CLIENTS)
# Methods of a client that return a pipeline (a client too, for our purposes,
# but its command results come from `execute()`).
PIPELINE_METHODS: frozenset[str] = _names(c.pipeline_methods for c in _CLIENTS)

# A framework's cache objects: `cache` (the default alias) and `caches` (by alias).
CACHE_OBJECTS: frozenset[str] = _names(f.objects for f in _FRAMEWORKS)

# The modules of Redis clients (and of the caches that speak Redis's `nx=`):
# `set(..., nx=True)`/`setnx` is Redis's only where one of them is in reach,
# imported by the module or by a project module it imports.
REDIS_MODULES: tuple[str, ...] = tuple(
    dict.fromkeys(
        (*(m for c in _CLIENTS for m in c.modules), *(m for f in _FRAMEWORKS for m in f.modules))
    )
)

# `CACHES = {"default": {"BACKEND": "..."}}` in settings; `cache` is the
# default alias, `caches["x"]` the alias "x".
CACHES_SETTING = _single("the caches setting", (f.settings_name for f in _FRAMEWORKS))
CACHE_BACKEND_KEY = _single("the cache backend key", (f.backend_key for f in _FRAMEWORKS))
DEFAULT_CACHE_ALIAS = _single("the default cache alias", (f.default_alias for f in _FRAMEWORKS))

# The lock() of each cache backend that has one, by its name. The keywords
# differ, and the wrong one raises TypeError: a message or fix names a keyword
# only once the project's settings say which backend the cache is.
CACHE_LOCK_APIS: dict[str, LockApi] = {backend.name: backend.lock for backend in _BACKENDS}
# CACHES[alias]["BACKEND"] values -> their entry in CACHE_LOCK_APIS.
CACHE_BACKEND_LOCK_APIS: dict[str, str] = {backend.backend: backend.name for backend in _BACKENDS}
# Classes that, as an annotation (`cache: RedisCache`), make a name a cache:
# the backends above, whose lock() is known, and the frameworks' base classes.
CACHE_CLASSES: frozenset[str] = frozenset(CACHE_BACKEND_LOCK_APIS) | _names(
    f.classes for f in _FRAMEWORKS
)
# A cache alias's lock API when the project's settings don't say, or say
# several things (`joblint.requirements.CacheLockApi`).
UNKNOWN_CACHE_LOCK_API = ""

# --- Lock acquires and releases ------------------------------------------------------

# A more specific receiver is tried first (a cache's `set(..., nx=True)` is
# the cache's, any other receiver's is Redis's).
_RECEIVER_ORDER = (LockReceiver.CLIENT, LockReceiver.CACHE, LockReceiver.ANY)


_Api = TypeVar("_Api", KeyLockCommand, LockApi)


def _by_receiver(found: Iterable[_Api]) -> tuple[_Api, ...]:
    return tuple(sorted(found, key=lambda api: _RECEIVER_ORDER.index(api.receiver)))


_KEY_LOCKS: tuple[KeyLockCommand, ...] = collect("KEY_LOCK_COMMANDS")
# Commands that set a key only when it is absent, by method.
KEY_LOCK_COMMANDS: dict[str, tuple[KeyLockCommand, ...]] = {
    method: _by_receiver(c for c in _KEY_LOCKS if c.method == method)
    for method in dict.fromkeys(c.method for c in _KEY_LOCKS)
}
# Those conditional by the method alone, on any receiver (SETNX, HSETNX).
SETNX_METHODS: frozenset[str] = frozenset(
    c.method for c in _KEY_LOCKS if not c.flag_keyword and c.receiver is LockReceiver.ANY
)
# Those conditional by the method alone on the receiver they need (a cache's `add`).
RECEIVER_SETNX_METHODS: frozenset[str] = frozenset(
    c.method for c in _KEY_LOCKS if not c.flag_keyword and c.receiver is not LockReceiver.ANY
)

_KEY_COMMANDS: tuple[KeyCommands, ...] = collect("KEY_COMMANDS")
# `delete` methods releasing a key.
DELETE_METHODS: frozenset[str] = _names(c.delete_methods for c in _KEY_COMMANDS)
# Reads of the stored value (the read-then-compare release).
GET_METHODS: frozenset[str] = _names(c.get_methods for c in _KEY_COMMANDS)
# Methods that expire a key after the SET NX (the acquire-then-expire of a lock),
# and those that run a script on keys among their arguments (a Lua release) or
# delete on a condition.
EXPIRE_METHODS: frozenset[str] = _names(c.expire_methods for c in _KEY_COMMANDS)
SCRIPT_METHODS: frozenset[str] = _names(c.script_methods for c in _KEY_COMMANDS)
# `hdel(name, field)`: deleting a hash's field (the release of an HSETNX lock).
FIELD_DELETE_METHODS: frozenset[str] = _names(c.field_delete_methods for c in _KEY_COMMANDS)
# The check and the set of a check-then-set (`if not r.exists(key): r.set(key, v)`).
# Counting on a key's value: a key set if absent then counted is a counter.
COUNT_METHODS: frozenset[str] = _names(c.count_methods for c in _KEY_COMMANDS)
EXISTS_METHODS: frozenset[str] = _names(c.exists_methods for c in _KEY_COMMANDS)
TTL_FIRST_SET_METHODS: frozenset[str] = _names(c.timed_set_methods for c in _KEY_COMMANDS)
SET_METHODS: frozenset[str] = _names(c.set_methods for c in _KEY_COMMANDS) | TTL_FIRST_SET_METHODS

# Shared caches whose read answers with a response (`cache.lookup(key).found`),
# by the qualified name of the store the methods are called on.
RESPONSE_CACHES: dict[str, ResponseCache] = {
    store: cache for cache in collect("RESPONSE_CACHES") for store in cache.stores
}
# Their reads of a key, and the attributes saying the key was found.
RESPONSE_LOOKUP_METHODS: frozenset[str] = _names(c.lookup_methods for c in RESPONSE_CACHES.values())
FOUND_ATTRIBUTES: frozenset[str] = frozenset(c.found_attribute for c in RESPONSE_CACHES.values())

_LOCK_APIS: tuple[LockApi, ...] = collect("LOCK_APIS")
# Functions/classes (by qualified name) that make a lock.
LOCK_CONSTRUCTORS: dict[str, LockApi] = {api.qualname: api for api in _LOCK_APIS if api.qualname}
# Methods (by name) that make a lock, with the receiver they need.
LOCK_METHODS: dict[str, tuple[LockApi, ...]] = {
    method: _by_receiver(api for api in _LOCK_APIS if api.method == method)
    for method in dict.fromkeys(api.method for api in _LOCK_APIS if api.method)
}


# Non-blocking acquire: `acquire(blocking=False)` returns False instead of
# waiting. Method -> the keywords that say so.
def _non_blocking(found: Iterable[NonBlockingAcquire]) -> dict[str, tuple[str, ...]]:
    keywords: dict[str, dict[str, None]] = {}
    for acquire in found:
        keywords.setdefault(acquire.method, {})[acquire.keyword] = None
    return {method: tuple(names) for method, names in keywords.items()}


NON_BLOCKING_ACQUIRES: dict[str, tuple[str, ...]] = _non_blocking(collect("NON_BLOCKING_ACQUIRES"))

# Context managers yielding whether they got the lock (`with advisory_lock(key,
# wait=False) as acquired:`), by qualified name.
TRY_LOCK_CONTEXTS: dict[str, TryLockContext] = {
    context.qualname: context for context in collect("TRY_LOCK_CONTEXTS")
}

# --- Is a SET NX a lock? ---------------------------------------------------------------

# A `set(key, v, nx=True)` (or `setnx`) with a string-literal key is a lock only
# when the key names one: one of these words (or phrases) among the words of
# the key's source text, split at punctuation and camelCase (`lock:report`,
# `REPORT_LOCK`, `reportLock`; not `blocklist` or `clock`).
LOCK_KEY_WORDS: frozenset[str] = frozenset(
    {
        "lock",
        "locks",
        "locked",
        "locking",
        "mutex",
        "singleton",
        "running",
        "leader",
        "leadership",
        "semaphore",
        "lease",
        "exclusive",
        "in progress",
        "inprogress",
    }
)
# `assert_equal(...)`, `self.assertTrue(...)`: a SET NX whose result is asserted
# is a test of the command itself (with `assert` statements).
ASSERTION_PREFIX = "assert"

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")


def _has_word(text: str, wanted: frozenset[str]) -> bool:
    words = _NOT_WORD.split(_CAMEL_BOUNDARY.sub(" ", text).lower())
    joined = f" {' '.join(w for w in words if w)} "
    return any(f" {word} " in joined for word in wanted)


def names_a_lock(text: str) -> bool:
    """Whether a key's text has a lock word among its words."""
    return _has_word(text, LOCK_KEY_WORDS)


# The value a lock stores is a marker or its owner's token: a value whose text
# has one of these words (`token`, `self.request.id`, `uuid4().hex`,
# `time.time()`). A computed value under a lock-like key is a cache entry.
LOCK_VALUE_WORDS: frozenset[str] = frozenset(
    {
        "token",
        "id",
        "uuid",
        "uuid1",
        "uuid4",
        "pid",
        "getpid",
        "owner",
        "worker",
        "hostname",
        "gethostname",
        "now",
        "time",
        "timestamp",
        "locked",
        "lock",
    }
)


def names_a_token(text: str) -> bool:
    """Whether a stored value's text has a token word among its words."""
    return _has_word(text, LOCK_VALUE_WORDS)


# --- Tests of an error -------------------------------------------------------------------

# What runs in their block (`with pytest.raises(E):`) or as their arguments
# (`pytest.raises(E, lambda: ...)`) tests that an error is raised: a lock made
# there is not taken around work. Functions by qualified name; methods on
# `self`/`cls` (test cases).
ERROR_TEST_FUNCTIONS: frozenset[str] = frozenset(collect("ERROR_TEST_FUNCTIONS"))
ERROR_TEST_METHODS: frozenset[str] = frozenset(collect("ERROR_TEST_METHODS"))

# --- Fixes named in messages -----------------------------------------------------

SQL_FIX = f"FOR UPDATE SKIP LOCKED (or {JOB_QUEUE_CLAIM})"
QUEUE_FIX = JOB_QUEUE_CLAIM
DEFAULT_TIMEOUT_OPTION = LOCK_TIMEOUT_OPTION
RUNTIME_LOCK = REDIS_LOCK
ADVISORY_LOCK_FIX = ADVISORY_LOCK

# --- Reading a lock attempt's result ------------------------------------------------

# SQL-running methods that return the rows themselves: called as a bare
# statement, the row (and the advisory lock's boolean) is dropped.
SQL_ROW_METHODS: frozenset[str] = _names(api.row_methods for api in _SQL)
# Methods that run SQL on a cursor-like receiver whose rows are read afterwards.
SQL_CURSOR_METHODS: frozenset[str] = _names(api.cursor_methods for api in _SQL)
# Reading rows from that receiver afterwards.
RESULT_READ_METHODS: frozenset[str] = _names(api.result_methods for api in _SQL)
# Names of receivers that are probably pipelines (results come from execute()).
PIPELINE_NAME_WORDS: tuple[str, ...] = ("pipe",)
