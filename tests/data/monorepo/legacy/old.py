from django.db import transaction

from .tasks import send_receipt


def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.delay(order.pk)
