"""VALID examples of `joblint.rules.transactions.enqueue_in_transaction`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import Valid
from joblint.rules.transactions._examples.enqueue_in_transaction.common import _CELERY_TASKS

VALID = (
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
    Valid(
        """
from app.locking import order_lock
from app.tasks import send_receipt

def pay(request, order_id):
    with order_lock():
        send_receipt.delay(order_id)
""",
        id="an-enqueue-in-a-view-inside-a-project-function-taking-a-cache-lock",
        project={
            "app_locking": (
                "from django.core.cache import cache\n\n"
                "def order_lock():\n"
                "    return cache.lock('orders', timeout=30)\n"
            ),
            "app_tasks": _CELERY_TASKS,
        },
    ),
)
