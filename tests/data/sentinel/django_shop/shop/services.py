"""The shop's operations. `# sentinel: JLxxx` marks each line the sentinel must report."""

from django.db import transaction
from django_q.tasks import async_task

from .models import Customer, Order, Tag
from django.utils.functional import SimpleLazyObject

from .tasks import (
    archive_order,
    audit,
    invoice,
    load_orders,
    notify_warehouse,
    record,
    refund,
    send_receipt,
    ship,
)


def place_order(number):
    with transaction.atomic():
        order = Order.objects.create(number=number)
        send_receipt.delay(order.pk)  # sentinel: JL101
    return order


def place_order_enqueue_first(number):
    with transaction.atomic():
        order = Order(number=number)
        send_receipt.apply_async(args=(number,))  # sentinel: JL101
        order.save()
    return order


@transaction.atomic
def cancel(order):
    order.total = 0
    order.save()
    ship.send(order.pk)  # sentinel: JL101


def place_order_on_commit(number):
    with transaction.atomic():
        order = Order.objects.create(number=number)
        transaction.on_commit(lambda: send_receipt.delay(order.pk))
        send_receipt.delay_on_commit(order.pk)
        notify_warehouse.delay(order.pk)
    return order


def place_order_then_send(number):
    with transaction.atomic():
        order = Order.objects.create(number=number)
    send_receipt.delay(order.pk)
    audit.delay(order.pk)
    return order


def count_and_report():
    with transaction.atomic():
        total = Order.objects.count()
        send_receipt.delay(total)  # reads only: nothing uncommitted for the job to miss
    return total


def ensure_customer(email):
    return Customer.objects.get_or_create(email=email)[0]


def tag_order(order, name):
    tag = Tag.objects.create(name=name)
    order.tags.add(tag)


def remove_tag(tag):
    tag.delete()


def bill(order):
    with transaction.atomic():
        order.total = 10
        order.save()
        invoice(order.pk)  # sentinel: JL101
        async_task(archive_order, order.pk)  # sentinel: JL101
        refund.enqueue(order.pk)  # sentinel: JL101


def send_order_object(order):
    send_receipt.delay(order)  # sentinel-payloads: JL201


def start_import(count):
    with transaction.atomic():
        if Order.objects.filter(number__startswith="L").exists():
            return
        load_orders.delay(count)  # the transaction only reads; the job writes


def send_ids_and_objects(order, customer):
    lazy = SimpleLazyObject(lambda: customer)
    assert lazy.pk  # evaluated, as request.user is once a view has read it
    record.delay({order.pk}, frozenset({1, 2}))
    record.delay(order, lazy)  # sentinel-payloads: JL201
    with transaction.atomic():
        transaction.on_commit(lambda: record.delay(order))  # sentinel-payloads: JL201
