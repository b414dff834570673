"""Static values of expressions, in two steps so they can cross files.

`to_expr` turns a CST expression into a small, picklable expression (nested
tuples) in one file: numbers, strings, dicts, `+ - * / //`, unary minus,
`timedelta(...)`, `.total_seconds()`, `int()`/`float()`, `now() + timedelta`,
and references to module-level constants (of this or another module).
`evaluate` computes it later, with every file's constants at hand. Anything
else is unknown (None) and never produces a finding.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable

import libcst as cst

# The second step lives apart, free of LibCST: the project step runs it on
# cached facts, in runs that parse nothing.
from joblint.analysis.evaluation import MAX_DEPTH as _MAX_DEPTH
from joblint.analysis.evaluation import UNIT_SECONDS as _UNIT_SECONDS
from joblint.analysis.evaluation import Expr as Expr
from joblint.analysis.evaluation import Value as Value
from joblint.analysis.evaluation import as_seconds as as_seconds
from joblint.analysis.evaluation import evaluate as evaluate
from joblint.analysis.literals import number_value, string_value
from joblint.analysis.names import BindingKind, Resolver
from joblint.knowledge import brokers as kb

_TIMEDELTA = frozenset({"datetime.timedelta", "timedelta"})
_OPERATORS: dict[type[cst.BaseBinaryOp], str] = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Power: "**",
}
_MAX_STRING = 10_000


def to_expr(node: cst.BaseExpression, resolver: Resolver, depth: int = 0) -> Expr | None:
    if depth > _MAX_DEPTH:
        return None
    for translate in _TRANSLATORS:
        found = translate(node, resolver, depth)
        if found is not None:
            return found
    return None


def _number(node: cst.BaseExpression, resolver: Resolver, depth: int) -> Expr | None:
    if isinstance(node, cst.Integer | cst.Float):
        return ("num", float(number_value(node)))
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = to_expr(node.expression, resolver, depth + 1)
        return ("neg", inner) if inner is not None else None
    return None


def _string(node: cst.BaseExpression, resolver: Resolver, depth: int) -> Expr | None:
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
        return ("str", value[:_MAX_STRING]) if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left = to_expr(node.left, resolver, depth + 1)
        right = to_expr(node.right, resolver, depth + 1)
        if left and right and left[0] == right[0] == "str":
            return ("str", (left[1] + right[1])[:_MAX_STRING])
        return None
    if isinstance(node, cst.FormattedString):
        return _formatted(node, resolver, depth)
    return None


def _formatted(node: cst.FormattedString, resolver: Resolver, depth: int) -> Expr:
    """An f-string: its static text with holes as "{}", unless a hole comes
    before the first "://" (a URL whose scheme is a value: `f"{scheme}://..."`);
    then its parts, text and values, for the broker rules to resolve."""
    parts: list[Expr] = []
    text = ""
    scheme_hole = False
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            parts.append(("str", part.value))
            text += part.value
            continue
        scheme_hole = scheme_hole or "://" not in text
        value = (
            _part(part.expression, resolver, depth)
            if isinstance(part, cst.FormattedStringExpression)
            else None
        )
        parts.append(value if value is not None else _UNKNOWN)
        text += "{}"
    if scheme_hole and "://" in text:
        return ("cat", *parts)
    return ("str", text[:_MAX_STRING])


# A part of a built string that can't be known here.
_UNKNOWN: Expr = ("unknown",)


def _part(node: cst.BaseExpression, resolver: Resolver, depth: int) -> Expr | None:
    """A value a string is built of. A name no statement of the module binds
    is the module's own (a settings module's `from .base import *` brings it;
    the broker rules follow star imports)."""
    found = to_expr(node, resolver, depth + 1)
    if found is None and isinstance(node, cst.Name) and resolver.lookup(node.value) is None:
        return ("ref", f"{resolver.module}.{node.value}")
    return found


def _string_format(node: cst.Call, resolver: Resolver, depth: int) -> Expr | None:
    """`"{}://{}".format(a, b)` (positional, numbered and named fields) as its parts."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "format"):
        return None
    template = func.value
    text = template.evaluated_value if isinstance(template, cst.SimpleString) else None
    if not isinstance(text, str) or any(a.star for a in node.args):
        return None
    positional = [a.value for a in node.args if a.keyword is None]
    named = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    parts: list[Expr] = []
    automatic = 0
    try:
        fields = list(_FORMATTER.parse(text))
    except ValueError:
        return None
    for literal, field, _spec, _conversion in fields:
        if literal:
            parts.append(("str", literal))
        if field is None:
            continue
        key = field.split(".", 1)[0].split("[", 1)[0]
        whole = key == field  # not an attribute or item of the argument
        if not key:
            key, automatic = str(automatic), automatic + 1
        argument = (
            positional[int(key)] if key.isdigit() and int(key) < len(positional) else named.get(key)
        )
        value = _part(argument, resolver, depth) if argument is not None and whole else None
        parts.append(value if value is not None else _UNKNOWN)
    return ("cat", *parts)


