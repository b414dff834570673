"""The full example suite of `joblint.rules.transactions.enqueue_in_transaction`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

_CELERY_TASKS = "from celery import shared_task\n\n@shared_task\ndef send_receipt(pk): ...\n"
_RECEIPT_MODEL = (
    "from django.db import models\n\n"
    "class Receipt(models.Model):\n"
    "    total = models.IntegerField()\n"
)
_ATOMIC_REQUESTS_SETTINGS = "DATABASES = {'default': {'NAME': 'shop', 'ATOMIC_REQUESTS': True}}\n"
_REINDEX_TASK = (
    "from celery import shared_task\n"
    "from app.models import Receipt\n\n"
    "@shared_task\n"
    "def reindex():\n"
    "    return Receipt.objects.count()\n"
)
# `call_command("reindex")` runs its `Command.handle`.
_REINDEX_COMMAND = (
    "from django.core.management.base import BaseCommand\n"
    "from app.tasks import reindex\n\n"
    "class Command(BaseCommand):\n"
    "    def handle(self, *args, **options):\n"
    "        reindex.delay()\n"
)
# A project under ATOMIC_REQUESTS whose `reindex` command enqueues a task reading receipts.
_REINDEX_PROJECT = {
    "app_settings": _ATOMIC_REQUESTS_SETTINGS,
    "app_models": _RECEIPT_MODEL,
    "app_tasks": _REINDEX_TASK,
    "app_management_commands_reindex": _REINDEX_COMMAND,
}
# A Pyramid app including pyramid_tm, a signup service and the task it enqueues.
_PYRAMID_APP = (
    "def includeme(config):\n"
    "    config.include('pyramid_tm')\n"
    "    config.include('pyramid_services')\n"
)
_SIGNUP_SERVICE = (
    "from app.tasks import send_welcome\n\n"
    "class SignupService:\n"
    "    def __init__(self, session):\n"
    "        self.session = session\n\n"
    "    def signup(self, member):\n"
    "        member.active = True\n"
    "        self._welcome(member)\n\n"
    "    def _welcome(self, member):\n"
    "        send_welcome.delay(member.id)\n\n"
    "def signup_factory(context, request):\n"
    "    return SignupService(request.dbsession)\n"
)
_WELCOME_TASK = (
    "from celery import shared_task\n"
    "from app.models import Member\n\n"
    "@shared_task\n"
    "def send_welcome(member_id):\n"
    "    return Member.get(member_id).email\n"
)
_MEMBER_MODEL = (
    "from sqlalchemy import Boolean, Column, Integer\n"
    "from sqlalchemy.orm import declarative_base\n\n"
    "class Member(declarative_base()):\n"
    "    __tablename__ = 'members'\n"
    "    id = Column(Integer, primary_key=True)\n"
    "    active = Column(Boolean)\n"
)
# A view decorated by the project's own decorator factory (`app/config.py`).
_JOIN_VIEW = """
from .config import api_config
from .models import Member
from .tasks import send_welcome

@api_config(route_name="join", request_method="POST")
def join(request):
    member = request.dbsession.get(Member, request.POST["id"])
    member.active = True
    send_welcome.delay(member.id)
"""
_SAVES_RECEIPT_IN_ATOMIC = (
    "from django.db import transaction\n"
    "from app.models import Receipt\n\n"
    "@transaction.atomic\n"
    "def sell(total):\n"
    "    return Receipt.objects.create(total=total)\n"
)

_REPORT_MIXIN = (
    "from app.models import Receipt\n"
    "from app.tasks import reindex\n\n"
    "class ReceiptReportMixin:\n"
    '    actions = ["report"]\n\n'
    "    def report(self, request, queryset):\n"
    "        # An admin action of every model admin deriving from the mixin.\n"
    "        Receipt.objects.create(total=queryset.count())\n"
    "        reindex.delay()\n"
)

_ACTION_RECEIVER = """
from django.apps import apps
from django.db.models.signals import post_save
from .tasks import reindex

def on_action(sender, instance, **kwargs):
    reindex.delay()

def connect_handlers():
    Action = apps.get_model("actstream", "Action")
    post_save.connect(on_action, sender=Action)
"""


def _events_module(inside_transaction: bool) -> str:
    """A registry's kinds record actstream actions; `edit()` records one,
    inside `transaction.atomic()` or not."""
    record = (
        "    with transaction.atomic():\n        receipt.save()\n        edited.record(receipt)\n"
        if inside_transaction
        else "    receipt.save()\n    edited.record(receipt)\n"
    )
    return (
        "from actstream import action\n"
        "from django.db import transaction\n\n"
        "class Kind:\n"
        "    def record(self, actor):\n"
        "        action.send(actor, verb='edited')\n\n"
        "class Registry:\n"
        "    def add_kind(self):\n"
        "        kind = Kind()\n"
        "        return kind\n\n"
        "registry = Registry()\n"
        "edited = registry.add_kind()\n\n"
        "def edit(receipt):\n" + record
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
from joblint.runtime.outbox import Outbox

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
    # --- taskiq look-alikes ----------------------------------------------------------
    Valid(
        """
from sqlalchemy.ext.asyncio import async_sessionmaker
from app.tasks import water_bed

Session = async_sessionmaker()

async def plant(bed):
    async with Session.begin() as session:
        session.add(bed)
        kicker = water_bed.kicker().with_labels(priority=1).with_task_id(bed.tag)
    await kicker.kiq(bed.id)
""",
        id="a-taskiq-kicker-built-inside-an-async-session-begin-and-sent-after-it",
        project={
            "app_tasks": (
                "from taskiq_redis import ListQueueBroker\n\n"
                "broker = ListQueueBroker('redis://')\n\n"
                "@broker.task\n"
                "async def water_bed(bed_id: int) -> None: ...\n"
            )
        },
    ),
    Valid(
        """
import psycopg
from app.tasks import weigh_hive

async def _weigh(hive_id):
    await weigh_hive.kiq(hive_id)

def _weighing(hive_id):
    return weigh_hive.kicker().with_labels(source="inspection")

async def inspect(hive):
    async with await psycopg.AsyncConnection.connect("dbname=apiary") as conn:
        async with conn.transaction():
            await conn.execute("UPDATE hives SET seen = now() WHERE id = %s", (hive.id,))
            kicker = _weighing(hive.id)
    await _weigh(hive.id)
    await kicker.kiq(hive.id)
""",
        id="an-async-helper-kiqing-awaited-after-a-psycopg-async-transaction",
        project={
            "app_tasks": (
                "from taskiq_redis import ListQueueBroker\n\n"
                "broker = ListQueueBroker('redis://')\n\n"
                "@broker.task\n"
                "async def weigh_hive(hive_id: int) -> None: ...\n"
            )
        },
    ),
    # --- a wrapper that commits before it enqueues; an __enter__ opening nothing ------
    Valid(
        """
import psycopg
from app.orders import record_and_announce

