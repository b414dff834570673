"""VALID examples of `joblint.rules.transactions.enqueue_in_transaction`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import Valid
from joblint.rules.transactions._examples.enqueue_in_transaction.common import (
    _ACTION_RECEIVER,
    _ATOMIC_REQUESTS_SETTINGS,
    _CELERY_TASKS,
    _JOIN_VIEW,
    _MEMBER_MODEL,
    _PYRAMID_APP,
    _RECEIPT_MODEL,
    _REINDEX_PROJECT,
    _REINDEX_TASK,
    _REPORT_MIXIN,
    _SAVES_RECEIPT_IN_ATOMIC,
    _SIGNUP_SERVICE,
    _WELCOME_TASK,
    _events_module,
)

VALID = (
    Valid(
        """
from django.views import View
from app.schemas import MappingSchema
from .tasks import reindex

class Migrate(View):
    def post(self, request):
        mappings = MappingSchema().validate(request.POST)
        for old, new in mappings.items():
            reindex.delay(old.strip(), new.strip())
""",
        id="a-read-only-view-reading-a-mapping-of-unknown-type",
        project={
            "app_settings": _ATOMIC_REQUESTS_SETTINGS,
            "app_models": _RECEIPT_MODEL,
            "app_schemas": (
                "from app.base import Schema\n\nclass MappingSchema(Schema):\n    pass\n"
            ),
            "app_base": (
                "class Schema:\n    def validate(self, data):\n        return self.clean(data)\n"
            ),
            "app_tasks": (
                "from celery import shared_task\nfrom app.models import Receipt\n\n"
                "@shared_task\ndef reindex(old, new):\n    return Receipt.objects.count()\n"
            ),
        },
    ),
    Valid(
        """
from django.views import View
from app.models import Receipt
from .tasks import reindex

def unpaid():
    return Receipt.objects.filter(total__gt=0)

class Remind(View):
    def post(self, request):
        for receipt in unpaid().exclude(total=1):
            reindex.delay(receipt.pk)
""",
        id="a-read-only-view-calling-a-method-of-a-queryset-a-helper-returns",
        project={
            "app_settings": _ATOMIC_REQUESTS_SETTINGS,
            "app_models": _RECEIPT_MODEL,
            "app_tasks": (
                "from celery import shared_task\nfrom app.models import Receipt\n\n"
                "@shared_task\ndef reindex(pk):\n    return Receipt.objects.get(pk=pk)\n"
            ),
        },
    ),
    Valid(
        """
from django.views import View
from app.celery import app
from app.models import Receipt

class Resend(View):
    def post(self, request, pk):
        receipt = Receipt.objects.get(pk=pk)
        app.send_task("billing.resend_receipt", args=[receipt.pk])
""",
        id="a-view-writing-nothing-sends-a-task-by-name",
        project={
            "app_settings": _ATOMIC_REQUESTS_SETTINGS,
            "app_models": _RECEIPT_MODEL,
            "app_celery": "from celery import Celery\n\napp = Celery('shop')\n",
        },
    ),
    Valid(
        """
from app.documents import ReceiptDocument
from .tasks import reindex

def reindex_receipts(request):
    search = ReceiptDocument.search().filter("term", total=0)
    if search.execute().hits.total.value:
        reindex.delay()
""",
        id="a-view-whose-only-execute-is-a-search-engines-query",
        project={
            "app_settings": _ATOMIC_REQUESTS_SETTINGS,
            "app_models": _RECEIPT_MODEL,
            "app_tasks": (
                "from celery import shared_task\nfrom app.models import Receipt\n\n"
                "@shared_task\ndef reindex():\n    return Receipt.objects.count()\n"
            ),
            "app_documents": "class ReceiptDocument:\n    pass\n",
        },
    ),
    Valid(
        """
from django.db import transaction
from app.utils import after_commit
from .tasks import send_receipt

def refund(pk):
    with transaction.atomic():
        after_commit(lambda: send_receipt.delay(pk))
""",
        id="a-lambda-handed-to-the-projects-wrapper-of-on-commit",
        project={
            "app_utils": (
                "from django.conf import settings\n"
                "from django.db import transaction\n\n"
                "def after_commit(func):\n"
                "    if settings.CELERY_TASK_ALWAYS_EAGER:\n"
                "        func()\n"
                "    else:\n"
                "        transaction.on_commit(func)\n"
            )
        },
    ),
    Valid(
        """
import django_rq
from django.db import transaction

class Renderer:
    def __init__(self, queue_name, local):
        self.queue = django_rq.get_queue(queue_name)
        self.queue = local

    def render_later(self, **data):
        with transaction.atomic():
            return self.queue.enqueue("render.pdf", **data)
