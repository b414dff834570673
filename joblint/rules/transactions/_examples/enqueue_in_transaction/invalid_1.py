"""INVALID examples of `joblint.rules.transactions.enqueue_in_transaction`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import invalid
from joblint.rules.transactions._examples.enqueue_in_transaction.common import (
    _ACTION_RECEIVER,
    _ATOMIC_REQUESTS_SETTINGS,
    _CELERY_TASKS,
    _JOIN_VIEW,
    _MEMBER_MODEL,
    _PYRAMID_APP,
    _RECEIPT_MODEL,
    _REINDEX_COMMAND,
    _REINDEX_TASK,
    _REPORT_MIXIN,
    _SAVES_RECEIPT_IN_ATOMIC,
    _SIGNUP_SERVICE,
    _WELCOME_TASK,
    _events_module,
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
)
