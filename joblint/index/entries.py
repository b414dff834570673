"""Request handlers a module defines (`Entry`), read with Python's `ast`:
the functions a web framework runs for a request, inside the request's
transaction where the project turns that on (Django's `ATOMIC_REQUESTS`,
Pyramid's `pyramid_tm`). For the project model's entry points
(`joblint.pipeline.project.entries`): a job enqueued there runs before the
request's transaction commits.

A handler is a function a framework's decorator registers (DRF's
`@api_view`, `@view_config`, a ninja-extra route, a strawberry mutation), or
a router object's operation (`@api.post(...)` on a `NinjaAPI` or `Router`:
the project step checks the object); a Django view: a function of a views
module taking the request first (elsewhere, one a URLconf registers), a
method taking it after `self` (or a DRF `perform_*` hook) in a views module
or a class deriving from Django's, DRF's or the admin's classes, an admin
action; a graphene mutation's `mutate`; and the `create`/`update`/`save` of
the serializer or form class a view names, which its save runs. A function
a decorator factory of the project decorates (`@api_config(...)`) may be
one: the project step checks the factory registers handlers
(`joblint.index.registering`). A call may register one too
(`Route("/x", endpoint)`, `bp.add_url_rule("/x", view_func=f)`:
`called_entries`). Not: async functions but a router's, nor views marked
`non_atomic_requests` (one by one, or the whole class through
`method_decorator(..., name="dispatch")`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from joblint.knowledge import jobs, requests
from joblint.libraries import django, fastapi
from joblint.models import Entry

NameOf = Callable[[ast.expr], "str | None"]

_DJANGO = django.FRAMEWORK
_VIEW = "a view"
_REQUEST = django.VIEW_REQUEST_PARAMETER


def module_entries(module: str, statements: list[ast.stmt], name_of: NameOf) -> tuple[Entry, ...]:
    """The handlers among the module-level functions and classes' methods."""
    parts = set(module.split("."))
    views_module = not parts.isdisjoint(django.VIEW_MODULE_NAMES)
    admin_module = not parts.isdisjoint(django.ADMIN_MODULE_NAMES)
    local = (lambda name: f"{module}.{name}") if module else (lambda name: name)
    found: list[Entry] = []
    for statement in statements:
        if isinstance(statement, ast.AsyncFunctionDef):
            # Only a router may run an async handler inside a transaction
            # (a FastAPI session dependency); Django's async views run outside.
            routed = _routed(statement, local(statement.name), name_of)
            if routed is not None:
                found.append(routed)
        elif isinstance(statement, ast.FunctionDef):
            entry = _function_entry(statement, local(statement.name), name_of, views_module)
            if entry is None and admin_module and _parameters(statement)[1:2] == [_REQUEST]:
                entry = Entry(local(statement.name), statement.lineno, _DJANGO, "an admin action")
            if entry is not None:
                found.append(entry)
            if _may_be_wrapped(entry):
                found.extend(_wrapped(statement, local(statement.name), name_of))
        elif isinstance(statement, ast.ClassDef):
            found.extend(
                _class_entries(
                    statement, local(statement.name), name_of, views_module, module.count(".")
                )
            )
    return tuple(found)


def _function_entry(
    node: ast.FunctionDef, qualname: str, name_of: NameOf, views_module: bool
) -> Entry | None:
    registered = _registered(node, qualname, name_of)
    if registered is not None or _non_atomic(node, name_of):
        return registered
    if _parameters(node)[:1] != [_REQUEST]:
        return None
    if views_module:
        return Entry(qualname, node.lineno, _DJANGO, _VIEW)
    return Entry(qualname, node.lineno, _DJANGO, _VIEW, needs="url", of=qualname)


