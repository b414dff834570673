"""JL104 on-commit-late-binding.

On-commit callback in a loop reads the loop variable: all see its last value.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL104` show) and its teaching examples."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.names import BindingKind
from joblint.analysis.scopes import bound_names, parameter_names, read_names
from joblint.analysis.transactions import on_commit_callback
from joblint.analysis.walk import children, contains, encloses
from joblint.knowledge.trigger import Trigger
from joblint.rule import LineOf, Rule, Valid, invalid


class OnCommitLateBinding(Rule):
    """
    ## What it does
    Finds on-commit callbacks created in a loop — a lambda, or a nested `def`
    passed by name — that read the loop variable (or another name the loop
    rebinds) instead of binding its current value.

    ## Why is this bad?
    A closure captures the variable, not its value. The callbacks run after
    COMMIT, when the loop has finished, so every one of them sees the value of
    the *last* iteration: one order gets N receipts and the others none.

    ## Example
    ```python
    with transaction.atomic():
        for order in orders:
            order.mark_paid()
            transaction.on_commit(lambda: send_receipt.delay(order.pk))
    ```

    ## Use instead
    ```python
    with transaction.atomic():
        for order in orders:
            order.mark_paid()
            transaction.on_commit(functools.partial(send_receipt.delay, order.pk))
            # or: transaction.on_commit(lambda pk=order.pk: send_receipt.delay(pk))
    ```

    ## Fix safety
    No automatic fix yet. Binding the value now (a default argument or
    `functools.partial`) is what the code meant; it evaluates `order.pk` at
    registration instead of at COMMIT.

    ## Known limits
    - Only callbacks registered in the same function as the loop are checked.
      A callback built by a factory defined in that function
      (`transaction.on_commit(make_callback())`, the factory returning a
      lambda or a def of its own) is read through the factory, and reported
      where the factory builds it when it reads a name the loop rebinds that
      neither it nor the factory binds. A helper defined elsewhere (another
      module, or the module level) can't read the loop's variables: what it
      is passed is bound when it is called, so the callbacks it builds
      (`on_commit(receipt_callback(order))`, `partial(...)`) are never late.
    - Names the loop rebinds are those assigned anywhere in its body (also
      inside `if`/`try`), and its targets.
    - A callback registered right before a `break` (only the innermost loop's
      names are then safe), `return` or `raise` in the same block, with no
      `continue` on the way, is registered once: not reported. A `break`
      further out (after the `if` holding the registration) isn't looked for.
    """

    CODE = "JL104"
    # Confirmed on the AST: a registration inside a loop (the rule reads no other).
    TRIGGERS = (Trigger(("on_commit",), confirm="on-commit-in-loop"),)
    SUMMARY = "On-commit callback in a loop reads the loop variable: all see its last value"
    HELP = "Bind the value now: functools.partial(task.delay, obj.pk) or lambda pk=obj.pk: ..."

    VALID = (
        Valid(
            """
import functools
from django.db import transaction
from .tasks import send_receipt

def pay(orders):
    with transaction.atomic():
        for order in orders:
            transaction.on_commit(functools.partial(send_receipt.delay, order.pk))
            transaction.on_commit(lambda pk=order.pk: send_receipt.delay(pk))
""",
            id="partial-and-default-argument",
        ),
        Valid(
            """
from django.db import transaction
from .tasks import send_report

def close_day(orders, day):
    with transaction.atomic():
        for order in orders:
            order.close()
        transaction.on_commit(lambda: send_report.delay(day.pk))
""",
            id="outside-the-loop",
        ),
    )

    INVALID = (
        invalid(
            """
from django.db import transaction
from .tasks import send_receipt

def pay(orders):
    with transaction.atomic():
        for order in orders:
            order.mark_paid()
            transaction.on_commit(lambda: send_receipt.delay(order.pk))
""",
            (9, 35, "reads 'order', which the loop (line 7) rebinds"),
            id="lambda-reads-loop-variable",
        ),
        invalid(
            """
from django.db import transaction
from .tasks import send_receipt

def pay(orders):
    for order in orders:
        transaction.on_commit(lambda: send_receipt.delay(order.pk))
        if order.has_more:
            continue
        break
