"""Python itself: the standard library's enums, dataclasses and named tuples,
threading locks, unittest's error tests, DB-API 2.0 cursors (sqlite3), the
methods that add to a list or set; and retry code as it is written with the
standard library: sleeps, clocks, random numbers, plain arithmetic, counting
loops and exception types."""

from __future__ import annotations

from joblint.libraries.base import EnvironmentReader, UrlBuilder
from joblint.libraries.job_work import Claims, SideEffect, TableReads
from joblint.libraries.locking import NonBlockingAcquire
from joblint.libraries.objects import Family, ObjectKind
from joblint.libraries.queries import SqlApi
from joblint.libraries.retry_api import RetryVocabulary

ENUM = "enum"
DATACLASS = "dataclass"
NAMEDTUPLE = "namedtuple"

OBJECT_KINDS = (
    ObjectKind(
        ENUM,
        Family.RICH,
        "an enum member",
        "{text}.value (a str/int) and rebuild the enum in the task",
    ),
    ObjectKind(
        DATACLASS,
        Family.RICH,
        "a dataclass instance",
        "dataclasses.asdict({text}) (primitive values)",
    ),
    ObjectKind(NAMEDTUPLE, Family.RICH, "a NamedTuple", "{text}._asdict() or its fields"),
)

BASE_CLASS_KINDS = (
    ("enum.Enum", ENUM),
    ("enum.IntEnum", ENUM),
    ("enum.StrEnum", ENUM),
    ("enum.Flag", ENUM),
    ("enum.IntFlag", ENUM),
    ("typing.NamedTuple", NAMEDTUPLE),
    ("typing_extensions.NamedTuple", NAMEDTUPLE),
)
CLASS_DECORATOR_KINDS = (("dataclasses.dataclass", DATACLASS),)
# `Point = namedtuple("Point", ...)`, `Color = Enum("Color", ...)`.
CLASS_FACTORIES = (
    ("collections.namedtuple", NAMEDTUPLE),
    ("typing.NamedTuple", NAMEDTUPLE),
    ("enum.Enum", ENUM),
    ("enum.IntEnum", ENUM),
    ("enum.StrEnum", ENUM),
)

# threading.Lock.acquire(blocking=True, timeout=-1), and its asyncio and
# multiprocessing relatives.
NON_BLOCKING_ACQUIRES = (NonBlockingAcquire("acquire", "blocking"),)

# unittest.TestCase's `with self.assertRaises(E):`.
ERROR_TEST_METHODS = ("assertRaises", "assertRaisesRegex", "assertRaisesRegexp")

# DB-API 2.0 (PEP 249) cursors (`executescript` is sqlite3's); SQL dedented
# or stripped keeps its text (SQL doesn't care about the edges).
SQL_APIS = (
    SqlApi(
        methods=("execute", "executemany", "executescript", "fetchone", "fetchall", "fetchmany"),
        cursor_methods=("execute", "executemany"),
        result_methods=("fetchone", "fetchall", "fetchmany", "__next__", "__iter__"),
        text_wrappers=("textwrap.dedent", "inspect.cleandoc"),
        text_methods=("strip", "lstrip", "rstrip"),
    ),
)

# Calls that put values into a list or set (which then holds them).
COLLECT_METHODS = ("append", "extend", "add", "insert")

# --- retries ------------------------------------------------------------

RETRY_VOCABULARY = (
    RetryVocabulary(
        random_modules=("random", "secrets"),
        power_functions=("pow", "math.pow", "math.exp", "math.exp2", "math.ldexp"),
        pure_functions=(
            "min",
            "max",
            "int",
            "float",
            "round",
            "abs",
            "pow",
            "len",
            "datetime.timedelta",
            "datetime.datetime.now",
            "datetime.datetime.utcnow",
            "time.time",
            "time.monotonic",
        ),
        # Every `math.<fn>` is deterministic.
        pure_modules=("math",),
        sleeps=(("time.sleep", "secs"), ("asyncio.sleep", "delay")),
        clocks=(
            "time.time",
            "time.time_ns",
            "time.monotonic",
            "time.monotonic_ns",
            "time.perf_counter",
            "time.perf_counter_ns",
            "datetime.datetime.now",
            "datetime.datetime.utcnow",
        ),
        counting_iterables=("range", "itertools.count"),
        enumerating_iterables=("enumerate",),
        broad_exceptions=(
            "Exception",
            "BaseException",
            "builtins.Exception",
            "builtins.BaseException",
        ),
        exception_filters=("isinstance", "issubclass", "type"),
        fresh_value_modules=("uuid",),
    ),
)


# --- what a job does twice when it runs twice (JL601) --------------------------------

_SMTP = ("smtplib.SMTP", "smtplib.SMTP_SSL", "smtplib.LMTP")
SIDE_EFFECTS = (
    SideEffect(
        "sends an email over SMTP",
        calls=tuple(
            f"{smtp}.{method}" for smtp in _SMTP for method in ("sendmail", "send_message")
        ),
        entered=_SMTP,
        remedy="email has no idempotency key: record the send and check it first",
    ),
)

# A lock whose acquisition is tested (`if not lock.acquire(timeout=5): return`):
# one delivery at a time goes on, into the section the author guards (Redis,
# cache and thread locks share the method).
CLAIMS = (Claims(set_if_absent=(("acquire", ""),)),)

# --- JL602: SQL run by a DB-API 2.0 cursor (sqlite3, psycopg, Django's) ----------------

# `cursor.execute("SELECT ... FROM t")` then `cursor.fetchall()` (or the cursor
# iterated) reads every row the statement selects; SQLite's own tables aren't
# the project's.
TABLE_READS = (
    TableReads(
        "dbapi", sql_methods=("execute",), fetch_all=("fetchall",), system_tables=("sqlite_",)
    ),
)

# The methods of the built-in containers and strings that change nothing
# (`mapping.items()`, `text.split()`), read from the types themselves: called
# on a value of a type no summary tells, they write no row.
_MUTATING = frozenset(
    {"update", "pop", "popitem", "clear", "setdefault", "add", "remove", "discard"}
    | {"append", "extend", "insert", "sort", "reverse"}
    | {"difference_update", "intersection_update", "symmetric_difference_update"}
)
PURE_BUILTIN_METHODS: frozenset[str] = frozenset(
    name
    for kind in (dict, list, tuple, set, frozenset, str, bytes)
    for name in dir(kind)
    if not name.startswith("_") and name not in _MUTATING
)

# `os.environ["X"]`, `os.environ.get("X", default)`, `os.getenv("X", default)`,
# `os.environ.setdefault("X", default)`.
ENVIRONMENT_READERS = (
    EnvironmentReader(
        "python",
        functions=(("os.environ.get", 1), ("os.getenv", 1), ("os.environ.setdefault", 1)),
        mappings=("os.environ",),
    ),
)

# URLs built from their parts: `urllib.parse`'s named tuples, and a project's own
# helper taking the scheme as a keyword (`build_url(scheme=..., host=...)`).
URL_BUILDERS = (
    UrlBuilder(
        "python",
        ("urllib.parse.SplitResult", "urllib.parse.ParseResult"),
        word="url",
    ),
)
