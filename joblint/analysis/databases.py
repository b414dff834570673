"""Which Django databases take no writes, from the project's own settings and
routers: a transaction on one of them (`atomic(using="replica")`) races no
write, so a job enqueued inside it is no JL101 finding."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from joblint.analysis.walk import walk
from joblint.libraries import django


def mirror_aliases(databases: cst.BaseExpression) -> list[str]:
    """`DATABASES = {"replica": {..., "TEST": {"MIRROR": "default"}}}`: the
    aliases Django's tests mirror from another database (replicas)."""
    found = []
    for alias, config in _string_items(databases):
        test = dict(_string_items(config)).get(django.DATABASE_TEST_KEY)
        if test is not None and django.DATABASE_MIRROR_KEY in dict(_string_items(test)):
            found.append(alias)
    return found


def atomic_request_aliases(
    databases: cst.BaseExpression, dicts: dict[str, cst.Dict] | None = None
) -> list[str]:
    """`DATABASES = {"default": {..., "ATOMIC_REQUESTS": True}}`: the aliases
    whose requests Django runs inside a transaction. `dicts`: the module's
    dicts by name, for a config named (`{"default": _default_config}`)."""
    known = dicts or {}
    return [
        alias
        for alias, config in _string_items(databases)
        if _is_true(dict(_string_items(_named(config, known))).get(django.ATOMIC_REQUESTS_KEY))
    ]


def _named(node: cst.BaseExpression, dicts: dict[str, cst.Dict]) -> cst.BaseExpression:
    if isinstance(node, cst.Name):
        return dicts.get(node.value, node)
    return node


def sets_atomic_requests(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """`DATABASES["default"]["ATOMIC_REQUESTS"] = True`."""
    if not _is_true(value) or not isinstance(target, cst.Subscript):
        return False
    key, owner = _subscript_key(target), target.value
    return (
        key == django.ATOMIC_REQUESTS_KEY
        and isinstance(owner, cst.Subscript)
        and _subscript_key(owner) is not None
        and isinstance(owner.value, cst.Name)
        and owner.value.value == django.DATABASES_SETTING
    )


def _subscript_key(node: cst.Subscript) -> str | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    key = node.slice[0].slice.value
    if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
        return key.evaluated_value
    return None


def _is_true(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def read_only_router_aliases(node: cst.ClassDef) -> list[str]:
    """A database router's aliases for reads that it never gives for writes."""
    methods = {
        statement.name.value: statement
        for statement in _body(node)
        if isinstance(statement, cst.FunctionDef)
    }
    reader = methods.get(django.ROUTER_READ_METHOD)
    if reader is None:
        return []
    reads = _returned_strings(reader)
    writer = methods.get(django.ROUTER_WRITE_METHOD)
    writes = _returned_strings(writer) if writer is not None else set()
    if reads is None or writes is None:
        return []  # a computed alias: nothing is known
    return sorted(reads - writes)


def _body(node: cst.ClassDef) -> list[cst.BaseStatement]:
    return list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []


def _returned_strings(function: cst.FunctionDef) -> set[str] | None:
    """The string literals `function` returns; None when it returns anything
    else but `None` (the router has no opinion then)."""
    strings: set[str] = set()
    computed = False

    def enter(node: cst.CSTNode) -> None:
        nonlocal computed
        if isinstance(node, cst.Return) and node.value is not None:
            value = node.value
            if isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
                strings.add(value.evaluated_value)
            elif not (isinstance(value, cst.Name) and value.value == "None"):
                computed = True

    walk(function.body, enter, lambda node: None)
    return None if computed else strings


def _string_items(
    node: cst.BaseExpression,
) -> Iterator[tuple[str, cst.BaseExpression]]:
    if not isinstance(node, cst.Dict):
        return
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            continue
        key = element.key
        if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
            yield key.evaluated_value, element.value
