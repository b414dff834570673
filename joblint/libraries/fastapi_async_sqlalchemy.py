"""fastapi-async-sqlalchemy: `app.add_middleware(SQLAlchemyMiddleware,
db_url=..., commit_on_exit=True)` gives each request the `db.session` it
commits once the endpoint has returned. Read from 0.7.2
(`fastapi_async_sqlalchemy/middleware.py`: `dispatch` runs `await
call_next(request)` inside `async with DBSession(commit_on_exit=...)`, whose
exit awaits `session.commit()` when that is true)."""

from __future__ import annotations

from joblint.libraries import starlette
from joblint.libraries.base import RequestHooks

REQUEST_HOOKS = (
    RequestHooks(
        starlette.FRAMEWORK,
        handlers=(starlette.FRAMEWORK, "fastapi"),
        committing_middleware=(
            ("fastapi_async_sqlalchemy.SQLAlchemyMiddleware", "commit_on_exit"),
            ("fastapi_async_sqlalchemy.middleware.SQLAlchemyMiddleware", "commit_on_exit"),
        ),
    ),
)
