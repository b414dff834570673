"""What a function returns, read from its `ast` for the project model.

Each `return` becomes a `ReturnFact`: a library's fetch of one row or several
(`Order.objects.get(...)`, `get_object_or_404(Order, ...)`), what a call gives
(an instance of the class it names, a library's queue object, or what the
project function it names returns), a member of a class (`Plan.PRO`), or a
plain value. A local assigned once is read through to its value; a parameter
stands for its annotation's class. A returned dict literal (or `dict(...)`)
also gives a fact per string key, and a parameter it holds is noted (the
caller's argument ends up in the dict). A return annotation naming a class
stands for every return; one naming a builtin or a library's type makes them
plain.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

from joblint.index.growth import GrowthReader, growing_list, is_number
from joblint.knowledge import jobs, retries
from joblint.knowledge.payloads import MANAGER_FETCHES, ManagerFetches
from joblint.models import ReturnFact

ROW = "row"
ROWS = "rows"
CALL = "call"
MEMBER = "member"
PLAIN = "plain"
# `get_or_create(...)`'s (instance, created): a row as the pair's first item.
PAIR = "pair"
# A dict value that is one of the function's parameters (`kind`: its position).
PARAM = "param"
# A value growing with the parameter `name` (`kind`: its position, "-1" for
# keyword-only) that has no random part (`return 2 ** attempt`): a delay
# growing with the attempt when a caller passes the attempt count there.
GROWS = "grows"
# A list of waits growing with their position and with no random part
# (`[5, 30, 120]`, `[2 ** i for i in range(n)]`, a list a loop over `range`
# appends such values to); with `name`, what the project function of that
# name returns (a function annotated as returning a list, forwarding a call).
SCHEDULE = "schedule"

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_NONE_ANNOTATIONS = frozenset({"None", "NoReturn", "Never"})


@dataclass(frozen=True, slots=True)
class Qualifiers:
    """How the module's reader qualifies names in the function being read."""

    # A dotted name -> its qualified name (imports, typed locals, `self.`).
    qualify: Callable[[ast.expr], str | None]
    # A call's callable -> its qualified name (also `Mailer().send`).
    callee: Callable[[ast.expr], str | None]


def function_returns(
    function: _Function, body: Mapping[type[ast.AST], list[ast.AST]], names: Qualifiers
) -> tuple[ReturnFact, ...]:
    """The facts of every `return` in `function`'s own body (`body`: its
    nodes, not those of nested functions, by kind); () for a generator or a
    function returning nothing."""
    if ast.Yield in body or ast.YieldFrom in body:
        return ()
    returns = [
        node
        for node in body.get(ast.Return, ())
        if isinstance(node, ast.Return) and node.value is not None and not _is_none(node.value)
    ]
    if not returns:
        annotated = _annotated(function, names)
        return () if annotated is None else annotated
    reader = _Reader(names, _assigned_once(body), _parameters(function), _keyed_stores(body))
    growing = reader.growth(returns) if _may_grow(body) else ()
    if growing:
        return growing
    schedule = reader.schedule(returns, body, _says_list(function))
    if schedule:
        return schedule
    annotated = _annotated(function, names)
    if annotated is not None and not _says_dict(function):
        return annotated
    facts: list[ReturnFact] = []
    for node in returns:
        assert node.value is not None
        facts.extend(reader.returned(node.value, node.lineno))
    if annotated is None:
        return tuple(facts)
    # `-> dict[str, Any]`: the parameters it holds still end up in the dict.
    return (*annotated, *(fact for fact in facts if fact.how == PARAM))


