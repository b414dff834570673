"""Which sets of a model class's columns identify one row, as its body declares them.

What declares them is the ORMs' data (their `MODEL_KEY_APIS`): a field
call with a primary-key keyword (several of them together form one key) or a
unique keyword (`primary_key=True`, `unique=True`), a field class unique by
construction (`OneToOneField`), a composite key (`CompositePrimaryKey("a",
"b")`), an options class's unique sets and constraints (`Meta.unique_together`,
`Meta.constraints`' `UniqueConstraint(fields=[...])`), and table constraints
(`__table_args__ = (UniqueConstraint("a", "b"),)`). Field names are read as
written (the attribute a query filters on). A class's bases are the project
step's business: it adds what they declare.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from joblint.analysis.names import last_name, name_assignments
from joblint.knowledge import jobs, locks

UniqueKey = tuple[str, ...]


def unique_keys(node: cst.ClassDef) -> tuple[UniqueKey, ...]:
    """The class's unique column sets, each sorted, without repeats."""
    primary: list[str] = []
    found: list[UniqueKey] = []
    for stmt in _body(node):
        if isinstance(stmt, cst.ClassDef) and stmt.name.value in locks.OPTIONS_CLASSES:
            found.extend(_options_keys(stmt))
            continue
        for name, value in name_assignments(stmt):
            if name in locks.TABLE_ARGS_ATTRIBUTES:
                found.extend(_constraint_keys(value))
            elif isinstance(value, cst.Call):
                found.extend(_field_keys(name, value, primary))
    if primary:
        found.append(tuple(primary))
    return tuple(dict.fromkeys(tuple(sorted(key)) for key in found if key))


def self_set_fields(node: cst.ClassDef) -> tuple[str, ...]:
    """The fields every save of the class sets itself (`auto_now=True`), sorted."""
    found = set()
    for stmt in _body(node):
        for name, value in name_assignments(stmt):
            if isinstance(value, cst.Call):
                option = _keyword(value, jobs.SELF_SET_FIELD_OPTIONS)
                if option is not None and _is_true(option):
                    found.add(name)
    return tuple(sorted(found))


def _body(node: cst.ClassDef) -> Iterator[cst.CSTNode]:
    body = node.body
    if not isinstance(body, cst.IndentedBlock):
        return
    for stmt in body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        else:
            yield stmt


def _is_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _keyword(call: cst.Call, names: frozenset[str]) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in names:
            return arg.value
    return None


def _field_keys(name: str, call: cst.Call, primary: list[str]) -> Iterator[UniqueKey]:
    """A field declared in the class body: `code = CharField(unique=True)`."""
    kind = last_name(call.func)
    if kind in locks.COMPOSITE_KEY_CLASSES:
        yield _strings(call.args)
        return
    primary_key = _keyword(call, locks.PRIMARY_KEY_KEYWORDS)
    if primary_key is not None and _is_true(primary_key):
        primary.append(name)
        return
    unique = _keyword(call, locks.UNIQUE_KEYWORDS)
    if kind in locks.UNIQUE_FIELD_CLASSES or (unique is not None and _is_true(unique)):
        yield (name,)


def _strings(args: Sequence[cst.Arg]) -> UniqueKey:
    """The positional string arguments; () when any positional isn't one."""
    names: list[str] = []
    for arg in args:
        if arg.keyword is not None:
            continue
        text = _string(arg.value)
        if text is None or arg.star:
            return ()
        names.append(text)
    return tuple(names)


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _elements(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    if isinstance(node, cst.Tuple | cst.List | cst.Set):
        return [e.value for e in node.elements if not isinstance(e, cst.StarredElement)]
    return None


def _string_set(node: cst.BaseExpression) -> UniqueKey:
    """`("a", "b")` / `["a", "b"]`: the names; () when any element isn't a string."""
    elements = _elements(node)
    if elements is None:
        return ()
    names = [_string(e) for e in elements]
    return tuple(n for n in names if n is not None) if None not in names else ()


def _constraint_keys(node: cst.BaseExpression) -> Iterator[UniqueKey]:
    """`__table_args__ = (UniqueConstraint("a", "b"), {...})`, and
    `constraints = [UniqueConstraint(fields=["a", "b"], name=...)]`."""
    for element in _elements(node) or []:
        if not isinstance(element, cst.Call):
            continue
        if last_name(element.func) not in locks.UNIQUE_CONSTRAINT_CLASSES:
            continue
        if _keyword(element, locks.PARTIAL_CONSTRAINT_KEYWORDS) is not None:
            continue
        fields = _keyword(element, locks.UNIQUE_CONSTRAINT_FIELDS_KEYWORDS)
        yield _string_set(fields) if fields is not None else _strings(element.args)


def _options_keys(options: cst.ClassDef) -> Iterator[UniqueKey]:
    for stmt in _body(options):
        for name, value in name_assignments(stmt):
            if name in locks.OPTIONS_CONSTRAINTS:
                yield from _constraint_keys(value)
            elif name in locks.OPTIONS_UNIQUE_TOGETHER:
                yield from _unique_together(value)


def _unique_together(node: cst.BaseExpression) -> Iterator[UniqueKey]:
    """`("a", "b")` is one set; `(("a", "b"), ("c", "d"))` several."""
    single = _string_set(node)
    if single:
        yield single
        return
    for element in _elements(node) or []:
        yield _string_set(element)
