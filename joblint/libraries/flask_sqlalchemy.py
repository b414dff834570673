"""Flask-SQLAlchemy: `db = SQLAlchemy(app)`, whose `db.Model` is a declarative base.

`SQLALCHEMY_COMMIT_ON_TEARDOWN = True` in the app's configuration commits
`db.session` after every request that raised nothing: read from 2.0
(`flask_sqlalchemy/__init__.py`, `init_app`: a `teardown_appcontext`
function calling `self.session.commit()` when the setting is on), 2.5.1
(the same, with a deprecation warning) and 3.0.5
(`src/flask_sqlalchemy/extension.py`: `init_app` registers
`_teardown_commit` instead of `_teardown_session`). 3.1.0 removed it (the
setting is then ignored): a project setting it is taken to run a version
that honours it."""

from __future__ import annotations

from joblint.libraries import flask
from joblint.libraries.base import RequestHooks
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

# --- the request's session committed after the view (JL101) ------------------------

REQUEST_HOOKS = (
    RequestHooks(
        flask.FRAMEWORK,
        handlers=(flask.FRAMEWORK,),
        commit_settings=("SQLALCHEMY_COMMIT_ON_TEARDOWN",),
    ),
)
