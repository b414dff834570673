"""The full example suite of `joblint.rules.idempotency.unguarded_side_effect_in_retried_task`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

_NOTIFY = """
from django.core.mail import send_mail


def send_receipt(order):
    send_mail("Your receipt", order.summary(), "shop@example.com", [order.email])


def log_receipt(order):
    order.log("receipt")
"""

_CLAIMING_NOTIFY = """
from django.core.cache import cache
from django.core.mail import send_mail


def send_receipt(order):
    if not cache.add(f"receipt:{order.pk}", 1, timeout=86400):
        return
    send_mail("Your receipt", order.summary(), "shop@example.com", [order.email])
"""

# A task maker and a decorator factory, each forwarding the options its
# callers give to the app's task decorator; and a registry that is no task.
_FACTORIES = (
    "from celery import Celery\n\n"
    "app = Celery('app')\n\n"
    "def make_task(fn, **opts):\n    return app.task(**opts)(fn)\n\n"
    "def job(**opts):\n"
    "    def register(fn):\n        return app.task(**opts)(fn)\n\n"
    "    return register\n"
)
_HOOKS = "HOOKS = []\n\ndef on_event(fn, **opts):\n    HOOKS.append((fn, opts))\n    return fn\n"

_AUTH = """
import requests
from django.conf import settings


def api_token():
    response = requests.post(settings.ERP_TOKEN_URL, data={"grant_type": "client_credentials"})
    return response.json()["access_token"]


def refresh(client):
    requests.post(f"{client.base}/oauth/token", data=client.credentials)


def forget(order):
    requests.delete(f"https://erp.example.com/orders/{order.pk}")
"""

_GUARDED_HOOKS = """
import requests
from joblint.runtime.idempotency import IdempotencyGuard

deliveries = IdempotencyGuard(table="hook_deliveries")


def deliver(conn, hook_id, payload):
    if not deliveries.claim(conn, f"hook:{hook_id}"):
        return
    requests.post("https://hooks.example.com/in", json=payload)
"""

_CATALOGUE = """
import httpx


def rename_product(product):
    httpx.put(f"https://catalogue.example.com/products/{product.sku}", json={"name": product.name})
"""

_LOCKED = """
import requests
from redis import Redis

redis = Redis()


def create_remote_user(user):
    lock = redis.lock(f"remote-user:{user.pk}", timeout=120)
    if not lock.acquire(blocking_timeout=5):
        return
    user.refresh_from_db()
    if user.remote_id:
        return
    requests.post("https://lms.example.com/users", json={"email": user.email})
"""

_JOBS = """
from celery import shared_task

retrying = shared_task(autoretry_for=(IOError,), retry_backoff=True)
plain = shared_task(ignore_result=True)
"""

_AWS = """
import boto3

sns = boto3.client("sns")
"""

_ACKS_LATE_SETTINGS = """
CELERY_BROKER_URL = "redis://queue:6379/0"
CELERY_TASK_ACKS_LATE = True
"""

_ACKS_LATE_CELERY = """
from celery import Celery

app = Celery("shop")
app.conf.task_acks_late = True
"""

VALID = (
    Valid(
        """
import requests
from app.factories import make_task
from app.hooks import on_event


def push_invoice(invoice_id):
    requests.post("https://erp.example.com/invoices", json={"id": invoice_id})


def mirror(invoice_id):
    requests.post("https://mirror.example.com/invoices", json={"id": invoice_id})


push_invoice_task = make_task(push_invoice, acks_late=False, queue="erp")
on_event(mirror, acks_late=True)
""",
        id="task-made-by-a-call-without-reruns-and-a-registry-that-makes-no-task",
        project={"app_factories": _FACTORIES, "app_hooks": _HOOKS},
    ),
    Valid(
        """
import requests
from app.factories import job


def push_invoice(invoice_id):
    requests.post(
        "https://erp.example.com/invoices",
        json={"id": invoice_id},
        headers={"Idempotency-Key": f"invoice:{invoice_id}"},
    )


push_invoice_task = job(autoretry_for=(ConnectionError,))(push_invoice)
""",
        id="decorator-factory-applied-by-a-call-to-a-keyed-effect",
        project={"app_factories": _FACTORIES},
    ),
    Valid(
        """
import requests
from celery import shared_task
from django.core.mail import send_mail

@shared_task
def welcome(user_id, email):
    send_mail("Welcome", "Hello", "shop@example.com", [email])

