from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import always_leaves, is_none, literal_number, scope_nodes
from joblint.analysis.names import dotted_parts, dotted_text
from joblint.analysis.retry_options import (
    TaskOptions,
    has_star_kwargs,
    keyword,
    positional,
)
from joblint.analysis.rewrite import with_keyword
from joblint.analysis.tasks import decorator_task_library
from joblint.knowledge import retries as facts
from joblint.knowledge.tokens import SLEEP, Trigger, tails
from joblint.models import Requirement
from joblint.rule import FixSpec, Valid, fix, invalid
from joblint.rules._retry_base import RetryRule

_FOREVER = "a job that can never succeed (a poisoned message) stays alive and keeps failing"

_EXITS = (cst.Break, cst.Return, cst.Raise)
# Walking a loop body stops at nested loops and scopes.
_STOP = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)


_TRIGGERS: tuple[Trigger, ...] = (
    Trigger((facts.CELERY_MAX_RETRIES,)),
    Trigger(("tenacity",)),
    Trigger(tuple(sorted(tails(facts.BACKOFF_DECORATORS))), (r"\bbackoff\b",)),
    Trigger((facts.PROCRASTINATE_RETRY_KEYWORD,), (r"\bretry\s*=\s*true\b",)),
    Trigger(tuple(sorted(tails(facts.PROCRASTINATE_RETRY_STRATEGY)))),
    Trigger((facts.DJANGO_Q_SETTINGS.lower(), facts.DJANGO_Q_MAX_ATTEMPTS)),
    # while True: try ... except: sleep
    Trigger((SLEEP,), (r"\bwhile\b", r"\bexcept\b"), confirm="while-true-retry"),
)


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
      SQLAlchemy `StaleDataError`, psycopg `SerializationFailure`, ...) and
      the clocks are listed in `joblint.knowledge.retries`.
    - Dramatiq retries 20 times by default and Celery 3 times: "no retry
      option" is not unbounded there.
    """

    CODE = "JL302"
    TRIGGERS = _TRIGGERS
    SUMMARY = "Retries have no attempt limit: a job that can never succeed retries forever"
    HELP = (
        f"Bound the attempts ({facts.REFERENCE_ATTEMPTS} in total, then dead-letter): "
        f"tenacity {facts.FIX_TENACITY_STOP}, "
        f"Celery {facts.CELERY_BOUND.parameter}={facts.CELERY_BOUND.reference}, "
        f"backoff {facts.BACKOFF_BOUND.parameter}={facts.BACKOFF_BOUND.reference}"
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

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)

    # --- Celery options and django-q settings -----------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        for decorator in node.decorators:
            self._check_procrastinate_task(node, decorator)

    def _check_celery_options(self, options: TaskOptions) -> None:
        max_retries = options.get(facts.CELERY_MAX_RETRIES)
        if max_retries is not None and is_none(max_retries.value):
            self._report_celery(max_retries.node, max_retries.value)
        retry_kwargs = options.get(facts.CELERY_RETRY_KWARGS)
        if retry_kwargs is not None and isinstance(retry_kwargs.value, cst.Dict):
            element = _dict_element(retry_kwargs.value, facts.CELERY_MAX_RETRIES)
            if element is not None and is_none(element.value):
                self._report_celery(element, element.value)

    def _report_celery(self, node: cst.CSTNode, none: cst.CSTNode) -> None:
        bound = facts.CELERY_BOUND
        self.report(
            node,
            f"Celery max_retries=None retries forever: {_FOREVER}. "
            f"Set {bound.advice()}, then let it fail to the dead-letter queue",
            fix=fix(none, cst.Integer(str(bound.reference)), f"Set {bound.advice()}"),
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(self.context.frames) > 1 or len(node.targets) != 1:
            return
        target = node.targets[0].target
        if not isinstance(target, cst.Name) or target.value != facts.DJANGO_Q_SETTINGS:
            return
        if isinstance(node.value, cst.Dict):
            element = _dict_element(node.value, facts.DJANGO_Q_MAX_ATTEMPTS)
            if element is not None and literal_number(element.value) == 0:
                self.report(
                    element,
                    f"django-q max_attempts=0 means unlimited attempts: {_FOREVER}. "
                    f"Set {facts.DJANGO_Q_BOUND.advice()}",
                )

    # --- calls ---------------------------------------------------------------------------

    def visit_Decorator(self, node: cst.Decorator) -> None:
        expr = node.decorator
        if isinstance(expr, cst.Call):
            return
        if self.context.resolver.library_name(expr) in facts.TENACITY_DECORATORS:
            self._report_tenacity(expr)

    def visit_Call(self, node: cst.Call) -> None:
        if self._celery.is_task_retry(node, self.context):
            found = keyword(node, facts.CELERY_MAX_RETRIES)
            if found is not None and is_none(found.value):
                self._report_celery(found, found.value)
            return
        name = self.context.resolver.library_name(node.func)
        if name is None:
            return
        if name in facts.TENACITY_CONTROLLERS:
            self._check_tenacity(node)
        elif name in facts.BACKOFF_DECORATORS:
            self._check_backoff(node)
        elif name in facts.PROCRASTINATE_RETRY_STRATEGY:
            self._check_retry_strategy(node)

    def _check_tenacity(self, node: cst.Call) -> None:
        if has_star_kwargs(node):
            return
        stop = keyword(node, "stop")
        if stop is None:
            args = positional(node)
            # `retry(f)` wraps f with the defaults; other positional forms are unusual.
            if not args or (len(args) == 1 and len(node.args) == 1):
                self._report_tenacity(node)
            return
        if self.context.resolver.qualified_name(stop.value) in facts.TENACITY_STOP_NEVER:
            self.report(
                stop,
                f"tenacity stop=stop_never retries forever: {_FOREVER}. "
                f"Use {facts.FIX_TENACITY_STOP}",
                fix=fix(stop.value, _stop_after_attempt(), _STOP_FIX, imports=_STOP_IMPORT),
            )

    def _report_tenacity(self, node: cst.BaseExpression) -> None:
        self.report(
            node,
            f"tenacity never stops retrying without stop=: {_FOREVER}. "
            f"Add {facts.FIX_TENACITY_STOP}",
            fix=_tenacity_fix(node),
        )

    def _check_backoff(self, node: cst.Call) -> None:
        if has_star_kwargs(node):
            return
        for bound in facts.BACKOFF_BOUNDS:
            found = keyword(node, bound)
            if found is not None and not is_none(found.value):
                return
        self.report(
            node,
            f"backoff retries forever without max_tries or max_time: {_FOREVER}. "
            f"Add {facts.BACKOFF_BOUND.advice()}",
        )

    def _check_retry_strategy(self, node: cst.Call) -> None:
        if has_star_kwargs(node) or positional(node):
            return
        bound = keyword(node, facts.PROCRASTINATE_MAX_ATTEMPTS)
        if bound is not None and not is_none(bound.value) and literal_number(bound.value) != 0:
            return
        self.report(
            node,
            f"procrastinate RetryStrategy() without max_attempts retries forever: {_FOREVER}. "
            f"Pass {facts.PROCRASTINATE_BOUND.advice()}",
        )

    def _check_procrastinate_task(self, node: cst.FunctionDef, decorator: cst.Decorator) -> None:
        call = decorator.decorator
        if not isinstance(call, cst.Call):
            return
        retry = keyword(call, facts.PROCRASTINATE_RETRY_KEYWORD)
        if retry is None or not (isinstance(retry.value, cst.Name) and retry.value.value == "True"):
            return
        found = decorator_task_library(decorator, self.context.resolver)
        if found is None or not _is_task_method(call, facts.PROCRASTINATE_TASK_METHODS):
            return
        library, receiver = found
        requires: tuple[Requirement, ...] = ()
        if library == "" and not receiver.startswith("procrastinate."):
            qualname = self.context.resolver.local_qualname(node.name.value)
            requires = (Requirement("task", qualname, frozenset({"procrastinate"})),)
        elif library not in ("", "procrastinate"):
            return
        bound = facts.PROCRASTINATE_BOUND
        self.report(
            retry,
            f"procrastinate retry=True retries forever, with no wait: {_FOREVER}. "
            f"Use retry={bound.reference} or retry=RetryStrategy({bound.parameter}="
            f"{bound.reference}, ...): {facts.REFERENCE_ATTEMPTS} attempts in total "
            f"({bound.parameter} counts the retries after the first)",
            requires=requires,
        )

    # --- while True ----------------------------------------------------------------------

    def visit_While(self, node: cst.While) -> None:
        if not _always_true(node.test) or not self._is_unbounded_retry(node):
            return
        self.report(
            node,
            f"This while True loop retries on error forever (nothing gives up): {_FOREVER}. "
            f"{facts.FIX_ATTEMPT_LOOP}",
        )

    def _is_unbounded_retry(self, loop: cst.While) -> bool:
        """A `try` whose body leaves the loop on success and whose handler retries
        a failure, a sleep outside that `try`, and nothing else that gives up."""
        tries = [n for n in _loop_nodes(loop.body) if isinstance(n, cst.Try) and n.handlers]
        retrying = [t for t in tries if _leaves_on_success(t) and self._retries_failure(t, loop)]
        if not retrying:
            return False
        inside = {id(n) for t in retrying for n in _loop_nodes(t.body, include_root=True)}
        for t in retrying:
            if t.orelse is not None:
                inside |= {id(n) for n in _loop_nodes(t.orelse, include_root=True)}
        outside = [n for n in _loop_nodes(loop.body) if id(n) not in inside]
        if any(isinstance(n, _EXITS) for n in outside):
            return False  # something gives up: a bound we can't evaluate
        if self._has_deadline(loop):
            return False
        return any(isinstance(n, cst.Call) and self._is_sleep(n) for n in outside)

    def _is_sleep(self, node: cst.Call) -> bool:
        return self.context.resolver.qualified_name(node.func) in facts.SLEEP_FUNCTIONS

    # --- conflicts: retried on purpose, not failures ----------

    def _retries_failure(self, node: cst.Try, loop: cst.While) -> bool:
        """A handler that lets the loop go on catches a failure, not only a
        conflict (a Redis WatchError, an optimistic-lock error, or a unique-key
        collision when each pass tries a new value)."""
        looping = [h for h in node.handlers if not always_leaves(h.body)]
        return any(not self._catches_conflict(h, node, loop) for h in looping)

    def _catches_conflict(self, handler: cst.ExceptHandler, node: cst.Try, loop: cst.While) -> bool:
        if handler.type is None:
            return False
        names = [self.context.resolver.qualified_name(t) for t in _exception_types(handler.type)]
        if not names or any(
            n not in facts.CONFLICT_EXCEPTIONS and n not in facts.COLLISION_EXCEPTIONS
            for n in names
        ):
            return False
        collides = any(n in facts.COLLISION_EXCEPTIONS for n in names)
        return not collides or self._tries_new_value(node, loop)

    def _tries_new_value(self, node: cst.Try, loop: cst.While) -> bool:
        """Each pass tries another value: the loop assigns, outside the `try`
        body, something that body reads (`code = new_code()` before it, `n += 1`
        in the handler), or the body draws a fresh one (`uuid4()`, `secrets...`)."""
        body = {id(n) for n in _loop_nodes(node.body, include_root=True)}
        assigned = {
            name for n in _loop_nodes(loop.body) if id(n) not in body for name in _assigned_names(n)
        }
        for n in _loop_nodes(node.body):
            if isinstance(n, cst.Name | cst.Attribute) and dotted_text(n) in assigned:
                return True
            if isinstance(n, cst.Call) and self._draws_fresh_value(n):
                return True
        return False

    def _draws_fresh_value(self, call: cst.Call) -> bool:
        name = self.context.resolver.qualified_name(call.func)
        if name is not None and any(
            name == m or name.startswith(f"{m}.") for m in facts.FRESH_VALUE_MODULES
        ):
            return True
        parts = dotted_parts(call.func)
        last = parts[-1].lower() if parts else ""
        return any(hint in last for hint in facts.FRESH_VALUE_HINTS)

    # --- deadlines ----------

    def _has_deadline(self, loop: cst.While) -> bool:
        """An `if` that compares a wall-clock reading and then gives up
        (`if time.monotonic() - start > limit: raise`), anywhere in the loop."""
        for node in _loop_nodes(loop.body):
            if not isinstance(node, cst.If):
                continue
            gives_up = any(isinstance(n, _EXITS) for n in _loop_nodes(node))
            if gives_up and self._reads_clock(node.test, 0):
                return True
        return False

    def _reads_clock(self, expr: cst.CSTNode, depth: int) -> bool:
        """The expression reads the clock, directly or through names assigned
        from a reading (`elapsed = time.monotonic() - start`)."""
        if depth > _MAX_NAME_HOPS:
            return False
        for node in scope_nodes(expr, include_root=True):
            if isinstance(node, cst.Call):
                if self.context.resolver.qualified_name(node.func) in facts.CLOCK_FUNCTIONS:
                    return True
            elif isinstance(node, cst.Name) and any(
                isinstance(value, cst.CSTNode) and self._reads_clock(value, depth + 1)
                for value in self._assigned(node.value)
            ):
                return True
        return False

    def _assigned(self, name: str) -> list[cst.CSTNode]:
        """The values assigned to `name` in the function around the loop."""
        values = self.values.of(self.context.frame.node).values.get(name, ())
        return [v.value if isinstance(v, cst.AugAssign) else v for v in values]


def _dict_element(node: cst.Dict, key: str) -> cst.DictElement | None:
    for element in node.elements:
        if (
            isinstance(element, cst.DictElement)
            and isinstance(element.key, cst.SimpleString)
            and element.key.evaluated_value == key
        ):
            return element
    return None


def _is_task_method(call: cst.Call, methods: frozenset[str]) -> bool:
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in methods


def _always_true(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Name):
        return node.value == "True"
    number = literal_number(node)
    return number is not None and number != 0


def _loop_nodes(root: cst.CSTNode, *, include_root: bool = False) -> list[cst.CSTNode]:
    """Nodes of this loop's body, not entering nested loops or scopes."""
    found = []
    stack: list[cst.CSTNode] = [root] if include_root else list(reversed(root.children))
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, _STOP):
            stack.extend(reversed(node.children))
    return found


