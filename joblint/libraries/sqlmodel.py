"""SQLModel: a class is a table model (SQLAlchemy) with `table=True`, a pydantic model without."""

from __future__ import annotations

from dataclasses import replace

from joblint.libraries.job_work import TableReads
from joblint.libraries.objects import TableFlagBase
from joblint.libraries.pydantic import PYDANTIC
from joblint.libraries.queries import SqlApi
from joblint.libraries.sqlalchemy import MODEL
from joblint.libraries.sqlalchemy import TABLE_READS as SQLALCHEMY_READS

TABLE_FLAG_BASES = (TableFlagBase("sqlmodel.SQLModel", "table", MODEL, PYDANTIC),)

SQL_APIS = (SqlApi(text_functions=("sqlmodel.text",)),)

# `session.exec(select(Hero)).all()`: SQLAlchemy's reads, with SQLModel's
# `select` and `Session.exec`.
TABLE_READS: tuple[TableReads, ...] = tuple(
    replace(
        reads,
        library="sqlmodel",
        statement_functions=("sqlmodel.select", "sqlmodel.sql.expression.select"),
        execute_methods=("exec", *reads.execute_methods),
        modules=("sqlmodel",),
        sql_methods=(),
    )
    for reads in SQLALCHEMY_READS
)