def _percent_format(node: cst.BinaryOperation, resolver: Resolver, depth: int) -> Expr | None:
    """`"%s://%s" % (a, b)`: only `%s`/`%d` fields, each given in order."""
    template = node.left
    text = template.evaluated_value if isinstance(template, cst.SimpleString) else None
    if not isinstance(text, str):
        return None
    right = node.right
    values = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
    pieces = re.split(r"(%[sd%])", text)
    parts: list[Expr] = []
    given = iter(values)
    for piece in pieces:
        if piece == "%%":
            parts.append(("str", "%"))
        elif piece in ("%s", "%d"):
            argument = next(given, None)
            if argument is None or isinstance(argument, cst.StarredElement):
                return None
            value = _part(argument, resolver, depth)
            parts.append(value if value is not None else _UNKNOWN)
        elif "%" in piece:
            return None  # a field this reader doesn't know (`%(name)s`, `%05d`)
        elif piece:
            parts.append(("str", piece))
    return ("cat", *parts) if next(given, None) is None else None


def _conditional(node: cst.BaseExpression, resolver: Resolver, depth: int) -> Expr | None:
    """`a if test else b`, `len(x) > 0`, `not x`: what deciding between
    settings needs (the broker rules decide the test with the deployment files)."""
    if isinstance(node, cst.IfExp):
        test = to_expr(node.test, resolver, depth + 1)
        body = to_expr(node.body, resolver, depth + 1)
        orelse = to_expr(node.orelse, resolver, depth + 1)
        return ("cond", test or _UNKNOWN, body or _UNKNOWN, orelse or _UNKNOWN)
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        target = node.comparisons[0]
        op = _COMPARISONS.get(type(target.operator))
        left = to_expr(node.left, resolver, depth + 1)
        right = to_expr(target.comparator, resolver, depth + 1)
        if op is None or left is None or right is None:
            return None
        return ("cmp", op, left, right)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = to_expr(node.expression, resolver, depth + 1)
        return ("not", inner) if inner is not None else None
    return None


_COMPARISONS: dict[type[cst.BaseCompOp], str] = {
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.Equal: "==",
    cst.NotEqual: "!=",
}
_FORMATTER = string.Formatter()


def _dict(node: cst.BaseExpression, resolver: Resolver, depth: int) -> Expr | None:
    if not isinstance(node, cst.Dict):
        return None
    items: list[tuple[str, Expr | None]] = []
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            continue
        key = element.key
        if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
            items.append((key.evaluated_value, to_expr(element.value, resolver, depth + 1)))
    return ("dict", tuple(items))


def _binary(node: cst.BaseExpression, resolver: Resolver, depth: int) -> Expr | None:
    if not isinstance(node, cst.BinaryOperation):
        return None
    if isinstance(node.operator, cst.Modulo) and isinstance(node.left, cst.SimpleString):
        return _percent_format(node, resolver, depth)
    op = _OPERATORS.get(type(node.operator))
    right = to_expr(node.right, resolver, depth + 1)
    if op == "+" and right is not None and _is_now(node.left, resolver):
        return ("eta", right)  # now() + timedelta(...): the delay from now
    left = to_expr(node.left, resolver, depth + 1)
    if op is None or left is None or right is None:
        return None
    return ("op", op, left, right)


def _is_now(node: cst.BaseExpression, resolver: Resolver) -> bool:
    if not isinstance(node, cst.Call):
        return False
    qualname = resolver.qualified_name(node.func) or ""
    return qualname in kb.NOW_FUNCTIONS


