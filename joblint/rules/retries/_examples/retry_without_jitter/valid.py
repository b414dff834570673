"""VALID examples of `joblint.rules.retries.retry_without_jitter`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import Valid
from joblint.rules.retries._examples.retry_without_jitter.common import (
    HANDED_DELAY_HELPERS,
    NESTED_RETRY,
    RETRY_PARAMS,
)

VALID = (
    Valid(
        """
from celery import shared_task
from joblint.runtime.backoff import full_jitter

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=full_jitter(self.request.retries, base=30, cap=600))
""",
        id="celery-countdown-full-jitter",
    ),
    Valid(
        """
from celery import shared_task

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=60)
    except TimeoutError as exc:
        raise self.retry(exc=exc, countdown=30 + self.request.retries)
""",
        id="celery-constant-and-additive-countdown",
    ),
    Valid(
        """
from celery import shared_task

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=self.backoff(self.request.retries) * 2)
""",
        id="celery-countdown-through-unknown-call",
    ),
    Valid(
        """
import dramatiq
from dramatiq.middleware import Retries

broker.add_middleware(Retries(max_retries=5, min_backoff=1000, max_backoff=60000))

@dramatiq.actor(max_retries=5, min_backoff=1000)
def sync(account_id):
    fetch(account_id)
""",
        id="dramatiq-always-jitters",
    ),
    Valid(
        """
import backoff
import tenacity as t
from tenacity import retry, wait_random_exponential, wait_exponential, wait_random, wait_fixed

@backoff.on_exception(backoff.expo, ConnectionError, max_tries=5)
def a(): ...

@backoff.on_exception(backoff.constant, ConnectionError, max_tries=5, jitter=None)
def b(): ...

@retry(wait=wait_random_exponential(multiplier=1, max=60), stop=t.stop_after_attempt(5))
def c(): ...

@retry(wait=wait_exponential(multiplier=1, max=60) + wait_random(0, 2))
def d(): ...

@retry(wait=t.wait_exponential_jitter(initial=1, max=60))
def e(): ...

@retry(wait=wait_fixed(5))
def f(): ...
""",
        id="backoff-and-tenacity-jittered-or-constant",
    ),
    Valid(
        """
import botocore.config
from google.api_core.retry import Retry as GoogleRetry
from rq import Retry
from urllib3.util.retry import Retry as HttpRetry

config = botocore.config.Config(retries={"mode": "standard", "max_attempts": 5})
google_retry = GoogleRetry(initial=1.0, maximum=60.0, multiplier=2.0)
rq_retry = Retry(max=3, interval=60)
rq_flat = Retry(max=3, interval=[60, 60, 60])
http = HttpRetry(total=5, backoff_factor=0.5, backoff_jitter=1.0)
http_flat = HttpRetry(total=5)
""",
        id="botocore-google-constant-rq-urllib3-jitter",
    ),
    Valid(
        """
import random
import time

def fetch(url):
    for attempt in range(5):
        try:
            return get(url)
        except ConnectionError:
            time.sleep(2 ** attempt + random.random())

def poll(url):
    for attempt in range(5):
        try:
            return get(url)
        except ConnectionError:
            time.sleep(5)
""",
        id="sleep-loop-jittered-or-constant",
    ),
    Valid(
        """
from taskiq import SmartRetryMiddleware

a = SmartRetryMiddleware(default_retry_count=5, default_delay=10)
b = SmartRetryMiddleware(use_delay_exponent=True, use_jitter=True)
""",
        id="taskiq-constant-or-jittered",
    ),
    Valid(
        """
import time
import tenacity
from tenacity import retry, stop_after_attempt, wait_combine, wait_fixed, wait_incrementing

STEADY = wait_incrementing(start=2, increment=3, max=30)

@retry(wait=wait_incrementing(start=1, increment=2), stop=stop_after_attempt(5))
def a(): ...

@retry(wait=STEADY + wait_fixed(1), stop=stop_after_attempt(5))
def b(): ...

@retry(wait=wait_combine(tenacity.wait.wait_incrementing(5), wait_fixed(2)))
def c(): ...

def reconnect(client):
    delay = 1
    for attempt in range(5):
        try:
            return client.connect()
        except ConnectionError:
            time.sleep(delay)
            delay += 2
