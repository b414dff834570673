"""What several parts of the example suite
`joblint.rules.idempotency._examples.unguarded_side_effect_in_retried_task` share."""

from __future__ import annotations

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
