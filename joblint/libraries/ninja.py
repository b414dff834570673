"""django-ninja and django-ninja-extra: API operations Django runs as views
(under `ATOMIC_REQUESTS`, inside the request's transaction; async
operations are not). Read from django-ninja 1.3 (`ninja/main.py`,
`ninja/router.py`: `NinjaAPI` and `Router` register operations with
`get`/`post`/`put`/`patch`/`delete`/`api_operation`) and django-ninja-extra
0.22 (`ninja_extra/controllers/route/__init__.py`: `route.get(...)` and the
`http_get`/... aliases on methods of an `@api_controller` class)."""

from __future__ import annotations

from joblint.libraries.base import RequestHandlers

_OPERATIONS = ("get", "post", "put", "patch", "delete", "api_operation")

REQUEST_HANDLERS = (
    RequestHandlers(
        "django",
        "a django-ninja operation",
        routers=(
            "ninja.NinjaAPI",
            "ninja.main.NinjaAPI",
            "ninja.Router",
            "ninja.router.Router",
            "ninja_extra.NinjaExtraAPI",
            "ninja_extra.main.NinjaExtraAPI",
            "ninja_extra.Router",
        ),
        route_methods=_OPERATIONS,
    ),
    RequestHandlers(
        "django",
        "a ninja-extra controller route",
        decorators=(
            *(f"ninja_extra.route.{method}" for method in (*_OPERATIONS[:5], "generic")),
            *(f"ninja_extra.controllers.route.{method}" for method in _OPERATIONS[:5]),
            *(
                f"ninja_extra.{name}"
                for name in (
                    "http_get",
                    "http_post",
                    "http_put",
                    "http_patch",
                    "http_delete",
                    "http_generic",
                )
            ),
        ),
    ),
)