def place(dsn, order):
    with psycopg.connect(dsn) as conn:
        record_and_announce(conn, order)
""",
        id="a-wrapper-in-another-module-committing-before-it-calls-the-enqueue-helper",
        project={
            "app_orders": (
                "from app.notify import announce\n\n"
                "def record_and_announce(conn, order):\n"
                "    conn.execute('INSERT INTO orders VALUES (%s)', (order.id,))\n"
                "    conn.commit()\n"
                "    announce(order.id)\n"
            ),
            "app_notify": (
                "from app.tasks import send_receipt\n\n"
                "def announce(order_id):\n"
                "    send_receipt.delay(order_id)\n"
            ),
            "app_tasks": _CELERY_TASKS,
        },
    ),
    Valid(
        """
import psycopg2
from app.members import save_then_welcome

conn = psycopg2.connect("dbname=club")

def join(member):
    with conn:
        save_then_welcome(conn, member)
""",
        id="a-psycopg2-block-calling-a-wrapper-that-commits-then-enqueues-through-a-helper",
        project={
            "app_members": (
                "from app.mail import welcome\n\n"
                "def save_then_welcome(db, member):\n"
                "    with db.cursor() as cursor:\n"
                "        cursor.execute('INSERT INTO members VALUES (%s)', (member.id,))\n"
                "    db.commit()\n"
                "    welcome(member)\n"
            ),
            "app_mail": (
                "from app.tasks import send_receipt\n\n"
                "def welcome(member):\n"
                "    send_receipt.delay(member.pk)\n"
            ),
            "app_tasks": _CELERY_TASKS,
        },
    ),
    Valid(
        """
import threading
from app.tasks import send_receipt

class Guarded:
    def __init__(self):
        self._lock = threading.Lock()

    def __enter__(self):
        self._lock.__enter__()
        return self

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)

def checkout(order):
    with Guarded():
        send_receipt.delay(order.pk)
""",
        id="a-class-whose-enter-takes-a-lock-not-a-transaction",
        project={"app_tasks": _CELERY_TASKS},
    ),
)

INVALID = (
    invalid(
        """
from django.views import View
from app.registry import RECEIPTS
from .tasks import send_receipt

def lookup(pk):
    return RECEIPTS[pk]

class Publish(View):
    def post(self, request, pk):
        lookup(pk).publish()
        send_receipt.delay(pk)
""",
        (12, 9, "inside Publish.post(), a view Django runs inside a transaction (ATOMIC_REQUESTS)"),
        id="a-view-calling-a-method-of-a-value-of-unknown-type-a-helper-returns",
        app_settings=_ATOMIC_REQUESTS_SETTINGS,
        app_registry="RECEIPTS = {}\n",
    ),
    invalid(
        """
from django.views import View
from app.celery import app
from app.models import Receipt

class Void(View):
    def post(self, request, pk):
        Receipt.objects.filter(pk=pk).update(total=0)
        app.send_task("billing.resend_receipt", args=[pk])
""",
        (9, 9, "inside Void.post(), a view Django runs inside a transaction (ATOMIC_REQUESTS)"),
        id="a-view-writing-a-row-sends-a-task-by-name",
        app_settings=_ATOMIC_REQUESTS_SETTINGS,
        app_models=_RECEIPT_MODEL,
        app_celery="from celery import Celery\n\napp = Celery('shop')\n",
    ),
    invalid(
        _JOIN_VIEW,
        (
            10,
            5,
            "inside join() (line 7), a Pyramid view (app/example.py:7) run inside the "
            "request's transaction (pyramid_tm)",
        ),
        id="a-pyramid-view-a-project-wrapper-of-view-config-registers",
        app_config=_PYRAMID_APP + "\nfrom pyramid.view import view_config\n\n"
        "def api_config(**settings):\n"
        "    settings.setdefault('renderer', 'json')\n"
        "    return view_config(**settings)\n",
        app_tasks=_WELCOME_TASK,
        app_models=_MEMBER_MODEL,
    ),
    invalid(
        """
from pyramid.view import view_config
from .models import Member

@view_config(route_name="signup", request_method="POST")
def signup(request):
    member = request.dbsession.get(Member, request.POST["id"])
    service = request.find_service(name="signup")
    service.signup(member)
""",
        (
            "app/services.py",
            12,
            9,
            "inside _welcome() (line 11), which signup(), a Pyramid view run inside the "
            "request's transaction (pyramid_tm), calls: signup() → service.signup() at "
            "app/example.py:9 → self._welcome() at app/services.py:9",
        ),
        id="a-pyramid-view-calling-a-service-its-registered-factory-makes",
        app_config=_PYRAMID_APP
        + "    config.register_service_factory('.services.signup_factory', name='signup')\n",
        app_services=_SIGNUP_SERVICE,
        app_tasks=_WELCOME_TASK,
        app_models=_MEMBER_MODEL,
    ),
    invalid(
        """
from django.db import transaction
from app.utils import now
from .tasks import send_receipt

def refund(pk):
    with transaction.atomic():
        now(lambda: send_receipt.delay(pk))
""",
        (8, 21, "inside transaction.atomic() (line 7)"),
        id="a-lambda-handed-to-a-project-function-that-runs-it-now",
        app_utils="def now(func):\n    return func()\n",
    ),
    invalid(
        """
from django.db import models
from .tasks import send_receipt

class Receipt(models.Model):
    total = models.IntegerField()

    def void(self):
        self.total = 0
        self.save()
        send_receipt.delay(self.pk)
""",
        (11, 9, "which Void.post(), a view run inside the request's transaction (ATOMIC_REQUESTS)"),
        id="a-view-a-crud-class-nests-whose-get-object-fetches-the-outer-model",
        app_models="from app.example import Receipt\n",
        app_views=(
            "from smartmin.views import SmartCRUDL, SmartUpdateView\n"
            "from app.models import Receipt\n\n"
            "class ReceiptCRUDL(SmartCRUDL):\n"
            "    model = Receipt\n\n"
            "    class Void(SmartUpdateView):\n"
            "        def post(self, request, *args, **kwargs):\n"
            "            receipt = self.get_object()\n"
            "            receipt.void()\n"
        ),
        app_settings=_ATOMIC_REQUESTS_SETTINGS,
    ),
    invalid(
        """
from django.views import View
from .tasks import send_receipt

class Checkout(View):
    def post(self, request, pk):
        send_receipt.delay(pk)
""",
        (7, 9, "a view Django runs inside a transaction (ATOMIC_REQUESTS)"),
        id="atomic-requests-in-a-database-config-the-settings-name",
        app_settings=(
            "_default = {'NAME': 'shop', 'ATOMIC_REQUESTS': True}\n"
            "DATABASES = {'default': _default, 'replica': _default.copy()}\n"
        ),
    ),
    invalid(
        """
from django.db import models
from .tasks import send_receipt