def _registered(node: ast.FunctionDef, qualname: str, name_of: NameOf) -> Entry | None:
    """A handler its decorator registers: a framework's decorator, or a
    route method of a module-level object (a router, if the project step
    finds it is one)."""
    for decorator in node.decorator_list:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = name_of(func)
        if name is None:
            continue
        handlers = requests.DECORATORS.get(name)
        if handlers is not None:
            return Entry(
                qualname, node.lineno, handlers.framework, handlers.how, route=decorator.lineno
            )
        routed = _routed(node, qualname, name_of)
        if routed is not None:
            return routed
    return None


def _routed(
    node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, name_of: NameOf
) -> Entry | None:
    """An operation a module-level object's route method registers
    (`@api.post("/x")`: the project step tells whether it is a router)."""
    for decorator in node.decorator_list:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = name_of(func)
        owner, _, method = name.rpartition(".") if name else ("", "", "")
        if method in requests.ROUTE_METHODS and owner and jobs.may_be_project_code(owner):
            return Entry(
                qualname,
                node.lineno,
                "",
                "",
                needs="router",
                of=owner,
                route=decorator.lineno,
                depends=_dependencies(node, name_of),
                asynchronous=isinstance(node, ast.AsyncFunctionDef),
            )
    return None


def _dependencies(node: ast.FunctionDef | ast.AsyncFunctionDef, name_of: NameOf) -> tuple[str, ...]:
    """What the parameters depend on: `Depends(x)` in a default or an
    `Annotated[...]`, or an annotation's name (an alias of one)."""
    arguments = node.args
    found: list[str] = []
    defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    for default in defaults:
        found.extend(_depends_call(default, name_of))
    for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        annotation = argument.annotation
        if annotation is None:
            continue
        named = annotated_dependencies(annotation, name_of)
        if named:
            found.extend(named)
        elif (alias := name_of(annotation)) is not None:
            found.append(alias)
    return tuple(dict.fromkeys(found))


def dependency_aliases(
    module: str, statements: list[ast.stmt], name_of: NameOf
) -> tuple[tuple[str, str], ...]:
    """Module-level `SessionDep = Annotated[Session, Depends(get_db)]`:
    (the alias's qualified name, the dependency's)."""
    found: list[tuple[str, str]] = []
    for statement in statements:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Name) and isinstance(value, ast.Subscript):
            alias = f"{module}.{target.id}" if module else target.id
            found.extend((alias, name) for name in annotated_dependencies(value, name_of))
    return tuple(found)


def annotated_dependencies(annotation: ast.expr, name_of: NameOf) -> tuple[str, ...]:
    """The dependencies an `Annotated[T, Depends(x), ...]` names."""
    if (
        not isinstance(annotation, ast.Subscript)
        or name_of(annotation.value) not in fastapi.ANNOTATED
    ):
        return ()
    items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    return tuple(name for item in items[1:] for name in _depends_call(item, name_of))


def _depends_call(node: ast.expr, name_of: NameOf) -> tuple[str, ...]:
    if not isinstance(node, ast.Call) or name_of(node.func) not in fastapi.DEPENDS:
        return ()
    target = node.args[0] if node.args else None
    if target is None:
        target = next((k.value for k in node.keywords if k.arg == "dependency"), None)
    name = name_of(target) if target is not None else None
    return (name,) if name is not None else ()


def called_entries(statements: list[ast.stmt], name_of: NameOf) -> tuple[Entry, ...]:
    """Handlers a call anywhere in the module registers (`requests.ROUTE_CALLS`):
    `Route("/x", endpoint)`, or a router's `bp.add_url_rule("/x",
    view_func=f)` (the project step tells whether `bp` is a router)."""
    found: list[Entry] = []
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call):
                entry = _called_entry(node, name_of)
                if entry is not None:
                    found.append(entry)
    return tuple(found)


