"""The full example suite of `joblint.rules.idempotency.unchunked_long_job`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

# A Django model in a module not named `models`: only the project's class
# index says it is one.
BILLING = """
from django.db import models


class Invoice(models.Model):
    number = models.CharField(max_length=20)
"""

# A class with an `objects` attribute that is no model.
REGISTRY = """
class Plugin:
    objects = []

    @classmethod
    def register(cls, plugin):
        cls.objects.append(plugin)
"""

# A task decorator the project builds, in another module.
TASKING = """
from celery import shared_task

retrying = shared_task(bind=True, max_retries=3)
"""

# A project decorator that registers no task.
AUTH = """
import functools


def audited(view):
    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        return view(*args, **kwargs)

    return wrapper
"""

# SQLAlchemy models and their session, in the project.
SQLALCHEMY_MODELS = """
from sqlalchemy import Column, Integer, String
from sqlalchemy.orm import declarative_base

Base = declarative_base()


class Device(Base):
    __tablename__ = "devices"
    id = Column(Integer, primary_key=True)
    token = Column(String)
"""
SQLALCHEMY_DB = """
from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker

Session = sessionmaker(bind=create_engine("postgresql://"))
"""

VALID = (
    Valid(
        """
from celery import shared_task
from sqlalchemy import select

from app.models import Customer, Device


@shared_task
def bounded(session, since, cursor):
    for customer in Customer.objects.exclude(email=""):
        customer.recompute_tier()
    for customer in Customer.objects.all().filter(joined__gte=since):
        customer.recompute_tier()
    for customer in Customer.objects.all()[:100]:
        customer.recompute_tier()
    for device in session.query(Device).filter_by(active=True):
        device.ping()
    for device in session.query(Device).limit(500).all():
        device.ping()
    for device in session.scalars(select(Device).where(Device.id > cursor).limit(500)):
        device.ping()
    for device in session.query(Device).join(Device.owner):
        device.ping()
""",
        id="filtered-excluded-sliced-limited-joined",
    ),
    Valid(
        """
import logging
from decimal import Decimal

from celery import shared_task
from django.db.models import Count

from app.models import Customer

logger = logging.getLogger(__name__)


@shared_task
def tier_report():
    by_tier = {}
    for row in Customer.objects.values("tier").annotate(n=Count("id")):
        by_tier[row["tier"]] = row["n"]
    emails = set()
    for customer in Customer.objects.only("email").iterator():
        emails.add(customer.email.strip().lower())
        logger.debug("saw %s", customer.pk)
    total = sum(c.points for c in Customer.objects.all())
    return by_tier, len(emails), total


@shared_task
def coverage_report():
    countries = set()
    spend = Decimal(0)
    for customer in Customer.objects.all():
        countries.update({address.country for address in customer.addresses})
        spend += Decimal(customer.lifetime_spend)
    return sorted(countries), spend
""",
        id="grouped-and-aggregating",
    ),
    Valid(
        """
from celery import shared_task

from app.models import Customer
from app.naming import display_name, tier_filter


@shared_task
def build_lookups():
    by_name = {}
    tiers = None
    cards = []
    for customer in Customer.objects.all():
        by_name.setdefault(display_name(customer), []).append(customer.pk)
        tiers |= tier_filter(customer.tier)
        cards.extend([render_card(address) for address in customer.addresses])
    return by_name, tiers, cards
""",
        id="computed-values-only-collected",
    ),
    Valid(
        """
import time

from celery import shared_task

from app.models import Customer


@shared_task
def tiers_until_deadline(deadline):
    for customer in Customer.objects.order_by("pk"):
        if time.monotonic() > deadline:
            break
        customer.recompute_tier()


@shared_task
def first_unverified():
    for customer in Customer.objects.all():
        if not customer.verify():
            return customer.pk
    return None
""",
        id="stops-early",
    ),
    Valid(
        """
from celery import shared_task

from app.models import Customer


@shared_task
def schedule_rebuild(registry):
    def rebuild():
        for customer in Customer.objects.all():
            customer.recompute_tier()

    registry.on_idle(rebuild)
""",
        id="nested-function-runs-later",
    ),
    Valid(
        """
from celery import shared_task

from app.plugins import Plugin


@shared_task
def reload_plugins():
    for plugin in Plugin.objects:
        plugin.reload()
""",
        id="objects-of-a-class-that-is-no-model",
        project={"app_plugins": REGISTRY},
    ),
    Valid(
        """
from app.auth import audited
from app.models import Customer


@audited
def export_customers(request):
    for customer in Customer.objects.all():
        request.write(customer.email)
""",
        id="project-decorator-that-is-no-task",
        project={"app_auth": AUTH},
    ),
    Valid(
        """
from celery import shared_task

from app.models import Customer