""",
        id="additive-growth-is-not-exponential",
    ),
    Valid(
        """
import tenacity
from tenacity import retry, wait_chain, wait_exponential, wait_exponential_jitter, wait_fixed

@retry(wait=wait_exponential_jitter(initial=1, max=60, jitter=0.5))
def a(): ...

@retry(wait=wait_exponential(max=60) + tenacity.wait_exception(lambda exc: exc.retry_after))
def b(): ...

@retry(wait=wait_chain(wait_fixed(1), wait_exponential(max=60) + tenacity.wait_random(0, 2)))
def d(): ...

@retry(wait=tenacity.wait_full_jitter(multiplier=1, max=60))
def c(): ...
""",
        id="tenacity-random-or-delegated-waits",
    ),
    Valid(
        """
import time

def wait_for_export(store, key, backoff=2.0):
    delay = 0.1
    while True:
        if store.has(key):
            return store.get(key)
        time.sleep(delay)
        delay *= backoff

def wait_for_status(client, job_id):
    for attempt in range(8):
        status = client.status(job_id)
        if status == "done":
            return status
        time.sleep(2 ** attempt)

def read_with_failures_raised(client, job_id):
    for attempt in range(8):
        try:
            state = client.state(job_id)
        except ConnectionError:
            raise
        if state.ready:
            return state
        time.sleep(2 ** attempt)
""",
        id="result-poll-is-not-a-retry",
    ),
    Valid(
        """
from redis.retry import Retry as RedisRetry
from redis.backoff import ExponentialBackoff
from shop.http import Backoff

class Retry:
    def __init__(self, total=3, backoff_factor=0, interval=()):
        self.total = total

own = Retry(total=5, backoff_factor=0.5)
own_schedule = Retry(total=3, interval=[10, 30, 60])
redis_retry = RedisRetry(ExponentialBackoff(), 3)
other = Backoff(total=5, backoff_factor=0.5)
""",
        id="retry-classes-that-are-not-urllib3-or-rq",
    ),
    Valid(
        """
import random

def retry_later(task, exc):
    delay = 2 ** task.request.retries
    raise task.retry(exc=exc, countdown=random.uniform(0, delay))

def poll_again(job, exc):
    raise job.retry(exc=exc, countdown=2 ** job.request.retries)
""",
        id="celery-helper-with-jitter-or-never-handed-a-bound-task",
        project={
            "app_tasks": (
                "from celery import shared_task\n\n"
                "from app.example import poll_again, retry_later\n\n"
                "@shared_task(bind=True, max_retries=4)\ndef sync(self, account_id):\n"
                "    retry_later(self, None)\n\n"
                "@shared_task(max_retries=4)\ndef refresh(client):\n"
                "    poll_again(client, None)\n\n"
                "def reload(client):\n    poll_again(client, None)\n"
            )
        },
    ),
    Valid(
        """
import random

from celery import shared_task

from app.retrying import note_wait, retry_expiring, retry_with


@shared_task(bind=True, max_retries=6)
def scan(self, upload_id):
    try:
        check(upload_id)
    except ScanPending as exc:
        note_wait(self, exc, 10 * (self.request.retries + 1))
    except ScanFailed as exc:
        retry_expiring(self, exc, 2 ** self.request.retries)
    except ConnectionError as exc:
        retry_with(self, exc, random.uniform(0, 2 ** self.request.retries))
    except TimeoutError as exc:
        log_and_retry(self, exc, 2 ** self.request.retries)
""",
        id="celery-delay-handed-to-helpers-that-log-it-expire-with-it-or-jittered",
        project={"app_retrying": HANDED_DELAY_HELPERS, "app_params": RETRY_PARAMS},
    ),
    Valid(
        """
from celery import shared_task

retrying = shared_task(
    bind=True, autoretry_for=(ConnectionError,), max_retries=5, retry_backoff=True
)
""",
        id="celery-factory-with-jitter-and-a-bound",
        project={
            "app_tasks": (
                "from app.example import retrying\n\n@retrying\ndef sync(self, account_id): ...\n"
            )
        },
    ),
    Valid(
        """
import random
import time

from celery import shared_task

from app.delays import backoff_with_jitter, linear, scaled_wait, switchable


