"""Pyramid with `pyramid_tm`: every view runs inside the request's
transaction manager, committed after the view returns (pyramid_tm 2.5,
`pyramid_tm/__init__.py`: `tm_tween`), and `transaction.get().
addAfterCommitHook(...)` is its on-commit hook (transaction 4.0,
`transaction/_transaction.py`). pyramid_services (2.2,
`src/pyramid_services/__init__.py`) gives views their services:
`request.find_service(iface=Interface, context=..., name="")` makes the one
`config.register_service_factory(factory, iface=Interface, context=None,
name="")` registers (`factory(context, request)`, the factory a dotted
string or an object: `config.maybe_dotted`), or returns the instance
`config.register_service(service, iface, context, name)` registers.
`view_config` registers its view through a venusian callback calling
`config.add_view(view=ob, **settings)` (pyramid 2.0, `pyramid/view.py`):
a project's decorator doing the same registers views too."""

from __future__ import annotations

from joblint.libraries.base import Library, RequestHandlers, ServiceApi

# Set where the app includes `pyramid_tm` (`config.include("pyramid_tm")`, or
# `pyramid.includes` in its ini file).
FRAMEWORK = "pyramid"
TM_FLAG = "pyramid.tm"
TM_PACKAGE = "pyramid_tm"
INCLUDE_METHOD = "include"
INI_INCLUDES = "pyramid.includes"

# Transaction managers a `with` block opens and commits: pyramid_tm's
# per-request one (`with request.tm:`) and the transaction package's
# thread-local one (`with transaction.manager:`).
REQUEST_MANAGER_ATTRIBUTES = ("tm",)
REQUEST_NAME = "request"
TRANSACTION_MANAGERS = ("transaction.manager",)

REQUEST_HANDLERS = (
    RequestHandlers(
        FRAMEWORK,
        "a Pyramid view",
        decorators=("pyramid.view.view_config",),
        attach_functions=("venusian.attach",),
        config_methods=("add_view",),
    ),
)

SERVICE_APIS = (
    ServiceApi(
        find_methods=("find_service",),
        # `request.find_service`, `self.request.find_service`, `event.request...`.
        receivers=(REQUEST_NAME,),
        find_parameters=("iface", "context", "name"),
        factory_registrations=("register_service_factory",),
        instance_registrations=("register_service",),
        register_parameters=("iface", "context", "name"),
        interface_parameter="iface",
        name_parameter="name",
        # wired's container looks the factory up in a zope.interface adapter
        # registry, where a find with `Interface` matches any interface.
        any_interface=True,
    ),
)

LIBRARIES = (
    Library(
        "transaction",
        "transaction",
        modules=("transaction", "pyramid_tm"),
        # `transaction.get().addAfterCommitHook(hook)`: it runs after COMMIT.
        on_commit_methods=("addAfterCommitHook",),
    ),
)
