"""The full example suite of `joblint.rules.on_commit_late_binding` (its class keeps the
teaching examples the docs open with)."""

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
)
