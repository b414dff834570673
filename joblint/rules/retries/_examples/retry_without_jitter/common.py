"""What several parts of the example suite
`joblint.rules.retries._examples.retry_without_jitter` share."""

from __future__ import annotations

CALLER_TASKS = """from celery import shared_task

from app.example import retry_later


@shared_task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        retry_later(self, exc)
"""

HANDED_DELAY_HELPERS = """import logging

from app.params import expiring_params, retry_params

def retry_later(task, exc, wait=None):
    raise task.retry(exc=exc, **retry_params("retry", countdown=wait))

def retry_with(task, exc, delay):
    raise task.retry(exc=exc, countdown=delay)

def note_wait(task, exc, waited):
    logging.info("waited %s", waited)
    raise task.retry(exc=exc, countdown=60)

def retry_expiring(task, exc, seconds):
    raise task.retry(exc=exc, **expiring_params(seconds))
"""

RETRY_PARAMS = """from typing import Any


def retry_params(queue, countdown=None) -> dict[str, Any]:
    params: dict[str, Any] = {"queue": queue}
    if countdown is not None:
        params["countdown"] = countdown
    return params


def expiring_params(seconds):
    return {"expires": seconds, "queue": "retry"}
"""

NESTED_RETRY = """
from celery import shared_task
{imports}
@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    def attempt():
        try:
            fetch(account_id)
        except ConnectionError as exc:
            raise self.retry(exc=exc, countdown={delay})

    attempt()
"""
