"""JL105 unawaited-enqueue.

Async enqueue call never awaited: the job is never enqueued.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL105` show) and its teaching examples."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.names import dotted_text
from joblint.analysis.values import value_of
from joblint.knowledge.payloads import ASYNC_ENQUEUE_METHODS, ASYNC_QUEUE_LIBRARIES
from joblint.knowledge.tokens import Trigger, calls
from joblint.rule import Rule, Valid, invalid


class UnawaitedEnqueue(Rule):
    """
    ## What it does
    Finds async enqueue calls used as a bare statement, never awaited: taskiq
    `.kiq(...)`, arq `enqueue_job(...)`, procrastinate `defer_async(...)`,
    Django tasks `aenqueue(...)`.

    ## Why is this bad?
    These return a coroutine; nothing is sent until it is awaited. Without
    `await` the job is silently never enqueued — Python only prints "coroutine
    was never awaited" to the log, if anyone looks.

    ## Example
    ```python
    async def signup(user):
        await user.save()
        send_welcome.kiq(user.id)
    ```

    ## Use instead
    ```python
    async def signup(user):
        await user.save()
        await send_welcome.kiq(user.id)
    ```

    ## Fix safety
    No automatic fix yet. Adding `await` makes the enqueue happen (and wait
    for the broker), which is the intent.

    ## Known limits
    - Only bare expression statements are reported; a coroutine stored in a
      variable, passed to `asyncio.create_task`/`gather` or returned is not.
    - `enqueue_job` counts only in an `async def` or on an arq pool: RQ's
      `queue.enqueue_job(job)` is synchronous.
    """

    CODE = "JL105"
    TRIGGERS = (Trigger(calls(sorted(ASYNC_ENQUEUE_METHODS))),)
    SUMMARY = "Async enqueue call never awaited: the job is never enqueued"
    HELP = "Await it: await task.kiq(...), await redis.enqueue_job(...)"

    VALID = (
        Valid(
            """
import asyncio
from .tasks import send_welcome

async def signup(redis, user):
    await send_welcome.kiq(user.id)
    await redis.enqueue_job("welcome", user.id)
    pending = send_welcome.kiq(user.id)
    await pending
    asyncio.create_task(send_welcome.kiq(user.id))
""",
            id="awaited-or-scheduled",
        ),
        Valid(
            """
from rq import Queue

def requeue(queue: Queue, job):
    queue.enqueue_job(job)
""",
            id="rq-enqueue-job-is-sync",
        ),
    )

    INVALID = (
        invalid(
            """
from .tasks import send_welcome

async def signup(user):
    await user.save()
    send_welcome.kiq(user.id)
""",
            (6, 5, "send_welcome.kiq() returns a coroutine that is never awaited"),
            id="taskiq-kiq",
        ),
        invalid(
            """
async def signup(ctx, user_id):
    ctx["redis"].enqueue_job("send_welcome", user_id)
""",
            (3, 5, "never awaited"),
            id="arq-enqueue-job",
        ),
    )

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return
        method = call.func.attr.value
        if method not in ASYNC_ENQUEUE_METHODS:
            return
        if ASYNC_ENQUEUE_METHODS[method] and not self._async_receiver(call.func.value):
            return
        text = dotted_text(call.func) or f"{method}"
        self.report(
            call,
            f"{text}() returns a coroutine that is never awaited, so nothing is enqueued: "
            f"write await {text}(...)",
        )

    def _async_receiver(self, receiver: cst.BaseExpression) -> bool:
        """An arq pool, or any receiver inside an `async def`."""
        value = value_of(receiver, self.context.resolver)
        if value is not None and value.library in ASYNC_QUEUE_LIBRARIES:
            return True
        function = self.context.frame.node
        return isinstance(function, cst.FunctionDef) and function.asynchronous is not None