class Receipt(models.Model):
    total = models.IntegerField()

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        send_receipt.delay(self.pk)
""",
        (10, 9, "which refund(), a view run inside the request's transaction (ATOMIC_REQUESTS)"),
        id="a-models-save-that-a-views-manager-write-runs",
        app_models="from app.example import Receipt\n",
        app_views=(
            "from app.models import Receipt\n\n"
            "def refund(request, total):\n"
            "    Receipt.objects.update_or_create(total=total)\n"
        ),
        app_settings=_ATOMIC_REQUESTS_SETTINGS,
    ),
    invalid(
        """
from sqlalchemy.ext.asyncio import AsyncSession
from taskiq_redis import ListQueueBroker

broker = ListQueueBroker("redis://localhost")

@broker.task
async def send_receipt(order_id): ...

async def checkout(session: AsyncSession, order):
    async with session.begin():
        session.add(order)
        await send_receipt.kicker().with_labels(priority=1).kiq(order.id)
""",
        (
            13,
            15,
            "a taskiq kicker is enqueued inside session.begin() (line 11)",
        ),
        id="a-taskiq-kicker-sent-inside-an-async-session-transaction",
    ),
    invalid(
        """
from django.db import transaction
from django.tasks import task

@task()
def send_receipt(order_id): ...

@transaction.atomic
def checkout(order):
    order.save()
    send_receipt.using(priority=10).enqueue(order.pk)
""",
        (
            11,
            5,
            "Django task 'send_receipt' is enqueued inside @transaction.atomic (line 9)",
        ),
        id="a-django-task-copy-enqueued-inside-atomic",
        fixed="""
from django.db import transaction
from django.tasks import task

@task()
def send_receipt(order_id): ...

@transaction.atomic
def checkout(order):
    order.save()
    transaction.on_commit(lambda: send_receipt.using(priority=10).enqueue(order.pk))
""",
    ),
    invalid(
        """
from celery import current_app
from django.db import transaction

@transaction.atomic
def rebuild(receipt):
    receipt.save()
    current_app.tasks["app.tasks.reindex"].delay()
""",
        (
            8,
            5,
            "Celery task 'reindex' is enqueued inside @transaction.atomic (line 6)",
        ),
        id="a-task-looked-up-in-celerys-registry-inside-atomic",
        fixed="""
from celery import current_app
from django.db import transaction

@transaction.atomic
def rebuild(receipt):
    receipt.save()
    transaction.on_commit(lambda: current_app.tasks["app.tasks.reindex"].delay())
""",
        app_tasks=_REINDEX_TASK,
    ),
    invalid(
        """
from django.db import transaction
from django.utils.module_loading import import_string

@transaction.atomic
def rebuild(receipt):
    receipt.save()
    import_string("app.tasks.reindex").delay()
""",
        (
            8,
            5,
            "Celery task 'reindex' is enqueued inside @transaction.atomic (line 6)",
        ),
        id="a-task-looked-up-by-its-dotted-path-inside-atomic",
        fixed="""
from django.db import transaction
from django.utils.module_loading import import_string

@transaction.atomic
def rebuild(receipt):
    receipt.save()
    transaction.on_commit(lambda: import_string("app.tasks.reindex").delay())
""",
        app_tasks=_REINDEX_TASK,
    ),
    invalid(
        """
import django_rq
from django.db import transaction

class Renderer:
    def __init__(self, queue_name):
        self.queue = django_rq.get_queue(queue_name)

    def render_later(self, **data):
        with transaction.atomic():
            return self.queue.enqueue("render.pdf", **data)
""",
        (11, 20, "inside transaction.atomic() (line 10)"),
        id="an-rq-queue-held-in-an-attribute-its-init-sets",
    ),
    invalid(
        """
from .tasks import send_receipt

def on_receipt_deleted(sender, instance, **kwargs):
    send_receipt.delay(instance.pk)
""",
        (5, 5, "receiving Receipt's post_delete (connected at app/apps.py:7)"),
        id="a-receiver-connected-through-a-re-export",
        app_models=_RECEIPT_MODEL,
        app_signals="from app.example import on_receipt_deleted\n",
        app_apps=(
            "from django.db.models.signals import post_delete\n"
            "from app.models import Receipt\n"
            "from app.signals import on_receipt_deleted\n\n"
            "class ShopConfig:\n"
            "    def ready(self):\n"
            "        post_delete.connect(on_receipt_deleted, sender=Receipt)\n"
        ),
    ),
    invalid(
        """
from guardian.admin import GuardedModelAdmin
from .tasks import send_receipt

class OrderAdmin(GuardedModelAdmin):
    def delete_model(self, request, obj):
        send_receipt.delay(obj.pk)
        super().delete_model(request, obj)
""",
        (
            7,
            9,
            "inside OrderAdmin.delete_model(), which Django's admin runs inside "
            "transaction.atomic() (line 6)",
        ),
        id="django-admin-hook-of-a-packages-model-admin",
    ),
    invalid(
        """
from django.db.models.signals import post_delete
from django.dispatch import receiver
from .tasks import send_receipt

@receiver(post_delete)
def on_anything_deleted(sender, instance, **kwargs):
    send_receipt.delay(instance.pk)
""",
        (
            8,
            5,
            "inside on_anything_deleted(), receiving post_delete (line 7), which Django sends "
            "inside the transaction it opens for the delete",
        ),
        id="a-delete-receiver-for-every-model",
    ),
    invalid(
        """
from .tasks import send_receipt

def on_receipt_deleted(sender, instance, **kwargs):
    send_receipt.delay(instance.pk)
""",
        (
            5,
            5,
            "inside on_receipt_deleted() (line 4), receiving Receipt's post_delete (connected at "
            "app/apps.py:9), which Django sends inside the transaction it opens for the delete",
        ),
        id="a-receiver-connected-by-another-module",
        app_models=_RECEIPT_MODEL,
        app_apps=(
            "from django.apps import AppConfig\n"
            "from django.db.models.signals import post_delete\n\n"
            "class ShopConfig(AppConfig):\n"
            "    def ready(self):\n"
            "        from .example import on_receipt_deleted\n"
            "        from .models import Receipt\n\n"
            "        post_delete.connect(on_receipt_deleted, sender=Receipt)\n"
        ),
    ),
    invalid(
        """
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.enqueue(order.pk)
""",
        (8, 9, "task 'send_receipt' is enqueued inside transaction.atomic() (line 6)"),
        fixed="""
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        transaction.on_commit(lambda: send_receipt.enqueue(order.pk))
""",
        id="a-django-task-imported-from-another-module",
        app_tasks="from django.tasks import task\n\n@task\ndef send_receipt(pk): ...\n",
    ),
    invalid(
        """
from django.db.models.signals import post_delete
from .models import Receipt
from .tasks import send_receipt

def on_receipt_deleted(sender, instance, **kwargs):
    send_receipt.delay(instance.pk)

