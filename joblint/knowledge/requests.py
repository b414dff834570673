"""Request handlers, merged from the libraries' `REQUEST_HANDLERS`: which
decorators, router objects and framework classes make a function one, and
which settings flag makes each framework's requests transactions."""

from __future__ import annotations

import re

from joblint.knowledge import jobs
from joblint.libraries import collect, django, fastapi, pyramid, python
from joblint.libraries.base import RequestHandlers, RequestHooks, ServiceApi, SignalApi

HANDLERS: tuple[RequestHandlers, ...] = collect("REQUEST_HANDLERS")
HOOKS: tuple[RequestHooks, ...] = collect("REQUEST_HOOKS")

# The flag (`FileFacts.flags`) under which each framework runs its handlers
# inside the request's transaction.
FRAMEWORK_FLAGS: dict[str, str] = {
    "django": django.ATOMIC_REQUESTS_FLAG,
    "pyramid": pyramid.TM_FLAG,
}
# Frameworks whose handler runs inside a transaction when one of its
# dependencies yields a session it commits after the handler returns (not a
# settings flag): sync and async handlers alike.
DEPENDENCY_FRAMEWORKS: frozenset[str] = frozenset({fastapi.FRAMEWORK})
# How a message says each framework's request is a transaction.
FRAMEWORK_TRANSACTIONS: dict[str, str] = {
    "django": "inside the request's transaction (ATOMIC_REQUESTS)",
    "pyramid": "inside the request's transaction (pyramid_tm)",
    fastapi.FRAMEWORK: "inside the session its dependency commits after it returns",
    **{h.framework: h.transaction for h in HOOKS if h.transaction},
}
# Frameworks whose request's session flushes every row it holds at COMMIT
# (SQLAlchemy's unit of work under pyramid_tm, or a session committed after
# the handler): a handler setting a field of a row writes it. Django writes
# only what `save()`/`update()` say.
FIELD_SETS_WRITE: frozenset[str] = frozenset(
    {"pyramid", fastapi.FRAMEWORK, *(h.framework for h in HOOKS)}
)
# How a message says to defer a job to each framework's COMMIT.
FRAMEWORK_FIX_HINTS: dict[str, str] = {
    "pyramid": jobs.FIX_HINTS[jobs.TxFamily.TRANSACTION_MANAGER],
    fastapi.FRAMEWORK: (
        "Commit the session before enqueuing, or enqueue from a BackgroundTasks task "
        "(FastAPI >= 0.106 runs those after the dependency's commit)"
    ),
    **{h.framework: h.fix_hint for h in HOOKS if h.fix_hint},
}
DECORATORS: dict[str, RequestHandlers] = {d: h for h in HANDLERS for d in h.decorators}
# Calls registering the function they are handed as a handler
# (`RequestHandlers.route_calls`): qualified name or ".method" -> the
# handlers, the function's position and keyword.
ROUTE_CALLS: dict[str, tuple[RequestHandlers, int, str]] = {
    name: (h, position, keyword) for h in HANDLERS for name, position, keyword in h.route_calls
}
ROUTERS: dict[str, RequestHandlers] = {r: h for h in HANDLERS for r in h.routers}
ROUTE_METHODS: frozenset[str] = frozenset(m for h in HANDLERS for m in h.route_methods)
CLASS_HANDLERS: tuple[RequestHandlers, ...] = tuple(h for h in HANDLERS if h.bases)
# What a project's decorator registering handlers calls (`RequestHandlers.
# attach_functions`, `config_methods`): each with the framework decorator it
# stands for.
ATTACH_FUNCTIONS: dict[str, str] = {
    f: h.decorators[0] for h in HANDLERS if h.decorators for f in h.attach_functions
}
CONFIG_METHODS: dict[str, str] = {
    m: h.decorators[0] for h in HANDLERS if h.decorators for m in h.config_methods
}
# The words a module attaching such a callback names (its attach function's module).
_ATTACH_WORDS: tuple[str, ...] = tuple({f.split(".")[0] for f in ATTACH_FUNCTIONS})