@shared_task(max_retries=3, retry_backoff=True)
def ping(url):
    requests.post(url)
""",
        id="task-nothing-retries",
    ),
    Valid(
        """
import dramatiq
import requests

@dramatiq.actor(max_retries=0)
def notify(url, payload):
    requests.post(url, json=payload)
""",
        id="dramatiq-actor-without-retries",
    ),
    Valid(
        """
import smtplib
from huey.contrib.djhuey import task

@task()
def mail(to):
    with smtplib.SMTP("mail") as smtp:
        smtp.sendmail("shop@example.com", [to], "hi")

@task(retries=0)
def mail_again(to):
    with smtplib.SMTP("mail") as smtp:
        smtp.sendmail("shop@example.com", [to], "hi")
""",
        id="huey-task-without-retries",
    ),
    Valid(
        """
import boto3
import stripe
from celery import shared_task

sns = boto3.client("sns")

@shared_task(autoretry_for=(stripe.error.APIConnectionError,))
def charge(order_id, amount):
    stripe.PaymentIntent.create(amount=amount, idempotency_key=f"charge:{order_id}")
    sns.publish(TopicArn="arn:orders.fifo", Message="paid", MessageDeduplicationId=order_id)
""",
        id="provider-idempotency-keys",
    ),
    Valid(
        """
import requests
from celery import shared_task
from django.core.cache import cache
from django.core.mail import send_mail
from joblint.runtime.idempotency import idempotent
from redis import Redis

redis = Redis()

@shared_task(autoretry_for=(IOError,))
@idempotent(key=lambda order_id: f"receipt:{order_id}", connect=None)
def receipt(conn, order_id):
    send_mail("Receipt", "...", "shop@example.com", ["a@example.com"])

@shared_task(acks_late=True)
def invoice(order_id):
    if not cache.add(f"invoice:{order_id}", 1, timeout=86400):
        return
    send_mail("Invoice", "...", "shop@example.com", ["a@example.com"])

@shared_task(acks_late=True)
def hook(order_id):
    if redis.set(f"hook:{order_id}", 1, nx=True, ex=3600):
        requests.post("https://hooks.example.com", json={"order": order_id})

@shared_task(acks_late=True)
def sync(order_id):
    requests.post(
        "https://erp.example.com/orders",
        headers={"Idempotency-Key": f"order:{order_id}"},
    )
""",
        id="claimed-by-guard-set-if-absent-or-header",
    ),
    Valid(
        """
from celery import shared_task
from django.core.mail import send_mail

@shared_task(bind=True, acks_late=True)
def reminder(self, booking_id):
    booking, created = Reminder.objects.get_or_create(booking_id=booking_id)
    if not created:
        return
    send_mail("Reminder", "...", "shop@example.com", [booking.email])

@shared_task(acks_late=True)
def claim(conn, booking_id):
    claimed = conn.execute(
        "INSERT INTO sent (key) VALUES (%s) ON CONFLICT (key) DO NOTHING", [booking_id]
    ).rowcount
    if claimed:
        send_mail("Booked", "...", "shop@example.com", ["a@example.com"])
""",
        id="claimed-by-unique-row-or-sql",
    ),
    Valid(
        """
import requests
from celery import shared_task

@shared_task(autoretry_for=(IOError,))
def fetch(url, token_url):
    requests.get(url)
    requests.delete(url)
    requests.head(url)
    requests.post(token_url, data={"grant_type": "client_credentials"})
    requests.post(f"{url}/oauth2/access_token")
    requests.post(search_url(SEARCH_PATH), json={"q": "x"})

def not_a_task(url):
    requests.post(url)

@shared_task(autoretry_for=(IOError,))
def later(url):
    def callback():
        requests.post(url)
    return callback
""",
        id="reads-deletes-plain-functions-and-nested-callbacks",
    ),
    Valid(
        """
from celery import shared_task

def send_mail(*args):
    print(*args)

class EmailMessage:
    def send(self):
        print("sent")

@shared_task(autoretry_for=(IOError,))
def local(order_id):
    send_mail("Receipt")
    EmailMessage().send()
""",
        id="own-functions-named-like-the-library",
    ),
    Valid(
        """
from celery import shared_task
from app.notify import log_receipt, send_receipt

@shared_task(autoretry_for=(IOError,))
def audit(order):
    log_receipt(order)

