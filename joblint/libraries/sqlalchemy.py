"""SQLAlchemy: `Session.begin()`, `begin_nested()`, `engine.begin()`."""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily

LIBRARIES = (
    Library(
        "sqlalchemy",
        "SQLAlchemy",
        modules=("sqlalchemy", "flask_sqlalchemy"),
        transaction_methods=(("begin", TxFamily.SQLALCHEMY), ("begin_nested", TxFamily.SQLALCHEMY)),
    ),
)
