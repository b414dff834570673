"""Retry policies for the shop's outbound calls (payment gateway, carrier API,
exchange rates). Some are the way we want them, some are not yet."""

import random
import time

import backoff
import requests
import tenacity as t
from celery import Task, shared_task
from requests.adapters import HTTPAdapter
from rq import Retry
from tenacity import retry as retrying
from tenacity import stop_after_attempt, wait_exponential, wait_random_exponential
from urllib3.util.retry import Retry as HttpRetry

from joblint_runtime.backoff import full_jitter, jittered_intervals

from .celery import app

TRANSIENT = (requests.ConnectionError, requests.Timeout)


def carrier_session():
    session = requests.Session()
    policy = HttpRetry(
        total=5,
        backoff_factor=0.5,  # JL301: every worker sleeps 0.5, 1, 2, 4 s in lock step
        status_forcelist=(429, 502, 503, 504),
    )
    session.mount("https://", HTTPAdapter(max_retries=policy))
    return session


def gateway_session():
    session = requests.Session()
    policy = HttpRetry(total=5, backoff_factor=0.5, backoff_jitter=1.0)
    session.mount("https://", HTTPAdapter(max_retries=policy))
    return session


@shared_task(bind=True, max_retries=5)
def capture_payment(self, payment_id):
    try:
        requests.post(f"https://gateway.example/capture/{payment_id}", timeout=10)
    except TRANSIENT as exc:
        delay = 30 * 2 ** self.request.retries
        raise self.retry(exc=exc, countdown=delay)  # JL301: no random part in delay


@shared_task(bind=True, max_retries=5)
def refund_payment(self, payment_id):
    try:
        requests.post(f"https://gateway.example/refund/{payment_id}", timeout=10)
    except TRANSIENT as exc:
        countdown = full_jitter(self.request.retries, base=30, cap=600)
        raise self.retry(exc=exc, countdown=countdown)


@app.task(bind=True, max_retries=None)  # JL302: a poisoned order retries forever
def sync_inventory(self, sku):
    try:
        requests.get(f"https://warehouse.example/stock/{sku}", timeout=10)
    except Exception as exc:  # JL303: bugs retried as if transient
        raise self.retry(exc=exc, countdown=60)


@shared_task(
    autoretry_for=(Exception,),  # JL303: retries a TypeError too
    retry_backoff=True,
    max_retries=4,
)
def send_invoice(order_id):
    requests.post(f"https://mail.example/invoice/{order_id}", timeout=10)


@shared_task(autoretry_for=TRANSIENT, retry_backoff=True, max_retries=4)
def send_shipping_label(order_id):
    requests.post(f"https://mail.example/label/{order_id}", timeout=10)


class CarrierTask(Task):
    autoretry_for = TRANSIENT
    retry_backoff = 10
    retry_jitter = False  # JL301: backoff without Celery's jitter
    max_retries = 4


@retrying(
    wait=wait_exponential(multiplier=1, max=60),  # JL301: no random part
    stop=stop_after_attempt(5),
)
def fetch_exchange_rates():
    return requests.get("https://rates.example/latest", timeout=10).json()


@retrying(wait=wait_random_exponential(multiplier=1, max=60))  # JL302: never stops
def fetch_tax_table():
    return requests.get("https://tax.example/table", timeout=10).json()


@retrying(
    wait=wait_random_exponential(multiplier=1, max=60),
    stop=stop_after_attempt(5),
    retry=t.retry_if_exception_type(Exception),  # JL303: explicit catch-all
)
def fetch_catalogue():
    return requests.get("https://catalogue.example/all", timeout=10).json()


@backoff.on_exception(backoff.expo, TRANSIENT, max_tries=5)
def ping_carrier():
    return requests.get("https://carrier.example/ping", timeout=5)


@backoff.on_exception(backoff.expo, TRANSIENT)  # JL302: no max_tries or max_time
def track_parcel(parcel_id):
    return requests.get(f"https://carrier.example/track/{parcel_id}", timeout=5)


def reindex_retry_policy():
    return Retry(max=3, interval=[10, 60, 300])  # JL301: RQ adds no jitter


def export_retry_policy():
    return Retry(max=4, interval=jittered_intervals(5, base=10, cap=300))


def push_to_erp(payload):
    for attempt in range(5):
        try:
            return requests.post("https://erp.example/orders", json=payload, timeout=10)
        except TRANSIENT:
            time.sleep(2**attempt)  # JL301: sleep grows in lock step
    raise RuntimeError("ERP unreachable")


def push_to_crm(payload):
    for attempt in range(5):
        try:
            return requests.post("https://crm.example/contacts", json=payload, timeout=10)
        except TRANSIENT:
            time.sleep(random.uniform(0, 2**attempt))
    raise RuntimeError("CRM unreachable")


def wait_for_search_index():
    while True:  # JL302: loops forever while the index is down
        try:
            return requests.get("https://search.example/health", timeout=5)
        except TRANSIENT:
            time.sleep(5)