@shared_task
def plain(order):
    send_receipt(order)
""",
        id="helper-without-an-effect-or-task-without-retries",
        project={"app_notify": _NOTIFY},
    ),
    Valid(
        """
from celery import shared_task
from app.auth import api_token, forget, refresh

@shared_task(autoretry_for=(IOError,))
def sync(order, client):
    api_token()
    refresh(client)
    forget(order)
""",
        id="helpers-that-only-read-or-delete",
        project={"app_auth": _AUTH},
    ),
    Valid(
        """
from celery import shared_task
from app.accounts import create_remote_user

@shared_task(acks_late=True)
def provision(user):
    create_remote_user(user)
""",
        id="helper-takes-a-lock-before-the-post",
        project={"app_accounts": _LOCKED},
    ),
    Valid(
        """
from celery import shared_task
from app.notify import send_receipt

@shared_task(autoretry_for=(IOError,))
def receipt(order):
    send_receipt(order)
""",
        id="helper-claims-first",
        project={"app_notify": _CLAIMING_NOTIFY},
    ),
    Valid(
        """
from celery import shared_task
from django.core.mail import send_mail

@shared_task(acks_late=False)
def receipt(order_id):
    send_mail("Receipt", "...", "shop@example.com", ["a@example.com"])
""",
        id="acks-late-off-for-the-task",
        project={"app_settings": _ACKS_LATE_SETTINGS},
    ),
    Valid(
        """
import requests
from app.jobs import plain

@plain
def report(url):
    requests.post(url)
""",
        id="project-decorator-without-retries",
        project={"app_jobs": _JOBS},
    ),
    Valid(
        """
import httpx
import requests
import smtplib
from celery import shared_task
from huey import RedisHuey

huey = RedisHuey("shop")

@huey.task()
def rename(sku, name):
    httpx.patch(f"https://catalogue.example.com/products/{sku}", json={"name": name})

@huey.task(retries=0)
def replace_price(sku, price):
    requests.put(f"https://catalogue.example.com/prices/{sku}", json={"price": price})

@shared_task(ignore_result=True)
def mail(to):
    with smtplib.SMTP("mail") as smtp:
        smtp.send_message(to)
""",
        id="put-patch-and-smtp-in-tasks-that-run-once",
    ),
    Valid(
        """
import httpx
import smtplib
from celery import shared_task
from joblint.runtime.idempotency import IdempotencyGuard
from joblint.runtime.transaction import atomic

runs = IdempotencyGuard(table="task_runs")

@shared_task(acks_late=True)
def rename(conn, sku, name):
    with atomic(conn):
        if not runs.claim(conn, f"rename:{sku}:{name}"):
            return
        httpx.patch(f"https://catalogue.example.com/products/{sku}", json={"name": name})

@shared_task(autoretry_for=(OSError,))
def mail(conn, order_id, to):
    with atomic(conn):
        claimed = runs.claim(conn, f"mail:{order_id}")
        if claimed:
            with smtplib.SMTP("mail") as smtp:
                smtp.sendmail("shop@example.com", [to], "Your order")
""",
        id="guard-object-in-a-module-variable",
    ),
    Valid(
        """
from celery import shared_task
from app.hooks import deliver

@shared_task(acks_late=True)
def hook(conn, hook_id, payload):
    deliver(conn, hook_id, payload)
""",
        id="helper-claims-through-its-module-guard",
        project={"app_hooks": _GUARDED_HOOKS},
    ),
)

INVALID = (
    invalid(
        """
import requests
from celery import shared_task

@shared_task(autoretry_for=(requests.ConnectionError,), retry_backoff=True)
def push(order_id, payload):
    requests.post("https://erp.example.com/orders", json=payload)
""",
        (
            7,
            5,
            "POST, in Celery task 'push', which can run more than once "
            "(autoretry_for=(requests.ConnectionError,))",
        ),
        id="autoretry-http-post",
    ),
    invalid(
        """
from celery import shared_task
from django.core.mail import EmailMessage, send_mail

@shared_task(bind=True)
def receipt(self, order_id):
    try:
        send_mail("Receipt", "...", "shop@example.com", ["a@example.com"])
    except OSError as exc:
        raise self.retry(exc=exc)

@shared_task(acks_late=True)
def digest(user_id):
    message = EmailMessage("Digest", "...", to=["a@example.com"])
    message.send()
    EmailMessage("Copy", "...", to=["b@example.com"]).send()
