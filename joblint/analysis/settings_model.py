"""Fields of settings classes read from the environment (pydantic-settings'
`BaseSettings`, `joblint.libraries.base.SettingsModel`), as module constants
`module.Settings.field`: the field's static default, else the environment
variable it is read from (`("env", "BROKER_URL")`), for the project's
deployment files to tell. An instance (`settings = Settings()`) sees them
through the project's instances (`joblint.analysis.broker_view`).

Only the simple shape: a class deriving directly from the library's base,
annotated fields, options given as literals.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from joblint.analysis.constants import Expr, to_expr
from joblint.analysis.names import Resolver, class_attributes
from joblint.knowledge import brokers as kb
from joblint.libraries.base import SettingsModel


def settings_fields(
    node: cst.ClassDef, qualname: str, resolver: Resolver
) -> list[tuple[str, Expr]]:
    """(`qualname.field`, its value) of each field of a settings class; [] for any other class."""
    model = next(
        (
            kb.SETTINGS_MODEL_OF_BASE[base]
            for base in resolver.base_qualnames(node)
            if base in kb.SETTINGS_MODEL_OF_BASE
        ),
        None,
    )
    if model is None:
        return []
    prefix, case_sensitive = _options(node, model)
    found: list[tuple[str, Expr]] = []
    for name, value in _fields(node):
        if name.startswith("_") or name == model.config_attribute:
            continue
        default, alias = _field(value, model, resolver)
        if default is not None:
            expr = to_expr(default, resolver)
            if expr is not None:
                found.append((f"{qualname}.{name}", expr))
            continue
        variable = alias or f"{prefix}{name}"
        found.append(
            (f"{qualname}.{name}", ("env", variable if case_sensitive else variable.upper()))
        )
    return found


def _fields(node: cst.ClassDef) -> Iterator[tuple[str, cst.BaseExpression | None]]:
    """`name: T` and `name: T = value` statements of the class body."""
    if not isinstance(node.body, cst.IndentedBlock):
        return
    for line in node.body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                yield small.target.value, small.value


def _field(
    value: cst.BaseExpression | None, model: SettingsModel, resolver: Resolver
) -> tuple[cst.BaseExpression | None, str]:
    """The field's default (None: none, or `...`) and the variable its
    `Field(...)` names ("" for none)."""
    if value is None:
        return None, ""
    if not isinstance(value, cst.Call) or resolver.qualified_name(value.func) not in set(
        model.field_functions
    ):
        return (None if _blank(value) else value), ""
    default: cst.BaseExpression | None = None
    alias = ""
    for index, arg in enumerate(value.args):
        keyword = arg.keyword.value if arg.keyword is not None else None
        if (keyword is None and index == 0) or keyword == model.default_keyword:
            default = None if _blank(arg.value) else arg.value
        elif keyword in model.alias_keywords and not alias:
            alias = _text(arg.value)
    return default, alias


def _blank(node: cst.BaseExpression) -> bool:
    """No value: `...` (required) or `None`."""
    return isinstance(node, cst.Ellipsis) or (isinstance(node, cst.Name) and node.value == "None")


def _options(node: cst.ClassDef, model: SettingsModel) -> tuple[str, bool]:
    """The class's variable prefix and case sensitivity, from
    `model_config = SettingsConfigDict(env_prefix="APP_")` (or a dict) or
    pydantic 1's `class Config: env_prefix = "APP_"`."""
    options: dict[str, cst.BaseExpression] = {}
    for name, value in class_attributes(node):
        if name == model.config_attribute:
            options.update(_keywords(value))
    if isinstance(node.body, cst.IndentedBlock):
        for statement in node.body.body:
            if isinstance(statement, cst.ClassDef) and statement.name.value == model.config_class:
                options.update(class_attributes(statement))
    prefix = options.get(model.prefix_option)
    case = options.get(model.case_option)
    sensitive = isinstance(case, cst.Name) and case.value == "True"
    return (_text(prefix) if prefix is not None else ""), sensitive


def _keywords(value: cst.BaseExpression) -> Iterator[tuple[str, cst.BaseExpression]]:
    """`SettingsConfigDict(env_prefix="APP_")` or `{"env_prefix": "APP_"}`."""
    if isinstance(value, cst.Call):
        for arg in value.args:
            if arg.keyword is not None:
                yield arg.keyword.value, arg.value
    elif isinstance(value, cst.Dict):
        for element in value.elements:
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                key = element.key.evaluated_value
                if isinstance(key, str):
                    yield key, element.value


def _text(node: cst.BaseExpression) -> str:
    value = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    return value if isinstance(value, str) else ""
