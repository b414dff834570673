"""What a module registers to run after a framework's request handlers or
around them, read with Python's `ast` (`joblint.knowledge.requests.HOOKS`):
a function committing the request's session there commits it once the
handler has returned.

Registered: a function decorated with an app's or blueprint's hook method
(`@app.teardown_request`, `@bp.after_request`) or handed to one
(`app.teardown_appcontext(shutdown)`); a middleware class an app adds
(`app.add_middleware(Cls)`, `Middleware(Cls)` in `middleware=[...]`), or a
function doing its work (`dispatch=f`, `@app.middleware("http")`); and a
configuration key set true that commits after every request
(`SQLALCHEMY_COMMIT_ON_TEARDOWN = True`, `app.config[...] = True`). Anywhere
in the module: app factories register them inside functions
(`def create_app(): ...`), whose nested functions are named as their
summaries are (`create_app.<locals>.shutdown`). Which registrations commit
the project step tells, from the functions' summaries.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from joblint.index.signals import ImportsOf, with_imports
from joblint.knowledge import requests
from joblint.libraries.base import RequestHooks
from joblint.models import HOOK_AFTER, HOOK_AROUND, HOOK_SETTING, RequestHook

NameOf = Callable[[ast.expr], "str | None"]
_Function = ast.FunctionDef | ast.AsyncFunctionDef


def module_hooks(
    module: str, statements: list[ast.stmt], name_of: NameOf, imports_of: ImportsOf
) -> tuple[RequestHook, ...]:
    reader = _Reader(module, imports_of)
    reader.scope(statements, "", name_of)
    return tuple(dict.fromkeys(reader.found))


@dataclass(slots=True)
class _Reader:
    module: str
    imports_of: ImportsOf
    found: list[RequestHook] = field(default_factory=list)

    def local(self, key: str) -> str:
        return f"{self.module}.{key}" if self.module else key

    def scope(self, body: list[ast.stmt], key: str, name_of: NameOf) -> None:
        """The registrations a module's body (`key` "") or a function's
        (`key`: its summary's) makes, then those of the functions it defines."""
        nodes = list(_own(body))
        prefix = f"{key}.<locals>." if key else ""
        nested = {n.name: f"{prefix}{n.name}" for n in nodes if isinstance(n, _Function)}

        def resolve(expr: ast.expr) -> str | None:
            if isinstance(expr, ast.Name) and expr.id in nested:
                return self.local(nested[expr.id])
            return name_of(expr)

        for node in nodes:
            if isinstance(node, _Function):
                self.found.extend(_decorated(node, self.local(nested[node.name]), name_of))
                inner = with_imports(node, name_of, self.imports_of)
                self.scope(node.body, nested[node.name], inner)
            elif isinstance(node, ast.ClassDef) and not key:
                self._class(node, with_imports(node, name_of, self.imports_of))
            elif isinstance(node, ast.Call):
                self.found.extend(_registered(node, resolve))
            self.found.extend(_settings(node))

    def _class(self, node: ast.ClassDef, name_of: NameOf) -> None:
        """A module-level class: its settings (a configuration class's
        `SQLALCHEMY_COMMIT_ON_TEARDOWN = True`), and its methods'
        registrations (`init_app(self, app)`)."""
        for statement in node.body:
            if isinstance(statement, _Function):
                self.scope(statement.body, f"{node.name}.{statement.name}", name_of)
            else:
                self.found.extend(s for n in _own([statement]) for s in _settings(n))


def _own(body: Iterable[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a body that run with it: not the bodies of the
    functions, classes and lambdas it defines (their decorators are read
    with them)."""
    todo: list[ast.AST] = list(reversed(list(body)))
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, _Function | ast.ClassDef | ast.Lambda):
            continue
        todo.extend(reversed(list(ast.iter_child_nodes(node))))


def _decorated(node: _Function, qualname: str, name_of: NameOf) -> Iterator[RequestHook]:
    """`@app.teardown_request`, `@bp.after_request`, `@app.middleware("http")`."""
    for decorator in node.decorator_list:
        called = isinstance(decorator, ast.Call)
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        if not isinstance(func, ast.Attribute):
            continue
        hooks = requests.HOOK_REGISTRATIONS.get(func.attr)
        if hooks is not None and not called:
            of = _own_of(func, name_of)
            yield RequestHook(hooks.framework, qualname, decorator.lineno, HOOK_AFTER, of)
            continue
        hooks = requests.MIDDLEWARE_DECORATORS.get(func.attr)
        if hooks is not None and called:
            yield RequestHook(hooks.framework, qualname, decorator.lineno, HOOK_AROUND)


def _registered(call: ast.Call, resolve: NameOf) -> Iterator[RequestHook]:
    """`app.teardown_request(f)`, `app.add_middleware(Cls, ...)`, `Middleware(Cls)`."""
    func = call.func
    if isinstance(func, ast.Attribute):
        hooks = requests.HOOK_REGISTRATIONS.get(func.attr)
        if hooks is not None and len(call.args) == 1 and not call.keywords:
            target = resolve(call.args[0])
            if target is not None:
                of = _own_of(func, resolve)
                yield RequestHook(hooks.framework, target, call.lineno, HOOK_AFTER, of)
            return
        added = requests.MIDDLEWARE_ADDERS.get(func.attr)
        if added is not None:
            yield from _middleware(call, added, resolve)
            return
    wrapper = resolve(func)
    if wrapper is not None and wrapper in requests.MIDDLEWARE_WRAPPERS:
        yield from _middleware(call, requests.MIDDLEWARE_WRAPPERS[wrapper], resolve)


def _middleware(call: ast.Call, hooks: RequestHooks, resolve: NameOf) -> Iterator[RequestHook]:
    """The class a middleware call names first, or the function it hands
    as `dispatch=` (a `BaseHTTPMiddleware` doing that function's work)."""
    for keyword in call.keywords:
        if keyword.arg == hooks.dispatch_keyword and keyword.arg:
            target = resolve(keyword.value)
            if target is not None:
                yield RequestHook(hooks.framework, target, call.lineno, HOOK_AROUND)
            return
    if call.args and not isinstance(call.args[0], ast.Starred):
        target = resolve(call.args[0])
        if target is not None:
            yield from _library_middleware(call, target)
            yield RequestHook(hooks.framework, target, call.lineno, HOOK_AROUND)


def _library_middleware(call: ast.Call, target: str) -> Iterator[RequestHook]:
    """A library's middleware added with the keyword making it commit after
    the handler (`DBSessionMiddleware, commit_on_exit=True`): as a setting."""
    found = requests.COMMITTING_MIDDLEWARE.get(target)
    if found is None:
        return
    hooks, keyword = found
    if any(k.arg == keyword and _true(k.value) for k in call.keywords):
        named = f"{target.rsplit('.', 1)[-1]}({keyword}=True)"
        yield RequestHook(hooks.framework, named, call.lineno, HOOK_SETTING)


def _own_of(func: ast.Attribute, name_of: NameOf) -> str:
    """The object a blueprint-only hook method is called on (the project
    step tells whether it is a blueprint), "" for a method running after
    every handler."""
    if func.attr not in requests.OWN_HOOK_METHODS:
        return ""
    return name_of(func.value) or ""


def _settings(node: ast.AST) -> Iterator[RequestHook]:
    """A commit setting set to `True`: `KEY = True`, `config["KEY"] = True`,
    `KEY=True` as a keyword, `{"KEY": True}`."""
    if isinstance(node, ast.Assign | ast.AnnAssign) and _true(node.value):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            yield from _setting(_key_of(target), node.lineno)
    elif isinstance(node, ast.keyword) and node.arg and _true(node.value):
        yield from _setting(node.arg, node.value.lineno)
    elif isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and _true(value):
                yield from _setting(key.value, key.lineno)


def _setting(key: str, line: int) -> Iterator[RequestHook]:
    hooks = requests.COMMIT_SETTINGS.get(key)
    if hooks is not None:
        yield RequestHook(hooks.framework, key, line, HOOK_SETTING)


def _key_of(target: ast.expr) -> str:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript):
        key = target.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    return ""


def _true(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and value.value is True