def steady(attempt):
    return 30 + attempt


@shared_task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=backoff_with_jitter(self.request.retries))
    except TimeoutError as exc:
        raise self.retry(exc=exc, countdown=steady(self.request.retries))
    except OSError as exc:
        raise self.retry(exc=exc, countdown=switchable(self.request.retries))


def pull(client):
    for attempt in range(5):
        try:
            return client.pull()
        except ConnectionError:
            time.sleep(linear(5))
            time.sleep(scaled_wait(5, attempt))
            time.sleep(backoff_with_jitter(attempt) + random.random())
""",
        id="project-delay-functions-with-jitter-constant-or-not-given-the-attempt",
        project={
            "app_delays": (
                "import random\n\n"
                "def backoff_with_jitter(n):\n    return random.uniform(0, 2 ** n)\n\n"
                "def linear(n):\n    return 2 ** n\n\n"
                "def scaled_wait(base, cap):\n    return min(cap, base * 60)\n\n"
                "def switchable(n, jitter=True):\n"
                "    if jitter:\n        return random.uniform(0, 2 ** n)\n"
                "    return 2 ** n\n"
            )
        },
    ),
    Valid(
        """
import random

from rq import Retry

from app.waits import even_waits, extended_waits, spread_waits


def plan(queue, report_id, spread=False, waits=0):
    if spread:
        waits = spread_waits(4)
    queue.enqueue(build_report, report_id, retry=Retry(max=4, interval=waits))


def plan_even(queue, report_id):
    queue.enqueue(build_report, report_id, retry=Retry(max=4, interval=even_waits(4)))


def plan_extended(queue, report_id, waits=None):
    if waits is None:
        waits = [random.uniform(1, 5) for _ in range(4)]
    else:
        waits = extended_waits(4)
    queue.enqueue(build_report, report_id, retry=Retry(max=4, interval=waits))
""",
        id="rq-waits-from-project-functions-constant-jittered-or-extended",
        project={
            "app_waits": (
                "import random\n\n"
                "def even_waits(count):\n    waits = []\n"
                "    for step in range(count):\n        waits.append(30)\n    return waits\n\n"
                "def spread_waits(count) -> list:\n    return with_spread(count)\n\n"
                "def with_spread(count):\n    waits = []\n    for step in range(count):\n"
                "        waits.append(5 * 2 ** step + random.uniform(0, 5))\n    return waits\n\n"
                "def extended_waits(count):\n    waits = [5]\n    for step in range(count):\n"
                "        waits.append(5 * 3 ** step)\n    waits.extend(settings_waits())\n"
                "    return waits\n"
            )
        },
    ),
    Valid(
        """
import random
import time


def connect(client):
    delay = 1
    for attempt in range(5):
        try:
            return client.connect()
        except ConnectionError:
            time.sleep(delay + random.uniform(0, delay))
            delay *= 2


def reconnect(client):
    delay = 1
    for attempt in range(5):
        try:
            return client.connect()
        except ConnectionError:
            time.sleep(random.random() * delay)
            delay = min(delay * 2, 60)


def export_pages(client):
    size = 100
    offset = 0
    while True:
        try:
            rows = client.page(offset, size)
        except ValueError:
            rows = []
        if not rows:
            return
        offset += size
        size *= 2
        time.sleep(1)
""",
        id="growth-by-reassignment-jittered-or-not-the-sleep",
    ),
    Valid(
        NESTED_RETRY.format(
            imports="from joblint.runtime.backoff import full_jitter\n",
            delay="full_jitter(self.request.retries, base=30)",
        ),
        id="nested-function-of-a-bound-task-jittered",
    ),
    Valid(
        NESTED_RETRY.format(
            imports="from joblint_runtime import backoff\n",
            delay="backoff.full_jitter(self.request.retries, base=30)",
        ),
        id="jittered-by-the-runtime-distribution-through-its-module",
    ),
    Valid(
        """
class Poller:
    def poll(self, account_id):
        def attempt():
            try:
                return fetch(account_id)
            except ConnectionError:
                self.retry(countdown=60 * self.request.retries)

        return attempt()
""",
        id="nested-function-in-a-method-of-a-plain-class",
    ),
)
