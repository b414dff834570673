"""The full example suite of `joblint.rules.payloads.orm_object_payload`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

_MODELS = "from django.db import models\nclass Invoice(models.Model):\n    pass\n"
_BILLING = (
    "from app.models import Invoice\n"
    "from app import ledger\n\n"
    "def load(pk):\n    return Invoice.objects.get(pk=pk)\n\n"
    "def load_checked(pk):\n    return ledger.fetch(pk)\n\n"
    "def overdue():\n    return Invoice.objects.filter(paid=False)\n\n"
    "def invoice_key(pk):\n    return Invoice.objects.get(pk=pk).pk\n\n"
    "def overdue_ids():\n"
    "    return Invoice.objects.filter(paid=False).values_list('pk', flat=True)\n\n"
    "def render_kwargs(invoice):\n    return {'invoice': invoice, 'copies': 2}\n\n"
    "def summary(invoice):\n    return {'invoice_id': invoice.pk, 'total': 3}\n"
)
_LEDGER = (
    "from app.models import Invoice\n\n"
    "def fetch(pk):\n    invoice = Invoice.objects.select_related('customer').get(pk=pk)\n"
    "    return invoice\n"
)
_ELSEWHERE = "def load(pk):\n    return int(pk)\n"
_MAIL_TASKS = (
    "from celery import shared_task\n\n"
    "@shared_task\ndef send_email(user_id, template='welcome'): ...\n"
)
_MAIL = (
    "from app.tasks import send_email\n\n"
    "def schedule_email(user):\n    send_email.delay(user)\n\n"
    "def schedule_later(user, delay):\n    send_email.apply_async(args=[user], countdown=delay)\n\n"
    "def welcome(user):\n    schedule_email(user)\n\n"
    "def schedule_by_key(user):\n    send_email.delay(user.pk)\n\n"
    "def log_signup(user):\n    print(user)\n"
)
_JOBS = (
    "from celery import shared_task\n\n"
    "@shared_task\ndef refresh(invoice):\n    invoice.refresh_from_db()\n\n"
    "@shared_task(bind=True)\ndef archive(self, invoice, note=''):\n"
    "    invoice.archived = True\n    invoice.save()\n\n"
    "@shared_task\ndef render(invoice_id, image):\n    image.save('/tmp/render.png')\n"
)

# Task classes that defer the enqueue to COMMIT: one a task names as its
# `base=`, one an app makes every task's class. The race is gone; the
# payload is still pickled and read when the job runs.
_DEFERRING_TASKS = (
    "from celery import Task, shared_task\n"
    "from django.db import transaction\n\n"
    "class AfterCommitTask(Task):\n"
    "    abstract = True\n\n"
    "    def apply_async(self, *args, **kwargs):\n"
    "        send = super().apply_async\n"
    "        transaction.on_commit(lambda: send(*args, **kwargs))\n\n"
    "@shared_task(base=AfterCommitTask)\ndef ship(order): ...\n\n"
    "@shared_task(base=AfterCommitTask)\ndef ship_by_key(order_id): ...\n"
)
_DEFERRING_APP = (
    "from celery import Celery, Task\n"
    "from django.db import transaction\n\n"
    "class OnCommitTask(Task):\n"
    "    def apply_async(self, *args, **kwargs):\n"
    "        parent = super()\n"
    "        transaction.on_commit(lambda: parent.apply_async(*args, **kwargs))\n\n"
    "worker = Celery('app')\n"
    "worker.Task = OnCommitTask\n\n"
    "@worker.task\ndef bill(invoice, copies=1): ...\n"
)

VALID = (
    Valid(
        """
from django.db import transaction
from app.models import Invoice
from app.jobs import ship_by_key
from app.worker import bill

def close(pk):
    with transaction.atomic():
        invoice = Invoice.objects.select_for_update().get(pk=pk)
        invoice.closed = True
        invoice.save()
        ship_by_key.delay(invoice.pk)
        bill.apply_async(args=[invoice.pk], kwargs={"copies": 2})
""",
        id="keys-to-tasks-whose-class-defers-to-commit",
        project={"app_models": _MODELS, "app_jobs": _DEFERRING_TASKS, "app_worker": _DEFERRING_APP},
    ),
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
    Valid(
        """
