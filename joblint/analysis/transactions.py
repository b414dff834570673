"""Recognising transaction scopes and on-commit callbacks."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from joblint.analysis.names import Resolver, dotted_text, unwrap
from joblint.analysis.values import value_of
from joblint.knowledge import jobs, requests
from joblint.knowledge.jobs import AtomicHooks, TxFamily, may_be_project_code
from joblint.requirements import ClassOfKind, Requirement


@dataclass(frozen=True, slots=True)
class TxScope:
    """An open transaction: the node that opened it (for its line) and how it reads."""

    node: cst.CSTNode
    description: str  # "transaction.atomic()", "@transaction.atomic", "with conn"
    family: TxFamily
    # The Django database alias it is on, when named by a string ("" otherwise).
    database: str = ""
    # What must hold of the project for it to be a transaction (a framework's
    # hook in a class whose framework base is a project class).
    requires: tuple[Requirement, ...] = ()
    # Whether the database it is on can be read where it opens (a framework's
    # own transaction is on whatever database its router gives).
    alias_known: bool = True
    # What a message says after naming it and its line (a receiver's: whose
    # transaction it runs in).
    after: str = ""
    # The request's own transaction (a view's under ATOMIC_REQUESTS): what
    # its calls lead to is reported at the enqueue, reached from the view.
    request: bool = False


@dataclass(frozen=True, slots=True)
class ClassHooks:
    """A class whose methods a framework may call inside its own transaction:
    certainly (a framework base), or if `requires` holds (a project base)."""

    hooks: AtomicHooks
    requires: tuple[Requirement, ...] = ()

    def scope(self, node: cst.FunctionDef, class_name: str) -> TxScope | None:
        """The transaction the framework runs the method `node` in, if any."""
        method = node.name.value
        if method not in self.hooks.methods:
            return None
        description = f"{class_name}.{method}(), which {self.hooks.runner} runs inside "
        description += self.hooks.opener
        return TxScope(
            node, description, self.hooks.family, requires=self.requires, alias_known=False
        )


def class_hooks(node: cst.ClassDef, resolver: Resolver) -> tuple[ClassHooks, ...]:
    """The framework hooks a class may have: those of a base that is a
    framework class, or, for the first base that may be the project's, each
    framework's if the class index follows that base to one of its classes."""
    project_base = ""
    for qualname in resolver.base_qualnames(node):
        hooks = jobs.ATOMIC_HOOKS.get(qualname)
        if hooks is not None:
            return (ClassHooks(hooks),)
        if not project_base and may_be_project_code(qualname):
            project_base = qualname
    if not project_base:
        return ()
    return tuple(
        ClassHooks(hooks, (ClassOfKind(project_base, frozenset({kind})),))
        for kind, hooks in jobs.ATOMIC_HOOKS_BY_KIND.items()
    )


def _call_description(call: cst.Call) -> str:
    text = dotted_text(call.func) or "transaction"
    return f"{text}()"


def transaction_of_call(
    call: cst.Call, resolver: Resolver, extra: frozenset[str]
) -> tuple[TxFamily, str] | None:
    """The transaction a call opens when used as `with call:` (or a decorator)."""
    qualname = resolver.qualified_name(call.func)
    if qualname is not None:
        if qualname in jobs.TRANSACTION_FUNCTIONS:
            return jobs.TRANSACTION_FUNCTIONS[qualname], _call_description(call)
        if qualname in extra:
            return TxFamily.GENERIC, _call_description(call)
        if qualname in jobs.CONNECT_FUNCTIONS:
            return jobs.CONNECT_FUNCTIONS[qualname], _call_description(call)
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in jobs.TRANSACTION_METHODS:
        return jobs.TRANSACTION_METHODS[func.attr.value], _call_description(call)
    return None


def with_transaction(
    node: cst.With, resolver: Resolver, extra: frozenset[str]
) -> tuple[TxFamily, str] | None:
    for item in node.items:
        expr = unwrap(item.item)
        if isinstance(expr, cst.Call):
            found = transaction_of_call(expr, resolver, extra)
            if found is not None:
                return found
        elif isinstance(expr, cst.Name):
            value = value_of(expr, resolver)
            if value is not None and value.kind == "connection":
                return TxFamily(value.library), f"with {expr.value}"
        elif isinstance(expr, cst.Attribute):
            text = dotted_text(expr)
            if text and requests.opens_manager(text.split("."), resolver.qualified_name(expr)):
                return TxFamily.TRANSACTION_MANAGER, f"with {text}"
    return None


