"""What a function calls, for the project model's call graph: each call
that may be the project's own code (or enqueue a job, or have an effect a
job must not repeat), with the transaction it is made in, the flags it
needs and passes, and what the function does with its result; the values
it hands to an on-commit hook; and the services its calls register.

Calls made where they run later are no calls of the function: the bodies of
nested functions (summarised on their own, as `outer.<locals>.inner`), of
lambdas handed to an on-commit hook, and of lambdas the function returns (a
callback factory's: they run when its caller calls the result).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import replace
from typing import cast

from joblint.index.commits import is_commit
from joblint.index.flags import call_flags, call_held, command_flags
from joblint.index.nodes import Function, is_name
from joblint.index.openings import OpeningReader, either
from joblint.index.row_uses import result_uses
from joblint.index.scope import Frame, ModuleScope, SummaryDraft
from joblint.index.services import registered_service
from joblint.knowledge import jobs, requests, work
from joblint.libraries import postgres
from joblint.models import ProjectCall, ServiceRegistration, TxOpening
from joblint.settings import Options

_NOTIFY = re.compile(postgres.NOTIFY_SQL)


class CallReader:
    """The calls of a module's functions, and the services its calls register."""

    def __init__(self, scope: ModuleScope, openings: OpeningReader, options: Options) -> None:
        self.scope = scope
        self.openings = openings
        self.enqueue_functions = options.enqueue_functions
        self.on_commit_functions = options.on_commit_functions
        self.services: list[ServiceRegistration] = []

    def read_body(self, frame: Frame, stack: list[Frame], summary: SummaryDraft) -> None:
        returns, calls = (
            self.scope.of_kind(frame.node, ast.Return),
            self.scope.of_kind(frame.node, ast.Call),
        )
        deferred = self._deferred_lambdas([*returns, *calls], stack, summary)
        decorated = self.openings.decorators_transaction(frame.node, stack)
        if len(stack) == 1:  # a method the framework calls in its transaction
            decorated = either(decorated, self.openings.framework_transaction(frame.key))
        transactions: dict[tuple[int, ...], tuple[str, ...] | None] = {}
        claimed: dict[int, str] | None = None  # read for the first project call

        def qualify(expr: ast.expr) -> str | None:
            return self.scope.qualify(expr, stack)

        for node, opened in self.scope.with_context(frame.node, (ast.Call,), deferred):
            if not isinstance(node, ast.Call):
                continue
            # Keyed by the `with` items (nodes of the tree, alive while it is
            # read): the lists holding them come and go, and their ids with them.
            around = tuple(id(item) for item in opened)
            if around not in transactions:
                inside = self.openings.openings([item.context_expr for item in opened], stack)
                transactions[around] = either(decorated, inside)
            call = self._project_call(node, stack, transactions[around])
            if call is not None:
                if claimed is None:
                    claimed = result_uses(self.scope.kinds(frame.node))
                use = claimed.get(id(node))
                summary.calls.append(replace(call, result_use=use) if use else call)
            self.openings.note_wrapper(node, frame, stack, opened)
            self.note_service(node, qualify)
        for node in returns:
            assert isinstance(node, ast.Return)
            if isinstance(node.value, ast.Call):
                opening = self.openings.opening(node.value, stack)
                if opening is not None:
                    summary.opens = TxOpening("returns", opening)
        for found in calls:
            if is_commit(cast(ast.Call, found)):
                summary.commits.append(cast(ast.Call, found).lineno)

    def _deferred_lambdas(
        self, nodes: list[ast.AST], stack: list[Frame], summary: SummaryDraft | None = None
    ) -> set[int]:
        """Lambdas handed to an on-commit hook (they run after COMMIT) or
        returned (they run when the caller calls them). `summary` learns
        whether the body registers anything on commit."""
        found: set[int] = set()
        for node in nodes:
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Lambda):
                found.add(id(node.value))
            elif isinstance(node, ast.Call) and _notifies(node):
                if summary is not None:  # delivered at COMMIT, like an on-commit hook
                    summary.on_commit = True
            elif isinstance(node, ast.Call) and self._is_on_commit(node, stack):
                if summary is not None:
                    summary.on_commit = True
                    parameters = stack[-1].parameters if stack else frozenset()
                    summary.defers.extend(
                        arg.id
                        for arg in [*node.args, *(k.value for k in node.keywords)]
                        if isinstance(arg, ast.Name) and arg.id in parameters
                    )
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    if isinstance(arg, ast.Lambda):
                        found.add(id(arg))
        return found

    def _is_on_commit(self, call: ast.Call, stack: list[Frame]) -> bool:
        qualname = self.scope.qualify(call.func, stack)
        if qualname is not None and (
            qualname in jobs.ON_COMMIT_FUNCTIONS or qualname in self.on_commit_functions
        ):
            return True
        return isinstance(call.func, ast.Attribute) and call.func.attr in jobs.ON_COMMIT_METHODS

    def _project_call(
        self, node: ast.Call, stack: list[Frame], transaction: tuple[str, ...] | None
    ) -> ProjectCall | None:
        found = self.scope.callee(_without_signature(node.func), stack)
        if found is None:
            return None
        qualname, text = found
        if qualname in requests.COMMAND_RUNNERS:
            return _command_call(node, qualname, text, transaction, stack[-1])
        if not (
            jobs.may_be_project_code(qualname)
            or qualname in jobs.ENQUEUE_FUNCTIONS
            or qualname in self.enqueue_functions
            or qualname in work.EFFECTS
            or jobs.queue_method_library(qualname) is not None
        ):
            return None
        receiver_at = _receiver_at(node, stack[-1].node)
        idempotent = any(k.arg in work.IDEMPOTENCY_KEYWORDS for k in node.keywords)
        effect = work.effect_of(qualname)
        if effect is not None and not idempotent:
            idempotent = work.reads_only(effect, _url_words(node), _dict_keys(node))
        frame = stack[-1]
        return ProjectCall(
            qualname,
            node.lineno,
            text,
            transaction,
            receiver_at,
            idempotent,
            frame.guards.get(id(node), ()),
            call_flags(node, frame.steady),
            held=call_held(node, frame.steady),
        )

    def note_service(self, call: ast.Call, qualify: Callable[[ast.expr], str | None]) -> None:
        """`config.register_service_factory(factory, name="mailer")`: a service
        a request's `find_service` makes."""
        found = registered_service(call, qualify, self.scope.module)
        if found is not None:
            self.services.append(found)