post_delete.connect(on_receipt_deleted, sender=Receipt)
""",
        (
            7,
            5,
            "inside on_receipt_deleted(), receiving Receipt's post_delete (line 6), which Django "
            "sends inside the transaction it opens for the delete (Collector.delete())",
        ),
        id="a-delete-receiver-runs-inside-djangos-own-transaction",
        app_models=_RECEIPT_MODEL,
    ),
    invalid(
        """
from django.views import View
from .tasks import send_receipt

class Checkout(View):
    def post(self, request, pk):
        send_receipt.delay(pk)
""",
        (
            7,
            9,
            "task 'send_receipt' is enqueued inside Checkout.post(), a view Django runs inside "
            "a transaction (ATOMIC_REQUESTS) (line 6)",
        ),
        id="a-class-based-view-with-atomic-requests",
        app_settings=_ATOMIC_REQUESTS_SETTINGS,
    ),
    invalid(
        """
import django_rq
from django.db import transaction
from .jobs import send_receipt

@transaction.atomic
def checkout(order):
    order.save()
    django_rq.enqueue(send_receipt, order.pk)
""",
        (
            9,
            5,
            "RQ job 'send_receipt' is enqueued inside @transaction.atomic (line 7)",
        ),
        id="django-rq-enqueue-function-inside-atomic",
        fixed="""
import django_rq
from django.db import transaction
from .jobs import send_receipt

@transaction.atomic
def checkout(order):
    order.save()
    transaction.on_commit(lambda: django_rq.enqueue(send_receipt, order.pk))
""",
    ),
    invalid(
        _ACTION_RECEIVER,
        (
            7,
            5,
            "receiving Action's post_save (line 6), sent inside the transaction that saves the "
            "Action (Action is created by action.send() at app/events.py:6, in record(), which "
            "edit() calls inside a transaction at app/events.py:19)",
        ),
        id="a-receiver-of-actstream-actions-recorded-inside-a-transaction",
        app_tasks=_REINDEX_TASK,
        app_events=_events_module(True),
    ),
    invalid(
        """
from reversion.admin import VersionAdmin
from .reports import ReceiptReportMixin

class ReceiptAdmin(ReceiptReportMixin, VersionAdmin):
    list_display = ["total"]
""",
        (
            "app/reports.py",
            10,
            9,
            "Celery task 'reindex' is enqueued inside report() (line 7), a method of the "
            "model admin ReceiptAdmin (app/reports.py:7) run inside the request's transaction",
        ),
        id="an-admin-action-a-mixin-gives-a-model-admin",
        app_settings=_ATOMIC_REQUESTS_SETTINGS,
        app_models=_RECEIPT_MODEL,
        app_tasks=_REINDEX_TASK,
        app_reports=_REPORT_MIXIN,
    ),
    invalid(
        """
from django.core import management
from django.views import View
from .models import Receipt

class Rebuild(View):
    def post(self, request):
        Receipt.objects.create(total=0)
        management.call_command("reindex", verbosity=0)
""",
        (
            "app/management/commands/reindex.py",
            6,
            9,
            "task 'reindex' is enqueued inside handle() (line 5), which Rebuild.post(), "
            "a view run inside the request's transaction (ATOMIC_REQUESTS), calls: post() → "
            'management.call_command("reindex") at app/example.py:9',
        ),
        id="a-view-running-a-management-command-with-atomic-requests",
        app_settings=_ATOMIC_REQUESTS_SETTINGS,
        app_models=_RECEIPT_MODEL,
        app_tasks=_REINDEX_TASK,
        app_management_commands_reindex=_REINDEX_COMMAND,
    ),
    invalid(
        """
from django.db.models.signals import post_save
from django.dispatch import receiver
from .models import Receipt
from .tasks import send_receipt

@receiver(post_save, sender=Receipt)
def on_receipt_saved(sender, instance, created, **kwargs):
    if created:
        send_receipt.delay(instance.pk)
""",
        (
            10,
            9,
            "task 'send_receipt' is enqueued inside on_receipt_saved(), receiving Receipt's "
            "post_save (line 8), sent inside the transaction that saves the Receipt (Receipt "
            "is created by Receipt.objects.create() inside a transaction at app/views.py:6)",
        ),
        id="a-post-save-receiver-of-a-model-saved-inside-a-transaction",
        app_models=_RECEIPT_MODEL,
        app_views=_SAVES_RECEIPT_IN_ATOMIC,
    ),
    invalid(
        """
from django.db.models.signals import post_save
from django.dispatch import receiver
from .tasks import audit

@receiver(post_save)
def on_any_save(sender, instance, **kwargs):
    audit.delay(sender._meta.label, instance.pk)
""",
        (
            8,
            5,
            "task 'audit' is enqueued inside on_any_save(), receiving post_save (line 7), sent "
            "inside the transaction that saves a model (Receipt is saved by "
            "Receipt.objects.create() inside a transaction at app/views.py:6)",
        ),
        id="a-receiver-of-every-model-s-post-save",
        app_models=_RECEIPT_MODEL,
        app_views=_SAVES_RECEIPT_IN_ATOMIC,
    ),
    invalid(
        """
from django.apps import AppConfig
from django.db.models.signals import post_save
from .models import Receipt
from .tasks import send_receipt

class ShopConfig(AppConfig):
    name = "app"

    def ready(self):
        post_save.connect(self.on_receipt_saved, sender=Receipt)

    def on_receipt_saved(self, sender, instance, **kwargs):
        send_receipt.delay(instance.pk)
""",
        (
            14,
            9,
            "inside on_receipt_saved(), receiving Receipt's post_save (line 13), sent inside the "
            "transaction that saves the Receipt (Receipt is registered in Django's admin at "
            "app/admin.py:4, which writes it inside transaction.atomic())",
        ),
        id="a-receiver-connected-in-ready-of-a-model-the-admin-saves",
        app_models=_RECEIPT_MODEL,
        app_admin=(
            "from django.contrib import admin\n"
            "from app.models import Receipt\n\n"
            "admin.site.register(Receipt)\n"
        ),
    ),
    invalid(
        """
from django.contrib import admin
from .tasks import send_receipt

class OrderAdmin(admin.ModelAdmin):
    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        send_receipt.delay(obj.pk)
""",
        (
            8,
            9,
            "task 'send_receipt' is enqueued inside OrderAdmin.save_model(), which Django's "
            "admin runs inside transaction.atomic() (line 6)",
        ),
        id="django-admin-save-model",
    ),
    invalid(
        """
from .admins import ShopAdmin
from .mail import Mailer

class OrderAdmin(ShopAdmin):
    def response_change(self, request, obj):
        Mailer().send(obj)
        return super().response_change(request, obj)
""",
        (
            7,
            9,
            "Mailer().send() is called inside OrderAdmin.response_change(), which Django's "
            "admin runs inside transaction.atomic() (line 6) and enqueues",
        ),
        id="django-admin-hook-of-a-project-admin-class-through-a-helper",
        app_admins="from django.contrib import admin\n\nclass ShopAdmin(admin.ModelAdmin):\n"
        "    list_per_page = 20\n",
        app_mail=(
            "from app.tasks import send_receipt\n\n"
            "class Mailer:\n"
            "    def send(self, order):\n"
            "        send_receipt.delay(order.pk)\n"
        ),
        app_tasks=_CELERY_TASKS,
    ),
    invalid(
        """
