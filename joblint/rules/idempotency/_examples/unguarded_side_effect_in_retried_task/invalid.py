"""INVALID examples of
`joblint.rules.idempotency.unguarded_side_effect_in_retried_task`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import invalid
from joblint.rules.idempotency._examples.unguarded_side_effect_in_retried_task.common import (
    _ACKS_LATE_CELERY,
    _ACKS_LATE_SETTINGS,
    _AWS,
    _CATALOGUE,
    _FACTORIES,
    _JOBS,
    _NOTIFY,
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
