"""Driver detection and named SQL loading shared by the runtime modules.

SQL lives in ``sql/<dialect>.sql`` as named sections (``-- name: claim``), as in
procrastinate: the queries can be read, diffed and run in ``psql`` on their own.
Only PostgreSQL through psycopg 3 and SQLite through ``sqlite3`` are supported;
the driver modules are never imported here, connections are recognised by type.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from functools import cache
from importlib import resources
from typing import Any, Literal, Protocol

Dialect = Literal["postgres", "sqlite"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,47}(\.[A-Za-z_][A-Za-z0-9_]{0,47})?")
_SECTION = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


class Connection(Protocol):
    """The part of a psycopg 3 ``Connection`` / ``sqlite3.Connection`` we use."""

    def execute(self, query: Any, params: Any = ..., /) -> Any: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...


def dialect_of(conn: object) -> Dialect:
    """Tell a psycopg 3 connection from a sqlite3 one (subclasses included)."""
    if isinstance(conn, sqlite3.Connection):
        return "sqlite"
    if any(cls.__module__.split(".")[0] == "psycopg" for cls in type(conn).__mro__):
        return "postgres"
    raise TypeError(
        f"expected a psycopg 3 or sqlite3 connection, got {type(conn).__module__}."
        f"{type(conn).__qualname__}"
    )


def in_transaction(conn: Any) -> bool:
    """Whether the connection has a transaction open that someone else must end.

    psycopg reports it in ``info.transaction_status``; sqlite3 in
    ``in_transaction``, except with Python 3.12's ``autocommit=False``, where a
    transaction is always open by design and the caller always commits.
    """
    if dialect_of(conn) == "postgres":
        return bool(conn.info.transaction_status.name != "IDLE")
    if getattr(conn, "autocommit", None) is False:
        return True
    return bool(conn.in_transaction)


def check_table(table: str) -> str:
    """Validate a (optionally schema-qualified) table name before it is spliced into SQL."""
    if not _IDENTIFIER.fullmatch(table):
        raise ValueError(f"invalid table name {table!r}: use letters, digits and _ only")
    return table


@cache
def _sections(dialect: Dialect) -> dict[str, str]:
    text = resources.files("joblint_runtime").joinpath("sql", f"{dialect}.sql").read_text("utf-8")
    parts = _SECTION.split(text)
    return {name: body.strip() for name, body in zip(parts[1::2], parts[2::2], strict=True)}


def sql(dialect: Dialect, name: str, table: str) -> str:
    """The named query with ``{table}`` (and ``{name}``, its unqualified part) filled in."""
    check_table(table)
    return (
        _sections(dialect)[name]
        .replace("{table}", table)
        .replace("{name}", table.rsplit(".", 1)[-1])
    )


def statements(script: str) -> list[str]:
    """Split a schema script; ``sqlite3.executescript`` would COMMIT the caller's transaction."""
    return [part.strip() for part in script.split(";\n") if part.strip()]


def run_script(conn: Connection, dialect: Dialect, name: str, table: str) -> None:
    for statement in statements(sql(dialect, name, table)):
        conn.execute(statement)


def check_json(value: object, path: str = "payload") -> None:
    """Reject anything but JSON primitives, lists and dicts with string keys.

    Jobs must carry identifiers, not objects: an ORM instance or a dataclass is
    stale by the time the job runs and breaks when its class changes. Checking
    before ``json.dumps`` gives an error that says where the bad value is
    (``json`` would also silently turn tuples into lists and keys into strings).
    """
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{path}: {value!r} is not valid JSON")
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            check_json(item, f"{path}[{index}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{path}: dict key {key!r} is not a string")
            check_json(item, f"{path}[{key!r}]")
        return
    raise TypeError(
        f"{path}: {type(value).__qualname__} is not a JSON primitive, list or dict; "
        "pass identifiers (e.g. obj.pk) and re-fetch inside the job"
    )


def dumps(value: object, path: str = "payload") -> str:
    check_json(value, path)
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def loads(value: Any) -> Any:
    """psycopg already decodes json/jsonb; sqlite3 hands back text."""
    return json.loads(value) if isinstance(value, (str, bytes)) else value
