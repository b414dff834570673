"""The full example suite of `joblint.rules.retry_on_any_exception` (its class keeps the
teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

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
)