from django.db import transaction
from .mail import Mailer

def checkout(order):
    with transaction.atomic():
        order.save()
        Mailer().send(order)
""",
        (8, 9, "Mailer().send() is called inside transaction.atomic() (line 6) and enqueues"),
        id="a-method-of-a-new-object-enqueues",
        app_mail=(
            "from app.tasks import send_receipt\n\n"
            "class Mailer:\n"
            "    def send(self, order):\n"
            "        send_receipt.delay(order.pk)\n"
        ),
        app_tasks=_CELERY_TASKS,
    ),
    invalid(
        """
from django.db import transaction
from .processing import processor
from .models import Export
from .tasks import send_receipt

def checkout(order, user):
    with transaction.atomic():
        order.save()
        processor.delay("receipt", order.pk)
        Export.enqueue_job(user, "csv")
        send_receipt.delay(order.pk)
""",
        (12, 9, "RQ job 'send_receipt' is enqueued inside transaction.atomic() (line 8)"),
        fixed="""
from django.db import transaction
from .processing import processor
from .models import Export
from .tasks import send_receipt

def checkout(order, user):
    with transaction.atomic():
        order.save()
        processor.delay("receipt", order.pk)
        Export.enqueue_job(user, "csv")
        transaction.on_commit(lambda: send_receipt.delay(order.pk))
""",
        id="project-objects-beside-a-task",
        app_processing=(
            "class Processor:\n"
            "    def delay(self, name, *args):\n"
            "        Pending.objects.create(name=name, args=list(args))\n\n"
            "processor = Processor()\n"
        ),
        app_models=(
            "from django.db import models\n\n"
            "class Export(models.Model):\n"
            "    @classmethod\n"
            "    def enqueue_job(cls, owner, fmt):\n"
            "        return cls.objects.create(owner=owner, format=fmt)\n"
        ),
        app_tasks="from rq import job\n\n@job('default')\ndef send_receipt(pk): ...\n",
    ),
    invalid(
        """
from arq.connections import ArqRedis
from django.db import transaction

async def schedule_export(redis: ArqRedis, export):
    with transaction.atomic():
        export.save()
        await redis.enqueue_job("export", export.pk)
""",
        (8, 15, "arq job 'export' is enqueued inside transaction.atomic() (line 6)"),
        id="arq-in-reach",
    ),
    invalid(
        """
from django.db import transaction
from .worker import WorkerSettings

async def schedule_export(pool, export):
    with transaction.atomic():
        export.save()
        await pool.enqueue_job("export", export.pk, _queue_name=WorkerSettings.queue_name)
""",
        (8, 15, "arq job 'export' is enqueued"),
        id="arq-in-reach-through-a-project-module",
        app_worker="from arq.connections import RedisSettings\n\nclass WorkerSettings:\n"
        "    queue_name = 'exports'\n    redis_settings = RedisSettings()\n",
    ),
    invalid(
        """
from django.db import transaction
from .tasks import refresh_report

def rebuild(report):
    with transaction.atomic(using="replica"):
        refresh_report.delay(report.pk)
    with transaction.atomic(using="orders"):
        report.save(using="orders")
        refresh_report.delay(report.pk)
""",
        (10, 9, "task 'refresh_report' is enqueued inside transaction.atomic()"),
        config={"read-only-databases": ["replica"]},
        fixed="""
from django.db import transaction
from .tasks import refresh_report

def rebuild(report):
    with transaction.atomic(using="replica"):
        refresh_report.delay(report.pk)
    with transaction.atomic(using="orders"):
        report.save(using="orders")
        transaction.on_commit(lambda: refresh_report.delay(report.pk), using="orders")
""",
        id="read-only-database-in-config",
    ),
    invalid(
        """
from django.db import transaction
from .tasks import refresh_report

REPORTING = "reporting"

@transaction.atomic(using="replica")
def from_replica(report):
    refresh_report.delay(report.pk)

def from_reporting(report):
    with transaction.atomic(using=REPORTING):
        refresh_report.delay(report.pk)
    with transaction.atomic(using="default"):
        report.save()
        refresh_report.delay(report.pk)
""",
        (16, 9, "task 'refresh_report' is enqueued inside transaction.atomic()"),
        fixed="""
from django.db import transaction
from .tasks import refresh_report

REPORTING = "reporting"

@transaction.atomic(using="replica")
def from_replica(report):
    refresh_report.delay(report.pk)

def from_reporting(report):
    with transaction.atomic(using=REPORTING):
        refresh_report.delay(report.pk)
    with transaction.atomic(using="default"):
        report.save()
        transaction.on_commit(lambda: refresh_report.delay(report.pk))
""",
        id="read-only-databases-from-settings-and-routers",
        proj_settings=(
            "DATABASES = {\n"
            '    "default": {"NAME": "shop"},\n'
            '    "replica": {"NAME": "shop", "TEST": {"MIRROR": "default"}},\n'
            "}\n"
        ),
        proj_routers=(
            "class ReportingRouter:\n"
            "    def db_for_read(self, model, **hints):\n"
            '        return "reporting"\n\n'
            "    def db_for_write(self, model, **hints):\n"
            '        return "default"\n'
        ),
    ),
    invalid(
        """
from django.db.transaction import atomic
from .db import transaction
from .tasks import send_receipt

def checkout(order):
    with atomic():
        send_receipt.delay(order.pk)
""",
        (8, 9, "task 'send_receipt' is enqueued inside atomic()"),
        id="no-fix-when-transaction-is-another-name",
    ),
    invalid(
        """
from django.db import transaction
from .tasks import send_receipt

def checkout(orders):
    with transaction.atomic():
        for order in orders:
            order.save()
            send_receipt.delay(order.pk)
""",
        (9, 13, "task 'send_receipt' is enqueued inside transaction.atomic()"),
        fixed="""
from django.db import transaction
from .tasks import send_receipt

def checkout(orders):
    with transaction.atomic():
        for order in orders:
            order.save()
            transaction.on_commit(lambda order=order: send_receipt.delay(order.pk))
""",
        id="loop-variable-bound-as-default",
    ),
    invalid(
        """
from django.db import transaction
from .tasks import send_receipt

@transaction.atomic
def checkout(order):
    order.save()
    send_receipt.apply_async(args=(order.pk,), countdown=10)
""",
        (8, 5, "@transaction.atomic (line 6)"),
        fixed="""
from django.db import transaction
from .tasks import send_receipt

@transaction.atomic
def checkout(order):
    order.save()
    transaction.on_commit(lambda: send_receipt.apply_async(args=(order.pk,), countdown=10))
""",
        id="decorator",
    ),
    invalid(
        """