from app import billing
from app.tasks import render

def remind(pk):
    render.delay(billing.invoice_key(pk), billing.overdue_ids())
    invoice = billing.load(pk)
    render.delay(invoice.pk)
    render.delay(**billing.summary(invoice))
    params = {"invoice_id": invoice.pk, "copies": 2}
    render.delay(**params)
    render.apply_async(kwargs=params)
""",
        id="helpers-returning-keys-values-and-primitive-dicts",
        project={"app_models": _MODELS, "app_billing": _BILLING, "app_ledger": _LEDGER},
    ),
    Valid(
        """
from app.elsewhere import load
from app.tasks import render

def remind(pk):
    invoice = load(pk)
    render.delay(invoice)
""",
        id="same-named-helper-elsewhere-returning-an-id",
        project={"app_models": _MODELS, "app_billing": _BILLING, "app_elsewhere": _ELSEWHERE},
    ),
    Valid(
        """
from django.db.models.signals import post_save
from django.dispatch import Signal, receiver
from .models import Order
from .tasks import notify

order_paid = Signal()

@receiver(post_save, sender=Order)
def on_save(sender, instance, created, **kwargs):
    notify.delay(instance.pk, created)

@receiver(order_paid)
def on_paid(sender, instance, **kwargs):
    notify.delay(instance)

def not_connected(sender, instance, **kwargs):
    notify.delay(instance)
""",
        id="receiver-passing-the-key-a-project-signal-and-an-unconnected-lookalike",
    ),
    Valid(
        """
from .models import Order
from .tasks import export

def run(pks):
    qs = Order.objects.filter(paid=True)
    export.delay([o.pk for o in qs], list(qs.values_list("pk", flat=True)))
    export.delay(list(Order.objects.values("pk", "email")), [pk for pk in pks])
    export.delay({o.pk: o.email for o in qs}, sorted(pks), list(pks))
""",
        id="collections-of-keys-and-values",
    ),
    Valid(
        """
from django.views.generic import UpdateView
from .tasks import notify

class OrderUpdate(UpdateView):
    def form_valid(self, form):
        notify.delay(self.request.user.pk, form.instance.pk, form.cleaned_data["email"])
        return super().form_valid(form)

    def post(self, request, *args, **kwargs):
        notify.delay(self.get_object().pk)

def perform_create(serializer):
    notify.delay(serializer.data["id"], serializer.validated_data)
""",
        id="keys-of-what-views-forms-and-serializers-hand",
    ),
    Valid(
        """
from .tasks import notify

class Exporter:
    def run(self, form, serializer):
        self.form = form
        notify.delay(self.form, self.serializer, self.get_object())

    def get_object(self):
        return self.bucket.fetch(self.key)
""",
        id="attributes-named-like-forms-of-another-object",
    ),
    Valid(
        """
from app.accounts import self_service_user
from app.mail import log_signup, schedule_by_key, schedule_email, schedule_later

def signup(request, pk):
    schedule_by_key(request.user)
    schedule_email(request.user.pk)
    log_signup(request.user)
    schedule_later(request.user.pk, request.user)
    schedule_email(self_service_user(request))
""",
        id="helpers-passing-keys-on-or-keeping-the-object",
        project={
            "app_tasks": _MAIL_TASKS,
            "app_mail": _MAIL,
            "app_accounts": "def self_service_user(request):\n    return request.user.pk\n",
        },
    ),
    Valid(
        """
import json
from app.jobs import archive, refresh, render

def remind(invoice_id, image, invoice_pks, note, invoice):
    refresh.delay(invoice_id)
    render.delay(invoice_id, image)
    archive.delay(invoice_id, note=note)
    for pk in invoice_pks:
        refresh.delay(pk)
    label = str(invoice)
    document = json.dumps({"id": invoice_id})
    refresh.delay(label)
    archive.delay(document)
    archive.delay(*invoice_pks)
""",
        id="task-parameters-used-as-models-passed-keys",
        project={"app_jobs": _JOBS},
    ),
    Valid(
        """
from celery import shared_task

@shared_task
def export(payload, options):
    payload.model_dump()
    options.validate()

