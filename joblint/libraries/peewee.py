"""peewee: `db.atomic()` / `db.transaction()`, as context managers and decorators."""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily

LIBRARIES = (
    Library(
        "peewee",
        "peewee",
        modules=("peewee", "playhouse"),
        transaction_methods=(("atomic", TxFamily.GENERIC), ("transaction", TxFamily.GENERIC)),
        transaction_decorator_methods=("atomic", "transaction"),
    ),
)