_MAX_NAME_HOPS = 4


def _exception_types(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.Tuple | cst.List):
        return [e.value for e in node.elements]
    return [node]


def _assigned_names(node: cst.CSTNode) -> list[str]:
    """The names and dotted attributes a statement part binds (`code`, `obj.slug`)."""
    targets: list[cst.BaseExpression] = []
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, cst.AnnAssign | cst.AugAssign | cst.NamedExpr):
        targets = [node.target]
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        targets = [node.asname.name]
    found = []
    for target in targets:
        elements = target.elements if isinstance(target, cst.Tuple | cst.List) else ()
        for expr in [e.value for e in elements] or [target]:
            text = dotted_text(expr)
            if text is not None:
                found.append(text)
    return found


# --- does the `try` leave the loop on success? ----------


@dataclass(slots=True)
class _Pass:
    """What one pass through a `try` body has done so far: called something
    (the guarded call) and bound names (its results)."""

    called: bool = False
    bound: set[str] = field(default_factory=set)

    def absorb(self, node: cst.CSTNode) -> None:
        for sub in scope_nodes(node, include_root=True):
            if isinstance(sub, cst.Call):
                self.called = True
            self.bound.update(_assigned_names(sub))


def _leaves_on_success(node: cst.Try) -> bool:
    """A `break`/`return` follows the guarded call inside the `try` (its body or
    its `else:`): a retry loop. An exit before any call, or one taken on a test
    of nothing the call produced (`if self.stopping: break`), is a shutdown
    signal: the loop is a service loop, not a retry."""
    state = _Pass()
    if _block_exits(node.body, state, ()):
        return True
    return node.orelse is not None and _block_exits(node.orelse.body, state, ())