def annotation_expr(annotation: ast.expr) -> ast.expr | None:
    """The annotation's expression, a string one parsed (`"Order"`); None
    when the string isn't Python."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    return annotation


def _annotated(function: _Function, names: Qualifiers) -> tuple[ReturnFact, ...] | None:
    written = function.returns
    annotation = None if written is None else annotation_expr(written)
    if annotation is None:
        return None
    annotation = _optional_of(annotation)
    if isinstance(annotation, ast.Name) and annotation.id in _NONE_ANNOTATIONS:
        return ()
    qualname = names.qualify(annotation) if annotation is not None else None
    line = function.lineno
    if qualname is None or not jobs.may_be_project_code(qualname):
        return (ReturnFact(PLAIN, line=line),)
    return (ReturnFact(CALL, qualname, line),)


def _optional_of(node: ast.expr) -> ast.expr | None:
    """`Optional[X]` and `X | None` -> X; any other subscript or union -> None."""
    if isinstance(node, ast.Subscript):
        head = node.value
        named = head.id if isinstance(head, ast.Name) else getattr(head, "attr", "")
        return node.slice if named == "Optional" else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [s for s in (node.left, node.right) if not _is_none(s)]
        return sides[0] if len(sides) == 1 else None
    return node


@dataclass(slots=True)
class _Reader:
    names: Qualifiers
    locals: dict[str, ast.expr]
    parameters: dict[str, int]
    # A local's string keys set by `name["key"] = value`, and their values.
    keyed: dict[str, list[tuple[str, ast.expr]]]

    def returned(self, value: ast.expr, line: int) -> list[ReturnFact]:
        stored = self.keyed.get(value.id, []) if isinstance(value, ast.Name) else []
        value = self._through_local(value)
        items = _dict_items(value)
        if items is None:
            return [self.fact(value, line)]
        items = [*items, *stored]
        facts = [ReturnFact(PLAIN, line=line)]
        for key, item in items:
            item = self._through_local(item)
            if isinstance(item, ast.Name) and item.id in self.parameters:
                position = str(self.parameters[item.id])
                facts.append(ReturnFact(PARAM, item.id, line, position, key))
                continue
            found = self.fact(item, line)
            if found.how != PLAIN:
                facts.append(ReturnFact(found.how, found.name, line, found.kind, key))
        return facts

    def growth(self, returns: list[ast.Return]) -> tuple[ReturnFact, ...]:
        """A `GROWS` fact per parameter every return grows with (a cap among
        them, `return 600`, `return cap`, is no return of its own); () when
        any other return, or a random part, is there."""
        reader = GrowthReader(self.locals, self.names.callee)
        common: set[str] | None = None
        lines: list[int] = []
        for node in returns:
            assert node.value is not None
            value = self._through_local(node.value)
            if self._steady(value):
                continue
            found = reader.growing_parameters(value, self.parameters)
            common = found if common is None else common & found
            if not common:
                return ()
            lines.append(node.lineno)
        return tuple(
            ReturnFact(GROWS, name, line, str(self.parameters[name]))
            for name in sorted(common or ())
            for line in lines
        )

    def schedule(
        self,
        returns: list[ast.Return],
        body: Mapping[type[ast.AST], list[ast.AST]],
        forwards: bool,
    ) -> tuple[ReturnFact, ...]:
        """A `SCHEDULE` fact per return that is a growing list of waits (a
        literal number beside them is no return of its own) or, with
        `forwards`, a call of a project function; () when any other return is
        there, or none builds or forwards a list."""
        reader = GrowthReader(self.locals, self.names.callee)
        facts: list[ReturnFact] = []
        for node in returns:
            assert node.value is not None
            value = node.value
            if is_number(value):
                continue
            if growing_list(value, body, reader):
                facts.append(ReturnFact(SCHEDULE, line=node.lineno))
                continue
            if not forwards or not isinstance(value, ast.Call):
                return ()
            callee = self.names.callee(value.func)
            if callee is None or not jobs.may_be_project_code(callee):
                return ()
            facts.append(ReturnFact(SCHEDULE, callee, node.lineno))
        return tuple(facts)

    def _steady(self, value: ast.expr) -> bool:
        """A return that is a cap among growing ones: a literal number, a
        parameter, or a constant (`MAX_DELAY`)."""
        if is_number(value):
            return True
        return isinstance(value, ast.Name) and (value.id in self.parameters or value.id.isupper())

    def _through_local(self, value: ast.expr) -> ast.expr:
        if isinstance(value, ast.Await):
            value = value.value
        if isinstance(value, ast.Name) and value.id in self.locals:
            value = self.locals[value.id]
        return value.value if isinstance(value, ast.Await) else value

    def fact(self, value: ast.expr, line: int) -> ReturnFact:
        value = self._through_local(value)
        found = fetched(value, self.names)
        if found is not None:
            how, model, kind = found
            # A pair returned is not the instance (a caller unpacks it).
            return (
                ReturnFact(how, model, line, kind)
                if how in (ROW, ROWS)
                else ReturnFact(PLAIN, line=line)
            )
        if isinstance(value, ast.Call):
            callee = self.names.callee(value.func)
            if callee is not None and (
                jobs.may_be_project_code(callee) or jobs.queue_constructor_library(callee)
            ):
                return ReturnFact(CALL, callee, line)
        elif isinstance(value, ast.Attribute) and value.attr.isupper():
            owner = self.names.qualify(value.value)
            if owner is not None and jobs.may_be_project_code(owner):
                return ReturnFact(MEMBER, owner, line)
        elif isinstance(value, ast.Name) and value.id in self.parameters:
            typed = self.names.qualify(value)  # its annotation's class, if any
            if typed is not None and jobs.may_be_project_code(typed):
                return ReturnFact(CALL, typed, line)
        return ReturnFact(PLAIN, line=line)


def fetched(value: ast.expr, names: Qualifiers) -> tuple[str, str, str] | None:
    """(ROW, ROWS, PAIR or PLAIN; the model's qualified name; the kind) when
    `value` is a library's fetch (`Order.objects.filter(...)`,
    `get_object_or_404(Order, ...)`); None for anything else."""
    for fetches in MANAGER_FETCHES:
        found = _fetched(value, fetches, names)
        if found is not None:
            return found
    return None


def _fetched(
    value: ast.expr, fetches: ManagerFetches, names: Qualifiers
) -> tuple[str, str, str] | None:
    """(ROW, ROWS, PAIR or PLAIN, the model's qualified name, the kind) for a fetch."""
    indexed = False
    if isinstance(value, ast.Subscript):
        indexed = not isinstance(value.slice, ast.Slice)
        value = value.value
    if not isinstance(value, ast.Call):
        return None
    shortcut = names.qualify(value.func)
    if shortcut in fetches.row_functions or shortcut in fetches.rows_functions:
        model = names.qualify(value.args[0]) if value.args else None
        if model is None:
            return None
        one = shortcut in fetches.row_functions or indexed
        return (ROW, model, fetches.row_kind) if one else (ROWS, model, fetches.rows_kind)
    methods: list[str] = []
    node: ast.expr = value
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        methods.append(node.func.attr)
        node = node.func.value
    if not (isinstance(node, ast.Attribute) and node.attr == fetches.manager_attribute):
        return None
    model = names.qualify(node.value)
    last = methods[0] if methods else ""
    # A manager's other chains give plain values: counts, `values_list(...)`.
    plain = PLAIN, "", ""
    if model is None or any(m in fetches.plain_methods for m in methods):
        return plain
    if last in fetches.pair_methods:
        return PAIR, model, fetches.row_kind
    if last in fetches.row_methods or (indexed and last in fetches.rows_methods):
        return ROW, model, fetches.row_kind
    if last in fetches.rows_methods and not indexed:
        return ROWS, model, fetches.rows_kind
    return plain


def _dict_items(value: ast.expr) -> list[tuple[str, ast.expr]] | None:
    """A dict literal's (or `dict(...)`'s) string keys and their values."""
    if isinstance(value, ast.Dict):
        return [
            (k.value, v)
            for k, v in zip(value.keys, value.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        return [(k.arg, k.value) for k in value.keywords if k.arg is not None]
    return None


def _assigned_once(body: Mapping[type[ast.AST], list[ast.AST]]) -> dict[str, ast.expr]:
    """Locals bound once, by a plain `name = value` (or `name: T = value`):
    their value."""
    values: dict[str, ast.expr] = {}
    for node in body.get(ast.Assign, ()):
        assert isinstance(node, ast.Assign)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    for node in body.get(ast.AnnAssign, ()):
        assert isinstance(node, ast.AnnAssign)
        if isinstance(node.target, ast.Name) and node.value is not None:
            values[node.target.id] = node.value
    if not values:
        return values
    stores: dict[str, int] = {}
    for node in body.get(ast.Name, ()):
        assert isinstance(node, ast.Name)
        if isinstance(node.ctx, ast.Store | ast.Del):
            stores[node.id] = stores.get(node.id, 0) + 1
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        for scope in body.get(kind, ()):
            name = cast(ast.ClassDef, scope).name
            stores[name] = stores.get(name, 0) + 1
    return {name: value for name, value in values.items() if stores.get(name) == 1}


# The last names of the functions raising to a power (`pow`, `math.exp`).
_POWER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in retries.POWER_FUNCTIONS)


def _may_grow(body: Mapping[type[ast.AST], list[ast.AST]]) -> bool:
    """Whether a value of the function may grow (`GrowthReader`): growth is
    an operation or a power function's call among its own nodes."""
    if ast.BinOp in body:
        return True
    for node in body.get(ast.Call, ()):
        func = cast(ast.Call, node).func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in _POWER_NAMES:
            return True
    return False


def _keyed_stores(
    body: Mapping[type[ast.AST], list[ast.AST]],
) -> dict[str, list[tuple[str, ast.expr]]]:
    """`params["countdown"] = countdown`: per local, the string keys set so
    and their values."""
    found: dict[str, list[tuple[str, ast.expr]]] = {}
    for node in body.get(ast.Assign, ()):
        assert isinstance(node, ast.Assign)
        target = node.targets[0] if len(node.targets) == 1 else None
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and isinstance(target.slice, ast.Constant)
            and isinstance(target.slice.value, str)
        ):
            found.setdefault(target.value.id, []).append((target.slice.value, node.value))
    return found


_LIST_ANNOTATIONS = frozenset({"list", "List", "Sequence", "tuple", "Tuple"})
_DICT_ANNOTATIONS = frozenset({"dict", "Dict", "Mapping", "MutableMapping"})


def _says_list(function: _Function) -> bool:
    """A return annotation naming a list (`-> list[int]`, `-> list | None`)."""
    return _annotation_names(function, _LIST_ANNOTATIONS)


def _says_dict(function: _Function) -> bool:
    """A return annotation naming a dict (`-> dict[str, Any]`)."""
    return _annotation_names(function, _DICT_ANNOTATIONS)


def _annotation_names(function: _Function, names: frozenset[str]) -> bool:
    written = function.returns
    annotation = None if written is None else annotation_expr(written)
    if annotation is None:
        return False
    return any(
        (isinstance(node, ast.Name) and node.id in names)
        or (isinstance(node, ast.Attribute) and node.attr in names)
        for node in ast.walk(annotation)
    )


def _parameters(function: _Function) -> dict[str, int]:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    found = {a.arg: i for i, a in enumerate(positional)}
    found.update((a.arg, -1) for a in args.kwonlyargs)
    return found


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
