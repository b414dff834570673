"""The full example suite of `joblint.rules.transactions.on_commit_late_binding`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

VALID = (
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
    Valid(
        """
from django.db import transaction
from .tasks import send_receipt

def pay_first(orders):
    with transaction.atomic():
        for order in orders:
            if order.payable:
                order.mark_paid()
                transaction.on_commit(lambda: send_receipt.delay(order.pk))
                break
""",
        id="break-right-after-registering",
    ),
    Valid(
        """
from django.db import transaction
from .tasks import send_receipt

def pay_first(orders):
    for order in orders:
        if order.payable:
            transaction.on_commit(lambda: send_receipt.delay(order.pk)); return order
    raise LookupError("nothing to pay")
""",
        id="return-right-after-registering",
    ),
    Valid(
        """
from django.db import transaction
from app.callbacks import receipt_callback

def pay(orders):
    with transaction.atomic():
        for order in orders:
            order.mark_paid()
            transaction.on_commit(receipt_callback(order))
""",
        id="helper-in-another-module-binds-its-parameter",
        project={
            "app_callbacks": (
                "from app.tasks import send_receipt\n\n"
                "def receipt_callback(order):\n"
                "    return lambda: send_receipt.delay(order.pk)\n"
            )
        },
    ),
    Valid(
        """
import functools
from django.db import transaction
from .tasks import send_receipt

def receipt_callback(order):
    def send():
        send_receipt.delay(order.pk)
    return send

def partial_callback(order):
    return functools.partial(send_receipt.delay, order.pk)

def pay(orders):
    with transaction.atomic():
        for order in orders:
            transaction.on_commit(receipt_callback(order))
            transaction.on_commit(partial_callback(order))
""",
        id="module-helpers-bind-their-parameters",
    ),
    Valid(
        """
from django.db import transaction
from .tasks import send_receipt

def pay(orders):
    def callback_for(order):
        return lambda: send_receipt.delay(order.pk)

    with transaction.atomic():
        for order in orders:
            transaction.on_commit(callback_for(order))
""",
        id="local-factory-binds-its-parameter",
    ),
)

INVALID = (
    invalid(
        """
from django.db import transaction
from .tasks import send_receipt

def pay(customers):
    for customer in customers:
        for order in customer.orders:
            transaction.on_commit(lambda: send_receipt.delay(customer.pk, order.pk))
            break
""",
        (8, 35, "reads 'customer', which the loop (line 6) rebinds"),
        id="break-leaves-only-the-inner-loop",
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
    invalid(
        """
from django.db import transaction
from .tasks import send_receipt

def pay(orders):
    def make_callback():
        return lambda: send_receipt.delay(order.pk)

    with transaction.atomic():
        for order in orders:
            transaction.on_commit(make_callback())
""",
        (7, 16, "reads 'order', which the loop (line 10) rebinds"),
        id="local-factory-reads-the-loop-variable",
    ),
    invalid(
        """
from django.db import transaction
from .tasks import send_receipt

def pay(items):
    def make_callback(reason):
        def send():
            send_receipt.delay(order.pk, reason)
        return send

    for item in items:
        order = item.order
        transaction.on_commit(make_callback("paid"))
""",
        (7, 9, "reads 'order', which the loop (line 11) rebinds"),
        id="local-factory-def-reads-name-rebound-in-loop",
    ),
)
