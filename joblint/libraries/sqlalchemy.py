"""SQLAlchemy: the transactions `Session.begin()`, `begin_nested()` and
`engine.begin()` open, and the SQL text, row locks, query chains and model keys
the lock and idempotency rules read."""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily
from joblint.libraries.job_work import TableReads
from joblint.libraries.objects import Family, ObjectKind, SessionFetches
from joblint.libraries.queries import ModelKeyApi, QueryApi, RowLockApi, SqlApi

LIBRARIES = (
    Library(
        "sqlalchemy",
        "SQLAlchemy",
        modules=("sqlalchemy", "flask_sqlalchemy"),
        transaction_methods=(("begin", TxFamily.SQLALCHEMY), ("begin_nested", TxFamily.SQLALCHEMY)),
    ),
)

# --- SQL text, row locks, query chains and model keys -------------------------------

SQL_APIS = (
    SqlApi(
        methods=("execute", "exec_driver_sql", "scalar", "scalars"),
        row_methods=("exec_driver_sql", "scalar", "scalars"),
        result_methods=(
            "scalar",
            "scalars",
            "scalar_one",
            "scalar_one_or_none",
            "first",
            "one",
            "one_or_none",
            "all",
        ),
        text_functions=("sqlalchemy.text", "sqlalchemy.sql.text", "sqlalchemy.sql.expression.text"),
    ),
)

# Select/Query.with_for_update(nowait=, read=, of=, skip_locked=, key_share=);
# the session flushes changed objects: assigning an attribute of a row writes it.
# `read=True` renders FOR SHARE (FOR KEY SHARE with `key_share=True`; the
# PostgreSQL compiler's `for_update_clause`, SQLAlchemy 1.4-2.1).
ROW_LOCK_APIS = (
    RowLockApi(
        "with_for_update",
        ("skip_locked", "nowait"),
        "skip_locked",
        "with_for_update(skip_locked=True)",
        assignment_writes=True,
        shared=("read",),
    ),
)

QUERY_APIS = (
    QueryApi(
        filter_methods=("filter", "filter_by", "where"),
        ordering_methods=("order_by",),
        pick_next_methods=("first", "limit"),
        limit_methods=("limit",),
        single_row_methods=("get", "one", "one_or_none"),
        row_fetch_methods=(
            "first",
            "get",
            "one",
            "one_or_none",
            "scalar",
            "scalar_one",
            "scalar_one_or_none",
        ),
        # `select(Job)`, `session.query(Job)`.
        entity_calls=("select", "query"),
        # `session.scalars(stmt)`, `session.execute(stmt).scalars().all()`.
        execute_methods=("scalars", "execute", "stream", "stream_scalars"),
        result_rows_methods=("all", "scalars", "unique", "fetchall", "yield_per"),
        and_calls=("and_", "sqlalchemy.and_", "sqlalchemy.sql.and_"),
        or_calls=("or_", "not_", "sqlalchemy.or_", "sqlalchemy.not_", "sqlalchemy.sql.or_"),
        in_methods=("in_",),
        column_operator_methods=(
            "notin_",
            "not_in",
            "is_",
            "is_not",
            "isnot",
            "like",
            "ilike",
            "not_like",
            "notlike",
            "not_ilike",
            "notilike",
            "startswith",
            "endswith",
            "contains",
            "icontains",
            "istartswith",
            "iendswith",
            "between",
            "match",
            "regexp_match",
            "op",
            "any_",
            "all_",
            "any",
            "has",
            "is_distinct_from",
            "is_not_distinct_from",
            "isnot_distinct_from",
        ),
        column_reference_calls=("literal_column",),
        # A Core table's columns: `jobs.c.status`.
        table_columns_attributes=("c",),
        # `session.delete(row)`, `update(Job).where(...)`.
        write_calls=("update", "delete"),
    ),
)

# `Column(...)`/`mapped_column(...)` with `primary_key=True` (several together
# are one key) or `unique=True`; constraints in `__table_args__`.
MODEL_KEY_APIS = (
    ModelKeyApi(
        primary_key_keyword="primary_key",
        unique_keyword="unique",
        unique_constraint_classes=("UniqueConstraint", "PrimaryKeyConstraint"),
        table_args_attribute="__table_args__",
    ),
)

# --- model classes and the session's fetches ---------------------------------------

MODEL = "sqlalchemy_model"
MODEL_LIST = "sqlalchemy_list"

OBJECT_KINDS = (
    ObjectKind(
        MODEL,
        Family.ROW,
        "a SQLAlchemy model instance",
        "{text}.id and re-fetch it in the task",
        key_attribute="id",
    ),
    ObjectKind(
        MODEL_LIST,
        Family.ROWS,
        "a list of SQLAlchemy model instances",
        "their ids and re-fetch them in the task",
    ),
)

BASE_CLASS_KINDS = (
    ("sqlalchemy.orm.DeclarativeBase", MODEL),
    ("sqlalchemy.orm.DeclarativeBaseNoMeta", MODEL),
    ("sqlalchemy.orm.decl_api.DeclarativeBase", MODEL),
)
# `Base = declarative_base()`.
CLASS_FACTORIES = (
    ("sqlalchemy.orm.declarative_base", MODEL),
    ("sqlalchemy.ext.declarative.declarative_base", MODEL),
)

SESSION_FETCHES = (
    SessionFetches(
        row_kind=MODEL,
        rows_kind=MODEL_LIST,
        get_methods=("get", "get_one"),
        entity_methods=("query",),
        statement_methods=("scalars", "execute"),
        select_functions=("select",),
        row_methods=("first", "one", "one_or_none", "scalar_one", "scalar_one_or_none"),
        rows_methods=("all",),
    ),
)

# --- a whole table in one job (JL602) ------------------------------------------------

# `session.query(User).all()` or the query iterated, `session.scalars(select(User)).all()`,
# `session.execute(select(User)).scalars()`, `.yield_per(n)` (fewer rows in
# memory, every row still read by the one job). `.filter()`, `.filter_by()`,
# `.where()`, `.limit()`, `.get()`, `.first()`, a join (any method not named
# here) bound the read. SQL text run by `conn.execute(text("SELECT ..."))` or
# `exec_driver_sql(...)` is read as SQL.
TABLE_READS = (
    TableReads(
        "sqlalchemy",
        keep_rows=(
            "order_by",
            "options",
            "execution_options",
            "yield_per",
            "enable_eagerloads",
            "populate_existing",
        ),
        query_methods=("query",),
        statement_functions=(
            "sqlalchemy.select",
            "sqlalchemy.future.select",
            "sqlalchemy.sql.select",
            "sqlalchemy.sql.expression.select",
        ),
        execute_methods=("scalars", "execute", "stream", "stream_scalars"),
        fetch_all=("all", "fetchall", "scalars", "unique", "yield_per", "tuples", "mappings"),
        model_kind=MODEL,
        modules=("sqlalchemy", "flask_sqlalchemy", "sqlmodel"),
        sql_methods=("exec_driver_sql",),
    ),
)
