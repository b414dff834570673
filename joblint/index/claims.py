"""Whether a function claims its work before doing it
(`FunctionSummary.claims`): for the idempotency rules (JL601-JL602), which
ask whether a task's work is done once however often the job runs.

A function claims when its decorators or its own body name the runtime's
guard (or a guard the module made: `runs = IdempotencyGuard()`), a string
holds an SQL claim or an idempotency header, or an `if` tests a
set-if-absent call (`cache.add(key, 1)`) or the `created` flag of a unique
get-or-create.
"""

from __future__ import annotations

import ast
from typing import cast

from joblint.index.nodes import Function, assigned_names
from joblint.index.scope import Frame, ModuleScope
from joblint.knowledge import work

# The nodes `_claiming` may find a claim in.
_CLAIMING_KINDS = (ast.Name, ast.Attribute, ast.Constant, ast.If, ast.While)


class ClaimReader:
    """The claims of a module's functions, and the guards the module makes."""

    def __init__(self, scope: ModuleScope, may_claim: bool, may_name_guard: bool) -> None:
        self.scope = scope
        # The module's text names something that claims work (`work.may_claim`).
        self.may_claim = may_claim
        # Its names may be the runtime's guard (`work.may_name_guard`): where
        # they can't, the names of its functions are not looked up for one.
        self.may_name_guard = may_name_guard
        # Module-level names holding a guard the module made (`runs = IdempotencyGuard()`).
        self._guards: set[str] = set()

    def note_guard(self, statement: ast.stmt) -> None:
        """`runs = IdempotencyGuard()`: a function calling `runs.claim(...)` claims."""
        if not self.may_name_guard or not isinstance(statement, ast.Assign | ast.AnnAssign):
            return
        value = statement.value
        maker = self.scope.module_name(value.func) if isinstance(value, ast.Call) else None
        if maker is not None and work.is_guard_name(maker):
            self._guards.update(self.scope.local(name) for name in assigned_names(statement))

    def claims(self, node: Function, stack: list[Frame]) -> bool:
        """Whether the function claims its work before doing it (see
        `FunctionSummary.claims`): its decorators or its own body name the
        runtime's guard, a string holds an SQL claim or an idempotency
        header, or an `if` tests a set-if-absent call or the `created` flag
        of a unique get-or-create."""
        if not self.may_claim:
            return False
        decorators = [found for decorator in node.decorator_list for found in ast.walk(decorator)]
        own = self.scope.of_kind(node, *_CLAIMING_KINDS)
        if any(self._claiming(found, stack) for found in [*decorators, *own]):
            return True
        flags: set[str] = set()  # a unique create's `created`
        for found in self.scope.of_kind(node, ast.Assign):
            flags.update(_created_flags(cast(ast.Assign, found)))
        if not flags:
            return False
        tested: set[str] = set()  # the names `if`/`while` tests read
        for found in self.scope.of_kind(node, ast.If, ast.While, ast.IfExp):
            test = cast(ast.If, found).test
            tested.update(n.id for n in ast.walk(test) if isinstance(n, ast.Name))
        return bool(flags & tested)

    def _claiming(self, node: ast.AST, stack: list[Frame]) -> bool:
        """One node that claims work (see `_claims`); any kind of node, for a
        decorator's are all read, but a function's only of `_CLAIMING_KINDS`."""
        if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
            if not self.may_name_guard:
                return False
            qualname = self.scope.qualify(node, stack)
            if qualname is None:
                return False
            owner = qualname.rpartition(".")[0] if isinstance(node, ast.Attribute) else ""
            return work.is_guard_name(qualname) or owner in self._guards
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return work.claims_in_text(node.value)
        if isinstance(node, ast.If | ast.While):
            return any(_sets_if_absent(call) for call in ast.walk(node.test))
        return False


def _created_flags(node: ast.Assign) -> list[str]:
    """`created` of `order, created = Order.objects.get_or_create(...)` (not `_`)."""
    value = node.value.value if isinstance(node.value, ast.Await) else node.value
    func = value.func if isinstance(value, ast.Call) else None
    if not (isinstance(func, ast.Attribute) and func.attr in work.UNIQUE_CREATES):
        return []
    return [
        target.elts[1].id
        for target in node.targets
        if isinstance(target, ast.Tuple | ast.List)
        and len(target.elts) == 2
        and isinstance(target.elts[1], ast.Name)
        and target.elts[1].id != "_"
    ]


def _sets_if_absent(node: ast.AST) -> bool:
    """`cache.add(key, 1)`, `redis.set(key, 1, nx=True)`: a set-if-absent call."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    keyword = work.SET_IF_ABSENT.get(node.func.attr)
    if keyword is None:
        return False
    return not keyword or any(k.arg == keyword for k in node.keywords)
