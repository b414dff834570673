from django.db import transaction
from django.http import HttpResponse

from .models import Order
from .tasks import send_receipt


def checkout(request):
    order = Order.objects.create(number=request.POST["number"])
    send_receipt.delay(order.pk)  # sentinel: JL101
    return HttpResponse(str(order.pk))


@transaction.non_atomic_requests
def checkout_outside(request):
    order = Order.objects.create(number=request.POST["number"])
    send_receipt.delay(order.pk)
    return HttpResponse(str(order.pk))


def status(request):
    send_receipt.delay(Order.objects.count())
    return HttpResponse("ok")