from django.db.transaction import atomic
from celery import shared_task

@shared_task
def send_receipt(order_id): ...

@atomic(using="default")
def checkout(order):
    send_receipt.delay(order.pk)
""",
        (10, 5, "use send_receipt.delay_on_commit(...)"),
        fixed="""
from django.db.transaction import atomic
from celery import shared_task
from django.db import transaction

@shared_task
def send_receipt(order_id): ...

@atomic(using="default")
def checkout(order):
    transaction.on_commit(lambda: send_receipt.delay(order.pk))
""",
        id="decorator-with-args",
    ),
    invalid(
        """
from django.db import transaction as tx
from django.utils.decorators import method_decorator
from django.views import View
from .tasks import send_receipt

@method_decorator(tx.atomic, name="post")
class Checkout(View):
    def post(self, request):
        send_receipt.delay(1)
""",
        (10, 9, "method_decorator"),
        fixed="""
from django.db import transaction as tx
from django.utils.decorators import method_decorator
from django.views import View
from .tasks import send_receipt

@method_decorator(tx.atomic, name="post")
class Checkout(View):
    def post(self, request):
        tx.on_commit(lambda: send_receipt.delay(1))
""",
        id="method-decorator-on-class",
    ),
    invalid(
        """
import rq
from redis import Redis

queue = rq.Queue(connection=Redis())

def save(session, user):
    with session.begin():
        session.add(user)
        queue.enqueue(welcome, user.id)
""",
        (10, 9, "RQ job 'welcome' is enqueued inside session.begin()"),
        id="rq-in-sqlalchemy",
    ),
    invalid(
        """
import psycopg2
import boto3

sqs = boto3.client("sqs")

def save(dsn, body):
    conn = psycopg2.connect(dsn)
    with conn:
        conn.cursor().execute("insert into t values (1)")
        sqs.send_message(QueueUrl="q", MessageBody=body)
""",
        (11, 9, "an SQS message is sent inside with conn"),
        id="sqs-in-psycopg2-with-conn",
    ),
    invalid(
        """
from django.db import transaction
from . import tasks

def checkout(order):
    with transaction.atomic():
        transaction.on_commit(tasks.send_receipt.delay(order.pk))
""",
        (7, 31, "task 'send_receipt' is enqueued inside transaction.atomic()"),
        id="on-commit-called-too-early",
    ),
    invalid(
        """
from django.db import transaction
from .tasks import send_receipt

def notify(order):
    send_receipt.delay(order.pk)

def checkout(order):
    with transaction.atomic():
        order.save()
        notify(order)
""",
        (11, 9, "notify() enqueues task 'send_receipt' (line 6)"),
        id="module-local-indirection",
    ),
    invalid(
        """
import dramatiq
from django.db import transaction

@dramatiq.actor
def resize(image_id): ...

def upload(image):
    with transaction.atomic():
        image.save()
        resize.send(image.pk)
""",
        (11, 9, "Dramatiq actor 'resize' is enqueued"),
        fixed="""
import dramatiq
from django.db import transaction

@dramatiq.actor
def resize(image_id): ...

def upload(image):
    with transaction.atomic():
        image.save()
        transaction.on_commit(lambda: resize.send(image.pk))
""",
        id="dramatiq-send",
    ),
    invalid(
        """
from django.db import transaction
from huey.contrib.djhuey import db_task

@db_task()
def resize(image_id): ...

def upload(image):
    with transaction.atomic():
        resize(image.pk)
""",
        (10, 9, "Huey task 'resize' is enqueued"),
        fixed="""
from django.db import transaction
from huey.contrib.djhuey import db_task

@db_task()
def resize(image_id): ...

def upload(image):
    with transaction.atomic():
        transaction.on_commit(lambda: resize(image.pk))
""",
        id="huey-call",
    ),
    invalid(
        """
from django.db import transaction
from app.jobs import resize

def upload(image):
    with transaction.atomic():
        resize.send(image.pk)
""",
        (7, 9, "Dramatiq actor 'resize' is enqueued"),
        fixed="""
from django.db import transaction
from app.jobs import resize

def upload(image):
    with transaction.atomic():
        transaction.on_commit(lambda: resize.send(image.pk))
""",
        id="task-index-across-files",
        app_jobs="import dramatiq\n\n@dramatiq.actor\ndef resize(image_id): ...\n",
    ),
    invalid(
        """
from celery import chain
from django.db import transaction
from .tasks import a, b

def run(x):
    with transaction.atomic():
        chain(a.s(x), b.s())()
        a.s(x).delay()
""",
        (8, 9, "a Celery chain is enqueued"),
        (9, 9, "a Celery signature is enqueued"),
        fixed="""
from celery import chain
from django.db import transaction
from .tasks import a, b

def run(x):
    with transaction.atomic():
        transaction.on_commit(lambda: chain(a.s(x), b.s())())
        transaction.on_commit(lambda: a.s(x).delay())
""",
        id="canvas",
    ),
    invalid(
        """
from django.db import transaction
from . import tasks

def run(x):
    task = tasks.send_receipt
    with transaction.atomic():
        task.delay(x)
""",
        (8, 9, "task 'send_receipt' is enqueued"),
        fixed="""
from django.db import transaction
from . import tasks

def run(x):
    task = tasks.send_receipt
    with transaction.atomic():
        transaction.on_commit(lambda: task.delay(x))
""",
        id="local-bound-to-a-task",
    ),
    invalid(
        """
from django.db.transaction import atomic
from django.utils.decorators import method_decorator
from . import tasks

class Export:
    @method_decorator(atomic, name="post")
    def post(self, request):
        tasks.load_dump.delay(request.user.pk)
""",
        (9, 9, "task 'load_dump' is enqueued inside @atomic"),
        fixed="""
from django.db.transaction import atomic
from django.utils.decorators import method_decorator
from . import tasks
from django.db import transaction

class Export:
    @method_decorator(atomic, name="post")
    def post(self, request):
        transaction.on_commit(lambda: tasks.load_dump.delay(request.user.pk))
""",
        id="method-decorator-on-method",
    ),
    invalid(
        """
import django.db.transaction
from .tasks import send_receipt

def checkout(order):
    with django.db.transaction.atomic():
        order.save()
        send_receipt.delay(order.pk)
""",
        (8, 9, "task 'send_receipt' is enqueued"),
        fixed="""
import django.db.transaction
from .tasks import send_receipt

def checkout(order):
    with django.db.transaction.atomic():
        order.save()
        django.db.transaction.on_commit(lambda: send_receipt.delay(order.pk))
""",
        id="module-imported-no-new-import",
    ),
    invalid(
        """
from django.db import transaction
from .tasks import send_receipt

def checkout(order, alias):
    with transaction.atomic(using="orders"):
        order.save()
        send_receipt.delay(order.pk)
    with transaction.atomic(alias):
        send_receipt.delay(order.pk)
    with transaction.atomic():
        receipt = send_receipt.delay(order.pk)
