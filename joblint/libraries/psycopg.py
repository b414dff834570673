"""psycopg 3 and psycopg2: `with conn:` commits on exit, `conn.transaction()`."""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily

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