""",
        (8, 9, "it calls self.retry()"),
        (
            15,
            5,
            "message.send() sends an email, in Celery task 'digest', which can run more than "
            "once (acks_late=True)",
        ),
        (16, 5, "sends an email"),
        id="self-retry-and-acks-late-email",
    ),
    invalid(
        """
import boto3
import dramatiq
import httpx
import smtplib
from huey import RedisHuey

huey = RedisHuey()
ses = boto3.client("ses")

@dramatiq.actor
def welcome(email):
    ses.send_email(Source="shop@example.com", Destination={"ToAddresses": [email]})

@dramatiq.actor(max_retries=3)
async def call(url):
    async with httpx.AsyncClient() as client:
        await client.post(url)

@huey.task(retries=2)
def mail(to):
    with smtplib.SMTP("mail") as smtp:
        smtp.sendmail("shop@example.com", [to], "hi")
""",
        (
            13,
            5,
            "sends an email through SES, in Dramatiq actor 'welcome', which can run more than "
            "once (Dramatiq retries every failed actor",
        ),
        (
            18,
            15,
            "client.post() sends an HTTP POST, in Dramatiq actor 'call', which can run "
            "more than once (max_retries=3)",
        ),
        (
            23,
            9,
            "sends an email over SMTP, in Huey task 'mail', which can run more than once "
            "(retries=2)",
        ),
        id="dramatiq-httpx-ses-huey-smtp",
    ),
    invalid(
        """
import requests
import stripe
from rq import Retry
from rq.decorators import job

@job("default", retry=Retry(max=3))
def refund(order_id, amount):
    stripe.Refund.create(payment_intent=order_id, amount=amount)
    with requests.Session() as http:
        http.post("https://erp.example.com/refunds", json={"order": order_id, "amount": amount})
""",
        (9, 5, "Pass idempotency_key= derived from the job's arguments"),
        (11, 9, "http.post() sends an HTTP POST"),
        id="rq-retry-stripe-and-session",
    ),
    invalid(
        """
import stripe
from celery import shared_task

@shared_task
def charge(order_id, amount):
    stripe.Charge.create(amount=amount, currency="eur")
""",
        (7, 5, "task_acks_late is set in the project's settings"),
        id="acks-late-in-settings",
        app_settings=_ACKS_LATE_SETTINGS,
    ),
    invalid(
        """
from app.celery import app
from django.core.mail import send_mail

@app.task
def alert(message):
    send_mail("Alert", message, "shop@example.com", ["ops@example.com"])
""",
        (7, 5, "send_mail() sends an email, in Celery task 'alert'"),
        id="bare-task-of-an-imported-app-with-acks-late-on-the-app",
        app_celery=_ACKS_LATE_CELERY,
    ),
    invalid(
        """
from celery import shared_task
from django.core.mail import mail_admins

@shared_task
def alert(message):
    mail_admins("Alert", message)
""",
        (7, 5, "task_acks_late is set"),
        id="acks-late-on-the-app",
        app_celery=_ACKS_LATE_CELERY,
    ),
    invalid(
        """
from celery import shared_task
from django.core.mail import send_mail

@shared_task(acks_late=True)
def reminder(booking_id):
    booking, _ = Reminder.objects.get_or_create(booking_id=booking_id)
    send_mail("Reminder", "...", "shop@example.com", [booking.email])

@shared_task(acks_late=True)
def second(booking_id):
    booking, created = Reminder.objects.get_or_create(booking_id=booking_id)
    send_mail("Reminder", "...", "shop@example.com", [booking.email])
    return created
""",
        (8, 5, "send_mail() sends an email, in Celery task 'reminder'"),
        (13, 5, "send_mail() sends an email, in Celery task 'second'"),
        id="get-or-create-whose-flag-nothing-tests",
    ),
    invalid(
        """
from celery import shared_task
from app.notify import send_receipt

@shared_task(autoretry_for=(IOError,))
def receipt(order):
    send_receipt(order)
""",
        (
            7,
            5,
            "send_receipt() → send_mail() at app/notify.py:6, which sends an email, "
            "in Celery task 'receipt'",
        ),
        id="helper-in-another-module-sends-mail",
        app_notify=_NOTIFY,
    ),
    invalid(
        """
import requests
from app.jobs import retrying

@retrying
def sync(order_id):
    requests.post(f"https://erp.example.com/orders/{order_id}/payments", json={"paid": True})