""",
        (8, 9, "task 'send_receipt' is enqueued"),
        (10, 9, "task 'send_receipt' is enqueued"),
        (12, 19, "task 'send_receipt' is enqueued"),
        fixed="""
from django.db import transaction
from .tasks import send_receipt

def checkout(order, alias):
    with transaction.atomic(using="orders"):
        order.save()
        transaction.on_commit(lambda: send_receipt.delay(order.pk), using="orders")
    with transaction.atomic(alias):
        send_receipt.delay(order.pk)
    with transaction.atomic():
        receipt = send_receipt.delay(order.pk)
""",
        id="hook-on-the-transactions-database",
    ),
    invalid(
        """
from django.db import transaction
from .tasks import send_receipt, a, b

def checkout(orders):
    with transaction.atomic():
        for order in orders:
            send_receipt.delay(order.pk)
            send_receipt.apply_async(args=(order.pk,), countdown=10)
        a.s(1).delay()
""",
        (8, 13, "task 'send_receipt' is enqueued"),
        (9, 13, "task 'send_receipt' is enqueued"),
        (10, 9, "a Celery signature is enqueued"),
        fixed="""
from django.db import transaction
from .tasks import send_receipt, a, b

def checkout(orders):
    with transaction.atomic():
        for order in orders:
            send_receipt.delay_on_commit(order.pk)
            send_receipt.apply_async_on_commit(args=(order.pk,), countdown=10)
        transaction.on_commit(lambda: a.s(1).delay())
""",
        config={"celery-django-task": True},
        id="celery-django-task-delay-on-commit",
    ),
    invalid(
        """
from django.db import transaction
from huey import RedisHuey

huey = RedisHuey("shop")

@huey.task()
def send_receipt(pk):
    pass

@transaction.atomic
def checkout(order):
    order.save()
    huey.enqueue(send_receipt.s(order.pk))
""",
        (14, 5, "Huey task 'send_receipt' is enqueued inside @transaction.atomic (line 12)"),
        id="huey-enqueue-of-a-task-signature-inside-atomic",
        fixed="""
from django.db import transaction
from huey import RedisHuey

huey = RedisHuey("shop")

@huey.task()
def send_receipt(pk):
    pass

@transaction.atomic
def checkout(order):
    order.save()
    transaction.on_commit(lambda: huey.enqueue(send_receipt.s(order.pk)))
""",
    ),
    invalid(
        """
import dramatiq
from dramatiq import group, pipeline
from django.db import transaction

@dramatiq.actor
def notify(pk):
    pass

def checkout(order):
    with transaction.atomic():
        order.save()
        dramatiq.get_broker().enqueue(notify.message(order.pk))
        group([notify.message(order.pk)]).run()
        chained = pipeline([notify.message(order.pk), notify.message(0)])
        chained.run()
""",
        (13, 9, "Dramatiq actor 'notify' is enqueued inside transaction.atomic() (line 11)"),
        (14, 9, "a Dramatiq actor is enqueued inside transaction.atomic() (line 11)"),
        (16, 9, "a Dramatiq actor is enqueued inside transaction.atomic() (line 11)"),
        id="dramatiq-broker-enqueue-group-and-pipeline-run-inside-atomic",
        fixed="""
import dramatiq
from dramatiq import group, pipeline
from django.db import transaction

@dramatiq.actor
def notify(pk):
    pass

def checkout(order):
    with transaction.atomic():
        order.save()
        transaction.on_commit(lambda: dramatiq.get_broker().enqueue(notify.message(order.pk)))
        transaction.on_commit(lambda: group([notify.message(order.pk)]).run())
        chained = pipeline([notify.message(order.pk), notify.message(0)])
        transaction.on_commit(lambda: chained.run())
""",
    ),
    invalid(
        """
from celery import shared_task
from django.db import transaction
from huey.contrib.djhuey import task

@task()
def resize(pk):
    pass

@shared_task
def crunch(pk):
    pass

def publish(photos):
    with transaction.atomic():
        resize.map([photo.pk for photo in photos])
        crunch.map([photo.pk for photo in photos])
""",
        (16, 9, "Huey task 'resize' is enqueued inside transaction.atomic() (line 15)"),
        id="huey-task-map-inside-atomic-and-celerys-map-signature",
        fixed="""
from celery import shared_task
from django.db import transaction
from huey.contrib.djhuey import task

@task()
def resize(pk):
    pass

@shared_task
def crunch(pk):
    pass

def publish(photos):
    with transaction.atomic():
        transaction.on_commit(lambda: resize.map([photo.pk for photo in photos]))
        crunch.map([photo.pk for photo in photos])
""",
    ),
    invalid(
        """
from django.db import transaction
from redis import Redis
from rq import Queue
from .jobs import ship

queue = Queue(connection=Redis())

def checkout(order):
    with transaction.atomic():
        order.save()
        queue.enqueue_at(order.ship_at, ship, order.pk)
""",
        (12, 9, "RQ job 'ship' is enqueued inside transaction.atomic() (line 10)"),
        id="rq-enqueue-at-names-the-job-after-the-time",
        fixed="""
from django.db import transaction
from redis import Redis
from rq import Queue
from .jobs import ship

queue = Queue(connection=Redis())

def checkout(order):
    with transaction.atomic():
        order.save()
        transaction.on_commit(lambda: queue.enqueue_at(order.ship_at, ship, order.pk))
""",
    ),
    # --- Huey: `.schedule(args=..., delay=...)` and task calls through a helper ---
    invalid(
        """
from django.db import transaction
from huey.contrib.djhuey import HUEY

@HUEY.task()
def shelve_book(book_id): ...

def lend(book):
    with transaction.atomic():
        book.save()
        shelve_book.schedule(args=(book.pk,), delay=300)
""",
        (11, 9, "Huey task 'shelve_book' is enqueued inside transaction.atomic() (line 9)"),
        id="huey-schedule-with-args-and-delay-on-djhueys-own-huey-inside-atomic",
        fixed="""
from django.db import transaction
from huey.contrib.djhuey import HUEY

@HUEY.task()
def shelve_book(book_id): ...

def lend(book):
    with transaction.atomic():
        book.save()
        transaction.on_commit(lambda: shelve_book.schedule(args=(book.pk,), delay=300))
""",
    ),
    invalid(
        """
from django.db import transaction
from app.queue import huey

@huey.db_task(retries=2)
def stamp_card(card_id): ...

def _stamp_all(cards):
    for card in cards:
        stamp_card(card.pk)

@transaction.atomic
def renew(cards):
    for card in cards:
        card.save()
    _stamp_all(cards)
""",
        (16, 5, "_stamp_all() enqueues Huey task 'stamp_card' (line 10)"),
        id="a-huey-task-called-through-a-module-local-helper-inside-atomic",
        app_queue="from huey.contrib.djhuey import HUEY as huey\n",
    ),
    invalid(
        """
from django.db import transaction
from huey import SqliteHuey

