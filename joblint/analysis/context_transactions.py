"""Which transaction the code being visited is in, and which callbacks defer it.

A `with` or a decorator opening a transaction (not on a database that takes no
writes), a `method_decorator` or a framework's hook on a class's method; a
lambda handed to `transaction.on_commit` runs after COMMIT, and one handed to
a project function may (the project step tells).
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from joblint.analysis.context_names import NameBindings
from joblint.analysis.transactions import (
    TxScope,
    database_alias,
    decorator_transaction,
    on_commit_callback,
    with_transaction,
)
from joblint.knowledge.jobs import TxFamily, may_be_project_code


class TransactionScopes(NameBindings):
    """The transactions and on-commit callbacks around the code being visited."""

    @property
    def transaction(self) -> TxScope | None:
        """The innermost open transaction, unless we are in an on-commit callback."""
        frame = self.frames[-1]
        if frame.on_commit_depth or not frame.transactions:
            return None
        return frame.transactions[-1]

    @property
    def in_on_commit_callback(self) -> bool:
        return self.frames[-1].on_commit_depth > 0

    def _decorator_transactions(self, node: cst.FunctionDef, class_name: str) -> Iterator[TxScope]:
        extra = self.options.transaction_functions
        for decorator in node.decorators:
            found = decorator_transaction(decorator.decorator, self.resolver, extra)
            if found is not None:
                scope = self._scope(node, decorator, found)
                if scope is not None:
                    yield scope
        if class_name:
            by_name = self.classes[-1][1]
            if node.name.value in by_name:
                family, description = by_name[node.name.value]
                yield TxScope(node, f"{description} via method_decorator on {class_name}", family)
            framework = (hooks.scope(node, class_name) for hooks in self.class_hooks[-1])
            scope = next((found for found in framework if found is not None), None)
            if scope is not None:
                yield scope

    def _scope(
        self, node: cst.CSTNode, opener: cst.CSTNode, found: tuple[TxFamily, str]
    ) -> TxScope | None:
        """The transaction opened, unless it is on a database that takes no
        writes (`read-only-databases`): no job can race it."""
        database = database_alias(opener, self.resolver)
        if database and database in self.options.read_only_databases:
            return None
        return TxScope(node, found[1], found[0], database)

    def _enter_with(self, node: cst.With) -> None:
        found = with_transaction(node, self.resolver, self.options.transaction_functions)
        scope = self._scope(node, node, found) if found is not None else None
        if scope is not None:
            self.frames[-1].transactions.append(scope)
        if self._in_function_or_class():
            for item in node.items:
                if item.asname is not None:
                    self._bind_target(item.asname.name, item.item)

    def _leave_with(self, node: cst.With) -> None:
        transactions = self.frames[-1].transactions
        if transactions and transactions[-1].node is node:
            transactions.pop()

    def _enter_call(self, node: cst.Call) -> None:
        for collector in self.collectors:
            collector.call(node)
        callback = on_commit_callback(node, self.resolver, self.options.on_commit_functions)
        if isinstance(callback, cst.Lambda):
            self._on_commit_callbacks.add(id(callback))
        elif callback is None:
            self._note_handed_lambdas(node)

    def _note_handed_lambdas(self, node: cst.Call) -> None:
        """Lambdas handed to a function of the project's (a wrapper of
        `transaction.on_commit`, perhaps: the project step tells)."""
        qualname = self.resolver.qualified_name(node.func)
        if qualname is None or not may_be_project_code(qualname):
            return
        position = 0
        for arg in node.args:
            if isinstance(arg.value, cst.Lambda) and not arg.star:
                keyword = arg.keyword.value if arg.keyword is not None else ""
                at = "" if keyword else str(position)
                self._handed_lambdas[id(arg.value)] = (qualname, at, keyword)
            if arg.keyword is None and not arg.star:
                position += 1

    def _enter_lambda(self, node: cst.Lambda) -> None:
        if id(node) in self._on_commit_callbacks:
            self.frames[-1].on_commit_depth += 1
        handed = self._handed_lambdas.get(id(node))
        if handed is not None:
            self.frames[-1].handed.append(handed)

    def _leave_lambda(self, node: cst.Lambda) -> None:
        if id(node) in self._on_commit_callbacks:
            self.frames[-1].on_commit_depth -= 1
        if id(node) in self._handed_lambdas:
            self.frames[-1].handed.pop()