""",
        id="an-attribute-that-holds-an-rq-queue-on-one-line-and-something-else-on-another",
    ),
    Valid(
        """
from django.apps import AppConfig, apps
from django.db.models.signals import post_save
from .tasks import send_receipt

def on_receipt_saved(sender, instance, **kwargs):
    send_receipt.delay(instance.pk)

class ShopConfig(AppConfig):
    def ready(self):
        Receipt = apps.get_model("shop", "Receipt")
        post_save.connect(on_receipt_saved, sender=Receipt)
""",
        id="a-save-receiver-of-a-model-looked-up-at-run-time",
        project={"app_views": _SAVES_RECEIPT_IN_ATOMIC, "app_models": _RECEIPT_MODEL},
    ),
    Valid(
        """
from .tasks import send_receipt

def on_receipt_deleted(sender, instance, **kwargs):
    send_receipt.delay(instance.pk)
""",
        id="a-function-shaped-like-a-receiver-that-nothing-connects",
        project={"app_models": _RECEIPT_MODEL},
    ),
    Valid(
        """
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.delay(order.pk)
""",
        id="tasks-of-an-app-whose-task-class-defers-to-commit",
        project={
            "app_worker": (
                "from celery import Celery, Task\n"
                "from django.db import transaction\n\n"
                "class OnCommitTask(Task):\n"
                "    def apply_async(self, *args, **kwargs):\n"
                "        parent = super()\n"
                "        transaction.on_commit(lambda: parent.apply_async(*args, **kwargs))\n\n"
                "celery = Celery('app')\n"
                "celery.Task = OnCommitTask\n"
            ),
            "app_tasks": (
                "from app.worker import celery\n\n@celery.task\ndef send_receipt(pk): ...\n"
            ),
        },
    ),
    Valid(
        """
from django.views import View
from .tasks import send_receipt

class Checkout(View):
    def post(self, request, pk):
        send_receipt.delay(pk)
""",
        id="a-view-where-only-a-top-level-atomic-requests-is-set",
        project={"app_settings": "ATOMIC_REQUESTS = True\nDATABASES = {'default': {}}\n"},
    ),
    Valid(
        """
from django.views import View
from .tasks import send_receipt

class Checkout(View):
    async def post(self, request, pk):
        send_receipt.delay(pk)
""",
        id="an-async-view-with-atomic-requests",
        project={"app_settings": _ATOMIC_REQUESTS_SETTINGS},
    ),
    Valid(
        """
from django.core.management import call_command
from django.views import View
from .models import Receipt

class Rebuild(View):
    def post(self, request, command):
        Receipt.objects.create(total=0)
        call_command(command)
""",
        id="a-view-running-a-command-it-is-not-told-by-a-literal",
        project=_REINDEX_PROJECT,
    ),
    Valid(
        """
from django.core.management import call_command
from django.db import transaction
from django.utils.decorators import method_decorator
from django.views import View
from .models import Receipt

@method_decorator(transaction.non_atomic_requests, name="dispatch")
class Rebuild(View):
    def post(self, request):
        Receipt.objects.create(total=0)
        call_command("reindex")
""",
        id="a-non-atomic-view-running-a-management-command",
        project=_REINDEX_PROJECT,
    ),
    Valid(
        """
import django
from django.core.management import call_command

def main():
    django.setup()
    call_command("reindex")
""",
        id="a-script-running-a-management-command",
        project=_REINDEX_PROJECT,
    ),
    Valid(
        """
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver
from .models import Receipt
from .tasks import send_receipt

@receiver(post_save, sender=Receipt)
def on_receipt_saved(sender, instance, **kwargs):
    transaction.on_commit(lambda: send_receipt.delay(instance.pk))
""",
        id="a-receiver-enqueueing-on-commit",
        project={
            "app_models": _RECEIPT_MODEL,
            "app_views": _SAVES_RECEIPT_IN_ATOMIC,
        },
    ),
    Valid(
        """
from django.db import transaction
from django.utils.decorators import method_decorator
from django.views import View
from .tasks import send_receipt

class Checkout(View):
    # Every method runs through dispatch: none inside ATOMIC_REQUESTS.
    @method_decorator(transaction.non_atomic_requests)
    def dispatch(self, request, *args, **kwargs):
        return super().dispatch(request, *args, **kwargs)

    def post(self, request, pk):
        send_receipt.delay(pk)
""",
        id="a-view-whose-dispatch-is-non-atomic",
        project={"app_settings": _ATOMIC_REQUESTS_SETTINGS},
    ),
    Valid(
        """
from django.db import transaction
from django.utils.module_loading import import_string

@transaction.atomic
def hold(flight):
    flight.save()
    # The dotted path names a plain object of the project, not a task.
    import_string("app.flights.board").delay(5)
