"""FastAPI: a path operation runs with its dependencies; a dependency that
yields the request's session and commits it after the `yield` commits only
once the operation has returned ("The code following the yield statement is
executed after the response", FastAPI's "Dependencies with yield"; since
0.106.0 before the response is sent and before background tasks run).
Every enqueue the operation makes after writing through that session runs
before the COMMIT."""

from __future__ import annotations

from joblint.libraries.base import RequestHandlers

FRAMEWORK = "fastapi"
_OPERATIONS = ("get", "post", "put", "patch", "delete", "api_route", "websocket")
REQUEST_HANDLERS = (
    RequestHandlers(
        FRAMEWORK,
        "a FastAPI path operation",
        routers=(
            "fastapi.FastAPI",
            "fastapi.applications.FastAPI",
            "fastapi.APIRouter",
            "fastapi.routing.APIRouter",
        ),
        route_methods=_OPERATIONS,
    ),
)
# `Depends(get_db)` in a parameter's default or inside `Annotated[...]`.
DEPENDS = ("fastapi.Depends", "fastapi.params.Depends", "fastapi.param_functions.Depends")
ANNOTATED = ("typing.Annotated", "typing_extensions.Annotated")