def _block_exits(
    block: cst.BaseSuite, state: _Pass, guards: tuple[cst.BaseExpression, ...]
) -> bool:
    # In order: each statement sees what the ones before it called and bound.
    return any(_statement_exits(statement, state, guards) for statement in block.body)


def _statement_exits(
    statement: cst.CSTNode, state: _Pass, guards: tuple[cst.BaseExpression, ...]
) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return any(_small_exits(small, state, guards) for small in statement.body)
    if isinstance(statement, cst.BaseSmallStatement):
        return _small_exits(statement, state, guards)
    if isinstance(statement, cst.If):
        state.absorb(statement.test)
        inner = (*guards, statement.test)
        if _block_exits(statement.body, state, inner):
            return True
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            return _statement_exits(orelse, state, inner)
        return orelse is not None and _block_exits(orelse.body, state, inner)
    if isinstance(statement, cst.With):
        for item in statement.items:
            state.absorb(item)
        return _block_exits(statement.body, state, guards)
    if isinstance(statement, cst.Try):
        if _block_exits(statement.body, state, guards):
            return True
        return statement.orelse is not None and _block_exits(statement.orelse.body, state, guards)
    if not isinstance(statement, cst.FunctionDef | cst.ClassDef):
        state.absorb(statement)  # a nested loop: its exits are its own
    return False


