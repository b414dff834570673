"""The full example suite of `joblint.rules.retries.unbounded_retries`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

# A bound task handing itself to the example's helper.
CALLER_TASKS = """from celery import shared_task

from app.example import retry_later


@shared_task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        retry_later(self, exc)
"""

# A task maker and a decorator factory forwarding their callers' options to
# the app's task decorator, and a registry of handlers that makes no task.
FACTORIES = (
    "from celery import Celery\n\n"
    "app = Celery('app')\n\n"
    "def make_task(fn, **opts):\n    return app.task(**opts)(fn)\n\n"
    "def job(**opts):\n"
    "    def register(fn):\n        return app.task(**opts)(fn)\n\n"
    "    return register\n"
)
HOOKS = "HOOKS = []\n\ndef on_event(fn, **opts):\n    HOOKS.append((fn, opts))\n    return fn\n"

VALID = (
    Valid(
        """
from app.factories import job, make_task
from app.hooks import on_event


def refresh(account_id):
    fetch(account_id)


def audit(account_id):
    fetch(account_id)


refresh_task = job(max_retries=4, queue="slow")(refresh)
audit_task = make_task(audit, max_retries=3)
on_event(audit, max_retries=None)
""",
        id="celery-bounded-factories-called-and-a-registry-that-makes-no-task",
        project={"app_factories": FACTORIES, "app_hooks": HOOKS},
    ),
    Valid(
        """
import time

def worker_loop(queue):
    while True:
        try:
            job = queue.get()
            job.run()
        except Exception:
            log.exception("job failed")
        time.sleep(1)

def fetch(url):
    attempt = 0
    while True:
        try:
            return get(url)
        except ConnectionError:
            attempt += 1
            if attempt >= 5:
                raise
            time.sleep(2)
""",
        id="daemon-loop-and-bounded-while-true",
    ),
    Valid(
        """
from procrastinate import App, RetryStrategy

app = App(connector=connector)

@app.task(retry=4)
def a(): ...

@app.task(retry=RetryStrategy(max_attempts=4, wait=5))
def b(): ...

Q_CLUSTER = {"name": "shop", "max_attempts": 5}
""",
        id="procrastinate-and-django-q-bounded",
    ),
    Valid(
        """
import time

class Consumer:
    def run(self):
        while True:
            try:
                if self.shutdown.is_set():
                    break
                self.handle(self.inbox.get())
            except Exception:
                log.exception("message failed")
                time.sleep(5)

    def run_until_told(self):
        while True:
            try:
                self.drain_once()
                if self.stopping:
                    return
            except OSError:
                log.exception("drain failed")
            time.sleep(1)

def serve(server):
    while True:
        try:
            server.handle_request()
        except KeyboardInterrupt:
            break
        except OSError:
            time.sleep(1)
""",
        id="service-loops-exit-on-a-shutdown-signal",
    ),
    Valid(
        """
import datetime
import time

def wait_for_api(client, limit=30.0):
    started = time.monotonic()
    while True:
        try:
            if time.monotonic() - started > limit:
                raise TimeoutError("the API never came up")
            return client.ping()
        except ConnectionError:
            time.sleep(1)

def wait_for_index(client, deadline):
    while True:
        try:
            left = deadline - datetime.datetime.now()
            if left.total_seconds() <= 0:
                break
            return client.index_status()
        except ConnectionError:
            time.sleep(2)
""",
        id="loops-bounded-by-a-deadline",
    ),
    Valid(
        """
import time
import uuid

from django.db import IntegrityError
from redis.exceptions import WatchError

def bump(pipe, key):
    while True:
        try:
            pipe.watch(key)
            count = int(pipe.get(key) or 0)
            pipe.multi()
            pipe.set(key, count + 1)
            pipe.execute()
            break
        except WatchError:
            time.sleep(0.01)

def issue_coupon(owner):
    while True:
        code = new_coupon_code()
        try:
            return Coupon.objects.create(owner=owner, code=code)
        except IntegrityError:
            time.sleep(0.01)

def issue_api_key(owner):
    while True:
        try:
            ApiKey.objects.create(owner=owner, key=uuid.uuid4().hex)
            return
        except IntegrityError:
            time.sleep(0.01)
""",
        id="retries-only-on-a-conflict",
    ),
    Valid(
        """
from app.scheduling import task

@task(max_retries=None)
def nightly(report_id):
    build(report_id)
""",
        id="same-named-task-decorator-of-a-non-job-module",
        project={
            "app_scheduling": (
                "def task(**options):\n    def register(function):\n        return function\n\n"
                "    return register\n"
            )
        },
    ),
    Valid(
        """
from celery import shared_task

retrying = shared_task(
    bind=True, autoretry_for=(ConnectionError,), max_retries=5, retry_backoff=True
)
""",
        id="celery-bounded-factory",
        project={
            "app_tasks": (
                "from app.example import retrying\n\n@retrying\ndef sync(self, account_id): ...\n"
            )
        },
    ),
    Valid(
        """
from app.clients import Client, fetch_all, remember