def may_attach(lowered: str) -> bool:
    """Whether a module's lower-cased text may attach a handler's callback."""
    return any(word in lowered for word in _ATTACH_WORDS)


NON_ATOMIC: frozenset[str] = django.NON_ATOMIC_REQUESTS
# Classes whose methods taking the request after `self` handle one: Django's,
# DRF's and the admin's, and other libraries' classes built on them.
REQUEST_CLASS_BASES: tuple[str, ...] = (
    *django.REQUEST_CLASS_BASES,
    *collect("DJANGO_REQUEST_CLASSES"),
)

# A library's call creating a row of a library model in the caller's
# transaction (actstream's `action.send` saves an `Action`): call -> model.
ROW_CREATING_CALLS: dict[str, str] = dict(collect("ROW_CREATING_CALLS"))

SIGNAL_APIS: tuple[SignalApi, ...] = collect("SIGNAL_APIS")
RECEIVER_DECORATORS: frozenset[str] = frozenset(
    d for api in SIGNAL_APIS for d in api.receiver_decorators
)
CONNECT_METHODS: frozenset[str] = frozenset(m for api in SIGNAL_APIS for m in api.connect_methods)
SEND_METHODS: frozenset[str] = frozenset(m for api in SIGNAL_APIS for m in api.send_methods)

SERVICE_APIS: tuple[ServiceApi, ...] = collect("SERVICE_APIS")
# Find method -> its API; registering method -> its API and whether it
# registers the service itself (an instance) rather than its factory.
SERVICE_FINDERS: dict[str, ServiceApi] = {m: api for api in SERVICE_APIS for m in api.find_methods}
SERVICE_REGISTRATIONS: dict[str, tuple[ServiceApi, bool]] = {
    **{m: (api, False) for api in SERVICE_APIS for m in api.factory_registrations},
    **{m: (api, True) for api in SERVICE_APIS for m in api.instance_registrations},
}
# Whether a find naming no interface finds one registered under any.
SERVICE_ANY_INTERFACE: bool = any(api.any_interface for api in SERVICE_APIS)
# What a module registering a service names (its bytes are searched for them).
SERVICE_REGISTRATION_WORDS: tuple[bytes, ...] = tuple(m.encode() for m in SERVICE_REGISTRATIONS)
# A service found by its key is named `<service:interface:name>` in a call's
# qualified name (`<service::signup>.signup`): one dotted part, no module's.
_SERVICE_PREFIX = "<service:"


def service_key(interface: str, name: str) -> str:
    """The qualified name of what a find of the service keyed (`interface`,
    `name`) returns ("" for a key not given); dots would make it parts."""
    return f"{_SERVICE_PREFIX}{interface.replace('.', '/')}:{name.replace('.', '/')}>"


def service_of(qualname: str) -> tuple[str, str] | None:
    """The (interface, name) `qualname` keys when it is a `service_key`
    (the names' dots, taken for slashes, come back as dots)."""
    if not qualname.startswith(_SERVICE_PREFIX) or not qualname.endswith(">"):
        return None
    interface, _, name = qualname[len(_SERVICE_PREFIX) : -1].partition(":")
    return interface.replace("/", "."), name.replace("/", ".")


def names_service(qualname: str) -> bool:
    """Whether a call's qualified name is a method of a found service."""
    return qualname.startswith(_SERVICE_PREFIX)


# Model signals the framework sends inside a transaction it opens itself,
# whoever writes (a delete's collector, a many-to-many change): signal ->
# how a message names that transaction.
OWN_TRANSACTION_SIGNALS: dict[str, str] = {
    signal: own
    for signals in jobs.MODEL_SIGNALS
    for write, own in signals.own_transactions
    for signal, reported in signals.signals
    if reported == write
}