""",
        (7, 5, "the options its decorator 'retrying' fixes"),
        id="project-task-decorator-retries",
        app_jobs=_JOBS,
    ),
    invalid(
        """
from celery import shared_task
from app.aws import sns

@shared_task(autoretry_for=(IOError,))
def announce(order_id):
    sns.publish(TopicArn="arn:orders", Message=str(order_id))
""",
        (7, 5, "sns.publish(), which publishes an SNS notification"),
        id="module-client-of-another-module",
        app_aws=_AWS,
    ),
    invalid(
        """
import httpx
import requests
from celery import shared_task

@shared_task(acks_late=True)
def rename(sku, name):
    httpx.patch(f"https://catalogue.example.com/products/{sku}", json={"name": name})

@shared_task(acks_late=True)
def replace_stock(sku, lines):
    with requests.Session() as http:
        http.put(f"https://stock.example.com/items/{sku}/lines", json=lines)
    with httpx.Client() as client:
        client.patch(f"https://stock.example.com/items/{sku}", json={"op": "add"})
""",
        (
            8,
            5,
            "httpx.patch() sends an HTTP PATCH the service may not treat as idempotent, in "
            "Celery task 'rename', which can run more than once (acks_late=True)",
        ),
        (13, 9, "http.put() sends an HTTP PUT the service may not treat as idempotent"),
        (15, 9, "client.patch() sends an HTTP PATCH"),
        id="acks-late-put-and-patch",
    ),
    invalid(
        """
from celery import shared_task
from app.catalogue import rename_product

@shared_task(acks_late=True)
def rename(product):
    rename_product(product)
""",
        (7, 5, "rename_product() → httpx.put() at app/catalogue.py:6, which sends an HTTP PUT"),
        id="helper-in-another-module-puts",
        app_catalogue=_CATALOGUE,
    ),
    invalid(
        """
import smtplib
from email.message import EmailMessage
from celery import shared_task

@shared_task(acks_late=True)
def statement(to, body):
    message = EmailMessage()
    message["To"] = to
    message.set_content(body)
    with smtplib.SMTP("mail", 587) as smtp:
        smtp.starttls()
        smtp.send_message(message)

@shared_task(acks_late=True)
def alert(to):
    smtplib.SMTP_SSL("mail").sendmail("ops@example.com", [to], "Disk full")
""",
        (
            13,
            9,
            "smtp.send_message() sends an email over SMTP, in Celery task 'statement', "
            "which can run more than once (acks_late=True)",
        ),
        (17, 5, "sends an email over SMTP, in Celery task 'alert'"),
        id="acks-late-smtplib-sends",
    ),
    invalid(
        """
import requests
import smtplib
from app.factories import job, make_task


def push_invoice(invoice_id):
    requests.post("https://erp.example.com/invoices", json={"id": invoice_id})


def mail_invoice(invoice_id, address):
    with smtplib.SMTP("mail.example.com") as smtp:
        smtp.sendmail("billing@example.com", [address], f"invoice {invoice_id}")


push_invoice_task = make_task(push_invoice, acks_late=True)
mail_invoice_task = job(autoretry_for=(smtplib.SMTPException,))(mail_invoice)
""",
        (8, 5, "in Celery task 'push_invoice', which can run more than once (acks_late=True)"),
        (13, 9, "in Celery task 'mail_invoice', which can run more than once (autoretry_for="),
        id="tasks-made-by-a-maker-and-a-decorator-factory-called",
        app_factories=_FACTORIES,
    ),
    invalid(
        """
import requests
from celery import shared_task

runs = RunRegistry()

@shared_task(acks_late=True)
def push(conn, order_id):
    if not runs.claim(conn, f"push:{order_id}"):
        return
    requests.post("https://erp.example.com/orders", json={"order": order_id})
""",
        (11, 5, "requests.post() sends an HTTP POST, in Celery task 'push'"),
        id="claim-of-an-object-that-is-not-the-guard",
    ),
    invalid(
        """
import requests
from app.factories import job


@job(acks_late=True, queue="erp")
def push_invoice(invoice_id):
    requests.post("https://erp.example.com/invoices", json={"id": invoice_id})
""",
        (8, 5, "in Celery task 'push_invoice', which can run more than once (acks_late=True)"),
        id="decorator-factory-returning-a-nested-decorator",
        app_factories=_FACTORIES,
    ),
)
