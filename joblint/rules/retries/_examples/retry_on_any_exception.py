"""The full example suite of `joblint.rules.retries.retry_on_any_exception`
(its class keeps the teaching examples the docs open with)."""

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

def retry_routed(task, note, exc):
    if note is None:
        raise task.retry(exc=exc)
    else:
        raise task.retry(exc=exc, queue=note.queue)

def retry_noted(task, note, exc):
    if note is not None:
        raise task.retry(exc=exc)
    elif isinstance(exc, ConnectionError):
        raise task.retry(exc=exc, countdown=30)
"""

# A task decorator of the project's, in a package the example imports from its
# own import root (`from jobs import ...` inside `app/`, run with `app/` on the path).
OWN_ROOT_FACTORY = """from celery import shared_task

def worker_task(*args, **kwargs):
    return shared_task(*args, **kwargs)
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


refresh_task = job(autoretry_for=(ConnectionError, TimeoutError))(refresh)
audit_task = make_task(audit, autoretry_for=(IOError,), max_retries=3)
on_event(audit, autoretry_for=(Exception,))
""",
        id="celery-transient-types-through-factories-and-a-registry-that-makes-no-task",
        project={"app_factories": FACTORIES, "app_hooks": HOOKS},
    ),
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
    Valid(
        """
from celery import shared_task

from app.helpers import retry_noted

@shared_task(bind=True, max_retries=4)
def sync(self, account_id, note=None):
    try:
        fetch(account_id)
    except Exception as exc:
        retry_noted(self, note, exc)
""",
        id="a-helper-retrying-in-some-arms-of-an-if-only",
        project={"app_helpers": HELPERS},
    ),
    Valid(
        """
from celery import shared_task

from jobs import worker_task

@shared_task(autoretry_for=(Exception,), max_retries=0)
def sync(account_id):
    fetch(account_id)

@worker_task(bind=True, autoretry_for=(Exception,), max_retries=0, retry_backoff=True)
def push(self, account_id):
    send(account_id)
""",
        id="a-bound-allowing-no-retry-retries-nothing",
        project={"app_jobs": OWN_ROOT_FACTORY},
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
    invalid(
        """
from celery import shared_task

from app.helpers import retry_routed

@shared_task(bind=True, max_retries=4)
def sync(self, account_id, note=None):
    try:
        fetch(account_id)
    except Exception as exc:
        retry_routed(self, note, exc)
""",
        (10, 12, "retry_routed(self, ...) (a retry of the task) in this except clause retries"),
        id="a-helper-retrying-the-task-in-every-arm-of-an-if",
        app_helpers=HELPERS,
    ),
    invalid(
        """
from jobs import worker_task

@worker_task(bind=True, autoretry_for=(Exception,), max_retries=3)
def sync(self, account_id):
    fetch(account_id)

@worker_task(bind=True, max_retries=3)
def push(self, account_id):
    try:
        send(account_id)
    except Exception as exc:
        raise self.retry(exc=exc)
""",
        (4, 40, "Celery autoretry_for retries every exception (Exception)"),
        (12, 12, "self.retry(...) in this except clause retries every exception"),
        id="a-factory-imported-from-the-package-own-import-root",
        app_jobs=OWN_ROOT_FACTORY,
    ),
    invalid(
        """
from app.factories import job, make_task


@job(autoretry_for=(Exception,), max_retries=4)
def sync(account_id):
    fetch(account_id)


def refresh(account_id):
    fetch(account_id)


def audit(account_id):
    fetch(account_id)


refresh_task = job(autoretry_for=(BaseException,), max_retries=4)(refresh)
audit_task = make_task(audit, autoretry_for=(IOError, Exception), max_retries=4)
""",
        (5, 21, "Celery autoretry_for retries every exception (Exception)"),
        (18, 35, "Celery autoretry_for retries every exception (BaseException)"),
        (19, 55, "Celery autoretry_for retries every exception (Exception)"),
        id="celery-factories-given-every-exception-where-they-are-called",
        app_factories=FACTORIES,
    ),
)