# Functions that run a project's management command by its name
# (`call_command("rebuild_index")`), and the names a module's text calls them by.
COMMAND_RUNNERS: frozenset[str] = django.CALL_COMMAND_FUNCTIONS
COMMAND_RUNNER_NAMES: frozenset[str] = frozenset(q.rsplit(".", 1)[-1] for q in COMMAND_RUNNERS)


def command_name(module: str) -> str:
    """The name a command runner runs the module by ("rebuild_index" for
    `shop.management.commands.rebuild_index`); "" for any other module."""
    package, _, name = module.rpartition(".")
    suffix = django.COMMAND_PACKAGE
    return name if package == suffix or package.endswith(f".{suffix}") else ""


def command_handler(module: str) -> str:
    """What running the command module calls: its `Command.handle`."""
    return f"{module}.{django.COMMAND_HANDLER}"


def opens_manager(parts: list[str], qualname: str | None) -> bool:
    """Whether `with <parts>:` opens a transaction manager's transaction:
    `request.tm`, `self.request.tm`, `event.request.tm`, `transaction.manager`."""
    if qualname in pyramid.TRANSACTION_MANAGERS:
        return True
    return (
        len(parts) >= 2
        and parts[-1] in pyramid.REQUEST_MANAGER_ATTRIBUTES
        and parts[-2] == pyramid.REQUEST_NAME
    )


# Methods a model's row writes itself with (`order.save()`, `order.delete()`).
INSTANCE_WRITE_METHODS: frozenset[str] = frozenset(
    m for s in jobs.MODEL_SIGNALS for _, methods in s.instance_writes for m in methods
)
# A manager's write method -> the model's own methods it calls (Django's
# `create`/`get_or_create`/`update_or_create` call `save()`, which the
# project's model may override).
MANAGER_CALLS_INSTANCE: dict[str, tuple[str, ...]] = {
    method: instance
    for s in jobs.MODEL_SIGNALS
    for kind, methods in s.manager_writes
    for written, instance in s.instance_writes
    if written == kind
    for method in methods
}
# The managers a model's rows are written through (`Order.objects`).
MODEL_MANAGERS: frozenset[str] = frozenset(m for s in jobs.MODEL_SIGNALS for m in s.managers)
# Methods whose call writes rows: Django's managers, querysets, instances and
# many-to-many managers (`MODEL_SIGNALS`), SQLAlchemy's session, a DB-API
# cursor. A call of one names the class it writes, or is a write no summary
# can place.
ROW_WRITE_METHODS: frozenset[str] = frozenset(
    {
        *INSTANCE_WRITE_METHODS,
        *(m for s in jobs.MODEL_SIGNALS for _, methods in s.manager_writes for m in methods),
        *(m for s in jobs.MODEL_SIGNALS for _, methods in s.queryset_writes for m in methods),
        *(m for s in jobs.MODEL_SIGNALS for m in s.m2m_methods),
        "update",
        "bulk_create",
        "bulk_update",
        "add_all",
        "merge",
        "flush",
        "commit",
        "execute",
        "executemany",
        "insert",
        "upsert",
    }
)
# Of those, the DB-API's statements: a write only on what is named like a
# cursor, connection or session (`cursor.execute(sql)`), not an
# Elasticsearch search's or a command's `execute()`.
STATEMENT_METHODS: frozenset[str] = frozenset({"execute", "executemany"})
_STATEMENT_RECEIVER = re.compile(
    r"(cursor|cur|session|conn|connection|db|database|engine|transaction|txn|tx)s?$"
)


# Methods of built-in values that change nothing (`mapping.items()`).
PURE_METHODS: frozenset[str] = python.PURE_BUILTIN_METHODS - ROW_WRITE_METHODS


def writes_rows(method: str, receiver: str) -> bool:
    """Whether `<receiver>.<method>(...)` may write rows (`receiver`: the last
    name of what it is called on, "" where that is no name)."""
    if method not in ROW_WRITE_METHODS:
        return False
    if method in STATEMENT_METHODS:
        return _STATEMENT_RECEIVER.search(receiver.lower().strip("_")) is not None
    return True