fetch_all("https://example.com/feed", max_retries=None)
client = Client("https://example.com", max_retries=None)


def fetch_page(url, max_retries=None, **options):
    return url


fetch_page("https://example.com/page", max_retries=None)


@remember(max_retries=None)
def nightly(report_id):
    build(report_id)
""",
        id="project-functions-taking-max-retries-that-make-no-task",
        project={
            "app_clients": (
                "def fetch_all(url, max_retries=None, **options):\n    return url\n\n"
                "class Client:\n    def __init__(self, url, max_retries=None):\n"
                "        self.url = url\n\n"
                "def remember(**options):\n    def register(function):\n"
                "        return function\n\n    return register\n"
            )
        },
    ),
)

INVALID = (
    invalid(
        """
import backoff

@backoff.on_exception(backoff.expo, IOError)
def fetch(): ...

@backoff.on_predicate(backoff.fibo, max_tries=None)
def poll(): ...
""",
        (4, 2, "max_tries"),
        (7, 2, "max_tries"),
        id="backoff-no-bound",
    ),
    invalid(
        """
from procrastinate import App, RetryStrategy

app = App(connector=connector)

@app.task(retry=True)
def a(): ...

@app.task(retry=RetryStrategy(exponential_wait=2))
def b(): ...

Q_CLUSTER = {
    "name": "shop",
    "max_attempts": 0,
}
""",
        (6, 11, "retry=True"),
        (9, 17, "max_attempts"),
        (14, 5, "max_attempts=0"),
        id="procrastinate-and-django-q",
    ),
    invalid(
        """
import asyncio
import time

def fetch(url):
    while True:
        try:
            return get(url)
        except ConnectionError:
            time.sleep(5)

async def afetch(url):
    while 1:
        try:
            response = await aget(url)
            break
        except (ConnectionError, TimeoutError):
            log.warning("retrying")
        await asyncio.sleep(5)
""",
        (6, 5, "while True"),
        (13, 5, "while True"),
        id="while-true-retry-loops",
    ),
    invalid(
        """
import time

from django.db import IntegrityError
from redis.exceptions import WatchError

def wait_for_broker(broker):
    while True:
        try:
            broker.connect()
        except OSError:
            time.sleep(1)
        else:
            break

def store(invoice):
    while True:
        try:
            invoice.save()
            break
        except IntegrityError:
            time.sleep(1)

def bump(pipe, key):
    while True:
        try:
            pipe.watch(key)
            pipe.execute()
            break
        except (WatchError, ConnectionError):
            time.sleep(0.1)

def fetch(client, url):
    while True:
        try:
            response = client.get(url)
            if response.ok:
                return response
        except ConnectionError:
            time.sleep(2)
""",
        (8, 5, "for attempt in range(5)"),
        (17, 5, "while True loop retries on error forever"),
        (25, 5, "while True loop retries on error forever"),
        (34, 5, "while True loop retries on error forever"),
        id="while-true-failure-retries-are-kept",
    ),
    invalid(
        """
import backoff
from celery import shared_task
from procrastinate import App, RetryStrategy
from tenacity import retry

app = App(connector=connector)

@shared_task(max_retries=None)
def a(): ...

@retry
def b(): ...

@backoff.on_exception(backoff.expo, IOError)
def c(): ...

@app.task(retry=True)
def d(): ...

strategy = RetryStrategy(linear_wait=5)

Q_CLUSTER = {"name": "shop", "max_attempts": 0}
""",
        (9, 14, "Set max_retries=4 (5 attempts in total: max_retries counts the retries"),
        (12, 2, "Add stop=stop_after_attempt(5)"),
        (15, 2, "Add max_tries=5 (5 attempts in total: max_tries counts every attempt)"),
        (18, 11, "Use retry=4 or retry=RetryStrategy(max_attempts=4, ...): 5 attempts"),
        (21, 12, "Pass max_attempts=4 (5 attempts in total: max_attempts counts the retries"),
        (23, 30, "Set max_attempts=5 (5 attempts in total: max_attempts counts every attempt)"),
        fixed="""
import backoff
from celery import shared_task
from procrastinate import App, RetryStrategy
from tenacity import stop_after_attempt, retry

app = App(connector=connector)

@shared_task(max_retries=4)
def a(): ...

@retry(stop=stop_after_attempt(5))
def b(): ...

@backoff.on_exception(backoff.expo, IOError)
def c(): ...

@app.task(retry=True)
def d(): ...

strategy = RetryStrategy(linear_wait=5)

Q_CLUSTER = {"name": "shop", "max_attempts": 0}
""",
        id="one-reference-policy-5-attempts-in-total",
    ),
    invalid(
        """
from celery import shared_task

retrying_task = shared_task(autoretry_for=(ConnectionError,), max_retries=None)

@retrying_task
def sync(account_id):
    fetch(account_id)

@retrying_task
def push(account_id):
    send(account_id)
""",
        (4, 63, "max_retries=None"),
        fixed="""
from celery import shared_task

retrying_task = shared_task(autoretry_for=(ConnectionError,), max_retries=4)