def _called_entry(call: ast.Call, name_of: NameOf) -> Entry | None:
    func = call.func
    method = f".{func.attr}" if isinstance(func, ast.Attribute) else ""
    if method in requests.ROUTE_CALLS and isinstance(func, ast.Attribute):
        handlers, position, keyword = requests.ROUTE_CALLS[method]
        owner = name_of(func.value)
        if owner is None or not jobs.may_be_project_code(owner):
            return None
        view = _view_argument(call, position, keyword, name_of)
        if view is None:
            return None
        return Entry(view, call.lineno, "", "", needs="router", of=owner, route=call.lineno)
    callee = name_of(func)
    if callee is None or callee not in requests.ROUTE_CALLS:
        return None
    handlers, position, keyword = requests.ROUTE_CALLS[callee]
    view = _view_argument(call, position, keyword, name_of)
    if view is None:
        return None
    return Entry(view, call.lineno, handlers.framework, handlers.how, route=call.lineno)


def _view_argument(call: ast.Call, position: int, keyword: str, name_of: NameOf) -> str | None:
    """The function a registering call hands over, by name (not a class's
    `as_view()`: its methods are handlers by their bases)."""
    found = next((k.value for k in call.keywords if k.arg == keyword), None)
    if found is None and len(call.args) > position:
        if any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
            return None
        found = call.args[position]
    if found is None or isinstance(found, ast.Call):
        return None
    name = name_of(found)
    return name if name is not None and jobs.may_be_project_code(name) else None


def _may_be_wrapped(entry: Entry | None) -> bool:
    """Whether a project decorator may make the function a handler of another
    kind: it is none yet, or only one the project step must confirm, or a
    Django view only by its shape (a Pyramid view in a views module)."""
    return entry is None or bool(entry.needs) or not entry.route


def _wrapped(node: ast.FunctionDef, qualname: str, name_of: NameOf) -> Iterator[Entry]:
    """A handler if a decorator factory of the project it is decorated with
    (`@api_config(...)`, not a framework's nor a router's) registers handlers."""
    if _non_atomic(node, name_of):
        return
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        name = name_of(decorator.func)
        if name is None or name in requests.DECORATORS or not jobs.may_be_project_code(name):
            continue
        if name.rpartition(".")[2] in requests.ROUTE_METHODS:
            continue  # a router's (`_registered`)
        yield Entry(
            qualname, node.lineno, "", "", needs="decorator", of=name, route=decorator.lineno
        )


def _class_entries(
    node: ast.ClassDef, qualname: str, name_of: NameOf, views_module: bool, module_depth: int
) -> Iterator[Entry]:
    """`module_depth`: the dots in the module's name (a class of the module
    has one more)."""
    non_atomic = _non_atomic_class(node, name_of) or _non_atomic_dispatch(node, name_of)
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef):
            entries = _method_entries(statement, f"{qualname}.{statement.name}", qualname, name_of)
            # A method a framework's base class dispatches to by its name
            # (`post`) may be a Django view's too: the project step tells
            # which base the class has.
            registered = any(e.route for e in entries)
            if not registered and not non_atomic and not _non_atomic(statement, name_of):
                view = _view_method(statement, qualname, views_module)
                entries.extend([view] if view is not None else [])
            for entry in entries:
                if not (non_atomic and entry.framework == _DJANGO):
                    yield entry
            if _may_be_wrapped(entries[0] if entries else None):
                yield from _wrapped(statement, f"{qualname}.{statement.name}", name_of)
        elif isinstance(statement, ast.Assign) and not non_atomic:
            yield from _saved_by_view(statement, qualname, name_of)
        elif isinstance(statement, ast.ClassDef) and qualname.count(".") == module_depth + 1:
            # The views a class nests (a CRUDL's actions), one level down.
            nested = f"{qualname}.{statement.name}"
            yield from _class_entries(statement, nested, name_of, views_module, module_depth)


def _method_entries(
    node: ast.FunctionDef, qualname: str, owner: str, name_of: NameOf
) -> list[Entry]:
    """The handler a decorator registers, or those the method is for each
    framework whose base classes dispatch to it by its name."""
    registered = _registered(node, qualname, name_of)
    if registered is not None:
        return [registered]
    return [
        Entry(
            qualname,
            node.lineno,
            handlers.framework,
            handlers.how,
            needs="class",
            of=owner,
            bases=handlers.bases,
        )
        for handlers in requests.CLASS_HANDLERS
        if node.name in handlers.methods
    ]


