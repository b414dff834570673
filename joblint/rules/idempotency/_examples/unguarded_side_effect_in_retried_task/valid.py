"""VALID examples of
`joblint.rules.idempotency.unguarded_side_effect_in_retried_task`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import Valid
from joblint.rules.idempotency._examples.unguarded_side_effect_in_retried_task.common import (
    _ACKS_LATE_SETTINGS,
    _AUTH,
    _CLAIMING_NOTIFY,
    _FACTORIES,
    _GUARDED_HOOKS,
    _HOOKS,
    _JOBS,
    _LOCKED,
    _NOTIFY,
)

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
from joblint_runtime.idempotency import idempotent
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
