from __future__ import annotations

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import scope_nodes
from joblint.analysis.retry_options import (
    TaskOptions,
    argument,
    broad_exceptions,
    has_star_kwargs,
    keyword,
    task_retry_receiver,
)
from joblint.knowledge import retries as facts
from joblint.knowledge.tokens import Trigger, tails
from joblint.rule import Valid, invalid
from joblint.rules._retry_base import RetryRule

_BUGS = "bugs (a TypeError, a KeyError) are retried too, burning attempts that can never succeed"


_TRIGGERS: tuple[Trigger, ...] = (
    Trigger((facts.CELERY_AUTORETRY_FOR,)),
    Trigger((f".{facts.CELERY_RETRY_METHOD}(",), (r"\bexcept\b",)),
    Trigger(tuple(sorted(tails(facts.TENACITY_EXCEPTION_TYPE_RETRIES)))),
    Trigger(tuple(sorted(tails(facts.BACKOFF_DECORATORS))), (r"\bbackoff\b",)),
)


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
    TRIGGERS = _TRIGGERS
    SUMMARY = "Retry on every exception: bugs are retried like transient failures"
    HELP = (
        "Retry a tuple of transient exception types (timeouts, connection errors, 5xx, 429) "
        "and let bugs fail fast to the dead-letter queue"
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

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._handlers: list[tuple[cst.ExceptHandler, cst.CSTNode]] = []
        self._reported: set[int] = set()

    # --- Celery options ----------------------------------------------------------------

    def _check_celery_options(self, options: TaskOptions) -> None:
        option = options.get(facts.CELERY_AUTORETRY_FOR)
        if option is None:
            return
        for broad in broad_exceptions(option.value, self.context.resolver):
            self._report_broad(broad, "Celery autoretry_for")

    # --- self.retry in a broad handler -----------------------------------------------------

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._handlers.append((node, self.context.frame.node))

    def leave_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._handlers.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if self._celery.is_task_retry(node, self.context):
            self._check_handler(node)
            return
        name = self.context.resolver.library_name(node.func)
        if name is None:
            return
        if name in facts.TENACITY_CONTROLLERS:
            self._check_tenacity(node)
        else:
            position = facts.BACKOFF_DECORATORS.get(name)
            if position is not None:
                self._check_backoff(node, position)

    def _check_handler(self, call: cst.Call) -> None:
        if not self._handlers or self._handlers[-1][1] is not self.context.frame.node:
            return
        handler = self._handlers[-1][0]
        if id(handler) in self._reported or _filters_exception(handler, call):
            return
        retry = f"{task_retry_receiver(call)}.retry(...)"
        if handler.type is None:
            self._reported.add(id(handler))
            self.report(
                handler,
                f"{retry} in a bare except: retries every exception: {_BUGS}. "
                f"Catch {facts.FIX_TRANSIENT}",
            )
            return
        for broad in broad_exceptions(handler.type, self.context.resolver):
            self._report_broad(broad, f"{retry} in this except clause")

    # --- tenacity and backoff -------------------------------------------------------------------

    def _check_tenacity(self, node: cst.Call) -> None:
        retry = keyword(node, "retry")
        if retry is None or has_star_kwargs(node):
            return
        for term in self._retry_terms(retry.value, 0):
            types = argument(term, facts.TENACITY_EXCEPTION_TYPES_KEYWORD, 0)
            if types is None:
                continue  # the implicit default: not reported
            for broad in broad_exceptions(types.value, self.context.resolver):
                self._report_broad(broad, "tenacity retry_if_exception_type(...)")

    def _retry_terms(self, node: cst.BaseExpression, depth: int) -> list[cst.Call]:
        """The `retry_if_exception_type(...)` alternatives of `node` (`a | b`,
        `retry_any(a, b)`, through a name); none under `&` or `retry_all`."""
        if depth > 10:
            return []
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            return self._retry_terms(node.left, depth + 1) + self._retry_terms(
                node.right, depth + 1
            )
        if isinstance(node, cst.Name):
            analysis = self.values.analysis(
                self.context.resolver, self.context.frame.node, lambda _: False
            )
            values = analysis.assigned(node.value)
            if len(values) == 1 and isinstance(values[0], cst.BaseExpression):
                return self._retry_terms(values[0], depth + 1)
            return []
        if not isinstance(node, cst.Call):
            return []
        name = self.context.resolver.qualified_name(node.func)
        if name in facts.TENACITY_RETRY_ANY:
            terms: list[cst.Call] = []
            for arg in node.args:
                terms.extend(self._retry_terms(arg.value, depth + 1))
            return terms
        return [node] if name in facts.TENACITY_EXCEPTION_TYPE_RETRIES else []

    def _check_backoff(self, node: cst.Call, position: int) -> None:
        exception = argument(node, facts.BACKOFF_EXCEPTION_KEYWORD, position)
        if exception is None:
            return
        for broad in broad_exceptions(exception.value, self.context.resolver):
            self._report_broad(broad, "backoff.on_exception(...)")

    # --- reporting --------------------------------------------------------------------------

    def _report_broad(self, node: cst.BaseExpression, where: str) -> None:
        if id(node) in self._reported:
            return
        self._reported.add(id(node))
        name = node.value if isinstance(node, cst.Name) else "Exception"
        self.report(
            node,
            f"{where} retries every exception ({name}): {_BUGS}. Retry {facts.FIX_TRANSIENT}",
        )


def _filters_exception(handler: cst.ExceptHandler, call: cst.Call) -> bool:
    """The handler inspects the exception before retrying: `isinstance(exc, ...)`
    anywhere in it, or an `if` mentioning the exception around the retry."""
    caught = None
    if handler.name is not None and isinstance(handler.name.name, cst.Name):
        caught = handler.name.name.value
    for node in scope_nodes(handler.body):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value in facts.EXCEPTION_FILTERS
        ):
            return True
        if isinstance(node, cst.If) and caught is not None:
            inside = {id(n) for n in scope_nodes(node.body)}
            if id(call) in inside and _mentions(node.test, caught):
                return True
    return False


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(
        isinstance(n, cst.Name) and n.value == name for n in scope_nodes(node, include_root=True)
    )