def _name(node: cst.BaseExpression, resolver: Resolver, depth: int) -> Expr | None:
    if not isinstance(node, cst.Name | cst.Attribute):
        return None
    if isinstance(node, cst.Name):
        binding = resolver.lookup(node.value)
        local = binding is not None and not binding.qualname
        if local and binding is not None and binding.kind is not BindingKind.IMPORT:
            # A function-local name: follow what it was assigned.
            plain = binding.expr is not None and binding.unpack_index is None
            if plain and not binding.iterated and binding.expr is not None:
                return to_expr(binding.expr, resolver, depth + 1)
            return None
    qualname = resolver.qualified_name(node)
    return ("ref", qualname) if qualname else None


def _call(node: cst.BaseExpression, resolver: Resolver, depth: int) -> Expr | None:
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    qualname = resolver.qualified_name(func) or (func.value if isinstance(func, cst.Name) else "")
    if qualname in _TIMEDELTA:
        return _timedelta(node, resolver, depth)
    if qualname in {"int", "float"} and len(node.args) == 1:
        inner = to_expr(node.args[0].value, resolver, depth + 1)
        return ("num_of", inner) if inner is not None else None
    if qualname == "getattr":
        return _setting_read(node, resolver, depth)
    if qualname == "len" and len(node.args) == 1:
        inner = to_expr(node.args[0].value, resolver, depth + 1)
        return ("len", inner) if inner is not None else None
    built = _string_format(node, resolver, depth) or _url_built(node, qualname, resolver, depth)
    if built is not None:
        return built
    read = _environment_read(node, qualname, resolver)
    if read is not None:
        return _read_value(read[0], read[1], resolver, depth)
    if isinstance(func, cst.Attribute) and func.attr.value == "total_seconds" and not node.args:
        return to_expr(func.value, resolver, depth + 1)
    keyword = kb.value_default(qualname)
    if keyword is not None:  # a settings value wrapper: `values.IntegerValue(3600)`
        return _default_argument(node, keyword, resolver, depth)
    return None


def _setting_read(node: cst.Call, resolver: Resolver, depth: int) -> Expr | None:
    """`getattr(settings, "NAME", default)` on Django's settings: the setting
    in the configuration in force, else the default (the broker rules read it
    per configuration)."""
    args = node.args
    if not 2 <= len(args) <= 3 or any(a.keyword is not None or a.star for a in args):
        return None
    if resolver.qualified_name(args[0].value) not in kb.SETTINGS_OBJECT_NAMES:
        return None
    name = args[1].value
    setting = name.evaluated_value if isinstance(name, cst.SimpleString) else None
    if not isinstance(setting, str) or not setting.isidentifier():
        return None
    default = to_expr(args[2].value, resolver, depth + 1) if len(args) == 3 else None
    return ("setting", setting, default or _UNKNOWN)


def _url_built(node: cst.Call, qualname: str, resolver: Resolver, depth: int) -> Expr | None:
    """A URL a builder makes (`build_url(scheme=..., host=...)`): its scheme
    and what follows it, unknown."""
    keyword = kb.url_scheme_keyword(qualname) if qualname else None
    if keyword is None:
        return None
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            scheme = to_expr(arg.value, resolver, depth + 1)
            return ("cat", scheme or _UNKNOWN, ("str", "://"), _UNKNOWN)
    return None


def _environment_read(
    node: cst.Call, qualname: str, resolver: Resolver
) -> tuple[str, cst.BaseExpression | None] | None:
    """When the call reads an environment variable (`os.getenv("X", d)`,
    `env.str("X")` on a django-environ `Env`): the variable's name ("" when
    not static) and its default argument; else None."""
    position = kb.ENV_READ_FUNCTIONS.get(qualname)
    instance: cst.Call | None = None
    if position is None:
        func = node.func
        receiver, method = (
            (func.value, func.attr.value) if isinstance(func, cst.Attribute) else (func, "")
        )
        instance = _instance(receiver, resolver)
        cls = (resolver.qualified_name(instance.func) or "") if instance is not None else ""
        position = kb.ENV_INSTANCE_METHODS.get(cls, {}).get(method)
    if position is None:
        return None
    positional = [a.value for a in node.args if a.keyword is None and not a.star]
    default = next(
        (a.value for a in node.args if a.keyword and a.keyword.value in kb.ENV_DEFAULT_KEYWORDS),
        positional[position] if len(positional) > position else None,
    )
    name = positional[0] if positional else None
    variable = name.evaluated_value if isinstance(name, cst.SimpleString) else None
    variable = variable if isinstance(variable, str) else ""
    if default is None and instance is not None and variable:
        default = _declared_default(instance, variable, resolver)
    return variable, default


