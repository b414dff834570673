"""Receivers a module connects to signals, read with Python's `ast`: a
signal's `send` runs them in the sender's call, so inside the sender's
transaction (`joblint.knowledge.requests.SIGNAL_APIS`). For the project
model's entry points and call graph, which follow a send to its receivers.

Connected: a function decorated with a receiver decorator
(`@receiver(order_placed)`, `@receiver([a, b])`) or with a signal's connect
method (blinker's `@order_placed.connect`); the first argument (or
`receiver=`) of a connect call anywhere in the module
(`order_placed.connect(on_placed)`, `sig.connect(self.handle)` in a method,
`sig.connect(cls.handle)` for each class of a literal tuple a loop walks),
and the nested function a project factory returns
(`sig.connect(make_handler("x"))`: the factory's `<locals>` function,
settled where the factory is summarised). The signal is any object whose
name resolves: which names are signals the sends tell.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

from joblint.knowledge import jobs, requests

NameOf = Callable[[ast.expr], "str | None"]
ImportsOf = Callable[[ast.Import | ast.ImportFrom], Iterable[tuple[str, str]]]
# (signal, handler, line)
Connection = tuple[str, str, int]


def module_connections(
    module: str, statements: list[ast.stmt], name_of: NameOf, imports_of: ImportsOf
) -> tuple[Connection, ...]:
    local = (lambda name: f"{module}.{name}") if module else (lambda name: name)
    found: list[Connection] = []
    for statement in statements:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            found.extend(_decorated(statement, local(statement.name), name_of))
            found.extend(
                _connect_calls(statement, "", with_imports(statement, name_of, imports_of))
            )
        elif isinstance(statement, ast.ClassDef):
            owner = local(statement.name)
            for item in statement.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.extend(_decorated(item, f"{owner}.{item.name}", name_of))
            found.extend(
                _connect_calls(statement, owner, with_imports(statement, name_of, imports_of))
            )
        else:
            found.extend(_connect_calls(statement, "", name_of))
    return tuple(dict.fromkeys(found))


def _decorated(
    node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, name_of: NameOf
) -> Iterator[Connection]:
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call):
            func = decorator.func
            if name_of(func) in requests.RECEIVER_DECORATORS and decorator.args:
                first = decorator.args[0]
                signals = first.elts if isinstance(first, ast.List | ast.Tuple) else [first]
                for signal in signals:
                    name = name_of(signal)
                    if name is not None:
                        yield name, qualname, decorator.lineno
                continue
        else:
            func = decorator
        if isinstance(func, ast.Attribute) and func.attr in requests.CONNECT_METHODS:
            connected = name_of(func.value)
            if connected is not None and jobs.may_be_project_code(connected):
                yield connected, qualname, decorator.lineno


def _connect_calls(node: ast.stmt, owner: str, name_of: NameOf) -> Iterator[Connection]:
    """Connect calls anywhere in `node` (a method's `self.x`/`cls.x` is `owner`'s)."""
    loops: dict[str, list[ast.expr]] = {}
    for child in ast.walk(node):
        if isinstance(child, ast.For):
            _note_loop(child, loops)
        if not isinstance(child, ast.Call) or not isinstance(child.func, ast.Attribute):
            continue
        if child.func.attr not in requests.CONNECT_METHODS:
            continue
        signal = name_of(child.func.value)
        handler = _handler_argument(child)
        if signal is None or handler is None:
            continue
        for name in _handlers(handler, owner, loops, name_of):
            yield signal, name, child.lineno


def with_imports(node: ast.stmt, name_of: NameOf, imports_of: ImportsOf) -> NameOf:
    """`name_of`, knowing the imports made inside `node`'s functions too
    (`from .handlers import on_saved` in `AppConfig.ready`)."""
    local: dict[str, str] = {}
    for child in ast.walk(node):
        if isinstance(child, ast.Import | ast.ImportFrom) and child is not node:
            local.update(imports_of(child))
    if not local:
        return name_of

    def resolved(expr: ast.expr) -> str | None:
        parts: list[str] = []
        head = expr
        while isinstance(head, ast.Attribute):
            parts.append(head.attr)
            head = head.value
        if isinstance(head, ast.Name) and head.id in local:
            return ".".join([local[head.id], *reversed(parts)])
        return name_of(expr)

    return resolved


def _note_loop(loop: ast.For, loops: dict[str, list[ast.expr]]) -> None:
    """`for cls in (A, B):` binds `cls` to each class in turn."""
    if isinstance(loop.iter, ast.List | ast.Tuple) and isinstance(loop.target, ast.Name):
        loops[loop.target.id] = list(loop.iter.elts)


def _handler_argument(call: ast.Call) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == "receiver":
            return keyword.value
    return call.args[0] if call.args else None


def _handlers(
    handler: ast.expr, owner: str, loops: dict[str, list[ast.expr]], name_of: NameOf
) -> Iterator[str]:
    if isinstance(handler, ast.Call):  # a factory's result: the function it returns
        factory = name_of(handler.func)
        if factory is not None and jobs.may_be_project_code(factory):
            yield f"{factory}.<returned>"
        return
    named = name_of(handler)
    if named is not None:
        yield named
        return
    if not isinstance(handler, ast.Attribute) or not isinstance(handler.value, ast.Name):
        return
    base = handler.value.id
    if base in ("self", "cls") and owner:
        yield f"{owner}.{handler.attr}"
    for element in loops.get(base, ()):
        class_name = name_of(element)
        if class_name is not None:
            yield f"{class_name}.{handler.attr}"
