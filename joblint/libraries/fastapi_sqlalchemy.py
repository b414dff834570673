"""fastapi-sqlalchemy: `app.add_middleware(DBSessionMiddleware, db_url=...,
commit_on_exit=True)` gives each request the `db.session` it commits once
the endpoint has returned. Read from 0.2.1 (`fastapi_sqlalchemy/middleware.py`:
`dispatch` runs `await call_next(request)` inside `with
db(commit_on_exit=self.commit_on_exit)`, whose `__exit__` calls
`sess.commit()` when that is true)."""

from __future__ import annotations

from joblint.libraries import starlette
from joblint.libraries.base import RequestHooks

REQUEST_HOOKS = (
    RequestHooks(
        starlette.FRAMEWORK,
        handlers=(starlette.FRAMEWORK, "fastapi"),
        committing_middleware=(
            ("fastapi_sqlalchemy.DBSessionMiddleware", "commit_on_exit"),
            ("fastapi_sqlalchemy.middleware.DBSessionMiddleware", "commit_on_exit"),
        ),
    ),
)