""",
        id="a-non-task-looked-up-by-its-dotted-path",
        project={
            "app_flights": (
                "class Gate:\n"
                "    def delay(self, minutes):\n"
                "        return minutes\n\n\n"
                "board = Gate()\n"
            )
        },
    ),
    Valid(
        _ACTION_RECEIVER,
        id="a-receiver-of-actstream-actions-recorded-outside-transactions",
        project={"app_tasks": _REINDEX_TASK, "app_events": _events_module(False)},
    ),
    Valid(
        """
from .reports import ReceiptReportMixin

class ReceiptExport(ReceiptReportMixin):
    # Not a view nor a model admin: nothing runs report() in a request.
    pass
""",
        id="a-mixin-with-a-request-method-that-no-view-derives-from",
        project={
            "app_settings": _ATOMIC_REQUESTS_SETTINGS,
            "app_models": _RECEIPT_MODEL,
            "app_tasks": _REINDEX_TASK,
            "app_reports": _REPORT_MIXIN,
        },
    ),
    Valid(
        """
from django.apps import AppConfig
from django.db.models.signals import post_save
from .registry import indexed_models
from .tasks import reindex

def on_indexed_saved(sender, instance, **kwargs):
    reindex.delay()

class SearchConfig(AppConfig):
    name = "app"

    def ready(self):
        # Which models the loop connects, no reading of the code tells: the
        # transaction that saves a Receipt may not send this receiver anything.
        for model in indexed_models():
            post_save.connect(on_indexed_saved, sender=model)
""",
        id="a-receiver-of-models-a-loop-over-a-registry-picks",
        project={
            "app_models": _RECEIPT_MODEL,
            "app_views": _SAVES_RECEIPT_IN_ATOMIC,
            "app_tasks": _REINDEX_TASK,
            "app_registry": "def indexed_models():\n    return []\n",
        },
    ),
    Valid(
        """
from django.db.models.signals import post_save
from django.dispatch import receiver
from .models import Receipt
from .tasks import send_receipt

@receiver(post_save, sender=Receipt)
def on_receipt_saved(sender, instance, **kwargs):
    send_receipt.delay(instance.pk)
""",
        id="a-receiver-of-a-model-never-written-inside-a-transaction",
        project={
            "app_models": _RECEIPT_MODEL,
            "app_views": (
                "from app.models import Receipt\n\n"
                "def sell(total):\n"
                "    return Receipt.objects.create(total=total)\n"
            ),
        },
    ),
    Valid(
        """
from django.contrib import admin
from .tasks import send_receipt

class OrderAdmin(admin.ModelAdmin):
    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        send_receipt.delay(None)

    def get_queryset(self, request):
        send_receipt.delay(None)
        return super().get_queryset(request)
""",
        id="admin-actions-and-queries-run-outside-the-admins-transaction",
    ),
    Valid(
        """
from .forms import FormMixin
from .tasks import send_receipt

class OrderForm(FormMixin):
    def save_model(self, request, obj, form, change):
        send_receipt.delay(obj.pk)
""",
        id="a-method-named-like-an-admin-hook-of-a-class-that-is-no-admin",
        project={"app_forms": "class FormMixin:\n    pass\n"},
    ),
    Valid(
        """
from django.db import transaction
from .mail import Receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        Receipt().render(order)
""",
        id="a-method-of-a-new-object-that-enqueues-nothing",
        project={
            "app_mail": (
                "from app.tasks import send_receipt\n\n"
                "class Receipt:\n"
                "    def render(self, order):\n"
                "        return f'receipt {order.pk}'\n\n"
                "    def send(self, order):\n"
                "        send_receipt.delay(order.pk)\n"
            ),
            "app_tasks": _CELERY_TASKS,
        },
    ),
    Valid(
        """
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        def _send():
            send_receipt.delay(order.pk)
        transaction.on_commit(_send)
""",
        id="on-commit-nested-def",
    ),
    Valid(
        """
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.delay_on_commit(order.pk)
        send_receipt.apply_async_on_commit(args=(order.pk,))
""",
        id="delay-on-commit",
    ),
    Valid(
        """
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
    send_receipt.delay(order.pk)
""",
        id="after-the-block",
    ),
    Valid(
        """
from django.db import transaction
from procrastinate.contrib.django import app

@app.task
def send_receipt(order_id): ...

def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.defer(order_id=order.pk)
""",
        id="db-backed-queue",
    ),
    Valid(
        """
from django.db import transaction
from joblint_runtime.outbox import Outbox

outbox = Outbox()

def checkout(conn, order):
    with transaction.atomic():
        order.save()
        outbox.add(conn, "send_receipt", args=(order.pk,))
""",
        id="outbox",
    ),
    Valid(
        """
