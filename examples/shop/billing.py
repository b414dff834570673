"""Billing flows: payloads, options and on-commit callbacks (our own example code)."""

import dataclasses
import enum
import functools

from django.db import transaction
from django.shortcuts import get_object_or_404

from .models import Invoice, Order
from .tasks import notify_warehouse, render_invoice, send_receipt


class Currency(enum.Enum):
    EUR = "eur"
    USD = "usd"


@dataclasses.dataclass(frozen=True)
class Totals:
    net_cents: int
    tax_cents: int


def resend_receipt(request, order_id):
    order = get_object_or_404(Order, pk=order_id)
    send_receipt.delay(order)  # JL201: the model instance, not its pk
    send_receipt.delay(order.pk)


def invoice_later(order: Order, totals: Totals):
    render_invoice.apply_async(args=(order.pk,), countdown=600)
    render_invoice.delay(order.pk, countdown=600)  # JL103: countdown reaches the task
    render_invoice.apply_async(args=(order.pk, totals))  # JL202: a dataclass instance
    render_invoice.apply_async(args=(order.pk, dataclasses.asdict(totals)))


def convert(order_id):
    render_invoice.delay(order_id, Currency.EUR)  # JL202: an enum member
    render_invoice.delay(order_id, Currency.EUR.value)


def nightly_receipts():
    for invoice in Invoice.objects.filter(pdf=""):
        render_invoice.delay(invoice)  # JL201: each row is a model instance


def pay_all(orders):
    with transaction.atomic():
        for order in orders:
            order.paid = True
            order.save()
            transaction.on_commit(lambda: send_receipt.delay(order.pk))  # JL104: last order only
            transaction.on_commit(functools.partial(send_receipt.delay, order.pk))
    notify_warehouse.delay([o.pk for o in orders])