""",
            (7, 31, "reads 'order', which the loop (line 6) rebinds"),
            id="continue-before-the-break",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        loops = self.context.frame.loops
        if not loops:
            return
        callback = on_commit_callback(
            node, self.context.resolver, self.context.options.on_commit_functions
        )
        if callback is None:
            return
        target = self._callback_code(callback)
        if target is None:
            return
        reported_at, body, own = target
        found = _late_read(body, own, loops)
        if found is None:
            return
        leaves = _leaves_after(self.context.statements, node)
        if leaves == _FUNCTION:
            return  # registered once, and nothing rebinds the name afterwards
        if leaves == _LOOP:
            # `break`: the innermost loop stops here; outer loops still go on.
            found = _late_read(body, own, loops[:-1])
        if found is not None:
            self._report(reported_at, *found)

    def _callback_code(
        self, callback: cst.BaseExpression
    ) -> tuple[cst.CSTNode, cst.CSTNode, set[str]] | None:
        """(node to report at, code that runs at COMMIT, names local to it)."""
        if isinstance(callback, cst.Lambda):
            return callback, callback.body, set(parameter_names(callback.params))
        if isinstance(callback, cst.Name):
            func = self._local_def(callback)
            if func is not None:
                return func, func.body, _own_names(func)
        if isinstance(callback, cst.Call) and isinstance(callback.func, cst.Name):
            factory = self._local_def(callback.func)
            if factory is not None:
                return _built_callback(factory)
        return None

    def _local_def(self, name: cst.Name) -> cst.FunctionDef | None:
        """The function `name` is, when defined in the function being read
        (its free names are then the ones this function's loops rebind)."""
        resolver = self.context.resolver
        binding = resolver.lookup(name.value)
        if binding is None or binding.kind is not BindingKind.DEF or not self.context.frame.key:
            return None
        if resolver.scopes[-1].names.get(name.value) is not binding:
            return None
        func = binding.node
        return func if isinstance(func, cst.FunctionDef) else None

    def _report(self, at: cst.CSTNode, name: str, loop: cst.CSTNode) -> None:
        def message(line_of: LineOf) -> str:
            return (
                f"On-commit callback reads '{name}', which the loop (line {line_of(loop)}) "
                "rebinds: it runs after COMMIT and sees the last iteration's value. Bind it "
                f"now: functools.partial(...) or lambda {name}={name}: ..."
            )

        self.report(at, message)


def _own_names(func: cst.FunctionDef) -> set[str]:
    return set(parameter_names(func.params)) | bound_names(func.body)


def _built_callback(factory: cst.FunctionDef) -> tuple[cst.CSTNode, cst.CSTNode, set[str]] | None:
    """The callback a local factory returns (`return lambda: ...`, or a def
    of its own returned by name), with the names local to it: its own and
    the factory's (parameters bind their value at the factory's call)."""
    factory_own = _own_names(factory)
    nested = {
        statement.name.value: statement
        for statement in factory.body.body
        if isinstance(statement, cst.FunctionDef)
    }
    for returned in _own_returns(factory.body):
        value = returned.value
        if isinstance(value, cst.Lambda):
            own = set(parameter_names(value.params)) | factory_own
            return value, value.body, own
        if isinstance(value, cst.Name) and value.value in nested:
            func = nested[value.value]
            return func, func.body, _own_names(func) | factory_own
    return None


def _own_returns(node: cst.CSTNode) -> list[cst.Return]:
    """The `return` statements of a function body, not of functions inside it."""
    found: list[cst.Return] = []
    for child in children(node):
        if isinstance(child, cst.Return):
            found.append(child)
        elif not isinstance(child, cst.FunctionDef | cst.Lambda | cst.ClassDef):
            found.extend(_own_returns(child))
    return found


def _late_read(
    body: cst.CSTNode, own: set[str], loops: list[cst.CSTNode]
) -> tuple[str, cst.CSTNode] | None:
    """The first name `body` reads that one of `loops` rebinds, with that loop."""
    rebound: dict[str, cst.CSTNode] = {}
    for loop in loops:
        for bound in bound_names(loop):
            rebound.setdefault(bound, loop)
    for read in read_names(body):
        if read.value in rebound and read.value not in own:
            return read.value, rebound[read.value]
    return None


_LOOP, _FUNCTION = "loop", "function"


def _leaves_after(statements: list[cst.CSTNode], call: cst.Call) -> str | None:
    """Whether the statement registering the callback is followed, in its own
    block, by a `break` (_LOOP) or a `return`/`raise` (_FUNCTION) with no
    `continue` on the way: then the loop never rebinds the name afterwards."""
    if len(statements) < 2 or not isinstance(statements[-1], cst.SimpleStatementLine):
        return None
    line = statements[-1]
    block = _block_holding(statements[-2], line)
    if block is None:
        return None
    holder = next(i for i, small in enumerate(line.body) if encloses(small, call))
    after: list[cst.CSTNode] = list(line.body[holder + 1 :])
    after += block[block.index(line) + 1 :]
    for statement in after:
        ends = _ends(statement)
        if ends != "":
            return ends
    return None


def _ends(statement: cst.CSTNode) -> str | None:
    """_LOOP or _FUNCTION for a statement that leaves, None where the loop may
    go on (a `continue` anywhere in it), "" for one that runs through."""
    if isinstance(statement, cst.Break):
        return _LOOP
    if isinstance(statement, cst.Return | cst.Raise):
        return _FUNCTION
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            ends = _ends(small)
            if ends != "":
                return ends
        return ""
    return None if contains(statement, cst.Continue) else ""


def _block_holding(owner: cst.CSTNode, line: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The statements of the block of `owner` (an if, with or try; not a loop's
    `else`) that holds `line`."""
    for suite in _suites(owner):
        if isinstance(suite, cst.IndentedBlock) and any(s is line for s in suite.body):
            return list(suite.body)
    return None


def _suites(owner: cst.CSTNode) -> list[cst.BaseSuite]:
    if isinstance(owner, cst.If):
        orelse = owner.orelse.body if isinstance(owner.orelse, cst.Else) else None
        return [owner.body, *([orelse] if orelse is not None else [])]
    if isinstance(owner, cst.For | cst.While | cst.With):
        return [owner.body]
    if isinstance(owner, cst.Try | cst.TryStar):
        parts: list[cst.BaseSuite] = [owner.body, *(h.body for h in owner.handlers)]
        if owner.orelse is not None:
            parts.append(owner.orelse.body)
        if owner.finalbody is not None:
            parts.append(owner.finalbody.body)
        return parts
    return []
