from django.db import transaction
from django.http import JsonResponse
from django.utils.decorators import method_decorator
from django.views import View

from . import tasks
from .models import Order


def checkout(request):
    with transaction.atomic():
        order = Order.objects.create(email=request.POST["email"], total_cents=1999)
        tasks.send_receipt.delay(order.pk)  # JL101: a worker may look before COMMIT
    return JsonResponse({"order": order.pk})


@method_decorator(transaction.atomic, name="post")
class RefundView(View):
    def post(self, request, order_id):
        order = Order.objects.get(pk=order_id)
        order.paid = False
        order.save()
        tasks.notify_warehouse.delay(order.pk)  # JL101: method made atomic on the class
        return JsonResponse({"refunded": order.pk})