@shared_task
def refresh(since):
    customers = Customer.objects.all()
    customers = customers.filter(joined__gte=since)
    for customer in customers:
        customer.recompute_tier()
""",
        id="name-assigned-twice",
    ),
    Valid(
        """
from celery import shared_task
from django.db import connection


@shared_task
def vacuum_and_recent(cursor_id):
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables")
        for (name,) in cursor.fetchall():
            cursor.execute(f"VACUUM ANALYZE {name}")
        cursor.execute("SELECT id FROM events WHERE id > %s ORDER BY id LIMIT 500", [cursor_id])
        for row in cursor.fetchall():
            archive(row[0])
        cursor.execute("SELECT owner_id, count(*) FROM events GROUP BY owner_id")
        for row in cursor:
            notify(row[0], row[1])
""",
        id="sql-catalogue-where-limit-group-by",
    ),
    Valid(
        """
from celery import shared_task

from app.store import Session
from app.models import Device


@shared_task
def ping_all():
    session = Session()
    for device in session.query(Device):
        device.ping()
""",
        id="session-query-without-sqlalchemy-in-reach",
        project={"app_store": "class Session:\n    def query(self, model):\n        return []\n"},
    ),
    Valid(
        """
import dramatiq
from django.db import connection
from huey.contrib.djhuey import db_task


@dramatiq.actor
def nudge_inactive():
    cursor = connection.cursor()
    cursor.execute("SELECT id, email FROM accounts_user WHERE last_login < now() LIMIT 200")
    for user_id, email in cursor.fetchall():
        nudge(user_id, email)


@db_task()
def recount_stock():
    cursor = connection.cursor()
    cursor.execute("SELECT warehouse_id, SUM(quantity) FROM stock_line GROUP BY warehouse_id")
    for warehouse_id, total in cursor.fetchall():
        store_total(warehouse_id, total)
""",
        id="raw-cursor-bounded-or-grouped-dramatiq-huey",
    ),
    Valid(
        """
import dramatiq
from huey import RedisHuey

from shop.models import Order

huey = RedisHuey("shop")


@huey.task()
def remind_unpaid():
    for order in Order.objects.filter(paid=False).iterator(chunk_size=500):
        order.send_reminder()


@dramatiq.actor
def revenue():
    total = 0
    for order in Order.objects.all().iterator(chunk_size=2000):
        total += order.amount
    return total
""",
        id="iterator-over-a-filter-or-only-summed",
    ),
)

INVALID = (
    invalid(
        """
from celery import shared_task

from app.billing import Invoice


@shared_task
def reprice_invoices():
    invoices = Invoice.objects.order_by("pk").only("pk", "number")
    for invoice in invoices:
        invoice.reprice()
""",
        (10, 5, "loops over every row of Invoice.objects.order_by"),
        id="local-bound-queryset-model-elsewhere",
        app_billing=BILLING,
    ),
    invalid(
        """
from app.models import Customer
from app.tasking import retrying

from .tasks import sync_customer


@retrying
def fan_out(self):
    for pk in sorted(Customer.objects.values_list("pk", flat=True)):
        sync_customer.delay(pk)
""",
        (10, 5, "task 'fan_out' loops over every row of Customer.objects.values_list"),
        id="project-task-decorator-fan-out",
        app_tasking=TASKING,
    ),
    invalid(
        """
import dramatiq
from django.contrib.auth import get_user_model

User = get_user_model()


@dramatiq.actor
def rehash_passwords():
    for index, user in enumerate(User.objects.all()):
        user.set_unusable_password()
        user.save(update_fields=["password"])
""",
        (10, 5, "Dramatiq actor 'rehash_passwords' loops over every row of User.objects.all()"),
        id="get-user-model-dramatiq",
    ),
    invalid(
        """
from celery import shared_task
from django.db import models


class Ticket(models.Model):
    closed = models.BooleanField(default=False)


@shared_task
def close_all():
    for ticket in Ticket._default_manager.all():
        ticket.closed = True
""",
        (12, 5, "ticket.closed = True"),
        id="model-defined-here-row-attribute-set",
    ),
    invalid(
        """
from celery import shared_task

from app.db import db
from app.users import User


@shared_task
def resend_welcome():
    for user in User.query.all():
        send_welcome(user.email)
""",
        (10, 5, "loops over every row of User.query.all()"),
        id="flask-sqlalchemy-model-query",
        app_db="from flask_sqlalchemy import SQLAlchemy\n\ndb = SQLAlchemy()\n",
        app_users=(
            "from app.db import db\n\n\nclass User(db.Model):\n"
            "    id = db.Column(db.Integer, primary_key=True)\n"
        ),
    ),
    invalid(
        """
from celery import shared_task

from app.db import Session
from app.devices import Device


@shared_task
def ping_devices():
    session = Session()
    for device in session.query(Device).yield_per(1000):
        device.ping()
