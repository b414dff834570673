"""encode/databases: async queries whose rows the call returns."""

from __future__ import annotations

from joblint.libraries.queries import SqlApi

SQL_APIS = (
    SqlApi(
        methods=("execute", "execute_many", "fetch_one", "fetch_all", "fetch_val"),
        row_methods=("fetch_one", "fetch_all", "fetch_val"),
    ),
)