huey = SqliteHuey(filename="library.db")

@huey.task()
def notify_reader(reader_id, title): ...

def _remind(loan):
    return notify_reader.schedule((loan.reader_id, loan.title), delay=86400)

def extend(loan):
    with transaction.atomic():
        loan.save()
        reminder = _remind(loan)
    return reminder
""",
        (16, 20, "_remind() enqueues Huey task 'notify_reader' (line 11)"),
        id="a-module-local-helper-scheduling-a-huey-task-inside-atomic",
    ),
    # --- taskiq: kicker chains inside an async SQLAlchemy transaction --------------
    invalid(
        """
from sqlalchemy.ext.asyncio import async_sessionmaker
from app.brokers import backup_broker
from app.tasks import water_bed

Session = async_sessionmaker()

async def plant(bed):
    async with Session.begin() as session:
        session.add(bed)
        await water_bed.kicker().with_broker(backup_broker).with_task_id(bed.tag).kiq(bed.id)
""",
        (11, 15, "a taskiq kicker is enqueued inside Session.begin() (line 9)"),
        id="a-taskiq-kicker-with-broker-and-task-id-inside-a-sessionmakers-begin",
        app_brokers=(
            "from taskiq_redis import ListQueueBroker\n\n"
            "broker = ListQueueBroker('redis://a')\n"
            "backup_broker = ListQueueBroker('redis://b')\n"
        ),
        app_tasks=(
            "from app.brokers import broker\n\n"
            "@broker.task(task_name='water')\n"
            "async def water_bed(bed_id: int) -> None: ...\n"
        ),
    ),
    invalid(
        """
from sqlalchemy.ext.asyncio import AsyncSession
from app.tasks import water_bed

async def harvest(session: AsyncSession, bed):
    async with session.begin():
        bed.harvested = True
        sent = await water_bed.kicker().with_labels(delay=60, priority=2).kiq(bed_id=bed.id)
    return sent
""",
        (8, 22, "a taskiq kicker is enqueued inside session.begin() (line 6)"),
        id="a-taskiq-kicker-with-labels-assigned-inside-an-async-session-begin",
        app_tasks=(
            "from taskiq_aio_pika import AioPikaBroker\n\n"
            "broker = AioPikaBroker('amqp://')\n\n"
            "@broker.task\n"
            "async def water_bed(bed_id: int) -> None: ...\n"
        ),
    ),
    # --- an async helper that kiq()s, awaited inside a psycopg 3 transaction -------
    invalid(
        """
import psycopg
from app.tasks import weigh_hive

async def _weigh(hive_id):
    await weigh_hive.kiq(hive_id)

async def inspect(hive):
    async with await psycopg.AsyncConnection.connect("dbname=apiary") as conn:
        async with conn.transaction():
            await conn.execute("UPDATE hives SET seen = now() WHERE id = %s", (hive.id,))
            await _weigh(hive.id)
""",
        (12, 19, "_weigh() enqueues taskiq task 'weigh_hive' (line 6)"),
        id="an-async-helper-kiqing-awaited-inside-a-psycopg-async-transaction",
        app_tasks=(
            "from taskiq_redis import ListQueueBroker\n\n"
            "broker = ListQueueBroker('redis://')\n\n"
            "@broker.task\n"
            "async def weigh_hive(hive_id: int) -> None: ...\n"
        ),
    ),
    invalid(
        """
from psycopg_pool import AsyncConnectionPool
from app.tasks import weigh_hive

pool = AsyncConnectionPool("dbname=apiary")

async def _queue_weighing(hive_id):
    await weigh_hive.kicker().with_labels(source="inspection").kiq(hive_id)

async def inspect_all(hives):
    async with pool.connection() as conn:
        async with conn.transaction():
            for hive in hives:
                await conn.execute("UPDATE hives SET seen = now() WHERE id = %s", (hive.id,))
                await _queue_weighing(hive.id)
""",
        (15, 23, "_queue_weighing() enqueues a taskiq kicker (line 8)"),
        id="an-async-helper-sending-a-kicker-awaited-inside-a-pooled-psycopg-transaction",
        app_tasks=(
            "from taskiq_redis import ListQueueBroker\n\n"
            "broker = ListQueueBroker('redis://')\n\n"
            "@broker.task\n"
            "async def weigh_hive(hive_id: int) -> None: ...\n"
        ),
    ),
    # --- a class whose __enter__ opens a transaction --------------------------------
    invalid(
        """
from app.db import Atomically
from app.tasks import send_receipt

def checkout(order):
    with Atomically("default"):
        order.save()
        send_receipt.delay(order.pk)
""",
        (
            8,
            9,
            "'send_receipt' is enqueued inside Atomically() (line 6), which opens a transaction",
        ),
        id="an-enqueue-inside-a-class-whose-enter-enters-atomic",
        app_db=(
            "from django.db import transaction\n\n"
            "class Atomically:\n"
            "    def __init__(self, alias):\n"
            "        self.alias = alias\n\n"
            "    def __enter__(self):\n"
            "        self._atomic = transaction.atomic(using=self.alias)\n"
            "        return self._atomic.__enter__()\n\n"
            "    def __exit__(self, *exc):\n"
            "        return self._atomic.__exit__(*exc)\n"
        ),
        app_tasks=_CELERY_TASKS,
    ),
    invalid(
        """
from contextlib import ExitStack
from django.db import transaction
from app.billing import bill_member

class Ledger:
    def __enter__(self):
        self._stack = ExitStack()
        self._stack.enter_context(transaction.atomic())
        return self

    def __exit__(self, *exc):
        return self._stack.__exit__(*exc)

def close_month(member):
    with Ledger():
        member.save()
        bill_member(member)
""",
        (18, 9, "bill_member() is called inside Ledger() (line 16), which opens a transaction"),
        id="a-helper-enqueuing-called-inside-a-class-entering-atomic-on-an-exit-stack",
        app_billing=(
            "from app.tasks import send_receipt\n\n"
            "def bill_member(member):\n"
            "    send_receipt.delay(member.pk)\n"
        ),
        app_tasks=_CELERY_TASKS,
    ),
    invalid(
        """
import psycopg
from app.orders import record_then_announce

def place(dsn, order):
    with psycopg.connect(dsn) as conn:
        record_then_announce(conn, order)
""",
        (7, 9, "record_then_announce() is called inside psycopg.connect()"),
        id="a-wrapper-that-commits-only-after-it-calls-the-enqueue-helper",
        app_orders=(
            "from app.notify import announce\n\n"
            "def record_then_announce(conn, order):\n"
            "    conn.execute('INSERT INTO orders VALUES (%s)', (order.id,))\n"
            "    announce(order.id)\n"
            "    conn.commit()\n"
        ),
        app_notify=(
            "from app.tasks import send_receipt\n\n"
            "def announce(order_id):\n"
            "    send_receipt.delay(order_id)\n"
        ),
        app_tasks=_CELERY_TASKS,
    ),
)