def run(payload, options):
    export.delay(payload, options)
""",
        id="task-parameters-used-as-other-objects",
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
    invalid(
        """
from app import billing
from app.tasks import render

def remind(pk):
    invoice = billing.load(pk)
    render.delay(invoice)
    render.delay(billing.load_checked(pk))
    for late in billing.overdue():
        render.delay(late)
""",
        (
            7,
            18,
            "'invoice' is a Django model instance (Invoice, returned by billing.load() at "
            "app/billing.py:5) passed to render.delay(): pass invoice.pk",
        ),
        (
            8,
            18,
            "(Invoice, returned by billing.load_checked() at app/billing.py:8 from fetch() "
            "at app/ledger.py:5)",
        ),
        (10, 22, "'late' is a Django model instance (Invoice, returned by billing.overdue()"),
        fixed="""
from app import billing
from app.tasks import render

def remind(pk):
    invoice = billing.load(pk)
    render.delay(invoice.pk)
    render.delay(billing.load_checked(pk).pk)
    for late in billing.overdue():
        render.delay(late.pk)
""",
        id="helpers-returning-instances-across-modules",
        app_models=_MODELS,
        app_billing=_BILLING,
        app_ledger=_LEDGER,
    ),
    invalid(
        """
from app import billing
from app.models import Invoice
from app.tasks import render

def remind(pk):
    invoice = Invoice.objects.get(pk=pk)
    params = {"copies": 2}
    params["invoice"] = invoice
    render.delay(**params)
    render.apply_async(kwargs=dict(invoice=invoice))
    render.delay(**billing.render_kwargs(invoice))
""",
        (10, 20, "'params' holds 'invoice', a Django model instance (Invoice)"),
        (11, 44, "'invoice' is a Django model instance (Invoice)"),
        (
            12,
            42,
            "'invoice' is a Django model instance (Invoice, through billing.render_kwargs() "
            "at app/billing.py:20)",
        ),
        fixed="""
from app import billing
from app.models import Invoice
from app.tasks import render

def remind(pk):
    invoice = Invoice.objects.get(pk=pk)
    params = {"copies": 2}
    params["invoice"] = invoice
    render.delay(**params)
    render.apply_async(kwargs=dict(invoice=invoice.pk))
    render.delay(**billing.render_kwargs(invoice))
""",
        id="model-in-a-dict-spread-into-the-enqueue",
        app_models=_MODELS,
        app_billing=_BILLING,
    ),
    invalid(
        """
from celery import shared_task
from app.models import Invoice

retrying_task = shared_task(autoretry_for=(IOError,), max_retries=5)

@retrying_task
def render(invoice_id): ...

def remind(pk):
    invoice = Invoice.objects.get(pk=pk)
    render.delay(invoice)
""",
        (12, 18, "'invoice' is a Django model instance (Invoice) passed to render.delay()"),
        fixed="""
from celery import shared_task
from app.models import Invoice

retrying_task = shared_task(autoretry_for=(IOError,), max_retries=5)

@retrying_task
def render(invoice_id): ...

def remind(pk):
    invoice = Invoice.objects.get(pk=pk)
    render.delay(invoice.pk)
""",
        id="task-of-a-project-task-decorator",
        app_models=_MODELS,
    ),
    invalid(
        """
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver
from .models import Order
from .tasks import notify

@receiver(post_save, sender=Order)
def on_save(sender, instance, created, **kwargs):
    notify.delay(instance)
    notify.apply_async(kwargs={"order": instance})
    transaction.on_commit(lambda: notify.delay([instance]))

@receiver([post_delete, m2m_changed])
def on_change(sender, instance, **kwargs):
    notify.delay(instance=instance)

def on_saved_again(sender, instance, **kwargs):
    notify.delay(instance)

post_save.connect(on_saved_again, sender=Order)

@receiver(post_save, sender=Order)
def on_save_kwargs(sender, **kwargs):
    order = kwargs["instance"]
    notify.delay(order, kwargs.get("instance"), kwargs["created"])
