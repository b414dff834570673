"""What row locks, Redis locks and SQL-running calls look like, as data.

The JL4 rules and `joblint.analysis.sql` consult these tables; they never
spell a library's names themselves. Facts come from the libraries' own source
(shared/reference/job-libraries.md, sections 4 and 6; redis-py 8.1 signatures
checked with `inspect.signature`).

Qualified names have the meaning `Resolver.qualified_name` gives them: the
dotted path a name was imported from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# --- SQL in Python strings ----------------------------------------------------

# Methods whose string argument is SQL whatever the receiver (DB-API cursors,
# psycopg/asyncpg/aiosqlite connections, SQLAlchemy sessions/connections,
# Django's `Manager.raw`). A string passed to one of these is analysed even if
# it doesn't start like SQL.
SQL_METHODS: frozenset[str] = frozenset(
    {
        "execute",
        "executemany",
        "executescript",
        "execute_many",
        "fetch",
        "fetchone",
        "fetchrow",
        "fetchval",
        "fetchall",
        "fetchmany",
        "fetch_one",
        "fetch_all",
        "fetch_val",
        "raw",
        "exec_driver_sql",
        "scalar",
        "scalars",
        "copy_expert",
        "mogrify",
    }
)

# Functions/classes whose first argument is SQL text (also accepted by bare
# name, e.g. after `from sqlalchemy import text`).
SQL_FUNCTIONS: frozenset[str] = frozenset(
    {
        "sqlalchemy.text",
        "sqlalchemy.sql.text",
        "sqlalchemy.sql.expression.text",
        "sqlmodel.text",
        "django.db.models.expressions.RawSQL",
        "django.db.models.RawSQL",
        "psycopg.sql.SQL",
        "psycopg2.sql.SQL",
    }
)
# The last dotted part of those, for receivers we can't resolve (`sa.text`).
SQL_FUNCTION_NAMES: frozenset[str] = frozenset({"text", "RawSQL", "SQL"})

# Keyword arguments that carry SQL text in any call.
SQL_KEYWORDS: frozenset[str] = frozenset({"sql", "query", "statement", "stmt", "operation"})

# Receivers whose every method takes SQL (`cursor.execute`, `cur.callproc`...):
# a receiver whose last dotted part contains one of these words.
SQL_RECEIVER_WORDS: tuple[str, ...] = ("cursor",)

# First keywords of a string that "starts like SQL".
SQL_LEADING_KEYWORDS: frozenset[str] = frozenset(
    {"select", "with", "update", "insert", "delete", "merge", "lock", "values"}
)

# Columns that pin one row by key when compared by equality (or IN) in WHERE,
# or in a Django/SQLAlchemy filter (`pk=`, `id__in=`, `Job.id == x`).
KEY_COLUMNS: frozenset[str] = frozenset({"id", "pk", "uuid"})
# The Django lookups that pin key columns: `pk=`/`pk__exact=`, `id__in=`.
KEY_PIN_LOOKUPS: frozenset[str] = frozenset({"exact", "in"})

# PostgreSQL advisory-lock functions whose boolean result says who won.
TRY_ADVISORY_FUNCTIONS: frozenset[str] = frozenset(
    {
        "pg_try_advisory_lock",
        "pg_try_advisory_lock_shared",
        "pg_try_advisory_xact_lock",
        "pg_try_advisory_xact_lock_shared",
    }
)

# --- ORM row-locking calls ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RowLockMethod:
    library: str
    # Keywords that make the lock not wait on a locked row when truthy.
    non_waiting: tuple[str, ...]
    fix: str
    # Whether assigning an attribute of a fetched row writes it: SQLAlchemy's
    # session flushes changed objects; a Django instance needs `save()`.
    assignment_writes: bool = False


ROW_LOCK_METHODS: dict[str, RowLockMethod] = {
    # Django and Tortoise: QuerySet.select_for_update(nowait=, skip_locked=, of=, no_key=)
    "select_for_update": RowLockMethod(
        "django", ("skip_locked", "nowait"), "select_for_update(skip_locked=True)"
    ),
    # SQLAlchemy: Select/Query.with_for_update(nowait=, read=, of=, skip_locked=, key_share=)
    "with_for_update": RowLockMethod(
        "sqlalchemy",
        ("skip_locked", "nowait"),
        "with_for_update(skip_locked=True)",
        assignment_writes=True,
    ),
}

# Chain methods that pick the next row(s) among many (one row, or a LIMIT). An
# ORM `.order_by()` alone is not one: locking every matching row in key order is
# the usual way to avoid deadlocks, and nothing is picked.
PICK_NEXT_METHODS: frozenset[str] = frozenset({"first", "last", "earliest", "latest", "limit"})
# Chain methods that filter: their keywords (Django) or comparisons
# (SQLAlchemy) may pin the row by key.
FILTER_METHODS: frozenset[str] = frozenset({"filter", "filter_by", "where", "get"})
# Chain methods whose conditions only ever remove rows: they never pin one.
EXCLUDE_METHODS: frozenset[str] = frozenset({"exclude"})
# Chain methods that order the rows: a filter with one of them picks among rows.
ORDERING_METHODS: frozenset[str] = frozenset({"order_by", "earliest", "latest"})
# Calls whose first argument is the model a query reads: SQLAlchemy
# `select(Job)`, `session.query(Job)`.
ENTITY_CALLS: frozenset[str] = frozenset({"select", "query"})
# Django's Q object: its keywords are filters too.
Q_NAMES: frozenset[str] = frozenset({"Q", "django.db.models.Q", "django.db.models.query_utils.Q"})
# Functions combining conditions: all must hold (read each), or any may (never pins).
AND_FUNCTIONS: frozenset[str] = frozenset({"and_", "sqlalchemy.and_", "sqlalchemy.sql.and_"})
OR_FUNCTIONS: frozenset[str] = frozenset(
    {"or_", "not_", "sqlalchemy.or_", "sqlalchemy.not_", "sqlalchemy.sql.or_"}
)
# A chain ending in one of these fetches one row by its arguments: never pick-next.
SINGLE_ROW_METHODS: frozenset[str] = frozenset({"get", "get_or_create", "one", "one_or_none"})
# SQLAlchemy column methods meaning "key IN (...)".
IN_METHODS: frozenset[str] = frozenset({"in_"})
# Other SQLAlchemy column operators: a condition that is no equality.
COLUMN_OPERATOR_METHODS: frozenset[str] = frozenset(
    {
        "notin_",
        "not_in",
        "is_",
        "is_not",
        "isnot",
        "like",
        "ilike",
        "not_like",
        "notlike",
        "not_ilike",
        "notilike",
        "startswith",
        "endswith",
        "contains",
        "icontains",
        "istartswith",
        "iendswith",
        "between",
        "match",
        "regexp_match",
        "op",
        "any_",
        "all_",
        "any",
        "has",
        "is_distinct_from",
        "is_not_distinct_from",
        "isnot_distinct_from",
    }
)
# The attribute that holds a SQLAlchemy Core table's columns (`jobs.c.status`).
TABLE_COLUMNS_ATTRIBUTE = "c"
# Django lookups meaning "equals" (`name=`, `name__exact=`); any other lookup
# (`__lt`, `__in`, `__isnull`, ...) is a range or set condition.
EQUALITY_LOOKUPS: frozenset[str] = frozenset({"exact", "iexact"})
DJANGO_LOOKUPS: frozenset[str] = frozenset(
    {
        "exact",
        "iexact",
        "contains",
        "icontains",
        "in",
        "gt",
        "gte",
        "lt",
        "lte",
        "startswith",
        "istartswith",
        "endswith",
        "iendswith",
        "range",
        "date",
        "year",
        "iso_year",
        "month",
        "day",
        "week",
        "week_day",
        "iso_week_day",
        "quarter",
        "time",
        "hour",
        "minute",
        "second",
        "isnull",
        "regex",
        "iregex",
        "contained_by",
        "overlap",
        "has_key",
        "has_keys",
        "has_any_keys",
        "search",
        "trigram_similar",
        "unaccent",
    }
)
# Django lookups through a relation to the related row's key (`user__pk=`):
# the same as comparing the foreign key itself.
RELATED_KEY_LOOKUPS: frozenset[str] = frozenset({"pk", "id"})
# The suffix of a foreign key's column (`user_id` for `user`).
FOREIGN_KEY_SUFFIX = "_id"
# Calls that stand for a column, not a value (`F("other")`): a comparison with
# one compares two columns.
COLUMN_REFERENCE_CALLS: frozenset[str] = frozenset({"F", "OuterRef", "Ref", "literal_column"})

# --- what happens to the locked rows afterwards ------------------------------------

# Chain methods that fetch one row: what they return is the locked row itself.
ROW_FETCH_METHODS: frozenset[str] = frozenset(
    {
        "first",
        "last",
        "earliest",
        "latest",
        "get",
        "one",
        "one_or_none",
        "scalar",
        "scalar_one",
        "scalar_one_or_none",
        "afirst",
        "alast",
        "aget",
    }
)
# A row is claimed by writing or deleting it: `row.save()`, `qs.update(...)`,
# `qs.delete()`, or a call of these that names it (`X.objects.filter(pk=row.pk)
# .update(...)`, `session.delete(row)`, `bulk_update(rows, ...)`).
ROW_SAVE_METHODS: frozenset[str] = frozenset({"save", "asave"})
ROW_WRITE_CALLS: frozenset[str] = frozenset(
    {"update", "delete", "bulk_update", "aupdate", "adelete", "abulk_update"}
)
# Calls that put rows into a collection (the collection then holds them).
COLLECT_METHODS: frozenset[str] = frozenset({"append", "extend", "add", "insert"})
# Calls that create a row: on the same model, in a branch that tests the locked
# lookup, they make the lock a find-or-create (`if not row: X.objects.create()`).
ROW_CREATE_METHODS: frozenset[str] = frozenset(
    {"create", "get_or_create", "update_or_create", "acreate", "aget_or_create"}
)

# --- model keys: which columns pin one row ---------------------------------------

# Field keywords that make the field (or, for several primary-key fields, all of
# them together) identify one row: Django fields, SQLAlchemy
# `Column(...)`/`mapped_column(...)`.
PRIMARY_KEY_KEYWORD = "primary_key"
UNIQUE_KEYWORD = "unique"
# Field classes (by their last dotted name) that are unique by construction.
UNIQUE_FIELD_CLASSES: frozenset[str] = frozenset({"OneToOneField"})
# Django 5.2 `pk = CompositePrimaryKey("a", "b")`: its string arguments together.
COMPOSITE_KEY_CLASSES: frozenset[str] = frozenset({"CompositePrimaryKey"})
# Constraints whose string arguments (SQLAlchemy, in `__table_args__`) or
# `fields=` (Django, in `Meta.constraints`) identify one row; one with a
# `condition=` holds only for some rows and pins nothing in general.
UNIQUE_CONSTRAINT_CLASSES: frozenset[str] = frozenset({"UniqueConstraint", "PrimaryKeyConstraint"})
UNIQUE_CONSTRAINT_FIELDS_KEYWORD = "fields"
PARTIAL_CONSTRAINT_KEYWORD = "condition"
# Where the declarations live.
DJANGO_META_CLASS = "Meta"
DJANGO_UNIQUE_TOGETHER = "unique_together"
DJANGO_CONSTRAINTS = "constraints"
SQLALCHEMY_TABLE_ARGS = "__table_args__"

# --- Redis clients and locks ------------------------------------------------------

# Calls that return a Redis client (sync or asyncio).
REDIS_CLIENT_CONSTRUCTORS: frozenset[str] = frozenset(
    {
        "redis.Redis",
        "redis.StrictRedis",
        "redis.client.Redis",
        "redis.client.StrictRedis",
        "redis.Redis.from_url",
        "redis.StrictRedis.from_url",
        "redis.Redis.from_pool",
        "redis.from_url",
        "redis.RedisCluster",
        "redis.cluster.RedisCluster",
        "redis.RedisCluster.from_url",
        "redis.asyncio.Redis",
        "redis.asyncio.StrictRedis",
        "redis.asyncio.client.Redis",
        "redis.asyncio.Redis.from_url",
        "redis.asyncio.Redis.from_pool",
        "redis.asyncio.from_url",
        "redis.asyncio.RedisCluster",
        "django_redis.get_redis_connection",
        "valkey.Valkey",
        "valkey.Valkey.from_url",
        "valkey.from_url",
        "valkey.asyncio.Valkey",
        "valkey.asyncio.from_url",
    }
)
# Classes that, as a parameter or attribute annotation, make the name a client.
REDIS_CLIENT_CLASSES: frozenset[str] = frozenset(
    {
        "redis.Redis",
        "redis.StrictRedis",
        "redis.client.Redis",
        "redis.RedisCluster",
        "redis.cluster.RedisCluster",
        "redis.asyncio.Redis",
        "redis.asyncio.client.Redis",
        "redis.asyncio.RedisCluster",
        "valkey.Valkey",
        "valkey.asyncio.Valkey",
    }
)
# Methods of a client that return a pipeline (a client too, for our purposes,
# but its command results come from `execute()`).
PIPELINE_METHODS: frozenset[str] = frozenset({"pipeline"})

# Django cache objects: with django-redis their `set(..., nx=True)` uses the
# cache's default timeout (it expires), and they have `lock()`.
DJANGO_CACHES: frozenset[str] = frozenset({"django.core.cache.cache", "django.core.cache.caches"})

# The modules of Redis clients (and of the Django caches that speak Redis's
# `nx=`): `set(..., nx=True)`/`setnx` is Redis's only where one of them is in
# reach, imported by the module or by a project module it imports.
REDIS_MODULES: tuple[str, ...] = (
    "redis",
    "aioredis",
    "coredis",
    "valkey",
    "rediscluster",
    "walrus",
    "fakeredis",
    "redis_lock",
    "django_redis",
    "django.core.cache",
)

# Redis SET: the keywords that give the key an expiry.
SET_EXPIRY_KEYWORDS: frozenset[str] = frozenset({"ex", "px", "exat", "pxat"})
# redis-py `set(name, value, ex=None, ...)`: the third positional is `ex`.
SET_EXPIRY_POSITION = 2
# django-redis `cache.set(key, value, timeout=DEFAULT_TIMEOUT, ..., nx=False)`.
CACHE_SET_TIMEOUT_KEYWORD = "timeout"
CACHE_SET_TIMEOUT_POSITION = 2

# `delete` methods releasing a key.
DELETE_METHODS: frozenset[str] = frozenset({"delete", "unlink"})
# Reads of the stored value (the read-then-compare release).
GET_METHODS: frozenset[str] = frozenset({"get"})


@dataclass(frozen=True, slots=True)
class LockFactory:
    """A call creating a lock, and where its expiry goes."""

    display: str
    expiry_keyword: str
    # Position of the expiry among the positional arguments (None: keyword-only).
    expiry_position: int | None
    # The call only counts on a receiver known to be a Redis client / Django cache.
    needs_client: bool = False
    needs_cache: bool = False
    # True when the library has no expiry at all (Huey's lock_task).
    no_expiry_exists: bool = False
    # Who makes the lock, for messages where the call alone doesn't say
    # (a Django cache's `lock()` is its backend's).
    library: str = ""


# Functions/classes (by qualified name) that make a lock.
LOCK_CONSTRUCTORS: dict[str, LockFactory] = {
    # redis.lock.Lock(redis, name, timeout=None, ...)
    "redis.lock.Lock": LockFactory("redis.lock.Lock(...)", "timeout", 2),
    "redis.asyncio.lock.Lock": LockFactory("redis.asyncio.lock.Lock(...)", "timeout", 2),
    # python-redis-lock: Lock(redis_client, name, expire=None, id=None, auto_renewal=False, ...)
    "redis_lock.Lock": LockFactory("redis_lock.Lock(...)", "expire", 2),
    # huey.contrib.djhuey.lock_task(lock_name): no TTL, no owner token.
    "huey.contrib.djhuey.lock_task": LockFactory("lock_task(...)", "", None, no_expiry_exists=True),
}

# Methods (by name) that make a lock, with the receiver they need.
LOCK_METHODS: dict[str, tuple[LockFactory, ...]] = {
    "lock": (
        # redis-py Redis.lock(name, timeout=None, sleep=0.1, blocking=True, ...)
        LockFactory(".lock(...)", "timeout", 1, needs_client=True),
        # A Django cache's lock(): its signature is its backend's (CACHE_LOCK_APIS).
        LockFactory("cache.lock(...)", "", None, needs_cache=True),
    ),
    # Huey.lock_task(lock_name): the method name is Huey's alone.
    "lock_task": (LockFactory(".lock_task(...)", "", None, no_expiry_exists=True),),
}

# SETNX: no expiry parameter at all.
SETNX_METHODS: frozenset[str] = frozenset({"setnx"})

# --- A Django cache's lock(), by the backend CACHES names ------------------------------

# `CACHES = {"default": {"BACKEND": "..."}}` in Django settings; `cache` is the
# "default" alias, `caches["x"]` the alias "x".
CACHES_SETTING = "CACHES"
CACHE_BACKEND_KEY = "BACKEND"
DEFAULT_CACHE_ALIAS = "default"

DJANGO_REDIS = "django-redis"
PYTHON_REDIS_LOCK = "python-redis-lock"

# The lock() of each cache backend that has one. The keywords differ, and the
# wrong one raises TypeError: a message or fix names a keyword only once the
# project's settings say which backend the cache is.
CACHE_LOCK_APIS: dict[str, LockFactory] = {
    # django-redis RedisCache.lock(key, version=None, timeout=None, sleep=0.1, ...)
    DJANGO_REDIS: LockFactory(
        "cache.lock(...)", "timeout", 2, needs_cache=True, library="django-redis"
    ),
    # python-redis-lock's redis_lock.django_cache.RedisCache.lock(key, expire=None,
    # id=None, auto_renewal=False)
    PYTHON_REDIS_LOCK: LockFactory(
        "cache.lock(...)",
        "expire",
        1,
        needs_cache=True,
        library="python-redis-lock's redis_lock.django_cache.RedisCache",
    ),
}
# CACHES[alias]["BACKEND"] values -> their entry in CACHE_LOCK_APIS.
CACHE_BACKEND_LOCK_APIS: dict[str, str] = {
    "django_redis.cache.RedisCache": DJANGO_REDIS,
    "redis_lock.django_cache.RedisCache": PYTHON_REDIS_LOCK,
}
# Classes that, as an annotation (`cache: RedisCache`), make a name a Django
# cache: the backends above, whose lock() is known, and Django's base class.
DJANGO_CACHE_CLASSES: frozenset[str] = frozenset(
    {*CACHE_BACKEND_LOCK_APIS, "django.core.cache.backends.base.BaseCache"}
)
# Requirement kind (joblint.models.Requirement): the cache alias `qualname`'s
# lock API, as the project's settings give it, is one of `libraries`
# (UNKNOWN_CACHE_LOCK_API when the settings don't say, or say several things).
CACHE_LOCK_API_REQUIREMENT = "cache-lock-api"
UNKNOWN_CACHE_LOCK_API = ""

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
# Methods that expire a key after the SET NX (the acquire-then-expire of a lock),
# and those that run a script on keys among their arguments (a Lua release) or
# delete on a condition (`delex(key, ifeq=token)`).
EXPIRE_METHODS: frozenset[str] = frozenset({"expire", "pexpire", "expireat", "pexpireat"})
SCRIPT_METHODS: frozenset[str] = frozenset({"eval", "evalsha", "fcall", "delex"})
# `assert_equal(...)`, `self.assertTrue(...)`: a SET NX whose result is asserted
# is a test of the command itself (with `assert` statements).
ASSERTION_PREFIX = "assert"
# Requirement kind: the module constant `qualname` used as a SET NX key is not a
# string without a lock word (imported from another file, its value is there).
LOCK_KEY_REQUIREMENT = "lock-key"

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")


def names_a_lock(text: str) -> bool:
    """Whether a key's text has a lock word among its words."""
    words = _NOT_WORD.split(_CAMEL_BOUNDARY.sub(" ", text).lower())
    joined = f" {' '.join(w for w in words if w)} "
    return any(f" {word} " in joined for word in LOCK_KEY_WORDS)


