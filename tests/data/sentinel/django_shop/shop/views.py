from django.db import transaction
from django.http import HttpResponse
from django.utils.decorators import method_decorator
from django.views import View

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


@method_decorator(transaction.non_atomic_requests, name="dispatch")
class Refunds(View):
    @method_decorator(transaction.atomic)
    def post(self, request):
        order = Order.objects.create(number="refund")
        send_receipt.delay(order.pk)  # sentinel: JL101
        return HttpResponse(str(order.pk))


def status(request):
    send_receipt.delay(Order.objects.count())
    return HttpResponse("ok")
