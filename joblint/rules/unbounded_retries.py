from __future__ import annotations

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import is_none, literal_number
from joblint.analysis.retry_options import (
    TaskOptions,
    has_star_kwargs,
    keyword,
    positional,
)
from joblint.analysis.rewrite import with_keyword
from joblint.analysis.tasks import decorator_task_library
from joblint.knowledge import retries as facts
from joblint.models import Requirement
from joblint.rule import FixSpec, Valid, fix, invalid
from joblint.rules._retry_base import RetryRule

_FOREVER = "a job that can never succeed (a poisoned message) stays alive and keeps failing"

_EXITS = (cst.Break, cst.Return, cst.Raise)
# Walking a loop body stops at nested loops and scopes.
_STOP = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)


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
    - a `while True:` loop that catches an exception, sleeps and loops again,
      with nothing in the handler or the loop that gives up.

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
    For Celery, `max_retries=4` (five attempts); for backoff, `max_tries=5`.

    ## Fix safety
    Unsafe fix (`--fix --unsafe-fixes`) for Celery and tenacity: `max_retries=None`
    becomes `max_retries=5`; a tenacity `@retry`, `Retrying(...)` or
    `AsyncRetrying(...)` without `stop=` (or with `stop=stop_never`) gets
    `stop=stop_after_attempt(5)`, importing it from tenacity. Unsafe because
    after the last attempt the job fails (tenacity raises `RetryError` unless
    `reraise=True`), and something must handle that.

    ## Known limits
    - Options passed through `**kwargs` may set a bound: not reported.
    - A `while True` loop counts as bounded as soon as its handler or body
      has a `raise`, `break` or `return` outside the `try` body, whatever the
      condition guarding it.
    - Dramatiq retries 20 times by default and Celery 3 times: "no retry
      option" is not unbounded there.
    """

    CODE = "JL302"
    SUMMARY = "Retries have no attempt limit: a job that can never succeed retries forever"
    HELP = (
        "Bound the attempts (the reference: 5, then dead-letter): tenacity "
        "stop=stop_after_attempt(5), Celery max_retries=4, backoff max_tries=5"
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

@app.task(retry=5)
def a(): ...

@app.task(retry=RetryStrategy(max_attempts=5, wait=5))
def b(): ...

Q_CLUSTER = {"name": "shop", "max_attempts": 5}
""",
            id="procrastinate-and-django-q-bounded",
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
    max_retries = 5

@app.task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except IOError as exc:
        raise self.retry(exc=exc, max_retries=5)

@app.task(autoretry_for=(IOError,), retry_kwargs={"max_retries": 5})
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
        self.report(
            node,
            f"Celery max_retries=None retries forever: {_FOREVER}. "
            "Set max_retries=4 (5 attempts), then let it fail to the dead-letter queue",
            fix=fix(none, cst.Integer("5"), "Set max_retries=5"),
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
                    "Set max_attempts=5",
                )

    # --- calls ---------------------------------------------------------------------------

    def visit_Decorator(self, node: cst.Decorator) -> None:
        expr = node.decorator
        if isinstance(expr, cst.Call):
            return
        if self.context.resolver.qualified_name(expr) in facts.TENACITY_DECORATORS:
            self._report_tenacity(expr)

    def visit_Call(self, node: cst.Call) -> None:
        if self._celery.is_task_retry(node, self.context):
            found = keyword(node, facts.CELERY_MAX_RETRIES)
            if found is not None and is_none(found.value):
                self._report_celery(found, found.value)
            return
        name = self.context.resolver.qualified_name(node.func)
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
            f"backoff retries forever without max_tries or max_time: {_FOREVER}. Add max_tries=5",
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
            "Pass max_attempts=5",
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
        self.report(
            retry,
            f"procrastinate retry=True retries forever, with no wait: {_FOREVER}. "
            "Use retry=RetryStrategy(max_attempts=5, ...) or retry=5",
            requires=requires,
        )

    # --- while True ----------------------------------------------------------------------

    def visit_While(self, node: cst.While) -> None:
        if not _always_true(node.test) or not self._is_unbounded_retry(node):
            return
        self.report(
            node,
            f"This while True loop retries on error forever (nothing gives up): {_FOREVER}. "
            "Count attempts (for attempt in range(5): ...) and re-raise after the last",
        )

    def _is_unbounded_retry(self, loop: cst.While) -> bool:
        tries = [n for n in _loop_nodes(loop.body) if isinstance(n, cst.Try) and n.handlers]
        success = [t for t in tries if _has_exit(t.body) or (t.orelse and _has_exit(t.orelse))]
        if not success:
            return False
        inside = {id(n) for t in success for n in _loop_nodes(t.body, include_root=True)}
        for t in success:
            if t.orelse is not None:
                inside |= {id(n) for n in _loop_nodes(t.orelse, include_root=True)}
        outside = [n for n in _loop_nodes(loop.body) if id(n) not in inside]
        if any(isinstance(n, _EXITS) for n in outside):
            return False  # something gives up: a bound we can't evaluate
        return any(isinstance(n, cst.Call) and self._is_sleep(n) for n in outside)

    def _is_sleep(self, node: cst.Call) -> bool:
        return self.context.resolver.qualified_name(node.func) in facts.SLEEP_FUNCTIONS


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


def _has_exit(block: cst.CSTNode) -> bool:
    return any(isinstance(n, cst.Break | cst.Return) for n in _loop_nodes(block))


# --- fixes (issue 10) ---------------------------------------------------------------------

_STOP_FIX = "Stop after 5 attempts: stop=stop_after_attempt(5)"
_STOP_IMPORT = (("tenacity", "stop_after_attempt"),)


def _stop_after_attempt() -> cst.Call:
    return cst.Call(cst.Name("stop_after_attempt"), [cst.Arg(cst.Integer("5"))])


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
