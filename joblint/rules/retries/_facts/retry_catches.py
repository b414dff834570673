"""What a retry policy retries on: the exceptions it catches, and which are broad.

A library's exception parameter or its retry predicates (`retry_if_exception_type(...)`
and their alternatives), or the except clause around a task's own retry; a
handler that looks at the exception before retrying filters it.
"""

from __future__ import annotations

import libcst as cst

from joblint.analysis.expressions import scope_nodes
from joblint.analysis.names import Resolver
from joblint.analysis.retry_options import Settings, argument
from joblint.knowledge import retries
from joblint.libraries.retry_api import CatchParam, Caught, RetryPredicates
from joblint.rules.retries._facts.policy_reader import MAX_DEPTH, PolicyReader
from joblint.rules.retries._facts.retry_facts import Catch, filled


class CatchReading(PolicyReader):
    """What a retry policy catches."""

    def _catches(
        self, settings: Settings, catches: CatchParam | RetryPredicates
    ) -> tuple[Catch, ...]:
        if isinstance(catches, RetryPredicates):
            return self._predicate_catches(settings, catches)
        found = settings.find(catches.param)
        return () if found is None else (self._catch(found.value, catches.where),)

    def _catch(self, types: cst.BaseExpression, where: str) -> Catch:
        broad = tuple(broad_exceptions(types, self.resolver))
        return Catch(Caught.BROAD if broad else Caught.SPECIFIC, types, where, broad)

    def _predicate_catches(
        self, settings: Settings, predicates: RetryPredicates
    ) -> tuple[Catch, ...]:
        found = settings.find(predicates.param)
        if found is None:
            return ()
        catches = []
        for term in self._retry_terms(found.value, predicates, 0):
            name = self.resolver.qualified_name(term.func) or ""
            param = predicates.types[name]
            types = argument(term, param.keyword, param.position)
            if types is None:
                continue  # the predicate's default: not read
            where = filled(predicates.where, name=name.rsplit(".", 1)[-1])
            catches.append(self._catch(types.value, where))
        return tuple(catches)

    def _retry_terms(
        self, node: cst.BaseExpression, predicates: RetryPredicates, depth: int
    ) -> list[cst.Call]:
        """The exception-type predicates among the alternatives of `node`
        (`a | b`, an any-of predicate, through a name); none under `&`."""
        if depth > MAX_DEPTH:
            return []
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            left = self._retry_terms(node.left, predicates, depth + 1)
            return left + self._retry_terms(node.right, predicates, depth + 1)
        if isinstance(node, cst.Name):
            value = self._assigned_once(node.value)
            return [] if value is None else self._retry_terms(value, predicates, depth + 1)
        if not isinstance(node, cst.Call):
            return []
        name = self.resolver.qualified_name(node.func)
        if name in predicates.any_of:
            terms: list[cst.Call] = []
            for arg in node.args:
                terms.extend(self._retry_terms(arg.value, predicates, depth + 1))
            return terms
        return [node] if name in predicates.types else []

    def _handler_catches(
        self, call: cst.Call, handler: cst.ExceptHandler, where: str
    ) -> tuple[Catch, ...]:
        """What the except clause around a task's retry catches; a handler that
        looks at the exception before retrying filters it."""
        if _filters_exception(handler, call):
            return (Catch(Caught.SPECIFIC, handler, where, handler=True),)
        if handler.type is None:
            return (Catch(Caught.EVERYTHING, handler, where, handler=True),)
        broad = tuple(broad_exceptions(handler.type, self.resolver))
        caught = Caught.BROAD if broad else Caught.SPECIFIC
        return (Catch(caught, handler.type, where, broad, handler=True),)


def broad_exceptions(node: cst.BaseExpression, resolver: Resolver) -> list[cst.BaseExpression]:
    """`Exception`/`BaseException` in `node` (a name or a tuple/list of them)."""
    if isinstance(node, cst.Tuple | cst.List):
        found: list[cst.BaseExpression] = []
        for element in node.elements:
            found.extend(broad_exceptions(element.value, resolver))
        return found
    if _is_broad(node, resolver):
        return [node]
    return []


def _is_broad(node: cst.BaseExpression, resolver: Resolver) -> bool:
    if isinstance(node, cst.Name):
        if resolver.lookup(node.value) is not None:
            return False  # shadowed or imported under that name: not the builtin
        return node.value in retries.BROAD_EXCEPTIONS
    name = resolver.qualified_name(node)
    return name is not None and name in retries.BROAD_EXCEPTIONS


def _filters_exception(handler: cst.ExceptHandler, call: cst.Call) -> bool:
    """The handler inspects the exception before retrying: `isinstance(exc, ...)`
    anywhere in it, or an `if` mentioning the exception around the retry."""
    caught = None
    if handler.name is not None and isinstance(handler.name.name, cst.Name):
        caught = handler.name.name.value
    for node in scope_nodes(handler.body):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value in retries.EXCEPTION_FILTERS
        ):
            return True
        if isinstance(node, cst.If) and caught is not None:
            inside = {id(n) for n in scope_nodes(node.body)}
            if id(call) in inside and _mentions(node.test, caught):
                return True
    return False


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(
        isinstance(n, cst.Name) and n.value == name for n in scope_nodes(node, include_root=True)
    )