def decorator_transaction(
    decorator: cst.BaseExpression, resolver: Resolver, extra: frozenset[str]
) -> tuple[TxFamily, str] | None:
    """`@transaction.atomic`, `@atomic(using=...)`, `@db.atomic()`, `@method_decorator(atomic)`."""
    call = decorator if isinstance(decorator, cst.Call) else None
    func = call.func if call is not None else decorator
    qualname = resolver.qualified_name(func)
    text = dotted_text(func) or "atomic"
    if qualname is not None:
        if qualname in jobs.TRANSACTION_FUNCTIONS:
            return jobs.TRANSACTION_FUNCTIONS[qualname], f"@{text}"
        if qualname in extra:
            return TxFamily.GENERIC, f"@{text}"
        if qualname in jobs.METHOD_DECORATOR_ADAPTERS and call is not None and call.args:
            # On a method, Django ignores `name=`; on a class, see class_method_transactions.
            return decorator_transaction(call.args[0].value, resolver, extra)
    if isinstance(func, cst.Attribute) and func.attr.value in jobs.TRANSACTION_DECORATOR_METHODS:
        return TxFamily.GENERIC, f"@{text}"
    return None


def class_method_transactions(
    node: cst.ClassDef, resolver: Resolver, extra: frozenset[str]
) -> dict[str, tuple[TxFamily, str]]:
    """Methods made atomic by `@method_decorator(transaction.atomic, name="post")`."""
    found: dict[str, tuple[TxFamily, str]] = {}
    for decorator in node.decorators:
        call = decorator.decorator
        if not isinstance(call, cst.Call) or not call.args:
            continue
        if resolver.qualified_name(call.func) not in jobs.METHOD_DECORATOR_ADAPTERS:
            continue
        names = [
            a.value.evaluated_value
            for a in call.args
            if a.keyword is not None
            and a.keyword.value == "name"
            and isinstance(a.value, cst.SimpleString)
        ]
        inner = decorator_transaction(call.args[0].value, resolver, extra)
        if inner is None:
            continue
        for name in names:
            if isinstance(name, str):
                found[name] = inner
    return found


def on_commit_callback(
    call: cst.Call, resolver: Resolver, extra: frozenset[str]
) -> cst.BaseExpression | None:
    """The callback argument when `call` registers an on-commit hook."""
    qualname = resolver.qualified_name(call.func)
    is_hook = qualname is not None and (qualname in jobs.ON_COMMIT_FUNCTIONS or qualname in extra)
    if not is_hook:
        func = call.func
        is_hook = isinstance(func, cst.Attribute) and func.attr.value in jobs.ON_COMMIT_METHODS
    if not is_hook:
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    # `joblint_runtime.transaction.on_commit(session, fn)` takes the callback second.
    if qualname in jobs.ON_COMMIT_AFTER_SESSION and len(positional) >= 2:
        return positional[1].value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in {"func", "fn", "callback"}:
            return arg.value
    return positional[0].value if positional else None


def database_alias(node: cst.CSTNode, resolver: Resolver) -> str:
    """The database a Django `atomic(using=...)` (a `with` or a decorator) is on,
    when it is a string literal or a module constant holding one; "" otherwise
    (the default database, or an alias that can't be read)."""
    call = _opening_call(node)
    if call is None or resolver.qualified_name(call.func) not in jobs.DATABASE_ALIAS_CALLS:
        return ""
    using = next((a for a in call.args if a.keyword and a.keyword.value == "using"), None)
    if using is None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        using = positional[0] if positional else None
    return _string(using.value, resolver) if using is not None else ""


def _opening_call(node: cst.CSTNode) -> cst.Call | None:
    if isinstance(node, cst.Decorator):
        return node.decorator if isinstance(node.decorator, cst.Call) else None
    if isinstance(node, cst.With):
        for item in node.items:
            expr = unwrap(item.item)
            if isinstance(expr, cst.Call):
                return expr
    return None


def _string(value: cst.BaseExpression, resolver: Resolver) -> str:
    if isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
        return value.evaluated_value
    if isinstance(value, cst.Name):
        binding = resolver.module_scope.names.get(value.value)
        expr = binding.expr if binding is not None else None
        if isinstance(expr, cst.SimpleString) and isinstance(expr.evaluated_value, str):
            return expr.evaluated_value
    return ""
