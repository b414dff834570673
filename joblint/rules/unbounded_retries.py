from __future__ import annotations

from joblint.analysis.retry_facts import RetryPolicy
from joblint.knowledge.retries import REFERENCE_ATTEMPTS
from joblint.knowledge.tokens import RETRY_BOUNDS, SLEEP, Trigger
from joblint.libraries.retry_api import Bound
from joblint.rule import Valid, invalid
from joblint.rules._retry_base import RetryRule, as_fix

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
                self.report(
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
    )
