from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import (
    DelayAnalysis,
    Loop,
    counting_target,
    growing_numbers,
    literal_number,
    literal_truth,
    loop_counters,
    names_test,
    retries_on_exception,
    self_growing_names,
    snippet,
)
from joblint.analysis.names import BindingKind, dotted_text
from joblint.analysis.references import reference
from joblint.analysis.retry_options import (
    TaskOptions,
    argument,
    has_star_kwargs,
    is_celery_retry_count,
    keyword,
    positional,
    task_retry_receiver,
)
from joblint.knowledge import retries as facts
from joblint.knowledge.tokens import SLEEP, Trigger, alternatives, tails
from joblint.rule import FixSpec, LineOf, Valid, fix, invalid
from joblint.rules._retry_base import RetryRule

_SAME_TIME = "every job that failed together retries at the same moment"


_TRIGGERS: tuple[Trigger, ...] = (
    Trigger((facts.CELERY_RETRY_JITTER,)),
    # self.retry(countdown=...)
    Trigger(
        (f".{facts.CELERY_RETRY_METHOD}(",),
        (alternatives(facts.CELERY_RETRY_DELAY_KEYWORDS),),
    ),
    Trigger(tuple(sorted(tails(facts.TENACITY_EXPONENTIAL_WAITS)))),
    Trigger((facts.BACKOFF_JITTER_KEYWORD,), (r"\bbackoff\b",)),
    Trigger((facts.URLLIB3_BACKOFF_FACTOR,)),
    Trigger((facts.RQ_INTERVAL_KEYWORD,), (r"(?<![\w.])rq\b",)),
    Trigger(tuple(sorted(tails(facts.TASKIQ_SMART_RETRY)))),
    # A sleep with a computed delay in a loop that catches an exception.
    Trigger((SLEEP,), (r"\b(?:for|while)\b",), confirm="sleep-in-retry-loop"),
)


