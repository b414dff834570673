"""INVALID examples of `joblint.rules.retries.retry_without_jitter`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import invalid
from joblint.rules.retries._examples.retry_without_jitter.common import (
    CALLER_TASKS,
    HANDED_DELAY_HELPERS,
    NESTED_RETRY,
    RETRY_PARAMS,
)

INVALID = (
    invalid(
        NESTED_RETRY.format(imports="", delay="60 * self.request.retries"),
        (10, 49, "60 * self.request.retries"),
        id="nested-function-of-a-bound-task",
    ),
    invalid(
        """
from celery import shared_task

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(
            exc=exc,
            countdown=60 * (self.request.retries + 1),
        )
""",
        (11, 23, "full_jitter(self.request.retries"),
        id="celery-countdown-multi-line-multiplication",
    ),
    invalid(
        """
from celery import Celery, Task

app = Celery("shop")

class Base(Task):
    retry_backoff = True
    retry_jitter = False

@app.task(autoretry_for=(IOError,), retry_backoff=5, retry_jitter=False)
def sync(account_id): ...
""",
        (8, 5, "retry_jitter=False"),
        (10, 54, "retry_jitter=False"),
        fixed="""
from celery import Celery, Task

app = Celery("shop")

class Base(Task):
    retry_backoff = True
    retry_jitter = True

@app.task(autoretry_for=(IOError,), retry_backoff=5, retry_jitter=True)
def sync(account_id): ...
""",
        id="celery-retry-jitter-false",
    ),
    invalid(
        """
import tenacity as t
from tenacity import retry as retrying, wait_exponential

WAIT = wait_exponential(multiplier=1, max=60)

@retrying(wait=WAIT, stop=t.stop_after_attempt(5))
def a(): ...

@retrying(
    stop=t.stop_after_attempt(5),
    wait=t.wait_exponential(multiplier=2, max=30) + t.wait_fixed(1),
)
def b(): ...

for attempt in t.Retrying(wait=t.wait_exponential(), stop=t.stop_after_attempt(3)):
    pass
""",
        (5, 8, "wait_random_exponential(multiplier=..., max=...)"),
        (12, 10, "wait_exponential"),
        (16, 32, "wait_exponential"),
        fixed="""
import tenacity as t
from tenacity import wait_random_exponential, retry as retrying

WAIT = wait_random_exponential(multiplier=1, max=60)

@retrying(wait=WAIT, stop=t.stop_after_attempt(5))
def a(): ...

@retrying(
    stop=t.stop_after_attempt(5),
    wait=t.wait_random_exponential(multiplier=2, max=30) + t.wait_fixed(1),
)
def b(): ...

for attempt in t.Retrying(wait=t.wait_random_exponential(), stop=t.stop_after_attempt(3)):
    pass
""",
        id="tenacity-aliased-and-multi-line",
    ),
    invalid(
        """
import tenacity
from tenacity import retry, stop_after_attempt
from tenacity import wait_exponential as backoff
from tenacity.wait import wait_exponential

@retry(wait=backoff(multiplier=2, max=30), stop=stop_after_attempt(5))
def a(): ...

@retry(wait=wait_exponential(1, 60, 2, 5), stop=stop_after_attempt(5))
def b(): ...

@tenacity.retry(wait=tenacity.wait.wait_exponential(min=1), stop=stop_after_attempt(5))
def c(): ...
""",
        (7, 13, "tenacity wait_exponential(...)"),
        (10, 13, "tenacity wait_exponential(...)"),
        (13, 22, "tenacity wait_exponential(...)"),
        fixed="""
import tenacity
from tenacity import wait_random_exponential, retry, stop_after_attempt

@retry(wait=wait_random_exponential(multiplier=2, max=30), stop=stop_after_attempt(5))
def a(): ...

@retry(wait=wait_random_exponential(1, 60, 2, 5), stop=stop_after_attempt(5))
def b(): ...

@tenacity.retry(wait=tenacity.wait.wait_random_exponential(min=1), stop=stop_after_attempt(5))
def c(): ...
""",
        id="tenacity-from-import-module-attribute-and-min",
    ),
    invalid(
        """
import backoff

@backoff.on_exception(backoff.expo, ConnectionError, max_tries=5, jitter=None)
def fetch(): ...
""",
        (4, 67, "jitter=None"),
        id="backoff-jitter-none",
    ),
    invalid(
        """
from requests.adapters import HTTPAdapter, Retry
from rq import Retry as RqRetry

adapter = HTTPAdapter(max_retries=Retry(total=5, backoff_factor=0.5))
job_retry = RqRetry(max=3, interval=[10, 30, 60])
comp_retry = RqRetry(max=3, interval=[5 * 2 ** i for i in range(3)])
""",
        (5, 50, "backoff_jitter"),
        (6, 28, "jittered_intervals"),
        (7, 29, "jittered_intervals"),
        id="urllib3-and-rq",
    ),
    invalid(
        """
from taskiq.middlewares import SmartRetryMiddleware

