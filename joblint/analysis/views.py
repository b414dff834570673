"""Views Django runs inside the request's transaction: with `ATOMIC_REQUESTS`
on a database, every sync view is wrapped in `transaction.atomic()`
(`joblint.libraries.django`). A view is a function of a views module taking
the request first, or a method taking it after `self` in a views module or
in a class deriving from Django's or DRF's views (with DRF's `perform_*`
hooks); not one marked `transaction.non_atomic_requests`, nor an async one.
The scope holds only where the settings that apply to the file set the flag.
"""

from __future__ import annotations

import libcst as cst

from joblint.analysis.names import Resolver
from joblint.analysis.transactions import TxScope
from joblint.knowledge import jobs
from joblint.knowledge.jobs import TxFamily
from joblint.libraries import django
from joblint.models import REACHED_FROM
from joblint.requirements import FlagOn, Reached, RegisteredView, Requirement


def is_view_class(node: cst.ClassDef, resolver: Resolver) -> bool:
    """A class deriving from Django's or DRF's views (`View`, `APIView`, a viewset)."""
    return any(q.startswith(django.VIEW_BASE_MODULES) for q in resolver.base_qualnames(node))


def non_atomic_class(node: cst.ClassDef, resolver: Resolver) -> bool:
    """`@method_decorator(transaction.non_atomic_requests, name="dispatch")`,
    or its own `dispatch` marked so: none of the class's views is atomic
    (whichever method it names, as `dispatch` runs them all)."""
    for decorator in node.decorators:
        call = decorator.decorator
        if (
            isinstance(call, cst.Call)
            and call.args
            and resolver.qualified_name(call.func) in jobs.METHOD_DECORATOR_ADAPTERS
            and _marks_non_atomic(call.args[0].value, resolver)
        ):
            return True
    # Or its own `dispatch`, through which Django runs every method.
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    return any(
        isinstance(statement, cst.FunctionDef)
        and statement.name.value == django.DISPATCH_METHOD
        and _non_atomic(statement, resolver)
        for statement in body
    )


def view_scope(
    node: cst.FunctionDef, resolver: Resolver, *, class_name: str, view_class: bool
) -> TxScope | None:
    """The request's transaction `node` (a method of `class_name`, or a
    module-level function for "") runs in with `ATOMIC_REQUESTS`, if it is a view."""
    if node.asynchronous is not None or _non_atomic(node, resolver):
        return None
    params = [p.name.value for p in (*node.params.posonly_params, *node.params.params)]
    views_module = not set(resolver.module.split(".")).isdisjoint(django.VIEW_MODULE_NAMES)
    request = django.VIEW_REQUEST_PARAMETER
    known = views_module or view_class  # else a view only where a URLconf registers it
    if class_name:
        hook = view_class and node.name.value in django.VIEW_HOOK_METHODS
        if params[1:2] != [request] and not hook:
            return None
    elif params[:1] != [request]:
        return None
    requires: tuple[Requirement, ...] = (FlagOn(django.ATOMIC_REQUESTS_FLAG),)
    if not known:
        registered = resolver.local_qualname(class_name or node.name.value)
        requires = (*requires, RegisteredView(registered))
    name = f"{class_name}.{node.name.value}" if class_name else node.name.value
    description = f"{name}(), a view Django runs inside a transaction (ATOMIC_REQUESTS)"
    return TxScope(
        node, description, TxFamily.DJANGO, requires=requires, alias_known=False, request=True
    )


def reached_scope(node: cst.FunctionDef, qualname: str) -> TxScope:
    """The body of a function a request handler may reach through the
    project's calls (the project step says whether one does, and which)."""
    # An async function is reached only from an async handler (FastAPI's).
    awaited = node.asynchronous is not None
    return TxScope(
        node,
        f"{node.name.value}()",
        TxFamily.GENERIC,
        requires=(Reached(qualname, is_async=awaited),),
        alias_known=False,
        after=f", {REACHED_FROM}",
        request=True,
    )


def _non_atomic(node: cst.FunctionDef, resolver: Resolver) -> bool:
    return any(_marks_non_atomic(d.decorator, resolver) for d in node.decorators)


def _marks_non_atomic(expr: cst.BaseExpression, resolver: Resolver) -> bool:
    """`@non_atomic_requests`, `@non_atomic_requests(using=...)`, and on a
    method `@method_decorator(non_atomic_requests)`."""
    func = expr.func if isinstance(expr, cst.Call) else expr
    if resolver.qualified_name(func) in django.NON_ATOMIC_REQUESTS:
        return True
    return (
        isinstance(expr, cst.Call)
        and bool(expr.args)
        and resolver.qualified_name(func) in jobs.METHOD_DECORATOR_ADAPTERS
        and _marks_non_atomic(expr.args[0].value, resolver)
    )
