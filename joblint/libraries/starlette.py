"""Starlette (and FastAPI, built on it): middleware runs around every
request's endpoint. Read from Starlette 0.47.3: `BaseHTTPMiddleware`
(`starlette/middleware/base.py`; `@app.middleware("http")` adds one with
`dispatch=func`) runs `dispatch(request, call_next)`, whose `await
call_next(request)` returns once the endpoint has sent its response's
start: what the dispatch does after it, a commit included, comes after the
endpoint returned. The endpoint's response body passes through a memory
stream read only after `dispatch` returns, so a `BackgroundTask` on the
response (`starlette/responses.py`: run after the body is sent) runs
after that commit. A pure ASGI middleware awaiting `self.app(scope,
receive, send)` gets control back only once the endpoint's response,
background tasks included, is done: its commit comes after both.
Middleware is added with `app.add_middleware(Cls, ...)` or
`Middleware(Cls, ...)` in `Starlette(middleware=[...])`
(`starlette/middleware/__init__.py`, `starlette/applications.py`).
Endpoints: `Route(path, endpoint)` (`starlette/routing.py`),
`app.add_route(path, route)` and the `@app.route(path)` decorator."""

from __future__ import annotations

from joblint.libraries.base import RequestHandlers, RequestHooks

FRAMEWORK = "starlette"
REQUEST_HANDLERS = (
    RequestHandlers(
        FRAMEWORK,
        "a Starlette endpoint",
        routers=("starlette.applications.Starlette", "starlette.routing.Router"),
        route_methods=("route",),
        route_calls=(
            ("starlette.routing.Route", 1, "endpoint"),
            (".add_route", 1, "route"),
        ),
    ),
)
REQUEST_HOOKS = (
    RequestHooks(
        FRAMEWORK,
        handlers=(FRAMEWORK, "fastapi"),
        transaction="inside the session a middleware commits after it returns",
        fix_hint=(
            "Commit the session before enqueuing, or enqueue from a BackgroundTask on the "
            "response (Starlette runs it after a BaseHTTPMiddleware's dispatch has returned, "
            "not after a pure ASGI middleware's commit)"
        ),
        middleware_adders=("add_middleware",),
        middleware_wrappers=("starlette.middleware.Middleware", "fastapi.middleware.Middleware"),
        dispatch_keyword="dispatch",
        middleware_decorators=("middleware",),
        middleware_methods=("dispatch", "__call__"),
        next_parameters=("call_next",),
        next_attributes=("app",),
    ),
)