def _instance(node: cst.BaseExpression, resolver: Resolver) -> cst.Call | None:
    """The call a name was bound to (`env = environ.Env(...)`), or None."""
    binding = resolver.lookup(node.value) if isinstance(node, cst.Name) else None
    if binding is None or binding.unpack_index is not None or binding.iterated:
        return None
    return binding.expr if isinstance(binding.expr, cst.Call) else None


def _declared_default(
    instance: cst.Call, variable: str, resolver: Resolver
) -> cst.BaseExpression | None:
    """A default the instance's constructor declares for the variable:
    `environ.Env(TIME_LIMIT=(int, 43200))`."""
    cls = resolver.qualified_name(instance.func) or ""
    if cls not in kb.ENV_DECLARING_CLASSES:
        return None
    for arg in instance.args:
        if arg.keyword is not None and arg.keyword.value == variable:
            value = arg.value
            if isinstance(value, cst.Tuple) and len(value.elements) == 2:
                return value.elements[1].value
    return None


def _read_value(
    variable: str, default: cst.BaseExpression | None, resolver: Resolver, depth: int
) -> Expr | None:
    """A static default is the value (`os.getenv("BROKER_URL", "redis://")`);
    with none (or `None`, `""`), the variable itself, for the project's
    deployment files to tell. A default read from another variable makes
    both the candidates: `("env", "X", "Y")`."""
    if default is not None and not _blank(default):
        found = to_expr(default, resolver, depth + 1)
        if found is not None and found[0] == "env" and variable:
            return ("env", variable, *found[1:])
        if found is not None and found[0] == "env_or" and variable:
            return ("env_or", found[1], ("env", variable, *found[2][1:]))
        return found
    if not variable:
        return None
    if isinstance(default, cst.SimpleString):  # `""`: what the code sees when nothing sets it
        return ("env_or", ("str", ""), ("env", variable))
    return ("env", variable)


def _blank(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Name):
        return node.value == "None"
    return isinstance(node, cst.SimpleString) and node.evaluated_value == ""


def _subscript(node: cst.BaseExpression, resolver: Resolver, depth: int) -> Expr | None:
    """`os.environ["BROKER_URL"]`: the variable, for the deployment files to tell."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if not isinstance(index, cst.Index) or not isinstance(index.value, cst.SimpleString):
        return None
    variable = index.value.evaluated_value
    if (resolver.qualified_name(node.value) or "") not in kb.ENV_MAPPINGS:
        return None
    return ("env", variable) if isinstance(variable, str) and variable else None


def _default_argument(node: cst.Call, keyword: str, resolver: Resolver, depth: int) -> Expr | None:
    for index, arg in enumerate(node.args):
        if arg.star:
            return None
        if (arg.keyword is None and index == 0) or (
            arg.keyword is not None and arg.keyword.value == keyword
        ):
            value = arg.value
            if isinstance(value, cst.Name) and value.value in _BOOLEANS:
                return ("num", _BOOLEANS[value.value])  # `values.BooleanValue(True)`
            return to_expr(value, resolver, depth + 1)
    return None


_BOOLEANS = {"True": 1.0, "False": 0.0}


def _timedelta(node: cst.Call, resolver: Resolver, depth: int) -> Expr | None:
    units = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")
    parts: list[tuple[str, Expr]] = []
    for index, arg in enumerate(node.args):
        unit = arg.keyword.value if arg.keyword is not None else units[index] if index < 7 else ""
        value = to_expr(arg.value, resolver, depth + 1)
        if unit not in _UNIT_SECONDS or value is None or arg.star:
            return None
        parts.append((unit, value))
    return ("td", tuple(parts))


_TRANSLATORS: tuple[Callable[[cst.BaseExpression, Resolver, int], Expr | None], ...] = (
    _number,
    _conditional,
    _string,
    _dict,
    _binary,
    _name,
    _call,
    _subscript,
)
