"""Flask-SQLAlchemy: `db = SQLAlchemy(app)`, whose `db.Model` is a declarative base."""

from __future__ import annotations

from joblint.libraries.job_work import TableReads
from joblint.libraries.sqlalchemy import MODEL

MODEL_ATTRIBUTE_FACTORIES = (("flask_sqlalchemy.SQLAlchemy", MODEL),)

# --- a whole table in one job (JL602) ------------------------------------------------

# `User.query.all()`, `User.query.order_by(User.id)` iterated: every row of a
# `db.Model` subclass (`filter_by`, `filter`, `limit`, `get`, `first`,
# `paginate` bound it).
TABLE_READS = (
    TableReads(
        "flask_sqlalchemy",
        managers=("query",),
        keep_rows=("order_by", "options", "execution_options", "yield_per", "enable_eagerloads"),
        fetch_all=("all",),
        model_kind=MODEL,
        modules=("flask_sqlalchemy",),
    ),
)