def _command_call(
    node: ast.Call, qualname: str, text: str, transaction: tuple[str, ...] | None, frame: Frame
) -> ProjectCall | None:
    """`call_command("rebuild_index", ...)`: a call of the command's handler,
    which the project step finds by the name; a name no literal gives
    (`call_command(name)`) leads nowhere the model can follow."""
    first = node.args[0] if node.args else None
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    if not first.value.isidentifier():  # no module's name
        return None
    return ProjectCall(
        qualname,
        node.lineno,
        text,
        transaction,
        guard=frame.guards.get(id(node), ()),
        flags=command_flags(node, frame.steady),
        command=first.value,
    )


def _receiver_at(call: ast.Call, function: Function) -> str:
    """Where `call` passes the function's first parameter (a bound task's
    `self`): its position, or its keyword; "" when it doesn't."""
    params = [*function.args.posonlyargs, *function.args.args]
    if not params:
        return ""
    first = params[0].arg
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if is_name(arg, first):
            return str(position)
    return next((k.arg for k in call.keywords if k.arg and is_name(k.value, first)), "")


def _without_signature(func: ast.expr) -> ast.expr:
    """`send.s(x).delay` -> `send.delay`: enqueueing a task's signature enqueues the task."""
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Attribute)
        and func.value.func.attr in jobs.SIGNATURE_METHODS
    ):
        return ast.Attribute(func.value.func.value, func.attr, ast.Load())
    return func


def _notifies(call: ast.Call) -> bool:
    """`cursor.execute("SELECT pg_notify(%s, %s)", ...)`: a notification on the
    transaction's connection, delivered at COMMIT."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in postgres.EXECUTE_METHODS:
        return False
    first = call.args[0] if call.args else None
    return (
        isinstance(first, ast.Constant)
        and isinstance(first.value, str)
        and _NOTIFY.search(first.value) is not None
    )


def _url_words(call: ast.Call) -> list[str]:
    """The names and strings a call's first argument (its URL) is built
    from, lower-cased: `edx_url(ACCESS_TOKEN_PATH)` gives both names."""
    url = (
        call.args[0]
        if call.args
        else next((k.value for k in call.keywords if k.arg == "url"), None)
    )
    if url is None:
        return []
    found = []
    for node in ast.walk(url):
        if isinstance(node, ast.Name):
            found.append(node.id.lower())
        elif isinstance(node, ast.Attribute):
            found.append(node.attr.lower())
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value.lower())
    return found


def _dict_keys(call: ast.Call) -> list[str]:
    """The string keys of the dict literals a call passes."""
    found: list[str] = []
    for value in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(value, ast.Dict):
            found.extend(
                k.value
                for k in value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            )
    return found
