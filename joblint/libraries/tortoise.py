"""Tortoise ORM: `in_transaction()` and `atomic()`."""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily

LIBRARIES = (
    Library(
        "tortoise",
        "Tortoise",
        modules=("tortoise",),
        transaction_functions=(
            ("tortoise.transactions.in_transaction", TxFamily.GENERIC),
            ("tortoise.transactions.atomic", TxFamily.GENERIC),
        ),
    ),
)
