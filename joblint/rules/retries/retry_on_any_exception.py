"""JL303 retry-on-any-exception.

Retry on every exception: bugs are retried like transient failures.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL303` show) and its teaching examples."""

from __future__ import annotations

import libcst as cst

from joblint.knowledge.retries import FIX_TRANSIENT
from joblint.libraries.retry_api import Caught
from joblint.rule import Valid, invalid
from joblint.rules.retries._base import RetryRule
from joblint.rules.retries._facts.retry_facts import (
    PROJECT_RETRY_LIMITS,
    PROJECT_TASK_DOCS,
    Catch,
    RetryPolicy,
)
from joblint.rules.retries._tokens import RETRY_CATCHES

_BUGS = "bugs (a TypeError, a KeyError) are retried too, burning attempts that can never succeed"


class RetryOnAnyException(RetryRule):
    """
    ## What it does
    Finds retries triggered by every exception:
    - Celery `autoretry_for` containing `Exception` or `BaseException`
      (decorator option or `Task` subclass attribute);
    - a Celery task's `self.retry(...)` inside `except Exception:`,
      `except BaseException:` or a bare `except:` (also `task.retry(...)` in a
      bound task whose first parameter is `task`, or in a helper whose
      parameter is annotated as a Celery `Task`; the message names the
      receiver as the code writes it);
    - tenacity `retry=retry_if_exception_type(Exception)`;
    - backoff `on_exception(wait_gen, Exception)`.

    <<project-task-options>>
    `self.retry(...)` in a function nested in a bound task, where `self` is
    the task's (neither a parameter of the nested function nor a name its
    top-level statements assign), is the task's own retry too. A bound task
    handing itself to such a helper from inside `except Exception:` (or a
    bare `except:`), `retry_later(self, exc)`, is reported at the clause
    when the helper retries it whatever it was handed: not inside an except
    clause of its own, nor under a test of its other parameters
    (`if isinstance(exc, IOError):`) unless every arm of that `if` retries
    it (`if note is None: task.retry(...) else: task.retry(queue=...)`). The
    task is its first parameter handed on by position, and the file must
    name a job library or task. A policy whose literal bound allows no retry
    at all (Celery `max_retries=0`, or a `self.retry(max_retries=0)`) retries
    nothing: not reported.

    ## Why is this bad?
    Retries help with transient failures: timeouts, dropped connections,
    5xx and 429 answers. A bug or bad input fails the same way every time;
    retrying it delays the error report by the whole backoff schedule, adds
    load, and may repeat side effects that did happen before the crash.

    ## Example
    ```python
    from celery import shared_task


    @shared_task(autoretry_for=(Exception,), retry_backoff=True, max_retries=4)
    def sync_account(account_id):
        api.sync(account_id)
    ```

    ## Use instead
    ```python
    from celery import shared_task
    from requests.exceptions import ConnectionError, Timeout


    @shared_task(autoretry_for=(ConnectionError, Timeout), retry_backoff=True, max_retries=4)
    def sync_account(account_id):
        api.sync(account_id)
    ```

    ## Fix safety
    No automatic fix: which exceptions are transient depends on the client
    library; after the change, other errors fail on the first attempt.

    ## Known limits
    - A call of a class or function the module itself defines is never taken
      for the library's: a library's own module constructing its own API
      class (`return RetryStrategy()` beside `class RetryStrategy`) is its
      internals, not a use of its API.
    - tenacity's implicit default (no `retry=`) retries every exception too,
      but is not reported: only explicit broad types are.
    - `except Exception:` handlers that look at the exception before retrying
      (`isinstance(...)`, or an `if` testing the exception) are taken as filtering
      it and not reported.
    - `retry_if_exception_type(Exception) & ...` (narrowed with `&` or
      `retry_all`) is not reported.
    """

    CODE = "JL303"
    SHARED_LIMITS = PROJECT_RETRY_LIMITS
    SHARED_DOCS = PROJECT_TASK_DOCS
    TRIGGERS = RETRY_CATCHES
    SUMMARY = "Retry on every exception: bugs are retried like transient failures"
    HELP = (
        "Retry a tuple of transient exception types (timeouts, connection errors, 5xx, 429) "
        "and let bugs fail fast to the dead-letter queue"
    )

    def judge(self, policy: RetryPolicy) -> None:
        """Every exception is retried: a bare except clause around the retry,
        or `Exception`/`BaseException` among the types it is for. A policy
        whose literal bound allows no retry (`max_retries=0`) retries nothing."""
        if policy.catches and any(bound.no_retries for bound in policy.bounds):
            return
        for catch in policy.catches:
            if catch.caught is Caught.EVERYTHING and self.first_time(catch.node):
                self.report_at(
                    policy,
                    catch.node,
                    f"{catch.where} in a bare except: retries every exception: {_BUGS}. "
                    f"Catch {FIX_TRANSIENT}",
                )
            for broad in catch.broad:
                if self.first_time(broad):
                    self.report_at(
                        policy,
                        broad,
                        f"{_where(catch)} retries every exception ({_name(broad)}): {_BUGS}. "
                        f"Retry {FIX_TRANSIENT}",
                    )

    VALID = (
        Valid(
            """
import backoff
import requests
from celery import shared_task
from tenacity import retry, retry_if_exception_type, stop_after_attempt

@shared_task(autoretry_for=(requests.ConnectionError, requests.Timeout), max_retries=4)
def a(): ...

@retry(stop=stop_after_attempt(5))
def b(): ...

@retry(retry=retry_if_exception_type((IOError, TimeoutError)), stop=stop_after_attempt(5))
def c(): ...

@backoff.on_exception(backoff.expo, requests.RequestException, max_tries=5)
def d(): ...
""",
            id="transient-types-and-tenacity-default",
        ),
        Valid(
            """
from celery import shared_task

@shared_task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except Exception as exc:
        if isinstance(exc, (IOError, TimeoutError)):
            raise self.retry(exc=exc)
        raise

@shared_task(bind=True, max_retries=4)
def push(self, account_id):
    try:
        fetch(account_id)
    except Exception as exc:
        if getattr(exc, "status", 500) >= 500:
            raise self.retry(exc=exc)
        raise
""",
            id="handler-filters-the-exception",
        ),
    )

    INVALID = (
        invalid(
            """
from celery import Celery, Task

app = Celery("shop")

class Base(Task):
    autoretry_for = (IOError, Exception)

@app.task(autoretry_for=(Exception,), retry_backoff=True, max_retries=4)
def sync(account_id): ...
""",
            (7, 31, "autoretry_for"),
            (9, 26, "transient exception types"),
            id="celery-autoretry-for",
        ),
        invalid(
            """
from celery import shared_task

@shared_task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except Exception as exc:
        raise self.retry(exc=exc, countdown=60)

@shared_task(bind=True, max_retries=4)
def push(self, account_id):
    try:
        fetch(account_id)
    except:
        self.retry(countdown=60)
""",
            (8, 12, "except clause retries every exception (Exception)"),
            (15, 5, "bare except"),
            id="self-retry-in-broad-handler",
        ),
    )


def _where(catch: Catch) -> str:
    return f"{catch.where} in this except clause" if catch.handler else catch.where


def _name(node: cst.BaseExpression) -> str:
    return node.value if isinstance(node, cst.Name) else "Exception"
