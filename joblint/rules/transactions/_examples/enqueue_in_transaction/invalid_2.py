"""INVALID examples of `joblint.rules.transactions.enqueue_in_transaction`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import invalid

INVALID = (
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
)
