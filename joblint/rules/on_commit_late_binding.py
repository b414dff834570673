from __future__ import annotations

import libcst as cst

from joblint.analysis.names import BindingKind
from joblint.analysis.scopes import bound_names, parameter_names, read_names
from joblint.analysis.transactions import on_commit_callback
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
    - Names the loop rebinds are those assigned anywhere in its body (also
      inside `if`/`try`), and its targets.
    """

    CODE = "JL104"
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
        Valid(
            """
from django.db import transaction
from .tasks import send_report

def close_day(orders, day):
    for order in orders:
        transaction.on_commit(lambda: send_report.delay(day.pk))
""",
            id="reads-nothing-the-loop-binds",
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

def pay(items):
    with transaction.atomic():
        for item in items:
            order = item.order

            def notify():
                send_receipt.delay(order.pk)

            transaction.on_commit(notify)
""",
            (10, 13, "reads 'order'"),
            id="nested-def-reads-name-rebound-in-loop",
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
        rebound: dict[str, cst.CSTNode] = {}
        for loop in loops:
            for bound in bound_names(loop):
                rebound.setdefault(bound, loop)
        for read in read_names(body):
            if read.value in rebound and read.value not in own:
                self._report(reported_at, read.value, rebound[read.value])
                return

    def _callback_code(
        self, callback: cst.BaseExpression
    ) -> tuple[cst.CSTNode, cst.CSTNode, set[str]] | None:
        """(node to report at, code that runs at COMMIT, names local to it)."""
        if isinstance(callback, cst.Lambda):
            return callback, callback.body, set(parameter_names(callback.params))
        if isinstance(callback, cst.Name):
            binding = self.context.resolver.lookup(callback.value)
            if binding is not None and binding.kind is BindingKind.DEF:
                func = binding.node
                if isinstance(func, cst.FunctionDef) and self.context.frame.key:
                    own = set(parameter_names(func.params)) | bound_names(func.body)
                    return func, func.body, own
        return None

    def _report(self, at: cst.CSTNode, name: str, loop: cst.CSTNode) -> None:
        def message(line_of: LineOf) -> str:
            return (
                f"On-commit callback reads '{name}', which the loop (line {line_of(loop)}) "
                "rebinds: it runs after COMMIT and sees the last iteration's value. Bind it "
                f"now: functools.partial(...) or lambda {name}={name}: ..."
            )

        self.report(at, message)