""",
        (10, 18, "'instance' is a Django model instance (Order) passed to notify.delay()"),
        (11, 41, "'instance' is a Django model instance (Order)"),
        (12, 49, "'instance' is a Django model instance (Order)"),
        (
            16,
            27,
            "'instance' is a Django model instance (the instance m2m_changed or post_delete sends)",
        ),
        (19, 18, "'instance' is a Django model instance (Order)"),
        (26, 18, "'order' is a Django model instance (Order)"),
        (26, 25, "'kwargs.get(\"instance\")' is a Django model instance (Order)"),
        fixed="""
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver
from .models import Order
from .tasks import notify

@receiver(post_save, sender=Order)
def on_save(sender, instance, created, **kwargs):
    notify.delay(instance.pk)
    notify.apply_async(kwargs={"order": instance.pk})
    transaction.on_commit(lambda: notify.delay([instance.pk]))

@receiver([post_delete, m2m_changed])
def on_change(sender, instance, **kwargs):
    notify.delay(instance=instance.pk)

def on_saved_again(sender, instance, **kwargs):
    notify.delay(instance.pk)

post_save.connect(on_saved_again, sender=Order)

@receiver(post_save, sender=Order)
def on_save_kwargs(sender, **kwargs):
    order = kwargs["instance"]
    notify.delay(order.pk, kwargs.get("instance").pk, kwargs["created"])
""",
        id="signal-receivers-instance",
    ),
    invalid(
        """
from celery import group
from .models import Order
from .tasks import export, notify

def run(pks):
    orders = list(Order.objects.filter(paid=True))
    export.delay(orders)
    qs = Order.objects.filter(paid=False)
    export.delay([o for o in qs], {o.pk: o for o in qs})
    group(notify.s(o) for o in qs).apply_async()
    export.delay([Order.objects.get(pk=pk) for pk in pks])
""",
        (8, 18, "'orders' holds a Django model instance (Order) passed to export.delay()"),
        (10, 18, "'[o for o in qs]' holds 'o', a Django model instance (Order)"),
        (10, 35, "'{o.pk: o for o in qs}' holds 'o', a Django model instance (Order)"),
        (11, 20, "'o' is a Django model instance (Order) passed to notify.s()"),
        (12, 18, "holds 'Order.objects.get(pk=pk)', a Django model instance (Order)"),
        fixed="""
from celery import group
from .models import Order
from .tasks import export, notify

def run(pks):
    orders = list(Order.objects.filter(paid=True))
    export.delay(orders)
    qs = Order.objects.filter(paid=False)
    export.delay([o for o in qs], {o.pk: o for o in qs})
    group(notify.s(o.pk) for o in qs).apply_async()
    export.delay([Order.objects.get(pk=pk) for pk in pks])
""",
        id="collections-and-comprehensions-of-rows",
    ),
    invalid(
        """
from django.views.generic import UpdateView
from rest_framework import viewsets
from .forms import OrderForm
from .tasks import notify

class OrderUpdate(UpdateView):
    def form_valid(self, form):
        notify.delay(self.request.user, form.instance)
        return super().form_valid(form)

    def post(self, request, *args, **kwargs):
        order = self.get_object()
        notify.delay(order)

class OrderViewSet(viewsets.ModelViewSet):
    def perform_create(self, serializer):
        notify.delay(serializer.save())

def submit(request):
    form = OrderForm(request.POST)
    notify.delay(form.save())
""",
        (9, 22, "'self.request.user' is a Django model instance (User)"),
        (9, 41, "'form.instance' is a Django model instance (the form's model)"),
        (14, 22, "'order' is a Django model instance (the view's object)"),
        (18, 22, "'serializer.save()' is a Django model instance (the serializer's model)"),
        (22, 18, "'form.save()' is a Django model instance (the form's model)"),
        fixed="""
from django.views.generic import UpdateView
from rest_framework import viewsets
from .forms import OrderForm
from .tasks import notify

class OrderUpdate(UpdateView):
    def form_valid(self, form):
        notify.delay(self.request.user.pk, form.instance.pk)
        return super().form_valid(form)

    def post(self, request, *args, **kwargs):
        order = self.get_object()
        notify.delay(order.pk)

class OrderViewSet(viewsets.ModelViewSet):
    def perform_create(self, serializer):
        notify.delay(serializer.save().pk)