middleware = SmartRetryMiddleware(default_delay=5, use_delay_exponent=True)
""",
        (4, 52, "use_jitter=True"),
        id="taskiq-smart-retry",
    ),
    invalid(
        """
import asyncio
import time

def fetch(url):
    for attempt in range(5):
        try:
            return get(url)
        except ConnectionError:
            time.sleep(0.5 * 2 ** attempt)

async def afetch(url):
    delay = 1
    while True:
        try:
            return await aget(url)
        except ConnectionError:
            await asyncio.sleep(delay)
            delay = min(delay * 2, 60)
""",
        (10, 24, "2 ** attempt, line 10"),
        (18, 33, "delay * 2, line 19"),
        id="sleep-loops",
    ),
    invalid(
        """
import time

def push(client, payload):
    for attempt in range(1, 6):
        if attempt > 1:
            time.sleep(3 * 2 ** attempt)
        try:
            return client.push(payload)
        except ConnectionError:
            continue

def pull(client, mirrors):
    for attempt in range(5):
        for mirror in mirrors:
            try:
                return client.pull(mirror)
            except ConnectionError:
                break
        time.sleep(2 ** attempt)
""",
        (7, 24, "3 * 2 ** attempt, line 7"),
        (20, 20, "2 ** attempt, line 20"),
        id="sleep-before-the-try-or-after-a-nested-loop",
    ),
    invalid(
        """
import tenacity
from tenacity import retry, wait_exponential_jitter

@retry(wait=wait_exponential_jitter(initial=1, max=60, jitter=0))
def a(): ...

@retry(wait=tenacity.wait_exponential_jitter(1, 60, 2, 0.0))
def b(): ...

@retry(wait=tenacity.wait_chain(tenacity.wait_fixed(1), tenacity.wait_exponential(max=60)))
def c(): ...
""",
        (5, 13, "wait_exponential_jitter(...) with its jitter set to 0"),
        (8, 13, "wait_exponential_jitter(...) with its jitter set to 0"),
        (11, 57, "tenacity wait_exponential(...) grows without a random part"),
        fixed="""
import tenacity
from tenacity import retry, wait_exponential_jitter

@retry(wait=wait_exponential_jitter(initial=1, max=60, jitter=0))
def a(): ...

@retry(wait=tenacity.wait_exponential_jitter(1, 60, 2, 0.0))
def b(): ...

@retry(wait=tenacity.wait_chain(tenacity.wait_fixed(1), tenacity.wait_random_exponential(max=60)))
def c(): ...
""",
        id="tenacity-jitter-switched-off-or-exponential-in-a-chain",
    ),
    invalid(
        """
from celery import Task, shared_task

def retry_later(job: Task, exc):
    raise job.retry(exc=exc, countdown=2 ** job.request.retries)

