"""The full example suite of `joblint.rules.orm_object_payload` (its class keeps the
teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

VALID = (
    Valid(
        """
from .tasks import send_receipt

def notify(order):
    send_receipt.delay(order)
""",
        id="unannotated-parameter",
    ),
    Valid(
        """
from .models import Order

def save(order):
    order.delay(5)
""",
        id="not-an-enqueue",
    ),
    Valid(
        """
from django.db import models

class Export(models.Model):
    @classmethod
    def enqueue_job(cls, owner, source):
        return cls.objects.create(owner=owner, source=source, state="queued")

def request_export(request):
    source = Report.objects.get(pk=request.POST["report"])
    Export.enqueue_job(request.user, source)
""",
        id="model-classmethod-named-like-arq",
    ),
)

INVALID = (
    invalid(
        """
from .models import Order
from .tasks import send_receipt

def nightly():
    for order in Order.objects.filter(paid=False):
        send_receipt.delay(order)
""",
        (7, 28, "'order' is a Django model instance"),
        fixed="""
from .models import Order
from .tasks import send_receipt

def nightly():
    for order in Order.objects.filter(paid=False):
        send_receipt.delay(order.pk)
""",
        id="loop-over-queryset",
    ),
    invalid(
        """
from .tasks import audit

def view(request):
    audit.delay(request, user=request.user)
""",
        (5, 17, "'request' is the HTTP request"),
        (5, 31, "'request.user' is a Django model instance (User)"),
        fixed="""
from .tasks import audit

def view(request):
    audit.delay(request, user=request.user.pk)
""",
        id="request-and-user",
    ),
    invalid(
        """
from .tasks import refresh

class Report:
    def schedule(self):
        refresh.delay(self)
""",
        (6, 23, "'self' (a Report instance)"),
        id="self",
    ),
    invalid(
        """
from sqlalchemy import select
from app.db import Order
from app.jobs import queue

def close(session, order_id):
    order = session.scalars(select(Order).where(Order.id == order_id)).one()
    queue.enqueue(close_order, order)
""",
        (8, 32, "'order' is a SQLAlchemy model instance (Order)"),
        fixed="""
from sqlalchemy import select
from app.db import Order
from app.jobs import queue

def close(session, order_id):
    order = session.scalars(select(Order).where(Order.id == order_id)).one()
    queue.enqueue(close_order, order.id)
""",
        id="sqlalchemy-scalars",
        app_db=(
            "from sqlalchemy.orm import DeclarativeBase\n"
            "class Base(DeclarativeBase):\n    pass\n"
            "class Order(Base):\n    pass\n"
        ),
        app_jobs="import rq\nqueue = rq.Queue()\n",
    ),
    invalid(
        """
from app.models import Invoice
from app.tasks import render

def bill(invoice: Invoice, total: int):
    render.delay(invoice, total)
""",
        (6, 18, "'invoice' is a Django model instance (Invoice)"),
        fixed="""
from app.models import Invoice
from app.tasks import render

def bill(invoice: Invoice, total: int):
    render.delay(invoice.pk, total)
""",
        id="annotated-parameter-model-across-files",
        app_models=(
            "from django.db import models\n"
            "class Base(models.Model):\n    pass\n"
            "class Invoice(Base):\n    pass\n"
        ),
    ),
)
