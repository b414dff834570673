"""SQLModel: a class is a table model (SQLAlchemy) with `table=True`, a pydantic model without."""

from __future__ import annotations

from joblint.libraries.objects import TableFlagBase
from joblint.libraries.pydantic import PYDANTIC
from joblint.libraries.queries import SqlApi
from joblint.libraries.sqlalchemy import MODEL

TABLE_FLAG_BASES = (TableFlagBase("sqlmodel.SQLModel", "table", MODEL, PYDANTIC),)

SQL_APIS = (SqlApi(text_functions=("sqlmodel.text",)),)