class RetryWithoutJitter(RetryRule):
    """
    ## What it does
    Finds retry delays that grow with the attempt number but have no random
    part, and jitter that is switched off:
    - Celery `self.retry(countdown=...)` (or `eta=`) computed from
      `self.request.retries` with `**`, `<<`, `pow`, a multiplication or an
      index into a growing list, and no call into `random` or a jitter helper
      (the value is followed through local assignments); also `task.retry(...)`
      in a helper whose parameter `task` is annotated as a Celery `Task`;
    - Celery `retry_jitter=False` together with `retry_backoff`;
    - tenacity `wait_exponential(...)` not combined with a random wait, and
      `wait_exponential_jitter(..., jitter=0)`;
    - backoff `on_exception`/`on_predicate` with a growing wait and `jitter=None`;
    - urllib3 `Retry(backoff_factor=...)` without `backoff_jitter`;
    - RQ `Retry(interval=[...])` with a growing list of constants;
    - taskiq `SmartRetryMiddleware(use_delay_exponent=True)` without `use_jitter=True`;
    - `time.sleep`/`asyncio.sleep` in a retry loop with a delay growing with
      the loop's attempt counter (`2 ** attempt`, `delay *= 2`).

    "Grows with the attempt" means `**`, `<<`, `pow`/`math.pow`, or a
    multiplication by the attempt count or a name derived from it. Additive
    growth (`delay += step`, tenacity's `wait_incrementing`) is not reported.
    A loop is a retry loop when it catches an exception and goes on: an
    `except` handler in it that doesn't re-raise or leave. A loop that catches
    nothing (a result poll that sleeps longer each time) is not one.
    `Retry(...)` is urllib3's or RQ's only when the name resolves to their
    class through the imports (also as `requests.adapters.Retry` or
    `requests.packages.urllib3...`), never by the bare name.

    ## Why is this bad?
    Jobs fail together when a dependency goes down. Without jitter they all
    wait the same 1, 2, 4, 8... seconds and retry in lock step, so the service
    that just recovered is hit by the whole herd at once and falls over again.
    A random spread (full jitter) turns the spikes into a trickle.

    ## Example
    ```python
    from celery import shared_task


    @shared_task(bind=True, max_retries=4)
    def charge(self, order_id):
        try:
            gateway.charge(order_id)
        except gateway.Timeout as exc:
            raise self.retry(exc=exc, countdown=2 ** self.request.retries)
    ```

    ## Use instead
    ```python
    from celery import shared_task

    from joblint.runtime.backoff import full_jitter


    @shared_task(bind=True, max_retries=4)
    def charge(self, order_id):
        try:
            gateway.charge(order_id)
        except gateway.Timeout as exc:
            countdown = full_jitter(self.request.retries, base=30, cap=600)
            raise self.retry(exc=exc, countdown=countdown)
    ```
    With tenacity use `wait_random_exponential(multiplier=..., max=...)`;
    with RQ, `Retry(max=4, interval=joblint.runtime.backoff.jittered_intervals())`
    built at enqueue time.

    ## Fix safety
    Every fix of this rule is unsafe (`--fix --unsafe-fixes`): a safe fix
    keeps the code's meaning and its run-time behaviour, and adding jitter
    changes the delays the retries wait. Each delay becomes random: full
    jitter draws it from [0, the old delay], so on average it is half as
    long, and tests that assert exact delays break.
    - Celery `retry_jitter=False` (with `retry_backoff`) becomes
      `retry_jitter=True`, Celery's default: each `retry_backoff` delay is then
      drawn from [0, the computed delay].
    - tenacity `wait_exponential(...)` becomes `wait_random_exponential(...)`
      with the same arguments: it subclasses `wait_exponential` (same
      constructor, same capped ceiling) and draws each wait at random below
      it. The name follows the import: `tenacity.wait_exponential(...)`
      becomes `tenacity.wait_random_exponential(...)`; a bare or aliased name
      becomes `wait_random_exponential(...)`, imported from `tenacity` (or an
      existing import of it is used); `--fix` then removes the import of
      `wait_exponential` if nothing reads it any more (LibCST's
      `RemoveImportsVisitor`: a name in `__all__` stays; JSON/SARIF fix edits
      don't carry that clean-up). With `min=` (or `**kwargs` that may
      hold it) the message warns that tenacity honours `min` as the lowest
      wait of `wait_random_exponential` only from 9.0 (before, waits start at 0).
    - A Celery countdown whose shape is clear:
      `countdown=[min(C, ]B * F ** self.request.retries[)]` (also
      `F ** (retries + k)`, `pow(F, ...)`, `B << retries`) becomes
      `countdown=full_jitter(self.request.retries, base=B, factor=F, cap=C)`,
      importing `joblint.runtime.backoff.full_jitter`; for a local assigned
      once (`delay = ...; countdown=delay`) the assignment is rewritten. The
      old delay becomes the ceiling the random delay is drawn below. Without a
      cap, the cap is `full_jitter`'s default, 600 s (no fix when the base is
      a name or above 600). Linear growth (`60 * (retries + 1)`) and other
      shapes get no fix. The worker needs joblint installed, and tests that
      assert exact delays need a seeded source (`rng=random.Random(0)`).
    `wait_exponential_jitter(jitter=0)` gets no fix.

    ## Known limits
    - A call of a class or function the module itself defines is never taken
      for the library's: a library's own module constructing its own API
      class (`return RetryStrategy()` beside `class RetryStrategy`) is its
      internals, not a use of its API.
    - Not findings: Celery `retry_backoff=True` alone (Celery jitters that path
      by default), Dramatiq's Retries middleware and botocore/google-api-core
      retries (always jittered), backoff's default jitter, constant delays,
      additive growth (`60 + attempt`, `delay += 5`, `wait_incrementing`).
    - A delay that passes through a call joblint can't see into (a function
      of your own, `settings.get(...)`) is taken as possibly random and not
      reported; so is a name containing "jitter" or "random", and a tenacity
      wait joblint doesn't know or one that delegates (`wait_chain`).
    - Local assignments are followed without regard to order or branches:
      if any assignment to the delay adds a random part, nothing is reported.
    - Sleep loops count as retry loops when an `except` handler in them (also
      in a nested loop) lets the loop go on; wherever the sleep stands in the
      loop, it runs after the caught exception (in the handler, after it, or
      on the next pass). A loop that retries on a status code without catching
      an exception is not seen. The attempt counter is a `range`/
      `itertools.count`/`enumerate` loop variable or a name bumped by a
      constant in the loop.
    - `Retry` imported through a module of your own that re-exports urllib3's
      or RQ's is not recognised.
    """

    CODE = "JL301"
    TRIGGERS = _TRIGGERS
    SUMMARY = "Retry delay grows with the attempt but has no jitter: retries stampede together"
    HELP = (
        "Randomise the delay: joblint.runtime.backoff.full_jitter(attempt, base=30, cap=600), "
        "tenacity wait_random_exponential(multiplier=..., max=...), or "
        "joblint.runtime.backoff.jittered_intervals(...) for RQ"
    )

    VALID = (
        Valid(
            """
from celery import shared_task

@shared_task(bind=True, autoretry_for=(ConnectionError,), retry_backoff=True)
def sync(self, account_id):
    fetch(account_id)
""",
            id="celery-retry-backoff-jitters-by-default",
        ),
        Valid(
            """
import random
from celery import shared_task

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        delay = 2 ** self.request.retries
        delay += random.uniform(0, delay)
        raise self.retry(exc=exc, countdown=delay)
""",
            id="celery-countdown-with-random-part",
        ),
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
    )

    INVALID = (
        invalid(
            """
from celery import shared_task

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        delay = 2 ** self.request.retries
        raise self.retry(exc=exc, countdown=delay)
""",
            (10, 45, "2 ** self.request.retries, line 9"),
            fixed="""
from celery import shared_task
from joblint.runtime.backoff import full_jitter

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        delay = full_jitter(self.request.retries, base=1, cap=600)
        raise self.retry(exc=exc, countdown=delay)
""",
            id="celery-countdown-through-local",
        ),
        invalid(
            """
from celery import shared_task
from django.conf import settings

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError:
        raise self.retry(countdown=min(900, 30 * 2 ** self.request.retries))
    except TimeoutError:
        raise self.retry(countdown=int(3 ** (self.request.retries + 1)))
    except OSError:
        raise self.retry(countdown=settings.RETRY_BASE * 2 ** self.request.retries)
    except ValueError:
        raise self.retry(countdown=min(settings.MAX_WAIT, 5 << self.request.retries))
""",
            (10, 36, "30 * 2 ** self.request.retries"),
            (12, 36, "3 ** (self.request.retries + 1)"),
            (14, 36, "settings.RETRY_BASE * 2 ** self.request.retries"),
            (16, 36, "5 << self.request.retries"),
            fixed="""
from celery import shared_task
from django.conf import settings
from joblint.runtime.backoff import full_jitter

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError:
        raise self.retry(countdown=full_jitter(self.request.retries, base=30, cap=900))
    except TimeoutError:
        raise self.retry(countdown=full_jitter(self.request.retries, base=3, factor=3, cap=600))
    except OSError:
        raise self.retry(countdown=settings.RETRY_BASE * 2 ** self.request.retries)
    except ValueError:
        raise self.retry(countdown=full_jitter(self.request.retries, base=5, cap=settings.MAX_WAIT))
""",
            id="celery-countdown-base-factor-cap-kept",
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
from joblint.runtime.backoff import full_jitter

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
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._loops: list[tuple[Loop, cst.CSTNode]] = []
        self._reported: set[int] = set()

    def _analysis(self) -> DelayAnalysis:
        return self.values.analysis(
            self.context.resolver, self.context.frame.node, is_celery_retry_count
        )

    # --- scopes ----------

    def visit_For(self, node: cst.For) -> None:
        self._loops.append((node, self.context.frame.node))

    def leave_For(self, node: cst.For) -> None:
        self._loops.pop()

    def visit_While(self, node: cst.While) -> None:
        self._loops.append((node, self.context.frame.node))

    def leave_While(self, node: cst.While) -> None:
        self._loops.pop()

    # --- calls ----------

    def visit_Call(self, node: cst.Call) -> None:
        if self._celery.is_task_retry(node, self.context):
            self._check_celery_retry(node)
            return
        name = self.context.resolver.library_name(node.func)
        if name is None:
            return
        if name in facts.TENACITY_CONTROLLERS:
            self._check_tenacity(node)
        elif name in facts.BACKOFF_DECORATORS:
            self._check_backoff(node)
        elif name in facts.URLLIB3_RETRY:
            self._check_urllib3(node)
        elif name in facts.RQ_RETRY:
            self._check_rq(node)
        elif name in facts.TASKIQ_SMART_RETRY:
            self._check_taskiq(node)
        elif name in facts.SLEEP_FUNCTIONS:
            self._check_sleep(node, facts.SLEEP_FUNCTIONS[name])

    # --- Celery ----------

    def _check_celery_retry(self, node: cst.Call) -> None:
        analysis = self._analysis()
        hint = facts.FIX_CELERY_COUNTDOWN.format(task=task_retry_receiver(node))
        for arg in node.args:
            if arg.keyword is None or arg.keyword.value not in facts.CELERY_RETRY_DELAY_KEYWORDS:
                continue
            growth = analysis.unjittered_growth(arg.value)
            if growth is not None:
                countdown = arg.keyword.value == facts.CELERY_COUNTDOWN_KEYWORD
                delay_fix = self._full_jitter_fix(arg.value, analysis) if countdown else None
                self._report_growth(arg.value, growth, hint, delay_fix)

    def _full_jitter_fix(
        self, countdown: cst.BaseExpression, analysis: DelayAnalysis
    ) -> FixSpec | None:
        """`countdown=B * F ** self.request.retries` (capped by `min(C, ...)`) ->
        `countdown=full_jitter(self.request.retries, base=B, factor=F, cap=C)`.
        Through a local (`delay = 2 ** ...; countdown=delay`) the assignment is
        fixed, so the name keeps meaning the delay the task waits."""
        expr = countdown
        if isinstance(expr, cst.Name):
            values = analysis.assigned(expr.value)
            if len(values) != 1 or not isinstance(values[0], cst.BaseExpression):
                return None
            expr = values[0]
        shape = backoff_shape(expr)
        if shape is None:
            return None
        found = reference(self.context, facts.FULL_JITTER, prefer_import=True)
        if found is None:
            return None
        new = cst.Call(found.expr, shape.arguments())
        message = (
            f"Randomise the countdown: {shape.describe()} draws it from 0 up to the old "
            "delay (full jitter); joblint must be installed where the worker runs"
        )
        return fix(expr, new, message, imports=found.imports)

    def _check_celery_options(self, options: TaskOptions) -> None:
        jitter = options.get(facts.CELERY_RETRY_JITTER)
        backoff = options.get(facts.CELERY_RETRY_BACKOFF)
        if jitter is None or backoff is None:
            return
        if literal_truth(jitter.value) is False and literal_truth(backoff.value):
            self.report(
                jitter.node,
                "retry_jitter=False turns off the jitter Celery adds to retry_backoff delays: "
                f"{_SAME_TIME}. Remove it (Celery's default is full jitter)",
                fix=fix(jitter.value, cst.Name("True"), _JITTER_ON),
            )

    # --- tenacity ----------

    def _check_tenacity(self, node: cst.Call) -> None:
        wait = keyword(node, "wait")
        if wait is None or has_star_kwargs(node):
            return
        terms = self._wait_terms(wait.value, self._analysis(), 0)
        if terms is None or any(self._is_random_wait(t) for t in terms):
            return
        for term in terms:
            name = self.context.resolver.qualified_name(term.func) or ""
            if name not in facts.TENACITY_EXPONENTIAL_WAITS or id(term) in self._reported:
                continue
            self._reported.add(id(term))
            short = name.rsplit(".", 1)[-1]
            if _jitter_switched_off(term, facts.TENACITY_WAITS[name]):
                self.report(
                    term,
                    f"tenacity {short}(...) with its jitter set to 0 grows without a random "
                    f"part: {_SAME_TIME}. Keep its jitter above 0, or use "
                    f"{facts.FIX_TENACITY_WAIT}",
                )
                continue
            self.report(
                term,
                f"tenacity {short}(...) grows without a random part: {_SAME_TIME}. "
                f"Use {facts.FIX_TENACITY_WAIT}, or add + wait_random(0, ...)",
                fix=self._random_wait_fix(term, name, _contains(node, term)),
            )

    def _random_wait_fix(self, term: cst.Call, name: str, here: bool) -> FixSpec | None:
        """`wait_exponential(...)` -> `wait_random_exponential(...)`, same arguments:
        tenacity's `wait_random_exponential` subclasses `wait_exponential` (same
        constructor) and draws each wait from [min, the same capped ceiling].
        `here`: the call is inside the expression being visited (not reached
        through a name assigned elsewhere), so names can be resolved at this place."""
        if name not in facts.TENACITY_TWINNED_WAITS:
            return None
        func = term.func
        imports: tuple[tuple[str, str], ...] = ()
        releases: tuple[tuple[str, str, str], ...] = ()
        if isinstance(func, cst.Attribute):
            new_func: cst.BaseExpression = func.with_changes(
                attr=cst.Name(facts.TENACITY_RANDOM_EXPONENTIAL)
            )
        else:
            releases = self._imported_as(func)
            found = reference(
                self.context,
                f"tenacity.{facts.TENACITY_RANDOM_EXPONENTIAL}",
                prefer_import=True,
                anywhere=not here,
            )
            if found is None:
                return None
            new_func, imports = found.expr, found.imports
        new = term.with_changes(func=new_func)
        if _may_set_min(term):
            return fix(term, new, _RANDOM_WAIT_WITH_MIN, imports=imports, releases=releases)
        return fix(term, new, _RANDOM_WAIT, imports=imports, releases=releases)

    def _imported_as(self, func: cst.BaseExpression) -> tuple[tuple[str, str, str], ...]:
        """The from-import `func` (a bare name) comes by, as `Fix.releases` wants it:
        the fix may leave it unused."""
        if not isinstance(func, cst.Name):
            return ()
        binding = self.context.resolver.lookup(func.value)
        if binding is None or binding.kind is not BindingKind.IMPORT or "." not in binding.qualname:
            return ()
        module, name = binding.qualname.rsplit(".", 1)
        return ((module, name, "" if name == func.value else func.value),)

    def _wait_terms(
        self, node: cst.BaseExpression, analysis: DelayAnalysis, depth: int
    ) -> list[cst.Call] | None:
        """The waits `node` is made of (`a + b`, `wait_combine(a, b)`, `wait_chain(a, b)`,
        through names); None when one of them isn't a tenacity wait we know."""
        if depth > 10:
            return None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left = self._wait_terms(node.left, analysis, depth + 1)
            right = self._wait_terms(node.right, analysis, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(node, cst.Name):
            values = analysis.assigned(node.value)
            if len(values) != 1 or not isinstance(values[0], cst.BaseExpression):
                return None
            return self._wait_terms(values[0], analysis, depth + 1)
        if not isinstance(node, cst.Call):
            return None
        name = self.context.resolver.qualified_name(node.func)
        if name is None or not name.startswith("tenacity."):
            return None
        if name in facts.TENACITY_WAIT_GROUPS:
            terms: list[cst.Call] = []
            for arg in node.args:
                found = self._wait_terms(arg.value, analysis, depth + 1)
                if found is None or arg.star:
                    return None
                terms.extend(found)
            return terms
        return [node]

    def _is_random_wait(self, term: cst.Call) -> bool:
        """Whether the wait may draw at random: a random strategy whose jitter is
        on, one whose wait a predicate decides (`wait_exception`), or one we don't know."""
        shape = facts.TENACITY_WAITS.get(self.context.resolver.qualified_name(term.func) or "")
        if shape is None or shape.growth == facts.DELEGATED:
            return True
        return shape.random and not _jitter_switched_off(term, shape)

    # --- backoff, urllib3, RQ, taskiq ----------

    def _check_backoff(self, node: cst.Call) -> None:
        jitter = keyword(node, facts.BACKOFF_JITTER_KEYWORD)
        wait_gen = argument(node, facts.BACKOFF_WAIT_GEN_KEYWORD, 0)
        if jitter is None or wait_gen is None or literal_truth(jitter.value) is not False:
            return
        if not (isinstance(jitter.value, cst.Name) and jitter.value.value == "None"):
            return
        if self.context.resolver.qualified_name(wait_gen.value) in facts.BACKOFF_GROWING_WAITS:
            self.report(
                jitter,
                f"jitter=None turns off backoff's full jitter on a growing wait: {_SAME_TIME}. "
                "Remove it (the default is backoff.full_jitter)",
            )

    def _check_urllib3(self, node: cst.Call) -> None:
        factor = keyword(node, facts.URLLIB3_BACKOFF_FACTOR)
        if factor is None or has_star_kwargs(node):
            return
        number = self._number(factor.value)
        if number is None or number <= 0:
            return
        jitter = keyword(node, facts.URLLIB3_BACKOFF_JITTER)
        if jitter is not None and literal_number(jitter.value) != 0:
            return
        self.report(
            factor,
            f"urllib3 Retry(backoff_factor=...) sleeps factor * 2 ** n with no jitter: "
            f"{_SAME_TIME}. Add backoff_jitter=... (urllib3 >= 2), e.g. "
            "backoff_jitter=backoff_factor * 2",
        )

    def _number(self, node: cst.BaseExpression) -> float | None:
        number = literal_number(node)
        if number is None and isinstance(node, cst.Name):
            values = self._analysis().assigned(node.value)
            if len(values) == 1 and isinstance(values[0], cst.BaseExpression):
                number = literal_number(values[0])
        return number

    def _check_rq(self, node: cst.Call) -> None:
        interval = argument(node, facts.RQ_INTERVAL_KEYWORD, facts.RQ_INTERVAL_POSITION)
        if interval is None or has_star_kwargs(node):
            return
        analysis = self._analysis()
        numbers = analysis.numbers(interval.value)
        growing = numbers is not None and growing_numbers(numbers)
        if growing or self._comprehension_grows(interval.value):
            self.report(
                interval,
                f"RQ Retry(interval=[...]) is a fixed growing schedule and RQ adds no jitter: "
                f"{_SAME_TIME}. Use {facts.FIX_RQ_INTERVALS}, built at enqueue time",
            )

    def _comprehension_grows(self, node: cst.BaseExpression) -> bool:
        """`[5 * 2 ** i for i in range(n)]` (or `list(...)` of a generator)."""
        if isinstance(node, cst.Call) and len(node.args) == 1:
            node = node.args[0].value
        if not isinstance(node, cst.ListComp | cst.GeneratorExp):
            return False
        counters = set(counting_target(node.for_in, self.context.resolver))
        if not counters:
            return False
        analysis = self.values.analysis(
            self.context.resolver, self.context.frame.node, names_test(counters)
        )
        return analysis.unjittered_growth(node.elt) is not None

    def _check_taskiq(self, node: cst.Call) -> None:
        growth = keyword(node, facts.TASKIQ_GROWTH_KEYWORD)
        if growth is None or has_star_kwargs(node) or literal_truth(growth.value) is not True:
            return
        jitter = keyword(node, facts.TASKIQ_JITTER_KEYWORD)
        if jitter is not None and literal_truth(jitter.value) is not False:
            return
        self.report(
            growth,
            "taskiq SmartRetryMiddleware(use_delay_exponent=True) grows the delay "
            f"(delay * retries) with no jitter by default: {_SAME_TIME}. Pass use_jitter=True",
        )

    # --- sleep loops ----------

    def _check_sleep(self, node: cst.Call, keyword_name: str) -> None:
        loops = [loop for loop, frame in self._loops if frame is self.context.frame.node]
        if not loops or not retries_on_exception(loops[-1]):
            return
        args = positional(node)
        delay = args[0] if args else keyword(node, keyword_name)
        if delay is None:
            return
        resolver = self.context.resolver
        counters: set[str] = set()
        growing: dict[str, cst.CSTNode] = {}
        for loop in loops:
            counters |= loop_counters(loop, resolver)
            growing.update(self_growing_names(loop, resolver))
        if not counters and not growing:
            return
        analysis = self.values.analysis(
            resolver, self.context.frame.node, names_test(counters), growing
        )
        found = analysis.unjittered_growth(delay.value)
        if found is not None:
            self._report_growth(delay.value, found, facts.FIX_FULL_JITTER, sleep=True)

    # --- reporting ----------

    def _report_growth(
        self,
        node: cst.CSTNode,
        growth: cst.CSTNode,
        hint: str,
        delay_fix: FixSpec | None = None,
        *,
        sleep: bool = False,
    ) -> None:
        text = snippet(growth)
        what = "Sleep between retries" if sleep else "Retry delay"

        def message(line_of: LineOf) -> str:
            return (
                f"{what} grows with the attempt ({text}, line {line_of(growth)}) and has no "
                f"random part: {_SAME_TIME}. Use {hint}"
            )

        self.report(node, message, fix=delay_fix)


# --- fixes (issue 10) ---------------------------------------------------------------------

_JITTER_ON = "Set retry_jitter=True (Celery's default): each retry_backoff delay is drawn at random"
_RANDOM_WAIT = (
    "Use wait_random_exponential(...) with the same arguments: each wait is drawn at random "
    "up to the same exponential ceiling (full jitter)"
)
_RANDOM_WAIT_WITH_MIN = (
    f"{_RANDOM_WAIT}; min= stays the lowest wait only with tenacity >= 9.0 (older versions "
    "draw from 0)"
)


def _contains(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    stack = [root]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        stack.extend(current.children)
    return False


def _jitter_switched_off(call: cst.Call, shape: facts.TenacityWait) -> bool:
    """`wait_exponential_jitter(jitter=0)`: the random part is there, and zero."""
    if shape.jitter is None or any(arg.star for arg in call.args):
        return False
    found = argument(call, *shape.jitter)
    return found is not None and literal_number(found.value) == 0


def _may_set_min(call: cst.Call) -> bool:
    """`min=` (or the 4th positional, or `*args`/`**kwargs` that may hold it):
    `wait_random_exponential` honours it as the lowest wait only since tenacity 9.0."""
    if any(arg.star for arg in call.args):
        return True
    if keyword(call, facts.TENACITY_MIN_KEYWORD) is not None:
        return True
    return len(positional(call)) > facts.TENACITY_MIN_POSITION


@dataclass(frozen=True, slots=True)
class BackoffShape:
    """`min(cap, base * factor ** retries)`, as read from a Celery countdown."""

    retries: cst.BaseExpression  # `self.request.retries`, as written
    base: cst.BaseExpression
    factor: float
    cap: cst.BaseExpression

    def arguments(self) -> list[cst.Arg]:
        args = [cst.Arg(self.retries, comma=_COMMA)]
        keywords = [("base", self.base)]
        if self.factor != _FULL_JITTER_FACTOR:
            keywords.append(("factor", _number(self.factor)))
        keywords.append(("cap", self.cap))
        for index, (name, value) in enumerate(keywords):
            comma = _COMMA if index < len(keywords) - 1 else cst.MaybeSentinel.DEFAULT
            args.append(cst.Arg(value, keyword=cst.Name(name), equal=_EQUAL, comma=comma))
        return args

    def describe(self) -> str:
        return _EMPTY.code_for_node(cst.Call(cst.Name("full_jitter"), self.arguments()))


_FULL_JITTER_FACTOR = 2.0  # joblint.runtime.backoff.DEFAULT_FACTOR
_DEFAULT_CAP = 600  # joblint.runtime.backoff.DEFAULT_CAP: the reference policy's ten minutes
_EMPTY = cst.Module(body=[])
_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
)
_CONVERSIONS = frozenset({"int", "float"})


def backoff_shape(expr: cst.BaseExpression) -> BackoffShape | None:
    """Read `[min(C, ]K * F ** (R + k)[)]` (also `F ** R * K`, `pow(F, R)`,
    `K << R`, wrapped in `int()`/`float()`) where R is `<task>.request.retries`,
    F a number > 1 and K, C numbers or dotted names. Without a cap, the cap is
    full_jitter's default (600 s) when the base is a number no larger. None for
    anything else (linear growth, other shapes): no fix then."""
    expr = _strip(expr)
    cap: cst.BaseExpression | None = None
    if _is_call_of(expr, "min") and isinstance(expr, cst.Call) and len(expr.args) == 2:
        first, second = (_strip(a.value) for a in expr.args)
        if any(a.star or a.keyword for a in expr.args):
            return None
        growth, cap = (first, second) if _mentions_retries(first) else (second, first)
        if not _is_constant(cap):
            return None
        expr = growth
    found = _growth(expr)
    if found is None:
        return None
    retries, base, factor = found
    if cap is None:
        number = literal_number(base)
        if number is None or number > _DEFAULT_CAP:
            return None
        cap = cst.Integer(str(_DEFAULT_CAP))
    return BackoffShape(retries, base, factor, cap)


def _growth(
    expr: cst.BaseExpression,
) -> tuple[cst.BaseExpression, cst.BaseExpression, float] | None:
    """(retries, base, factor) of `K * P`, `P * K`, `P` or `K << R`."""
    expr = _strip(expr)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.LeftShift):
        constant, shifted = _strip(expr.left), _retries(expr.right)  # K << R is K * 2 ** R
        if shifted is None or not _is_constant(constant):
            return None
        base = _scaled(constant, _FULL_JITTER_FACTOR, shifted[1])
        return None if base is None else (shifted[0], base, _FULL_JITTER_FACTOR)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        for power, constant in ((expr.right, expr.left), (expr.left, expr.right)):
            found = _power(power)
            if found is not None and _is_constant(_strip(constant)):
                retries, factor, offset = found
                base = _scaled(_strip(constant), factor, offset)
                return None if base is None else (retries, base, factor)
        return None
    found = _power(expr)
    if found is None:
        return None
    retries, factor, offset = found
    base = _scaled(cst.Integer("1"), factor, offset)
    return None if base is None else (retries, base, factor)


def _power(
    expr: cst.BaseExpression,
) -> tuple[cst.BaseExpression, float, int] | None:
    """(retries, factor, offset) of `F ** (R + k)` or `pow(F, R + k)`."""
    expr = _strip(expr)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Power):
        factor, exponent = expr.left, expr.right
    elif _is_call_of(expr, "pow") and isinstance(expr, cst.Call) and len(expr.args) == 2:
        if any(a.star or a.keyword for a in expr.args):
            return None
        factor, exponent = expr.args[0].value, expr.args[1].value
    else:
        return None
    number = literal_number(_strip(factor))
    found = _retries(exponent)
    if number is None or number <= 1 or found is None:
        return None
    return found[0], number, found[1]


def _retries(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, int] | None:
    """`R` or `R + k` / `k + R` with a literal integer k >= 0."""
    expr = _strip(expr)
    if is_celery_retry_count(expr):
        return expr, 0
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        for count, offset in ((expr.left, expr.right), (expr.right, expr.left)):
            number = literal_number(_strip(offset))
            count = _strip(count)
            whole = number is not None and number == int(number) and 0 <= number <= _MAX_OFFSET
            if is_celery_retry_count(count) and whole and number is not None:
                return count, int(number)
    return None


_MAX_OFFSET = 8


def _scaled(base: cst.BaseExpression, factor: float, offset: int) -> cst.BaseExpression | None:
    """`base * factor ** offset` as one number (or `base` itself when offset is 0)."""
    if offset == 0:
        return base
    number = literal_number(base)
    return None if number is None else _number(number * factor**offset)


def _number(value: float) -> cst.BaseExpression:
    if value == int(value):
        return cst.Integer(str(int(value)))
    return cst.Float(repr(value))


def _strip(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Without parentheses and `int(...)`/`float(...)` (a float countdown is fine)."""
    while True:
        if expr.lpar:
            expr = expr.with_changes(lpar=(), rpar=())
            continue
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value in _CONVERSIONS
            and len(expr.args) == 1
            and not expr.args[0].star
            and expr.args[0].keyword is None
        ):
            expr = expr.args[0].value
            continue
        return expr


def _is_call_of(expr: cst.BaseExpression, name: str) -> bool:
    func = expr.func if isinstance(expr, cst.Call) else None
    return isinstance(func, cst.Name) and func.value == name


def _is_constant(expr: cst.BaseExpression) -> bool:
    """A positive number, or a dotted name (`BASE`, `settings.MAX_WAIT`)."""
    number = literal_number(expr)
    if number is not None:
        return number > 0
    return dotted_text(expr) is not None and not _mentions_retries(expr)


def _mentions_retries(expr: cst.BaseExpression) -> bool:
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BaseExpression) and is_celery_retry_count(node):
            return True
        stack.extend(node.children)
    return False
