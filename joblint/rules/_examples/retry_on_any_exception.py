"""The full example suite of `joblint.rules.retry_on_any_exception` (its class keeps the
teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

# Helpers a bound task may hand itself to: some retry on whatever they are
# handed, some only on what they pick or catch themselves, one never retries.
HELPERS = """import logging

def retry_later(task, exc):
    raise task.retry(exc=exc, countdown=60)

def retry_transient(task, exc):
    if isinstance(exc, (ConnectionError, TimeoutError)):
        raise task.retry(exc=exc)
    raise exc

def guarded(task, call):
    try:
        return call()
    except ConnectionError as exc:
        raise task.retry(exc=exc)

def report(task, exc):
    logging.getLogger(__name__).warning("%s failed: %s", task.name, exc)
"""

VALID = (
    Valid(
        """
class Client:
    def retry(self): ...

    def call(self):
        try:
            self.send()
        except Exception:
            self.retry()
""",
        id="not-a-celery-task",
    ),
    Valid(
        """
from tenacity import retry, retry_if_exception_type, retry_if_not_exception_type, stop_after_attempt

@retry(
    retry=retry_if_exception_type(Exception) & retry_if_not_exception_type(ValueError),
    stop=stop_after_attempt(5),
)
def a(): ...
""",
        id="tenacity-narrowed-with-and",
    ),
    Valid(
        """
from celery import shared_task

retrying_task = shared_task(autoretry_for=(ConnectionError, TimeoutError), max_retries=5)
""",
        id="celery-factory-retrying-transient-types",
        project={
            "app_tasks": (
                "from app.example import retrying_task\n\n"
                "@retrying_task\ndef sync(account_id): ...\n"
            )
        },
    ),
    Valid(
        """
from celery import shared_task

from app.helpers import guarded, report, retry_later, retry_transient

@shared_task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        retry_later(self, exc)
    except Exception as exc:
        retry_transient(self, exc)

@shared_task(bind=True, max_retries=4)
def push(self, account_id):
    try:
        guarded(self, lambda: send(account_id))
    except Exception as exc:
        report(self, exc)
        raise

@shared_task(max_retries=4)
def pull(account_id, client):
    try:
        fetch(account_id)
    except Exception as exc:
        retry_later(client, exc)
""",
        id="helpers-handed-the-task-that-pick-what-they-retry-or-dont",
        project={"app_helpers": HELPERS},
    ),
)

INVALID = (
    invalid(
        """
import backoff
import tenacity as t
from tenacity import retry as retrying

BROAD = t.retry_if_exception_type(Exception)

@retrying(retry=BROAD, stop=t.stop_after_attempt(5))
def a(): ...

@retrying(
    stop=t.stop_after_attempt(5),
    retry=t.retry_if_result(lambda r: r is None) | t.retry_if_exception_type((BaseException,)),
)
def b(): ...

@backoff.on_exception(backoff.expo, (IOError, Exception), max_tries=5)
def c(): ...
""",
        (6, 35, "retry_if_exception_type(...) retries every exception (Exception)"),
        (13, 79, "(BaseException)"),
        (17, 47, "backoff.on_exception"),
        id="tenacity-and-backoff",
    ),
    invalid(
        """
from celery import Task, shared_task

def push_later(job: Task, payload):
    try:
        send(payload)
    except Exception as exc:
        raise job.retry(exc=exc)

@shared_task(bind=True, max_retries=4)
def sync(task, account_id):
    try:
        fetch(account_id)
    except:
        task.retry(countdown=60)
""",
        (7, 12, "job.retry(...) in this except clause retries every exception (Exception)"),
        (14, 5, "task.retry(...) in a bare except"),
        id="the-message-quotes-the-retry-as-written",
    ),
    invalid(
        """
from celery import shared_task

retrying_task = shared_task(autoretry_for=(Exception,), max_retries=5)
""",
        (4, 44, "Celery autoretry_for retries every exception (Exception)"),
        id="celery-factory-reported-once-at-its-options",
        app_tasks=(
            "from app.example import retrying_task\n\n@retrying_task\ndef sync(account_id): ...\n\n"
            "@retrying_task\ndef push(account_id): ...\n"
        ),
    ),
    invalid(
        """
def guarded(task, call):
    try:
        return call()
    except Exception as exc:
        raise task.retry(exc=exc)
""",
        (5, 12, "task.retry(...) in this except clause retries every exception (Exception)"),
        id="celery-helper-a-bound-task-hands-itself-to",
        app_tasks=(
            "from celery import shared_task\n\nfrom app.example import guarded\n\n"
            "@shared_task(bind=True, max_retries=4)\ndef sync(self, account_id):\n"
            "    return guarded(self, lambda: fetch(account_id))\n"
        ),
    ),
    invalid(
        """
from celery import Celery

app = Celery("shop")


def job(**options):
    return app.task(autoretry_for=(Exception,), max_retries=4, **options)


def make_task(fn, **options):
    return app.task(bind=True, autoretry_for=(ConnectionError, Exception), **options)(fn)
""",
        (8, 36, "Celery autoretry_for retries every exception (Exception)"),
        (12, 64, "Celery autoretry_for retries every exception (Exception)"),
        id="celery-factory-functions-reported-once-at-their-options",
        app_tasks=(
            "from app.example import job, make_task\n\n@job()\ndef sync(account_id): ...\n\n"
            "@job(queue='slow')\ndef push(account_id): ...\n\n"
            "def pull(self, account_id): ...\n\npull_task = make_task(pull)\n"
        ),
    ),
    invalid(
        """
from celery import shared_task

from app.helpers import retry_later

@shared_task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except Exception as exc:
        retry_later(self, exc)

@shared_task(bind=True, max_retries=4)
def push(self, account_id):
    try:
        send(account_id)
    except:
        retry_later(self, None)
""",
        (10, 12, "retry_later(self, ...) (a retry of the task) in this except clause retries"),
        (17, 5, "bare except"),
        id="a-bound-task-handing-itself-to-a-helper-that-retries-it",
        app_helpers=HELPERS,
    ),
)