@shared_task(bind=True, max_retries=4)
def sync(task, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise task.retry(exc=exc, countdown=10 * 2 ** task.request.retries)
""",
        (5, 40, "full_jitter(job.request.retries, base=30, cap=600)"),
        (12, 45, "full_jitter(task.request.retries, base=30, cap=600)"),
        fixed="""
from celery import Task, shared_task
from joblint_runtime.backoff import full_jitter

def retry_later(job: Task, exc):
    raise job.retry(exc=exc, countdown=full_jitter(job.request.retries, base=1, cap=600))

@shared_task(bind=True, max_retries=4)
def sync(task, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise task.retry(exc=exc, countdown=full_jitter(task.request.retries, base=10, cap=600))
""",
        id="task-retry-in-a-helper-or-a-task-named-task",
    ),
    invalid(
        """
import urllib3
from requests.packages.urllib3.util.retry import Retry as VendoredRetry

pool = urllib3.PoolManager(retries=urllib3.Retry(total=5, backoff_factor=1))
vendored = VendoredRetry(total=3, backoff_factor=0.3, backoff_jitter=0)
""",
        (5, 59, "urllib3 Retry(backoff_factor=...)"),
        (6, 35, "urllib3 Retry(backoff_factor=...)"),
        id="urllib3-retry-resolved-through-its-imports",
    ),
    invalid(
        """
def retry_later(task, exc):
    raise task.retry(exc=exc, countdown=2 ** task.request.retries)
""",
        (3, 41, "(the task: 'sync' passes itself at app/tasks.py:11)"),
        fixed="""
from joblint_runtime.backoff import full_jitter

def retry_later(task, exc):
    raise task.retry(exc=exc, countdown=full_jitter(task.request.retries, base=1, cap=600))
""",
        id="celery-helper-a-bound-task-hands-itself-to",
        app_tasks=CALLER_TASKS,
    ),
    invalid(
        """
from celery import shared_task
from joblint.runtime.backoff import full_jitter

@shared_task(bind=True, max_retries=5)
def pull(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=5 * 2 ** self.request.retries)
""",
        (10, 45, "5 * 2 ** self.request.retries"),
        fixed="""
from celery import shared_task
from joblint.runtime.backoff import full_jitter

@shared_task(bind=True, max_retries=5)
def pull(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=full_jitter(self.request.retries, base=5, cap=600))
""",
        id="fix-uses-the-helper-already-imported-by-its-old-name",
    ),
    invalid(
        """
from celery import shared_task

from app.retrying import retry_later, retry_with

SCAN_WAIT = 10


@shared_task(bind=True, max_retries=6)
def scan(self, upload_id):
    try:
        check(upload_id)
    except ScanPending as exc:
        if self.request.retries < 3:
            wait = SCAN_WAIT * (self.request.retries + 1)
        else:
            wait = None
        retry_later(self, exc, wait)


@shared_task(bind=True, max_retries=6)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        retry_with(self, exc, delay=2 ** self.request.retries)
""",
        (18, 32, "retry_later() retries the task with it as wait at app/retrying.py:6"),
        (26, 37, "retry_with() retries the task with it as delay at app/retrying.py:9"),
        id="celery-delay-handed-to-a-helper-retrying-the-task-with-it",
        app_retrying=HANDED_DELAY_HELPERS,
        app_params=RETRY_PARAMS,
    ),
    invalid(
        """
from app.jobs import bound_task

@bound_task
def pull(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(countdown=3 ** self.request.retries)
""",
        (9, 36, "3 ** self.request.retries"),
        fixed="""
from app.jobs import bound_task
from joblint_runtime.backoff import full_jitter

@bound_task
def pull(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(countdown=full_jitter(self.request.retries, base=1, factor=3, cap=600))
""",
        id="celery-imported-factory-binds-its-tasks",
        app_jobs=(
            "from celery import shared_task\n\nbound_task = shared_task(bind=True, max_retries=4)\n"
        ),
    ),
    invalid(
        """
import asyncio
import time

from celery import shared_task

from app.delays import capped_backoff


def backoff(retries):
    delay = 10 * 2 ** retries
    return delay


@shared_task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=backoff(self.request.retries))
    except TimeoutError as exc:
        raise self.retry(exc=exc, countdown=60 * backoff(self.request.retries))


def pull(client):
    for attempt in range(5):
        try:
            return client.pull()
        except ConnectionError:
            time.sleep(capped_backoff(attempt))


async def push(client):
    for attempt in range(5):
        try:
            return await client.push()
        except ConnectionError:
            await asyncio.sleep(capped_backoff(n=attempt))
""",
        (20, 45, "backoff() returns it at app/example.py:12, growing with its parameter retries"),
        (22, 45, "(backoff(self.request.retries), line 22; backoff() returns it"),
        (30, 24, "capped_backoff() returns it at app/delays.py:4, growing with its parameter n"),
        (38, 33, "(capped_backoff(n=attempt), line 38; capped_backoff() returns it"),
        id="project-function-computing-a-growing-delay",
        app_delays=(
            "def capped_backoff(n, cap=600):\n    if n > 8:\n        return cap\n"
            "    return min(cap, 2 ** n)\n"
        ),
    ),
    invalid(
        """
import time


def connect(client):
    delay = 1
    for attempt in range(5):
        try:
            return client.connect()
        except ConnectionError:
            time.sleep(delay)
            delay *= 2


def reconnect(client):
    wait = 0.5
    for _ in range(5):
        try:
            client.connect()
            break
        except ConnectionError:
            pass
        time.sleep(wait)
        wait = wait * 2
""",
        (11, 24, "(delay *= 2, line 12)"),
        (23, 20, "(wait * 2, line 24)"),
        id="for-loops-growing-the-delay-by-reassignment",
    ),
    invalid(
        """
import time


class Client:
    def _backoff(self, n):
        return 2 ** n

    def _padded(self, pad, n):
        return pad + 2 ** n

    def fetch(self):
        for attempt in range(5):
            try:
                return self.get()
            except ConnectionError:
                time.sleep(self._backoff(attempt))

    def fetch_padded(self):
        for attempt in range(5):
            try:
                return self.get()
            except ConnectionError:
                time.sleep(self._padded(attempt, 3))
""",
        (17, 28, "self._backoff() returns it at app/example.py:7, growing with its parameter n"),
        id="a-method-computing-the-delay-from-the-parameter-it-is-handed",
    ),
    invalid(
        """
from rq import Retry

from app.waits import planned_waits


def squared_waits(count) -> list:
    waits = [1]
    for step in range(2, count + 1):
        waits.append(step ** 2)
    return waits


def waits_for(count, backoff) -> list | int:
    if backoff:
        return squared_waits(count)
    return 0


def plan(queue, report_id, backoff=False, waits=0):
    if backoff:
        waits = waits_for(4, backoff)
    else:
        waits = waits
    queue.enqueue(build_report, report_id, retry=Retry(max=4, interval=waits))


def plan_nightly(queue, report_id):
    queue.enqueue(build_report, report_id, retry=Retry(max=5, interval=planned_waits(5)))
""",
        (25, 63, "waits_for() returns squared_waits()'s list, growing with its position at"),
        (29, 63, "planned_waits() returns it, growing with its position at app/waits.py:2"),
        id="rq-waits-a-project-function-builds-growing",
        app_waits=(
            "def planned_waits(count):\n    return [10 * 2 ** step for step in range(count)]\n"
        ),
    ),
)
