"""Order workflow helpers."""

from django.db import transaction

from .models import Invoice, Order
from .tasks import notify_warehouse, render_invoice, send_receipt


def announce(order):
    # Enqueues right away: fine on its own, a bug when called inside a transaction.
    notify_warehouse.delay(order.pk)


@transaction.atomic
def mark_paid(order_id):
    order = Order.objects.select_for_update().get(pk=order_id)
    order.paid = True
    order.save()
    render_invoice.apply_async(args=(order.pk,), countdown=5)  # JL101: decorator transaction
    announce(order)  # JL101: announce() enqueues


def create_order(email, total_cents):
    with transaction.atomic():
        order = Order.objects.create(email=email, total_cents=total_cents)
        Invoice.objects.create(order=order)
        # Correct: runs only after COMMIT, and never after a rollback.
        transaction.on_commit(lambda: send_receipt.delay(order.pk))
        send_receipt.delay_on_commit(order.pk)
    # Correct: the block has committed.
    notify_warehouse.delay(order.pk)
    return order


def postpone_delivery(order):
    with transaction.atomic():
        order.delay(30)  # a model method, not a Celery task: no finding