""",
        (11, 5, "yield_per() streams the rows"),
        id="session-query-sqlalchemy-reached-through-project",
        app_db=SQLALCHEMY_DB,
        app_devices=SQLALCHEMY_MODELS,
    ),
    invalid(
        """
from huey import RedisHuey
from sqlmodel import Session, select

from app.heroes import Hero

huey = RedisHuey()


@huey.task()
def level_up(engine):
    with Session(engine) as session:
        for hero in session.exec(select(Hero).order_by(Hero.id)).all():
            hero.level += 1
        session.commit()
""",
        (13, 9, "session.exec(select(Hero).order_by(Hero.id)).all()"),
        id="sqlmodel-exec-huey",
        app_heroes=(
            "from sqlmodel import Field, SQLModel\n\n\nclass Hero(SQLModel, table=True):\n"
            "    id: int = Field(primary_key=True)\n    level: int = 0\n"
        ),
    ),
    invalid(
        """
from celery import shared_task
from django.db import connection

ALL_EVENTS = '''
    SELECT id, payload
    FROM events
    ORDER BY id
'''


@shared_task
def replay_events():
    with connection.cursor() as cursor:
        cursor.execute(ALL_EVENTS)
        rows = cursor.fetchall()
        for event_id, payload in rows:
            publish(event_id, payload)
        cursor.execute("SELECT id FROM outbox")
        for (message_id,) in cursor:
            deliver(message_id)
""",
        (17, 9, 'loops over every row of "SELECT id, payload FROM events ORDER BY id"'),
        (20, 9, 'loops over every row of "SELECT id FROM outbox"'),
        id="sql-cursor-fetchall-and-iterated",
    ),
    invalid(
        """
from celery import shared_task
from sqlalchemy import text

from app.models import Customer


@shared_task
def reconcile(engine):
    customers = Customer.objects.only("pk", "email")
    for customer in customers.iterator(chunk_size=1000):
        customer.reconcile()
    with engine.connect() as conn:
        result = conn.execute(text("SELECT id, total FROM ledger_entries"))
        for entry_id, total in result.fetchall():
            post_entry(entry_id, total)
""",
        (11, 5, 'every row of Customer.objects.only("pk", "email").iterator(chunk_size=1000)'),
        (15, 9, 'every row of "SELECT id, total FROM ledger_entries"'),
        id="chain-continued-from-a-name",
    ),
    invalid(
        """
import sqlite3

from rq import job


@job("default")
def reindex(path):
    conn = sqlite3.connect(path)
    for (doc_id,) in conn.execute("SELECT id FROM documents"):
        search_index(doc_id)
""",
        (10, 5, "RQ job 'reindex' loops over every row of \"SELECT id FROM documents\""),
        id="sql-connection-execute-iterated",
    ),
    invalid(
        """
import dramatiq
from django.db import connection, connections
from huey import RedisHuey, crontab

huey = RedisHuey("shop")


@dramatiq.actor(queue_name="mail")
def newsletter():
    cursor = connection.cursor()
    cursor.execute("SELECT id, email FROM accounts_user")
    for user_id, email in cursor.fetchall():
        send_newsletter(user_id, email)


@huey.periodic_task(crontab(hour="2"))
def reindex_products():
    with connections["replica"].cursor() as cur:
        cur.execute("select sku from catalogue_product order by sku")
        for (sku,) in cur.fetchall():
            reindex(sku)
""",
        (
            13,
            5,
            "Dramatiq actor 'newsletter' loops over every row of "
            '"SELECT id, email FROM accounts_user"',
        ),
        (
            21,
            9,
            "Huey task 'reindex_products' loops over every row of "
            '"select sku from catalogue_product order by sku"',
        ),
        id="raw-cursor-fetchall-dramatiq-huey",
    ),
    invalid(
        """
import dramatiq
from celery import shared_task
from huey.contrib.djhuey import db_task

from shop.models import Order, Subscription


@dramatiq.actor
def renew_all():
    for subscription in Subscription.objects.all().iterator():
        subscription.renew()


@db_task()
def reprice_orders():
    for order in Order.objects.iterator(chunk_size=500):
        order.reprice()
        order.save()


@shared_task
def export_orders():
    orders = Order.objects.all()
    for order in orders.iterator(chunk_size=2000):
        push_to_warehouse(order.pk)
""",
        (
            11,
            5,
            "Dramatiq actor 'renew_all' loops over every row of "
            "Subscription.objects.all().iterator()",
        ),
        (17, 5, "Huey task 'reprice_orders' loops over every row of Order.objects.iterator("),
        (25, 5, "Celery task 'export_orders' loops over every row of Order.objects.all()"),
        id="all-iterator-and-chunk-size-dramatiq-huey-celery",
    ),
)