# --- Tests of an error -------------------------------------------------------------------

# What runs in their block (`with pytest.raises(E):`) or as their arguments
# (`pytest.raises(E, lambda: ...)`) tests that an error is raised: a lock made
# there is not taken around work. Functions by qualified name; methods on
# `self`/`cls` (unittest and Django test cases).
ERROR_TEST_FUNCTIONS: frozenset[str] = frozenset({"pytest.raises"})
ERROR_TEST_METHODS: frozenset[str] = frozenset(
    {"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertRaisesMessage"}
)

# Non-blocking acquire: `acquire(blocking=False)` returns False instead of waiting.
ACQUIRE_METHOD = "acquire"
NON_BLOCKING_KEYWORD = "blocking"

# --- Fixes named in messages -----------------------------------------------------

SQL_FIX = "FOR UPDATE SKIP LOCKED (or joblint.runtime.queue.JobQueue.claim)"
QUEUE_FIX = "joblint.runtime.queue.JobQueue.claim"
REDIS_LOCK_FIX = "set(key, token, nx=True, ex=...)"
# JL402's option (`[tool.joblint.rules.JL402]`): the expiry its fix adds, in seconds.
DEFAULT_TIMEOUT_OPTION = "default-lock-timeout"
RUNTIME_LOCK = "joblint.runtime.lock.RedisLock"