from django.db import transaction
from django.db.models.signals import post_save

def book(flight, sock, gen):
    with transaction.atomic():
        flight.delay(5)
        post_save.send(sender=None)
        sock.send(b"x")
        gen.send(None)
        flight.schedule()
""",
        id="look-alikes",
    ),
    Valid(
        """
from multiprocessing import Pool
from django.db import transaction

def crunch(items):
    pool = Pool(4)
    with transaction.atomic():
        pool.apply_async(len, (items,))
""",
        id="multiprocessing-apply-async",
    ),
    Valid(
        """
from celery import shared_task
from django.db import transaction

@shared_task
def send_receipt(order_id): ...

def checkout(order):
    with transaction.atomic():
        send_receipt(order.pk)
""",
        id="direct-call-runs-in-process",
    ),
    Valid(
        """
import dramatiq

def notify(sock):
    with sock:
        sock.send(b"ping")
""",
        id="with-non-connection",
    ),
    Valid(
        """
from django.db import models, transaction

class Export(models.Model):
    state = models.CharField(max_length=20)

    @classmethod
    def enqueue_job(cls, owner, fmt):
        return cls.objects.create(owner=owner, format=fmt, state="queued")

def request_export(user):
    with transaction.atomic():
        Export.enqueue_job(user, "csv")
""",
        id="model-classmethod-named-like-arq",
    ),
    Valid(
        """
class Backlog:
    def __init__(self):
        self.rows = []

    def enqueue_job(self, name, *args):
        self.rows.append((name, args))

    def send_task(self, name):
        self.rows.append((name, ()))

    def flush(self, db):
        with db.transaction():
            self.enqueue_job("reindex", 1)
            self.send_task("cleanup")
""",
        id="own-methods-named-like-a-library",
    ),
    Valid(
        """
from django.db import transaction

def schedule_export(client, export):
    with transaction.atomic():
        export.save()
        client.enqueue_job("export", export.pk)
""",
        id="no-queue-library-in-reach",
    ),
    Valid(
        """
from pyramid.view import view_config
from .models import Member

@view_config(route_name="signup", request_method="POST")
def signup(request):
    member = request.dbsession.get(Member, request.POST["id"])
    request.find_service(name="signup").signup(member)
""",
        id="a-pyramid-view-calling-a-service-no-factory-is-registered-for",
        project={
            "app_config": _PYRAMID_APP
            + "    config.register_service_factory('app.services.signup_factory', name='join')\n",
            "app_services": _SIGNUP_SERVICE,
            "app_tasks": _WELCOME_TASK,
            "app_models": _MEMBER_MODEL,
        },
    ),
    Valid(
        _JOIN_VIEW.replace("api_config", "logged"),
        id="a-function-a-project-decorator-wraps-without-registering-a-view",
        project={
            "app_config": _PYRAMID_APP + "\ndef logged(**options):\n"
            "    def wrapper(wrapped):\n"
            "        return wrapped\n"
            "    return wrapper\n",
            "app_tasks": _WELCOME_TASK,
            "app_models": _MEMBER_MODEL,
        },
    ),
    Valid(
        """
import dramatiq
import redis
from dramatiq import group
from django.db import transaction
from sklearn.pipeline import Pipeline

@dramatiq.actor
def notify(pk):
    pass

r = redis.Redis()

def checkout(order, steps):
    with transaction.atomic():
        order.save()
        messages = group([notify.message(order.pk)])
        r.pipeline().set("seen", 1).execute()
        Pipeline(steps).run()
    messages.run()
    dramatiq.get_broker().enqueue(notify.message(order.pk))
""",
        id="dramatiq-messages-built-inside-atomic-and-sent-after-it",
    ),
    # --- Huey look-alikes ------------------------------------------------------------
    Valid(
        """
from django.db import transaction
from huey.contrib.djhuey import HUEY

@HUEY.task()
def shelve_book(book_id): ...

def _shelve_now(book):
    shelve_book.call_local(book.pk)

def lend(book, slot):
    with transaction.atomic():
        book.save()
        slot.schedule(args=(book.pk,), delay=300)
        _shelve_now(book)
""",
        id="a-huey-tasks-call-local-and-a-model-schedule-inside-atomic",
    ),
    Valid(
        """
from django.db import transaction
from app.queue import huey

@huey.task()
def stamp_card(card_id): ...

def _stamp(card):
    stamp_card(card.pk)

def renew(card):
    with transaction.atomic():
        card.save()
    _stamp(card)
    stamp_card.schedule(args=(card.pk,), delay=60)
""",
        id="a-huey-task-called-through-a-helper-after-atomic",
        project={"app_queue": "from huey.contrib.djhuey import HUEY as huey\n"},
    ),
)
