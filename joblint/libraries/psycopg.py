"""psycopg 3 and psycopg2: `with conn:` commits on exit, `conn.transaction()`."""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily
from joblint.libraries.queries import SqlApi

LIBRARIES = (
    Library(
        "psycopg",
        "psycopg",
        modules=("psycopg", "psycopg2"),
        connect_functions=(
            ("psycopg2.connect", TxFamily.PSYCOPG),
            ("psycopg.connect", TxFamily.PSYCOPG),
            ("psycopg.Connection.connect", TxFamily.PSYCOPG),
            ("psycopg.AsyncConnection.connect", TxFamily.PSYCOPG),
        ),
        # `with conn.transaction():` (psycopg 3, asyncpg): the generic shape.
        transaction_methods=(("transaction", TxFamily.GENERIC),),
    ),
)

# --- SQL text -----------------------------------------------------------------------

# `cur.copy_expert(sql, file)` (psycopg2), `cur.mogrify(sql, params)`, and
# `sql.SQL("...")` composed queries.
SQL_APIS = (
    SqlApi(
        methods=("copy_expert", "mogrify"),
        text_functions=("psycopg.sql.SQL", "psycopg2.sql.SQL"),
    ),
)
