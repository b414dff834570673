"""Python itself: the standard library's enums, dataclasses and named tuples,
threading locks, unittest's error tests, DB-API 2.0 cursors (sqlite3), and the
methods that add to a list or set."""

from __future__ import annotations

from joblint.libraries.locking import NonBlockingAcquire
from joblint.libraries.objects import Family, ObjectKind
from joblint.libraries.queries import SqlApi

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
