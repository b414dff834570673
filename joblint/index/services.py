"""Service locators, read with Python's `ast` (`knowledge.requests.SERVICE_APIS`):
what a handler's `request.find_service(...)` finds, and what the app's
`config.register_service_factory(...)` registers under which key: for the
call graph, which follows a found service's calls to its factory's class.

A find is named by its key (`requests.service_key`) in the qualified names
of the calls on what it returns: `svc.signup()` on `svc =
request.find_service(name="user_signup")` calls `<service::user_signup>.signup`,
which the call graph follows to the registered factory's class. Only keys
written literally are read: a name that is no string, or an interface no
import or definition names, keys nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from joblint.knowledge import requests
from joblint.libraries.base import ServiceApi
from joblint.models import ServiceRegistration
from joblint.settings import ModuleInfo

Qualify = Callable[[ast.expr], "str | None"]
_Arguments = dict[str, ast.expr]
# What a registration is handed first: the factory, or the service itself.
_REGISTERED = ""
# `pkg.module:attribute`, Pyramid's other way of writing a dotted name.
_ATTRIBUTE_SEPARATOR = ":"


def found_service(call: ast.Call, qualify: Qualify) -> str | None:
    """The `service_key` naming what `call` returns when it finds a service
    (`request.find_service(name="signup")`, `self.request.find_service(ISignup)`);
    None for any other call, or a key not written literally."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    api = requests.SERVICE_FINDERS.get(func.attr)
    if api is None or _last_name(func.value) not in api.receivers:
        return None
    arguments = _arguments(call, api.find_parameters)
    key = _key(arguments, api, qualify) if arguments is not None else None
    return requests.service_key(*key) if key is not None else None


def registered_service(
    call: ast.Call, qualify: Qualify, module: ModuleInfo
) -> ServiceRegistration | None:
    """What `config.register_service_factory(factory, iface=..., name=...)`
    (or `config.register_service(instance, ...)`) registers, when its key and
    what it registers are written so the index can name them."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    found = requests.SERVICE_REGISTRATIONS.get(func.attr)
    if found is None:
        return None
    api, instance = found
    arguments = _arguments(call, (_REGISTERED, *api.register_parameters))
    if arguments is None or _REGISTERED not in arguments:
        return None
    key = _key(arguments, api, qualify)
    made = _registered(arguments[_REGISTERED], qualify, module, instance)
    if key is None or made is None:
        return None
    return ServiceRegistration(key[0], key[1], made[0], call.lineno, made[1])


def _registered(
    value: ast.expr, qualify: Qualify, module: ModuleInfo, instance: bool
) -> tuple[str, bool] | None:
    """The qualified name of what a registration hands over, and whether it
    is the service itself: a factory may be a dotted string (resolved as
    `config.maybe_dotted` does, relative to the registering module's
    package); an instance made where it is registered has its class for
    factory (`register_service(Mailer(...))`)."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        dotted = _dotted_string(value.value, module)
        return (dotted, instance) if dotted is not None else None
    if isinstance(value, ast.Call):
        maker = qualify(value.func) if instance else None
        return (maker, False) if maker is not None else None
    named = qualify(value)
    return (named, instance) if named is not None else None


def _dotted_string(text: str, module: ModuleInfo) -> str | None:
    """`"shop.services:mailer_factory"`, `".mailer.factory"` as a qualified name."""
    stripped = text.strip().replace(_ATTRIBUTE_SEPARATOR, ".")
    target = stripped.lstrip(".")
    level = len(stripped) - len(target)
    if not target or not all(part.isidentifier() for part in target.split(".")):
        return None
    return module.absolute(level, target) if level else target


def _key(arguments: _Arguments, api: ServiceApi, qualify: Qualify) -> tuple[str, str] | None:
    """The (interface, name) a call's arguments key ("" for one not given)."""
    interface = ""
    value = arguments.get(api.interface_parameter)
    if value is not None:
        qualified = qualify(value)
        if qualified is None:
            return None
        interface = qualified
    name = ""
    value = arguments.get(api.name_parameter)
    if value is not None:
        if not isinstance(value, ast.Constant) or not isinstance(value.value, str):
            return None
        name = value.value
    return (interface, name) if interface or name else None


def _arguments(call: ast.Call, parameters: tuple[str, ...]) -> _Arguments | None:
    """What the call passes to each of `parameters` (in their order); None
    when `*args` or `**kwargs` may pass any of them."""
    found: _Arguments = {}
    for position, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            return None
        if position < len(parameters):
            found[parameters[position]] = value
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        found[keyword.arg] = keyword.value
    return found


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
