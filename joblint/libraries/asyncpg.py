"""asyncpg: connections run SQL and return its rows directly."""

from __future__ import annotations

from joblint.libraries.queries import SqlApi

SQL_APIS = (
    SqlApi(
        methods=("execute", "executemany", "fetch", "fetchrow", "fetchval"),
        row_methods=("fetch", "fetchrow", "fetchval"),
        result_methods=("fetch", "fetchrow", "fetchval"),
    ),
)