def _small_exits(
    small: cst.BaseSmallStatement, state: _Pass, guards: tuple[cst.BaseExpression, ...]
) -> bool:
    if isinstance(small, cst.Return | cst.Break):
        value = small.value if isinstance(small, cst.Return) else None
        if value is not None:
            state.absorb(value)  # `return get(url)`: the call is the exit's own value
        return state.called and all(_mentions(test, state.bound) for test in guards)
    state.absorb(small)
    return False


def _mentions(test: cst.BaseExpression, names: set[str]) -> bool:
    return any(
        isinstance(n, cst.Name | cst.Attribute) and dotted_text(n) in names
        for n in scope_nodes(test, include_root=True)
    )


# --- fixes (issue 10) ---------------------------------------------------------------------

_STOP_FIX = f"Stop after {facts.REFERENCE_ATTEMPTS} attempts in total: {facts.FIX_TENACITY_STOP}"
_STOP_IMPORT = (("tenacity", facts.TENACITY_BOUND.parameter),)


def _stop_after_attempt() -> cst.Call:
    bound = facts.TENACITY_BOUND
    return cst.Call(cst.Name(bound.parameter), [cst.Arg(cst.Integer(str(bound.reference)))])


def _tenacity_fix(node: cst.BaseExpression) -> FixSpec | None:
    """`@retry` -> `@retry(stop=...)`; `retry(...)` gets `stop=...`; not `retry(f)`
    (tenacity ignores keywords when it wraps a function directly)."""
    if isinstance(node, cst.Call):
        if positional(node):
            return None
        new: cst.BaseExpression = with_keyword(node, "stop", _stop_after_attempt())
    else:
        no_space = cst.SimpleWhitespace("")
        equal = cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space)
        stop = cst.Arg(_stop_after_attempt(), keyword=cst.Name("stop"), equal=equal)
        new = cst.Call(node, [stop])
    return fix(node, new, _STOP_FIX, imports=_STOP_IMPORT)