def submit(request):
    form = OrderForm(request.POST)
    notify.delay(form.save().pk)
""",
        id="what-views-forms-and-serializers-hand",
    ),
    invalid(
        """
from app.mail import schedule_email, schedule_later, welcome
from app.models import Invoice

def signup(request, pk):
    schedule_email(request.user)
    invoice = Invoice.objects.get(pk=pk)
    schedule_later(invoice, 60)
    welcome(user=request.user)
""",
        (
            6,
            20,
            "'request.user' is a Django model instance (User) passed to schedule_email(), "
            "which hands it on to send_email.delay() at app/mail.py:4: pass request.user.pk",
        ),
        (
            8,
            20,
            "'invoice' is a Django model instance (Invoice) passed to schedule_later(), which "
            "hands it on to send_email.apply_async() at app/mail.py:7",
        ),
        (
            9,
            18,
            "passed to welcome(), which hands it on to send_email.delay() at app/mail.py:4 "
            "(welcome() → schedule_email() at app/mail.py:10 → send_email.delay() at "
            "app/mail.py:4)",
        ),
        id="helpers-handing-a-parameter-on-to-an-enqueue",
        app_models=_MODELS,
        app_tasks=_MAIL_TASKS,
        app_mail=_MAIL,
    ),
    invalid(
        """
from app.jobs import archive, refresh
from app.lookups import find_invoice

def remind(invoice, invoices, pk):
    refresh.delay(invoice)
    archive.apply_async(args=[invoice], kwargs={"note": "late"})
    for item in invoices:
        archive.delay(invoice=item)
    found = find_invoice(pk)
    refresh.delay(found)
""",
        (
            6,
            19,
            "'invoice' is passed to refresh.delay(), whose task uses it as a model instance "
            "(invoice.refresh_from_db() at app/jobs.py:5): pass its primary key (invoice.pk)",
        ),
        (7, 31, "(invoice.save() at app/jobs.py:10)"),
        (9, 31, "'item' is passed to archive.delay(), whose task uses it as a model instance"),
        (11, 19, "'found' is passed to refresh.delay(), whose task uses it as a model instance"),
        id="task-parameters-used-as-models",
        app_jobs=_JOBS,
        app_lookups="def find_invoice(pk):\n    return registry[pk]\n",
    ),
    invalid(
        """
from django.db import transaction
from app.models import Invoice
from app.jobs import ship

def close(pk):
    with transaction.atomic():
        invoice = Invoice.objects.select_for_update().get(pk=pk)
        invoice.closed = True
        invoice.save()
        ship.delay(invoice)
""",
        (11, 20, "'invoice' is a Django model instance (Invoice) passed to ship.delay()"),
        fixed="""
from django.db import transaction
from app.models import Invoice
from app.jobs import ship

def close(pk):
    with transaction.atomic():
        invoice = Invoice.objects.select_for_update().get(pk=pk)
        invoice.closed = True
        invoice.save()
        ship.delay(invoice.pk)
""",
        id="model-passed-to-a-task-whose-base-class-defers-to-commit",
        app_models=_MODELS,
        app_jobs=_DEFERRING_TASKS,
    ),
    invalid(
        """
from django.db import transaction
from app.models import Invoice
from app.worker import bill

def reissue(pk):
    invoice = Invoice.objects.get(pk=pk)
    with transaction.atomic():
        bill.apply_async(args=[invoice], kwargs={"copies": 2})
        bill.delay(invoice=invoice)
""",
        (9, 32, "'invoice' is a Django model instance (Invoice) passed to bill.apply_async()"),
        (10, 28, "'invoice' is a Django model instance (Invoice) passed to bill.delay()"),
        fixed="""
from django.db import transaction
from app.models import Invoice
from app.worker import bill

def reissue(pk):
    invoice = Invoice.objects.get(pk=pk)
    with transaction.atomic():
        bill.apply_async(args=[invoice.pk], kwargs={"copies": 2})
        bill.delay(invoice=invoice.pk)
""",
        id="model-passed-to-a-task-of-an-app-whose-task-class-defers-to-commit",
        app_models=_MODELS,
        app_worker=_DEFERRING_APP,
    ),
)
