"""INVALID examples of `joblint.rules.transactions.enqueue_in_transaction`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import invalid
from joblint.rules.transactions._examples.enqueue_in_transaction.common import _CELERY_TASKS

INVALID = (
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
    # --- a request handler's body inside a project callable opening one --------------
    # With or without the request's transaction (ATOMIC_REQUESTS), the
    # callable's holds.
    invalid(
        """
from app.locking import order_lock
from app.tasks import send_receipt

def pay(request, order_id):
    with order_lock():
        send_receipt.delay(order_id)
""",
        (
            7,
            9,
            "'send_receipt' is enqueued inside order_lock() (line 6), which opens a transaction",
        ),
        id="an-enqueue-in-a-view-inside-a-project-function-returning-atomic",
        app_locking=(
            "from django.db import transaction\n\n"
            "def order_lock():\n"
            "    return transaction.atomic()\n"
        ),
        app_tasks=_CELERY_TASKS,
    ),
    invalid(
        """
from app.billing import charge
from app.locking import order_lock

def pay(request, order_id):
    with order_lock():
        charge(order_id)
""",
        (7, 9, "charge() is called inside order_lock() (line 6), which opens a transaction"),
        id="a-helper-enqueuing-called-in-a-view-inside-a-project-context-manager",
        app_locking=(
            "from contextlib import contextmanager\n\n"
            "from django.db import transaction\n\n"
            "@contextmanager\n"
            "def order_lock():\n"
            "    with transaction.atomic():\n"
            "        yield\n"
        ),
        app_billing=(
            "from app.tasks import send_receipt\n\n"
            "def charge(order_id):\n"
            "    send_receipt.delay(order_id)\n"
        ),
        app_tasks=_CELERY_TASKS,
    ),
)
