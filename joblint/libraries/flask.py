"""Flask: the functions an app or a blueprint routes, and the functions it
runs after them. Read from Flask 3.1.3 (`src/flask/app.py`):
`full_dispatch_request` runs the view, then `finalize_request` its
`after_request` functions (the blueprint's, then the app's, each in reverse
order of registration: `process_response`), and once the response is
returned, `wsgi_app`'s `finally` pops the request context, which runs the
`teardown_request` functions (`do_teardown_request`) and then the app
context's `teardown_appcontext` ones. A blueprint's `teardown_request` and
`after_request` run only for the requests it handled (`request.blueprints`);
its `teardown_app_request`/`after_app_request` for every request
(`src/flask/sansio/blueprints.py`). Whatever such a function commits, it
commits after the view returned: an enqueue in the view, after it added or
changed rows of the request's session, runs before the COMMIT.

Class-based views: `flask.views.MethodView` dispatches to the method named
after the request's (`get`, `post`, ...), `View` to `dispatch_request`;
Flask-RESTful's and Flask-RESTX's `Resource` are `MethodView`s. Flask-
AppBuilder's `expose` marks a view class's method as a route."""

from __future__ import annotations

from joblint.libraries.base import RequestHandlers, RequestHooks

FRAMEWORK = "flask"
_BLUEPRINTS = (
    "flask.Blueprint",
    "flask.blueprints.Blueprint",
    "flask_smorest.Blueprint",
    "flask_smorest.blueprint.Blueprint",
    "apiflask.APIBlueprint",
    "apiflask.blueprint.APIBlueprint",
)
REQUEST_HANDLERS = (
    RequestHandlers(
        FRAMEWORK,
        "a Flask view",
        decorators=(
            "flask_appbuilder.expose",
            "flask_appbuilder.api.expose",
            "flask_appbuilder.baseviews.expose",
        ),
        routers=("flask.Flask", "flask.app.Flask", "apiflask.APIFlask", *_BLUEPRINTS),
        route_methods=("route", "get", "post", "put", "patch", "delete"),
        bases=(
            "flask.views.",
            "flask_restful.Resource",
            "flask_restx.Resource",
            "flask_restplus.Resource",
        ),
        methods=("get", "post", "put", "patch", "delete", "dispatch_request"),
        route_calls=((".add_url_rule", 2, "view_func"),),
    ),
)
REQUEST_HOOKS = (
    RequestHooks(
        FRAMEWORK,
        handlers=(FRAMEWORK,),
        transaction="inside the session the app commits after it returns",
        fix_hint=(
            "Commit the session before enqueuing, or enqueue after the commit in the "
            "function that commits it (the jobs collected on `flask.g`)"
        ),
        hook_methods=(
            "teardown_request",
            "teardown_appcontext",
            "after_request",
            "teardown_app_request",
            "after_app_request",
        ),
        own_hook_methods=("teardown_request", "after_request"),
        blueprints=_BLUEPRINTS,
    ),
)