def _view_method(node: ast.FunctionDef, owner: str, views_module: bool) -> Entry | None:
    """A method taking the request after `self`, or a DRF hook."""
    hook = node.name in django.REQUEST_HOOK_METHODS
    if _parameters(node)[1:2] != [_REQUEST] and not hook:
        return None
    qualname = f"{owner}.{node.name}"
    if views_module and not hook:
        return Entry(qualname, node.lineno, _DJANGO, _VIEW)
    return Entry(
        qualname,
        node.lineno,
        _DJANGO,
        _VIEW,
        needs="class",
        of=owner,
        bases=requests.REQUEST_CLASS_BASES,
    )


def _saved_by_view(statement: ast.Assign, owner: str, name_of: NameOf) -> Iterator[Entry]:
    """`serializer_class = OrderSerializer` in a view: its save runs in the request."""
    for target in statement.targets:
        if not isinstance(target, ast.Name):
            continue
        methods = django.SAVED_BY_VIEW.get(target.id)
        saved = name_of(statement.value)
        if methods is None or saved is None or not jobs.may_be_project_code(saved):
            continue
        how = f"the {target.id} {owner.rsplit('.', 1)[-1]} saves"
        for method in methods:
            yield Entry(
                f"{saved}.{method}",
                statement.lineno,
                _DJANGO,
                how,
                needs="class",
                of=owner,
                bases=requests.REQUEST_CLASS_BASES,
            )


def _parameters(node: ast.FunctionDef) -> list[str]:
    return [a.arg for a in (*node.args.posonlyargs, *node.args.args)]


def _non_atomic(node: ast.FunctionDef, name_of: NameOf) -> bool:
    return any(_marks_non_atomic(d, name_of) for d in node.decorator_list)


def _marks_non_atomic(expr: ast.expr, name_of: NameOf) -> bool:
    """`@non_atomic_requests`, `@non_atomic_requests(using=...)`, and on a
    method `@method_decorator(non_atomic_requests)`."""
    func = expr.func if isinstance(expr, ast.Call) else expr
    if name_of(func) in requests.NON_ATOMIC:
        return True
    return (
        isinstance(expr, ast.Call)
        and bool(expr.args)
        and name_of(func) in jobs.METHOD_DECORATOR_ADAPTERS
        and _marks_non_atomic(expr.args[0], name_of)
    )


def non_atomic_classes(module: str, statements: list[ast.stmt], name_of: NameOf) -> tuple[str, ...]:
    """The module-level classes marked `non_atomic_requests` as a whole: by
    a class decorator, or on their `dispatch` (a mixin other views derive
    from; the project step follows the bases)."""
    local = (lambda name: f"{module}.{name}") if module else (lambda name: name)
    return tuple(
        local(statement.name)
        for statement in statements
        if isinstance(statement, ast.ClassDef)
        and (_non_atomic_class(statement, name_of) or _non_atomic_dispatch(statement, name_of))
    )


def _non_atomic_dispatch(node: ast.ClassDef, name_of: NameOf) -> bool:
    return any(
        isinstance(statement, ast.FunctionDef)
        and statement.name == django.DISPATCH_METHOD
        and _non_atomic(statement, name_of)
        for statement in node.body
    )


def _non_atomic_class(node: ast.ClassDef, name_of: NameOf) -> bool:
    """`@method_decorator(transaction.non_atomic_requests, name="dispatch")`."""
    return any(
        isinstance(d, ast.Call)
        and d.args
        and name_of(d.func) in jobs.METHOD_DECORATOR_ADAPTERS
        and _marks_non_atomic(d.args[0], name_of)
        for d in node.decorator_list
    )