@retrying_task
def sync(account_id):
    fetch(account_id)

@retrying_task
def push(account_id):
    send(account_id)
""",
        id="celery-factory-options-reported-once",
        app_tasks=(
            "from app.example import retrying_task\n\n@retrying_task\ndef pull(account_id): ...\n"
        ),
    ),
    invalid(
        """
from app.celery import task
from app.reexport import background
from app.wrappers import job

@task(bind=True, max_retries=None)
def push(self, account_id):
    fetch(account_id)

@job(max_retries=None)
def pull(account_id):
    fetch(account_id)

@background(max_retries=None)
def prune(account_id):
    fetch(account_id)
""",
        (6, 18, "max_retries=None"),
        (10, 6, "max_retries=None"),
        (14, 13, "max_retries=None"),
        fixed="""
from app.celery import task
from app.reexport import background
from app.wrappers import job

@task(bind=True, max_retries=4)
def push(self, account_id):
    fetch(account_id)

@job(max_retries=4)
def pull(account_id):
    fetch(account_id)

@background(max_retries=4)
def prune(account_id):
    fetch(account_id)
""",
        id="celery-project-task-decorators-imported-by-bare-name",
        app_celery="from celery import Celery\n\napp = Celery('app')\ntask = app.task\n",
        app_reexport="from celery import shared_task as background\n",
        app_wrappers=(
            "from celery import shared_task\n\ndef job(*args, **kwargs):\n"
            "    return shared_task(*args, **kwargs)\n"
        ),
    ),
    invalid(
        """
from functools import partial
from celery import shared_task

retrying = partial(shared_task, autoretry_for=(ConnectionError,), max_retries=3)

@retrying(max_retries=None)
def sync(account_id):
    fetch(account_id)
""",
        (7, 11, "max_retries=None"),
        fixed="""
from functools import partial
from celery import shared_task

retrying = partial(shared_task, autoretry_for=(ConnectionError,), max_retries=3)

@retrying(max_retries=4)
def sync(account_id):
    fetch(account_id)
""",
        id="celery-partial-factory-overridden-by-the-call",
    ),
    invalid(
        """
def retry_later(task, exc):
    raise task.retry(exc=exc, max_retries=None)
""",
        (3, 31, "(the task: 'sync' passes itself at app/tasks.py:11)"),
        fixed="""
def retry_later(task, exc):
    raise task.retry(exc=exc, max_retries=4)
""",
        id="celery-helper-a-bound-task-hands-itself-to",
        app_tasks=CALLER_TASKS,
    ),
    invalid(
        """
from celery import shared_task

from app.factories import cron_task, make_task


def job(**options):
    return shared_task(bind=True, **options)


@job(max_retries=None)
def sync(self, account_id):
    fetch(account_id)


def refresh(account_id):
    fetch(account_id)


refresh_task = make_task(refresh, max_retries=None)


@cron_task(max_retries=None, lock_timeout=600)
def nightly():
    build()
""",
        (11, 6, "max_retries=None"),
        (20, 35, "max_retries=None"),
        (23, 12, "max_retries=None"),
        fixed="""
from celery import shared_task

from app.factories import cron_task, make_task


def job(**options):
    return shared_task(bind=True, **options)


@job(max_retries=4)
def sync(self, account_id):
    fetch(account_id)


def refresh(account_id):
    fetch(account_id)


refresh_task = make_task(refresh, max_retries=4)


@cron_task(max_retries=4, lock_timeout=600)
def nightly():
    build()
""",
        id="celery-task-makers-and-nested-decorator-factories",
        app_factories=(
            "from functools import wraps\n\nfrom celery import Celery, shared_task\n\n"
            "app = Celery('app')\n\n"
            "def make_task(fn, **opts):\n    return app.task(**opts)(fn)\n\n"
            "def cron_task(*task_args, **task_kwargs):\n"
            "    task_kwargs.pop('lock_timeout', None)\n\n"
            "    def _cron_task(task_func):\n        @wraps(task_func)\n"
            "        def wrapper(*args, **kwargs):\n"
            "            return task_func(*args, **kwargs)\n\n"
            "        return shared_task(*task_args, **task_kwargs)(wrapper)\n\n"
            "    return _cron_task\n"
        ),
    ),
    invalid(
        """
from app.factories import job, make_task


def refresh(account_id):
    fetch(account_id)


def audit(account_id):
    fetch(account_id)


refresh_task = job(max_retries=None, queue="slow")(refresh)
audit_task = make_task(audit, queue="audit", max_retries=None)
""",
        (13, 20, "Celery max_retries=None retries forever"),
        (14, 46, "Celery max_retries=None retries forever"),
        fixed="""
from app.factories import job, make_task


def refresh(account_id):
    fetch(account_id)


def audit(account_id):
    fetch(account_id)


refresh_task = job(max_retries=4, queue="slow")(refresh)
audit_task = make_task(audit, queue="audit", max_retries=4)
""",
        id="celery-decorator-factory-applied-by-a-call-and-a-maker",
        app_factories=FACTORIES,
    ),
)
