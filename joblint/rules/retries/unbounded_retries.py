"""JL302 unbounded-retries.

Retries have no attempt limit: a job that can never succeed retries forever.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL302` show) and its teaching examples."""

from __future__ import annotations

from joblint.knowledge.retries import REFERENCE_ATTEMPTS
from joblint.knowledge.trigger import Trigger
from joblint.libraries.retry_api import Bound
from joblint.rule import Valid, invalid
from joblint.rules.retries._base import RetryRule, as_fix
from joblint.rules.retries._facts.retry_facts import (
    PROJECT_RETRY_LIMITS,
    PROJECT_TASK_DOCS,
    RetryPolicy,
)
from joblint.rules.retries._tokens import RETRY_BOUNDS, SLEEP

_FOREVER = "a job that can never succeed (a poisoned message) stays alive and keeps failing"


class UnboundedRetries(RetryRule):
    """
    ## What it does
    Finds retry policies with no limit on the number of attempts:
    - Celery `max_retries=None` (task option, `Task` subclass attribute,
      `retry_kwargs`, or `self.retry(max_retries=None)`);
    - tenacity `@retry`, `Retrying(...)`, `AsyncRetrying(...)` without `stop=`
      (tenacity never stops by default), or with `stop=stop_never`;
    - backoff `on_exception`/`on_predicate` with neither `max_tries` nor `max_time`;
    - procrastinate `@app.task(retry=True)` and `RetryStrategy()` without
      `max_attempts`;
    - django-q2 `Q_CLUSTER = {"max_attempts": 0}` (0 means unlimited);
    - a `while True:` retry loop that catches a failure, sleeps and loops
      again, with nothing in the loop that gives up.

    <<project-task-options>>
    `self.retry(...)` in a function nested in a bound task, where `self` is
    the task's (neither a parameter of the nested function nor a name its
    top-level statements assign), is the task's own retry too.

    A `while True` loop is a retry loop only when a `break`/`return` follows
    the guarded call inside the same `try` (its body or its `else:`). Not
    findings: a service or event loop whose exit is a shutdown signal (an exit
    before the work, or one taken on a flag the work didn't produce:
    `if self.stopping: break`, `except KeyboardInterrupt: break`); a loop
    bounded by a wall-clock deadline (an `if` comparing `time.monotonic()`,
    `time.time()`, `datetime.now()`... that breaks, raises or returns); a loop
    that retries only on a conflict, not a failure: a Redis `WatchError` in a
    WATCH/MULTI transaction, an optimistic-lock or serialisation error, or a
    unique-key collision (`IntegrityError`) retried with a new value.

    ## Why is this bad?
    A job that fails for a reason retrying can't fix (a bug, bad input, a
    deleted row) retries forever: it never reaches the dead-letter queue where
    someone would look at it, it burns worker time and, with no backoff cap,
    it can hold a queue slot indefinitely.

    ## Example
    ```python
    from tenacity import retry, wait_random_exponential


    @retry(wait=wait_random_exponential(multiplier=1, max=60))
    def fetch_rates():
        return client.get("/rates")
    ```

    ## Use instead
    ```python
    from tenacity import retry, stop_after_attempt, wait_random_exponential


    @retry(wait=wait_random_exponential(multiplier=1, max=60), stop=stop_after_attempt(5))
    def fetch_rates():
        return client.get("/rates")
    ```
    The reference policy is 5 attempts in total, then the dead-letter queue,
    in each library's own terms: tenacity `stop_after_attempt(5)`, backoff
    `max_tries=5` and django-q2 `max_attempts=5` count every attempt; Celery
    `max_retries=4` and procrastinate `max_attempts=4` (or `retry=4`) count
    the retries after the first.

    ## Fix safety
    Unsafe fix (`--fix --unsafe-fixes`) for Celery and tenacity: `max_retries=None`
    becomes `max_retries=4` (5 attempts in total); a tenacity `@retry`,
    `Retrying(...)` or `AsyncRetrying(...)` without `stop=` (or with
    `stop=stop_never`) gets `stop=stop_after_attempt(5)`, importing it from
    tenacity. Unsafe because after the last attempt the job fails (tenacity
    raises `RetryError` unless `reraise=True`), and something must handle that.

    ## Known limits
    - A call of a class or function the module itself defines is never taken
      for the library's: a library's own module constructing its own API
      class (`return RetryStrategy()` beside `class RetryStrategy`) is its
      internals, not a use of its API.
    - Options passed through `**kwargs` may set a bound: not reported.
    - A `while True` loop counts as bounded as soon as its handler or body
      has a `raise`, `break` or `return` outside the guarded `try` body,
      whatever the condition guarding it.
    - An exit in the `try` counts as success of the guarded call when a call
      comes before it and every `if` around it tests a name the `try` bound
      (`r = get(url)` then `if r.ok: return r`); an exit on the result of a
      call in the `if` test itself (`if ping(): break`) is not seen.
    - A collision counts as retried with a new value when the loop assigns,
      outside the `try` body, a name the body reads (`code = new_code()`
      before it, `n += 1` in the handler), or the body draws one: a call into
      `uuid`, `secrets` or `random`, or a callee whose name says "random" or
      "uuid" (a heuristic). The conflict exceptions (Redis `WatchError`,
      SQLAlchemy `StaleDataError`, psycopg `SerializationFailure`, ...) are
      listed in `joblint.knowledge.retries`, the clocks in the library modules
      (`joblint.libraries.python`, `joblint.libraries.django`).
    - Dramatiq retries 20 times by default and Celery 3 times: "no retry
      option" is not unbounded there.
    """

    CODE = "JL302"
    SHARED_LIMITS = PROJECT_RETRY_LIMITS
    SHARED_DOCS = PROJECT_TASK_DOCS
    TRIGGERS = (
        *RETRY_BOUNDS,
        # while True: try ... except: sleep
        Trigger((SLEEP,), (r"\bwhile\b", r"\bexcept\b"), confirm="while-true-retry"),
    )
    SUMMARY = "Retries have no attempt limit: a job that can never succeed retries forever"
    HELP = (
        f"Bound the attempts ({REFERENCE_ATTEMPTS} in total, then dead-letter): "
        f"tenacity stop=stop_after_attempt({REFERENCE_ATTEMPTS}), "
        f"Celery max_retries={REFERENCE_ATTEMPTS - 1}, backoff max_tries={REFERENCE_ATTEMPTS}"
    )

    def judge(self, policy: RetryPolicy) -> None:
        """Nothing bounds the attempts: no limit given where the library's
        default is none, a value that means none, or a loop that never gives up."""
        for bound in policy.bounds:
            if bound.bound is Bound.NONE:
                self.report_at(
                    policy,
                    bound.node,
                    f"{bound.says.cause}: {_FOREVER}. {bound.says.remedy}",
                    fix=as_fix(bound.rewrite),
                    requires=bound.requires,
                )

    VALID = (
        Valid(
            """
import backoff
from celery import shared_task
from tenacity import retry, stop_after_attempt, stop_after_delay, Retrying

@shared_task(bind=True, max_retries=4, autoretry_for=(IOError,))
def a(self): ...

@shared_task
def b(): ...

@retry(stop=stop_after_attempt(5))
def c(): ...

@backoff.on_exception(backoff.expo, IOError, max_time=60)
def d(): ...

OPTIONS = {"stop": stop_after_delay(30)}
retrying = Retrying(**OPTIONS)
""",
            id="bounded-or-library-default",
        ),
        Valid(
            """
import dramatiq

@dramatiq.actor
def send(message_id): ...

@dramatiq.actor(max_retries=None)
def other(message_id): ...
""",
            id="dramatiq-default-retries-are-bounded",
        ),
    )

    INVALID = (
        invalid(
            """
from celery import Celery, Task

app = Celery("shop")

class Forever(Task):
    max_retries = None

@app.task(bind=True, max_retries=None)
def sync(self, account_id):
    try:
        fetch(account_id)
    except IOError as exc:
        raise self.retry(exc=exc, max_retries=None)

@app.task(autoretry_for=(IOError,), retry_kwargs={"max_retries": None})
def push(account_id): ...
""",
            (7, 5, "max_retries=None"),
            (9, 22, "max_retries=None"),
            (14, 35, "max_retries=None"),
            (16, 51, "max_retries=None"),
            fixed="""
from celery import Celery, Task

app = Celery("shop")

class Forever(Task):
    max_retries = 4

@app.task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except IOError as exc:
        raise self.retry(exc=exc, max_retries=4)

@app.task(autoretry_for=(IOError,), retry_kwargs={"max_retries": 4})
def push(account_id): ...
""",
            id="celery-max-retries-none",
        ),
        invalid(
            """
import tenacity as t
from tenacity import retry as retrying

@retrying
def a(): ...

@retrying(
    wait=t.wait_random_exponential(multiplier=1, max=60),
    retry=t.retry_if_exception_type(IOError),
)
def b(): ...

async def c():
    async for attempt in t.AsyncRetrying(stop=t.stop_never):
        with attempt:
            await fetch()
""",
            (5, 2, "stop=stop_after_attempt(5)"),
            (8, 2, "tenacity never stops"),
            (15, 42, "stop_never"),
            fixed="""
import tenacity as t
from tenacity import stop_after_attempt, retry as retrying

@retrying(stop=stop_after_attempt(5))
def a(): ...

@retrying(
    wait=t.wait_random_exponential(multiplier=1, max=60),
    retry=t.retry_if_exception_type(IOError),
    stop=stop_after_attempt(5),
)
def b(): ...

async def c():
    async for attempt in t.AsyncRetrying(stop=stop_after_attempt(5)):
        with attempt:
            await fetch()
""",
            id="tenacity-no-stop-aliased",
        ),
    )