# --- Reading a lock attempt's result ------------------------------------------------

# SQL-running methods that return the rows themselves: called as a bare
# statement, the row (and the advisory lock's boolean) is dropped.
SQL_ROW_METHODS: frozenset[str] = frozenset(
    {
        "fetch",
        "fetchrow",
        "fetchval",
        "fetch_one",
        "fetch_all",
        "fetch_val",
        "scalar",
        "scalars",
        "exec_driver_sql",
    }
)
# Methods that run SQL on a cursor-like receiver whose rows are read afterwards.
SQL_CURSOR_METHODS: frozenset[str] = frozenset({"execute", "executemany"})
# Reading rows from that receiver afterwards.
RESULT_READ_METHODS: frozenset[str] = frozenset(
    {
        "fetchone",
        "fetchall",
        "fetchmany",
        "fetchval",
        "fetchrow",
        "fetch",
        "scalar",
        "scalars",
        "scalar_one",
        "scalar_one_or_none",
        "first",
        "one",
        "one_or_none",
        "all",
        "__next__",
        "__iter__",
    }
)
# Names of receivers that are probably pipelines (results come from execute()).
PIPELINE_NAME_WORDS: tuple[str, ...] = ("pipe",)
ADVISORY_LOCK_FIX = "joblint.runtime.lock.PostgresAdvisoryLock"