def may_connect(lowered: str) -> bool:
    """The (lower-cased) module's text may connect a receiver to a signal: a
    connect method called or used as a decorator (`.connect(`, `@s.connect`),
    or a receiver decorator (`receiver(`)."""
    return any(token in lowered for token in _CONNECTING_TOKENS)


_CONNECTING_TOKENS = tuple(
    sorted(
        {
            *(f".{m}(" for m in CONNECT_METHODS),
            *(f".{m}\n" for m in CONNECT_METHODS),
            *(f"{d.rsplit('.', 1)[-1]}(" for d in RECEIVER_DECORATORS),
        }
    )
)


# --- functions a framework runs after or around its handlers (`HOOKS`) ------------

# The method registering a function run after the handler, a middleware
# adder, wrapper or decorator, a setting committing after every handler:
# each with its declaration.
HOOK_REGISTRATIONS: dict[str, RequestHooks] = {m: h for h in HOOKS for m in h.hook_methods}
OWN_HOOK_METHODS: frozenset[str] = frozenset(m for h in HOOKS for m in h.own_hook_methods)
BLUEPRINTS: frozenset[str] = frozenset(b for h in HOOKS for b in h.blueprints)
MIDDLEWARE_ADDERS: dict[str, RequestHooks] = {m: h for h in HOOKS for m in h.middleware_adders}
MIDDLEWARE_WRAPPERS: dict[str, RequestHooks] = {w: h for h in HOOKS for w in h.middleware_wrappers}
MIDDLEWARE_DECORATORS: dict[str, RequestHooks] = {
    d: h for h in HOOKS for d in h.middleware_decorators
}
DISPATCH_KEYWORDS: frozenset[str] = frozenset(
    h.dispatch_keyword for h in HOOKS if h.dispatch_keyword
)
COMMIT_SETTINGS: dict[str, RequestHooks] = {k: h for h in HOOKS for k in h.commit_settings}
# A library's middleware class -> its declaration, and the keyword that,
# true, makes it commit after the handler.
COMMITTING_MIDDLEWARE: dict[str, tuple[RequestHooks, str]] = {
    cls: (h, keyword) for h in HOOKS for cls, keyword in h.committing_middleware
}
MIDDLEWARE_METHODS: tuple[str, ...] = tuple(
    dict.fromkeys(m for h in HOOKS for m in h.middleware_methods)
)
NEXT_PARAMETERS: frozenset[str] = frozenset(p for h in HOOKS for p in h.next_parameters)
NEXT_ATTRIBUTES: frozenset[str] = frozenset(a for h in HOOKS for a in h.next_attributes)
# The handlers' framework -> the frameworks whose hooks run after its handlers.
HOOKED_BY: dict[str, frozenset[str]] = {
    handled: frozenset(h.framework for h in HOOKS if handled in h.handlers)
    for handled in {f for h in HOOKS for f in h.handlers}
}
# What a module registering one names.
HOOK_WORDS: tuple[str, ...] = tuple(
    sorted(
        {
            *HOOK_REGISTRATIONS,
            *MIDDLEWARE_ADDERS,
            *(f"{w.rsplit('.', 1)[-1]}(" for w in MIDDLEWARE_WRAPPERS),
            *(f".{d}(" for d in MIDDLEWARE_DECORATORS),
            *COMMIT_SETTINGS,
        }
    )
)
# What a module registering a handler by a call names (`Route("/x", f)`).
ROUTE_CALL_WORDS: tuple[str, ...] = tuple(
    sorted({f"{name.rsplit('.', 1)[-1]}(" for name in ROUTE_CALLS})
)
_REGISTERING_WORDS = (*HOOK_WORDS, *ROUTE_CALL_WORDS)


def may_hook(text: str) -> bool:
    """Whether a module's text may register a function run after or around
    request handlers, or a handler by a call."""
    return any(word in text for word in _REGISTERING_WORDS)
