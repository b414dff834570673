"""JL201/JL202's AST check: may an enqueue in the module pass a live object?

The payload rules read each argument that ends up in a job's payload
(`joblint.analysis.payloads`) and report, or leave a finding pending for the
project step, only for some shapes of value: a name (what it is bound to), a
two-part attribute (`request.user`, `Color.RED`), a call or subscript that
may fetch rows or build a project's object. An argument that is a literal, a
key (`order.pk`), a conversion by a builtin or the standard library, or a
parameter without an annotation is never one. This check walks the enqueue
calls (any call named like one: a payload shape's method, `partial` of one,
or a decorated function of the module, which a library may enqueue on call)
and says yes where an argument is not certainly such a value, so a file
whose enqueues pass only keys and literals is not parsed with LibCST for
those rules. It reads more calls and more arguments than the rules do,
never fewer: where it can't tell, it says yes.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import functools
import re
from collections.abc import Iterator, Mapping, Sequence

from joblint.index.ast_walk import quiet_ast_parse
from joblint.index.nodes import dotted, last_name
from joblint.index.plain import bound_names
from joblint.knowledge import payloads as kb
from joblint.knowledge.confirm import confirm_step
from joblint.knowledge.jobs import in_standard_library

_Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def _shapes_by_method() -> dict[str, tuple[kb.PayloadShape, ...]]:
    """Payload shapes by the method name a call is written with (`task.enqueue`
    and RQ's `enqueue` share one: both are read)."""
    found: dict[str, tuple[kb.PayloadShape, ...]] = {}
    for key, shape in kb.PAYLOAD_SHAPES.items():
        if key != _CALLED:
            name = key.rsplit(".", 1)[-1]
            found[name] = (*found.get(name, ()), shape)
    return found


_CALLED = "__call__"
_SHAPES = _shapes_by_method()
_PARTIALS = frozenset(q.rsplit(".", 1)[-1] for q in kb.PARTIAL_FUNCTIONS)
# Names along a chain that make it a fetch of rows the rules read.
_FETCH_WORDS = frozenset(
    {
        *(m.manager_attribute for m in kb.MANAGER_FETCHES),
        *(w for m in kb.MANAGER_FETCHES for w in (*m.row_methods, *m.rows_methods)),
        *(w for f in kb.SESSION_FETCHES for w in (*f.get_methods, *f.entity_methods)),
        *(w for f in kb.SESSION_FETCHES for w in (*f.statement_methods, *f.row_methods)),
        *(w for f in kb.SESSION_FETCHES for w in f.rows_methods),
    }
)
# `request.user`, `self.request.user`: the attributes the rules read by name, as parts.
_KNOWN_ATTRIBUTES = frozenset(
    (known.parameter, *known.attribute.split("."))
    for known in kb.PARAMETER_ATTRIBUTES.values()
    if not known.called
)
# Parameters the rules report by name (a receiver's `instance`: by what connects it).
_REPORTED_NAMES = frozenset({"self", "request", *kb.RECEIVED_INSTANCE_NAMES})
# Where the rows come from in a fetch the file alone tells: a manager, a
# session's query of a class (`.objects`, `.query`, `.scalars`).
_SOURCE_WORDS = frozenset(
    {
        *(m.manager_attribute for m in kb.MANAGER_FETCHES),
        *(w for f in kb.SESSION_FETCHES for w in (*f.entity_methods, *f.statement_methods)),
    }
)
# `get_object_or_404(Order, ...)`: the last part of a library's fetch function.
_FETCH_FUNCTIONS = frozenset(
    name.rsplit(".", 1)[-1]
    for fetches in kb.MANAGER_FETCHES
    for name in (*fetches.row_functions, *fetches.rows_functions)
)
# `self.get_object()`, `form.save()`: the calls the rules read by name, as parts.
_KNOWN_CALLS = frozenset(
    (known.parameter, *known.attribute.split("."))
    for known in kb.PARAMETER_ATTRIBUTES.values()
    if known.called
)
# Names passed to helpers everywhere, which the rules don't read there.
_HANDED_EVERYWHERE = frozenset({"self", "cls", "request"})
# Builtins whose value holds what they iterate over (`list(qs)`).
_COLLECTING = frozenset({"list", "tuple", "set", "frozenset", "sorted"})
_BUILTINS = frozenset(dir(builtins))
_DICT = "dict"
# Stands for a binding that is not `name = value` (a loop target, an import...).
_UNKNOWN = ast.Pass()
# Stands for an unannotated parameter: nothing the rules follow.
_PARAMETER = ast.Pass()
# Stands for an annotated parameter: its class may be a model's.
_ANNOTATED = ast.Pass()


@confirm_step("payload-may-hold-object")
def payload_may_hold_object(tree: ast.Module, lowered: bytes = b"") -> bool:
    """Whether some enqueue-like call in the module may pass an argument
    the payload rules could report or leave pending. (A call of a project
    function handing it on is read once the run knows those functions:
    `forwarder_call_may_hold`.)"""
    module = _Module(tree)
    return any(module.call_may_hold(call, function) for call, function in _calls(tree))


# Project functions handing a parameter on to a payload, by their last name:
# the places a caller passes it at ((position, ""), ("", keyword)).
Forwarders = Mapping[str, frozenset[tuple[str, str]]]


def source_may_hand_object(data: bytes, names: Forwarders) -> bool:
    """`forwarder_call_may_hold` of a file's bytes (run in a worker); a file
    Python's `ast` can't take may (LibCST reports it as it would)."""
    try:
        tree = quiet_ast_parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return forwarder_call_may_hold(tree, names, _lines_naming(data, tuple(sorted(names))))


def forwarder_call_may_hold(
    tree: ast.Module, names: Forwarders, lines: Sequence[int] | None = None
) -> bool:
    """Whether some call of a function named in `names` (project functions
    handing an argument on to a job's payload) may pass it a live object
    at a place it hands on. `lines` (sorted): the only lines such a call's
    name may stand on; the nodes spanning none of them are not walked."""
    module = _Module(tree)
    return any(
        module.handed_call_may_hold(call, function, names[name])
        for call, function in _calls(tree, lines)
        if (name := last_name(call.func)) in names
    )


def _lines_naming(data: bytes, names: tuple[str, ...]) -> list[int]:
    """The numbers of the lines of `data` where a word of `names` stands."""
    pattern = _words_pattern(names)
    found: list[int] = []
    line, counted = 1, 0
    for match in pattern.finditer(data):
        line += data.count(b"\n", counted, match.start())
        counted = match.start()
        if not found or found[-1] != line:
            found.append(line)
    return found


@functools.lru_cache(maxsize=8)
def _words_pattern(names: tuple[str, ...]) -> re.Pattern[bytes]:
    alternatives = b"|".join(re.escape(name.encode()) for name in names)
    return re.compile(rb"\b(?:" + alternatives + rb")\b")


def _calls(
    tree: ast.Module, lines: Sequence[int] | None = None
) -> Iterator[tuple[ast.Call, _Function | None]]:
    """Every call, with the innermost function whose body holds it (a
    function's decorators and defaults are in the scope around it); with
    `lines`, only those in nodes spanning one of them."""
    stack: list[tuple[ast.AST, _Function | None]] = [(tree, None)]
    while stack:
        node, function = stack.pop()
        if lines is not None and not _spans_one(node, lines):
            continue
        if isinstance(node, ast.Call):
            yield node, function
        if isinstance(node, _Function):
            body = node.body if isinstance(node.body, list) else [node.body]
            inside = {id(statement) for statement in body}
            stack.extend(
                (child, node if id(child) in inside else function)
                for child in ast.iter_child_nodes(node)
            )
        else:
            stack.extend((child, function) for child in ast.iter_child_nodes(node))


def _spans_one(node: ast.AST, lines: Sequence[int]) -> bool:
    """Whether `node` (one without a place: yes) spans one of `lines`; a
    definition's span starts at its first decorator."""
    start = getattr(node, "lineno", None)
    if start is None:
        return True
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        start = min(start, decorators[0].lineno)
    end = getattr(node, "end_lineno", None) or start
    at = bisect.bisect_left(lines, start)
    return at < len(lines) and lines[at] <= end


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """The module's statements, also those nested in others (an import or a
    `def` is never inside an expression), with the clauses holding them."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        for field in _STATEMENT_LISTS:
            children = getattr(node, field, None)
            if isinstance(children, list):
                stack.extend(children)


# The fields of statements and clauses holding statements (or clauses).
_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


class _Module:
    """What the module binds, read when first asked (most calls are decided
    without it): the imports of names bound by nothing else, and the
    module's decorated functions."""

    def __init__(self, tree: ast.Module) -> None:
        self._tree = tree
        self._scopes: dict[int, _Scope] = {}

    @functools.cached_property
    def _imported(self) -> tuple[dict[str, set[str]], set[str]]:
        """name -> what the imports binding it import; the decorated functions."""
        imports: dict[str, set[str]] = {}
        decorated: set[str] = set()
        for node in _statements(self._tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for alias in node.names:
                    name = alias.asname or alias.name.split(".")[0]
                    imports.setdefault(name, set()).add(_target(node, alias))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.decorator_list:
                decorated.add(node.name)
        return imports, decorated

    @functools.cached_property
    def _bound_otherwise(self) -> set[str]:
        """The names something besides an import binds (read only when a
        builtin's or a standard module's name is in question)."""
        return {
            name
            for node in ast.walk(self._tree)
            if not isinstance(node, ast.alias | ast.Import | ast.ImportFrom)
            for name, _ in bound_names(node)
        }

    @property
    def decorated(self) -> set[str]:
        return self._imported[1]

    def bound(self, name: str) -> bool:
        return name in self._imported[0] or name in self._bound_otherwise

    def from_standard_library(self, name: str) -> bool:
        """Bound only by imports of the standard library."""
        targets = self._imported[0].get(name)
        if not targets or not all(in_standard_library(t) for t in targets):
            return False
        return name not in self._bound_otherwise

    def scope(self, function: _Function) -> _Scope:
        found = self._scopes.get(id(function))
        if found is None:
            found = self._scopes[id(function)] = _Scope(function)
        return found

    # --- the calls --------------------------------------------------------------

    def call_may_hold(self, call: ast.Call, function: _Function | None) -> bool:
        name = last_name(call.func)
        if name in _PARTIALS:
            return self._partial_may_hold(call, function)
        shapes = _SHAPES.get(name)
        if shapes is None and isinstance(call.func, ast.Name) and name in self.decorated:
            shapes = (kb.PAYLOAD_SHAPES[_CALLED],)
        if shapes is None:
            return False  # a project function's call: `handed_call_may_hold`
        # A task's parameter it uses as a model: an argument of unknown type counts.
        return any(self.may_hold(value, function, unknown=True) for value in _payload(call, shapes))

    def handed_call_may_hold(
        self, call: ast.Call, function: _Function | None, places: frozenset[tuple[str, str]]
    ) -> bool:
        """A call of a function the project may define (`schedule_email(request.user)`),
        which may hand what it is passed at `places` on to an enqueue (one
        named like an enqueue method is read as one, by the rules too; one
        outside a function is not read)."""
        if function is None:
            return False
        parts = dotted(call.func)
        if parts is None or parts[-1][:1].isupper() or parts[-1] in kb.ENQUEUE_METHOD_NAMES:
            return False
        root = parts[0]
        if root in self.scope(function).values:
            # `self.notify(x)`, `manager.notify(x)`: a parameter's or a local's
            # method, which the rules resolve to no function of the project.
            return False
        if (root in _BUILTINS and not self.bound(root)) or self.from_standard_library(root):
            return False
        values = [k.value for k in call.keywords if ("", k.arg) in places]
        for position, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                break  # the places after it are not known (nor read)
            if (str(position), "") in places:
                values.append(arg)
        # `self` and the request are handed to helpers everywhere: not read there.
        return any(
            self.may_hold(value, function, helper=True)
            for value in values
            if not (isinstance(value, ast.Name) and value.id in _HANDED_EVERYWHERE)
        )

    def _partial_may_hold(self, call: ast.Call, function: _Function | None) -> bool:
        """`partial(queue.enqueue, f, order)`: the arguments bound now."""
        if not call.args or isinstance(call.args[0], ast.Starred):
            return False
        if last_name(call.args[0]) not in _SHAPES:
            return False
        values = [*call.args[1:], *(keyword.value for keyword in call.keywords)]
        return any(self.may_hold(value, function, unknown=True) for value in values)

    # --- the values -------------------------------------------------------------

    def may_hold(
        self,
        node: ast.expr,
        function: _Function | None,
        seen: frozenset[str] = frozenset(),
        unknown: bool = False,
        helper: bool = False,
    ) -> bool:
        """Whether the rules may take the value for a live object (`_classify`
        of `joblint.analysis.payloads`). `seen`: names being followed;
        `unknown`: an unannotated parameter not named like a key counts (a
        task may use it as a model); `helper`: the value is passed to a
        project function, where what a helper returns is not read."""
        node = _unawaited(node)
        if unknown and isinstance(node, ast.Name) and self._unknown_parameter(node.id, function):
            return True
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return any(self.may_hold(e, function, seen, unknown, helper) for e in node.elts)
        if isinstance(node, ast.Dict):
            return any(self.may_hold(v, function, seen, unknown, helper) for v in node.values)
        if isinstance(node, ast.Starred):
            return self.may_hold(node.value, function, seen, helper=helper)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return _comprehension_may_hold(node.elt, node.generators) or self.may_hold(
                node.elt, function, seen, helper=helper
            )
        if isinstance(node, ast.DictComp):
            return _comprehension_may_hold(node.value, node.generators) or self.may_hold(
                node.value, function, seen, helper=helper
            )
        if isinstance(node, ast.Name):
            return self._name_may_hold(node.id, function, seen, helper)
        if isinstance(node, ast.Attribute):
            return _attribute_may_hold(node)
        if isinstance(node, ast.Subscript):  # `X.objects.filter()[0]`, `kwargs["instance"]`
            key = node.slice
            received = isinstance(key, ast.Constant) and key.value in kb.RECEIVED_INSTANCE_NAMES
            return received or isinstance(_unawaited(node.value), ast.Call)
        if isinstance(node, ast.Call):
            if helper:
                return self._handed_call_may_hold(node, function, seen)
            return self._call_value_may_hold(node, function, seen)
        return False  # a literal, an operation, ...

    def _handed_call_may_hold(
        self, call: ast.Call, function: _Function | None, seen: frozenset[str]
    ) -> bool:
        """A call's value passed to a helper: a fetch the file alone tells, or
        a builtin collecting such values (`list(qs)`, `dict(order=...)`)."""
        func = call.func
        collecting = isinstance(func, ast.Name) and func.id in (_COLLECTING | {_DICT})
        if collecting and isinstance(func, ast.Name) and not self.bound(func.id):
            values = [*call.args, *(keyword.value for keyword in call.keywords)]
            return any(self.may_hold(v, function, seen, helper=True) for v in values)
        return _fetch_or_construction(call)

    def _call_value_may_hold(
        self, call: ast.Call, function: _Function | None, seen: frozenset[str]
    ) -> bool:
        func = call.func
        parts = dotted(func)
        if parts is None:  # `make().to_dict()`: no helper, no class; a fetch's chain?
            return _chain_may_fetch(func)
        root = parts[0]
        if root == _DICT and isinstance(func, ast.Name) and not self.bound(_DICT):
            values = [*call.args, *(keyword.value for keyword in call.keywords)]
            return any(self.may_hold(value, function, seen) for value in values)
        if root in _COLLECTING and isinstance(func, ast.Name) and not self.bound(root):
            return any(self.may_hold(value, function, seen) for value in call.args)
        if root in _BUILTINS and not self.bound(root):
            return False  # `str(order.pk)`: the standard library's
        return not self.from_standard_library(root) or _chain_may_fetch(func)

    @staticmethod
    def _only_loops_or_parameters(name: str, values: list[ast.AST], scope: _Scope) -> bool:
        """Every binding of `name` is a parameter or a `for` statement's target
        (an annotated parameter's class is read only where it is enqueued)."""
        unknown = sum(1 for value in values if value is _UNKNOWN)
        others = all(value in (_PARAMETER, _ANNOTATED, _UNKNOWN) for value in values)
        return others and unknown == len(scope.loops.get(name, ())) + scope.caught.get(name, 0)

    def _unknown_parameter(self, name: str, function: _Function | None) -> bool:
        if function is None or kb.names_a_key(name):
            return False
        return _PARAMETER in self.scope(function).values.get(name, ())

    def _name_may_hold(
        self, name: str, function: _Function | None, seen: frozenset[str], helper: bool = False
    ) -> bool:
        """An unannotated parameter holds nothing the rules follow; a local
        bound only by `name = value` holds what its values may hold (and
        what the function stores in it, if it is a container)."""
        if helper and (function is None or name in _HANDED_EVERYWHERE):
            return False  # the rules read only a function's own values there
        if function is None or name in _REPORTED_NAMES or name in seen:
            return True
        scope = self.scope(function)
        values = scope.values.get(name)
        if not values:  # the module's, a closure's: not read here
            return not helper
        followed = seen | {name}
        if helper and self._only_loops_or_parameters(name, values, scope):
            # Passed to a helper, a loop's item is read where the loop is over a fetch.
            return any(
                _chain_may_fetch(source)
                or (isinstance(source, ast.Call) and _fetch_or_construction(source))
                for source in scope.loops.get(name, ())
            )
        for value in values:
            if value is _PARAMETER:
                continue
            if not isinstance(value, ast.expr):  # `_UNKNOWN`
                return True
            if self.may_hold(value, function, followed, helper=helper):
                return True
            stored = scope.stores.get(name, ()) if _is_container(value) else ()
            if any(self.may_hold(item, function, followed, helper=helper) for item in stored):
                return True
        return False


class _Scope:
    """A function's bindings of each name (anywhere in its body, nested
    scopes included): the values of `name = value`, `_PARAMETER` for an
    unannotated parameter, `_UNKNOWN` for any other binding; and the values
    stored into it (`name[key] = value`)."""

    def __init__(self, function: _Function) -> None:
        self.values: dict[str, list[ast.AST]] = {}
        self.stores: dict[str, list[ast.expr]] = {}
        # The names a `for` statement binds alone, with what it iterates over.
        self.loops: dict[str, list[ast.expr]] = {}
        # The names bound to what the rules never read as a row where it is
        # passed to a helper: `except ... as e`, `with open(p) as f`, an import.
        self.caught: dict[str, int] = {}
        arguments = function.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        for parameter in (*every, arguments.vararg, arguments.kwarg):
            if parameter is not None:
                known = _PARAMETER if parameter.annotation is None else _ANNOTATED
                self._bind(parameter.arg, known)
        body = function.body if isinstance(function.body, list) else [function.body]
        assigned: set[int] = set()  # `ast.walk` meets an assignment before its targets
        for node in _walk(body):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                assigned.update(self._read_assignment(node))
            if isinstance(node, ast.For | ast.AsyncFor) and isinstance(node.target, ast.Name):
                self.loops.setdefault(node.target.id, []).append(node.iter)
            for name in _never_rows(node):
                self.caught[name] = self.caught.get(name, 0) + 1
            for name, binder in bound_names(node):
                if id(binder) not in assigned:
                    self._bind(name, _UNKNOWN)

    def _bind(self, name: str, value: ast.AST) -> None:
        self.values.setdefault(name, []).append(value)

    def _read_assignment(self, node: ast.Assign | ast.AnnAssign) -> Iterator[int]:
        """Binds `name = value`'s names; yields the target nodes it read."""
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                self._bind(target.id, node.value if node.value is not None else _UNKNOWN)
                yield id(target)
            elif (
                isinstance(node, ast.Assign)
                and isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Name)
            ):
                self.stores.setdefault(target.value.id, []).append(node.value)


def _never_rows(node: ast.AST) -> Iterator[str]:
    """The names `node` binds to an exception, a context manager's value or
    an import (one each time `bound_names` counts them)."""
    if isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name
    elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
        yield node.optional_vars.id
    elif isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            yield alias.asname or alias.name.split(".")[0]


def _walk(statements: Sequence[ast.AST]) -> Iterator[ast.AST]:
    for statement in statements:
        yield from ast.walk(statement)


def _payload(call: ast.Call, shapes: Sequence[kb.PayloadShape]) -> Iterator[ast.expr]:
    """The arguments any of the shapes puts in the payload (`payload_arguments`
    of `joblint.analysis.payloads`, read as widely as they disagree)."""
    skip = min(shape.skip_positional for shape in shapes)
    for position, argument in enumerate(call.args):
        # A leading argument is skipped only before any `*args`.
        leading = not any(isinstance(a, ast.Starred) for a in call.args[: position + 1])
        if not (leading and position < skip):
            yield argument
    for keyword in call.keywords:
        if keyword.arg is None or any(_in_payload(keyword.arg, shape) for shape in shapes):
            yield keyword.value


def _in_payload(name: str, shape: kb.PayloadShape) -> bool:
    if name in (shape.args_keyword, shape.kwargs_keyword):
        return True
    reserved = name in shape.reserved or bool(
        shape.reserved_prefix and name.startswith(shape.reserved_prefix)
    )
    return shape.rest_is_payload and not reserved


def _target(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> str:
    """What an import binds its name to ("" for a relative import: the project's)."""
    if isinstance(node, ast.Import):
        return alias.name if alias.asname else alias.name.split(".")[0]
    if node.level:
        return ""
    return f"{node.module}.{alias.name}"


def _chain_may_fetch(node: ast.expr, words: frozenset[str] | None = None) -> bool:
    """A name along the chain is a manager's or a session's (`.objects`, `.query`, `.first`)."""
    words = _FETCH_WORDS if words is None else words
    while True:
        if isinstance(node, ast.Attribute):
            if node.attr in words:
                return True
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript | ast.Await):
            node = node.value
        else:
            return False


def _attribute_may_hold(node: ast.Attribute) -> bool:
    """A parameter's known attribute (`request.user`, `self.request.user`) or a
    member of a class (`Color.RED`, upper case, two parts)."""
    parts = dotted(node)
    if parts is None:
        return False
    if len(parts) == 2 and node.attr.isupper():
        return True
    return tuple(parts) in _KNOWN_ATTRIBUTES


def _fetch_or_construction(call: ast.Call) -> bool:
    """A call whose value the rules read where it is passed to a helper: an
    ORM fetch the file alone tells (`Order.objects...`, `session.query(Order)...`,
    `get_object_or_404(...)`), a value a library hands the code
    (`self.get_object()`, `form.save()`): not what a helper returns, nor a
    class built."""
    parts = dotted(call.func)
    if parts is not None and (parts[-1] in _FETCH_FUNCTIONS or tuple(parts) in _KNOWN_CALLS):
        return True
    return _chain_may_fetch(call.func, _SOURCE_WORDS)


def _comprehension_may_hold(element: ast.expr, loops: Sequence[ast.comprehension]) -> bool:
    """The element is a loop's target: the rows iterated may be a queryset's."""
    return isinstance(element, ast.Name) and any(
        element.id in {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        for loop in loops
    )


def _unawaited(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Await):
        node = node.value
    return node


def _is_container(node: ast.expr) -> bool:
    node = _unawaited(node)
    if isinstance(node, ast.Dict | ast.List | ast.Tuple):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == _DICT
