"""How an enqueue inside a Django transaction is deferred to COMMIT (JL101's fix).

`task.delay(...)` becomes `transaction.on_commit(lambda: task.delay(...))` on
the transaction's database, the variables of enclosing `for` loops bound as
the lambda's defaults; or `task.delay_on_commit(...)` where the configuration
says the project's Celery tasks are `DjangoTask`s. An enqueue whose result is
used, or a database that can't be read, gets no fix.
"""

from __future__ import annotations

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import Resolver, target_names, unwrap
from joblint.analysis.references import ReadNames, Reference, reference
from joblint.analysis.tasks import Enqueue
from joblint.analysis.transactions import TxScope
from joblint.rule import FixSpec, Rule, fix


class OnCommitFix(Rule):
    """The loops around the code a rule visits, and the fix they shape."""

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        # Names bound by the enclosing `for` loops (a lambda would see their last value).
        self._loop_names: list[set[str]] = []

    def visit_For(self, node: cst.For) -> None:
        self._loop_names.append(target_names(node.target))

    def leave_For(self, node: cst.For) -> None:
        self._loop_names.pop()

    def _commit_fix(self, call: cst.Call, enqueue: Enqueue, tx: TxScope) -> FixSpec | None:
        """The enqueue statement, deferred to COMMIT: `task.delay_on_commit(...)` when
        the config says the project's Celery tasks are `DjangoTask`s, else
        `transaction.on_commit(lambda: ...)` (on the transaction's database)."""
        context = self.context
        statement = context.statement
        if not _alone(call, statement):
            return None  # the enqueue's result is used: deferring it would lose it
        using = _database(tx, context.resolver)
        if using is None:
            return None
        if context.options.celery_django_task and using is _DEFAULT_DATABASE:
            variant = _django_task_fix(call, enqueue)
            if variant is not None:
                return variant
        transaction = reference(context, _DJANGO_TX, submodule=True)
        if transaction is None:
            return None
        database = None if using is _DEFAULT_DATABASE else using
        return _on_commit_fix(call, transaction, database, self._loop_names)


def _alone(call: cst.Call, statement: cst.CSTNode | None) -> bool:
    """`call` is the whole statement (`task.delay(x)`, not `r = task.delay(x)`)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    expr = statement.body[0]
    return isinstance(expr, cst.Expr) and expr.value is call


# `using=` of Django's atomic(): the default database (None or "default").
_DEFAULT_DATABASE = cst.Name("None")


def _database(tx: TxScope, resolver: Resolver) -> cst.BaseExpression | None:
    """The database alias the transaction is on: `_DEFAULT_DATABASE`, a string
    literal, or None when it can't be read (then there is no fix: a hook on
    another database would run at once)."""
    if not tx.alias_known:
        return None
    call = _atomic_call(tx, resolver)
    if call is None:
        return _DEFAULT_DATABASE  # bare `@transaction.atomic`, method_decorator(atomic)
    using = next((a for a in call.args if a.keyword and a.keyword.value == "using"), None)
    if using is None:
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in call.args):
            return None
        using = positional[0] if positional else None
    if using is None:
        return _DEFAULT_DATABASE
    value = using.value
    if isinstance(value, cst.Name) and value.value == "None":
        return _DEFAULT_DATABASE
    if isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
        return _DEFAULT_DATABASE if value.evaluated_value == "default" else value
    return None


def _atomic_call(tx: TxScope, resolver: Resolver) -> cst.Call | None:
    """The `atomic(...)` call that opened `tx`, when it was a call."""
    if isinstance(tx.node, cst.With):
        candidates = [unwrap(item.item) for item in tx.node.items]
    elif isinstance(tx.node, cst.FunctionDef):
        candidates = [d.decorator for d in tx.node.decorators]
        # @method_decorator(transaction.atomic(using=...), name=...) on the method
        candidates += [
            c.args[0].value for c in list(candidates) if isinstance(c, cst.Call) and c.args
        ]
    else:
        return None
    for candidate in candidates:
        if isinstance(candidate, cst.Call) and resolver.qualified_name(candidate.func) == _ATOMIC:
            return candidate
    return None


def _django_task_fix(call: cst.Call, enqueue: Enqueue) -> FixSpec | None:
    """`task.delay(...)` -> `task.delay_on_commit(...)` (Celery >= 5.4 `DjangoTask`)."""
    func = call.func
    # A task the project step may yet resolve (`enqueue.task` without a library)
    # is Celery's here: the configuration says the project's tasks are.
    celery_task = enqueue.on_commit_variant or (enqueue.task and not enqueue.library)
    if not celery_task or not isinstance(func, cst.Attribute):
        return None
    variant = _ON_COMMIT_VARIANTS.get(func.attr.value)
    if variant is None:
        return None
    new = func.with_changes(attr=cst.Name(variant))
    message = (
        f"Enqueue after COMMIT: {variant}(...) (Celery >= 5.4 DjangoTask; it returns None, "
        "not an AsyncResult)"
    )
    return fix(func, new, message)


def _on_commit_fix(
    call: cst.Call,
    transaction: Reference,
    database: cst.BaseExpression | None,
    loops: list[set[str]],
) -> FixSpec:
    """`task.delay(x)` -> `transaction.on_commit(lambda: task.delay(x))`, loop
    variables bound as the lambda's defaults, `using=` the transaction's database."""
    reader = ReadNames()
    call.visit(reader)
    bound = set().union(*loops) if loops else set()
    params = [
        cst.Param(cst.Name(name), default=cst.Name(name), equal=_NO_SPACE_EQUAL)
        for name in reader.names
        if name in bound
    ]
    whitespace = cst.SimpleWhitespace(" " if params else "")
    hook = cst.Lambda(cst.Parameters(params), call, whitespace_after_lambda=whitespace)
    on_commit = cst.Attribute(transaction.expr, cst.Name("on_commit"))
    args = [cst.Arg(hook)]
    if database is not None:
        args.append(cst.Arg(database, keyword=cst.Name("using"), equal=_NO_SPACE_EQUAL))
    new = cst.Call(on_commit, args)
    message = "Enqueue after COMMIT: transaction.on_commit(lambda: ...)"
    return fix(call, new, message, imports=transaction.imports)


_DJANGO_TX = "django.db.transaction"
_ATOMIC = "django.db.transaction.atomic"
_ON_COMMIT_VARIANTS = {"delay": "delay_on_commit", "apply_async": "apply_async_on_commit"}
_NO_SPACE_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
)
