"""Decorator factories of the project that register request handlers, read
with Python's `ast`: `def api_config(**settings): return view_config(**settings)`,
or one attaching a callback that adds the view to the app's configurator
as the framework's own decorator does (`venusian.attach(wrapped, callback)`
with `callback` calling `config.add_view(view=ob, ...)`, itself or through
a function of the same module). A function decorated `@api_config(...)` is
a handler where the project step finds its decorator is one
(`joblint.index.entries`, `Entry.needs == "decorator"`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from joblint.knowledge import requests

NameOf = Callable[[ast.expr], "str | None"]
# The last two names of each attach function (`venusian.attach`): a class
# keeping the module in an attribute calls `self.venusian.attach(...)`.
_ATTACH_TAILS = {tuple(f.split(".")[-2:]): d for f, d in requests.ATTACH_FUNCTIONS.items()}


def returned_decorator(returns: list[ast.AST], name_of: NameOf) -> str:
    """The framework decorator a function's own `return`s make
    (`return view_config(**settings)`), "" for none."""
    for node in returns:
        value = node.value if isinstance(node, ast.Return) else None
        if isinstance(value, ast.Call):
            name = name_of(value.func)
            if name is not None and name in requests.DECORATORS:
                return name
    return ""


def config_adders(statements: list[ast.stmt]) -> dict[str, str]:
    """The module-level functions calling a configurator's method that adds a
    handler (`config.add_view(...)`), each with the decorator it stands for."""
    found: dict[str, str] = {}
    for statement in statements:
        if isinstance(statement, ast.FunctionDef):
            added = _config_method(statement, {})
            if added:
                found[statement.name] = added
    return found


def attached_decorator(function: ast.FunctionDef, name_of: NameOf, adders: dict[str, str]) -> str:
    """The framework decorator a function (with the functions it defines)
    does the work of: it attaches a callback and a configurator's method
    adding a handler is called there or by one of the module's `adders`."""
    attached = ""
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            attached = attached or _attach_of(node.func, name_of)
    if not attached:
        return ""
    return attached if _config_method(function, adders) == attached else ""


def _config_method(function: ast.FunctionDef, adders: dict[str, str]) -> str:
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in requests.CONFIG_METHODS:
            return requests.CONFIG_METHODS[func.attr]
        if isinstance(func, ast.Name) and func.id in adders:
            return adders[func.id]
    return ""


def _attach_of(func: ast.expr, name_of: NameOf) -> str:
    name = name_of(func)
    if name is not None and name in requests.ATTACH_FUNCTIONS:
        return requests.ATTACH_FUNCTIONS[name]
    if isinstance(func, ast.Attribute):
        owner = func.value
        last = owner.attr if isinstance(owner, ast.Attribute) else ""
        last = owner.id if isinstance(owner, ast.Name) else last
        return _ATTACH_TAILS.get((last, func.attr), "")
    return ""
