"""JL103 enqueue-option-passed-to-task.

Execution option passed to a call that forwards it to the task as an argument.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL103` show) and its teaching examples."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.names import dotted_text
from joblint.analysis.tasks import Enqueue
from joblint.knowledge.jobs import LIBRARIES
from joblint.knowledge.payloads import FORWARDED_OPTIONS, ForwardedBy
from joblint.knowledge.tokens import WORD_METHODS, Trigger, alternatives
from joblint.requirements import TaskLacksParameter
from joblint.rule import Rule, Valid, invalid


def _forwarded_options() -> tuple[Trigger, ...]:
    """`task.delay(..., countdown=5)` and the like, per method."""
    triggers = []
    for method, forwarded in sorted(FORWARDED_OPTIONS.items()):
        options = rf"\b(?:{alternatives(forwarded.options)})\s*="
        gated = method in WORD_METHODS
        triggers.append(Trigger((f".{method}(",), (options,), gated=gated))
    return tuple(triggers)


class EnqueueOptionPassedToTask(Rule):
    """
    ## What it does
    Finds execution options handed to a call that forwards every keyword to
    the job itself: Celery `.delay(..., countdown=...)` (also `eta`,
    `expires`, `queue`, `priority`, `retry`, `retry_policy`, `routing_key`,
    `exchange`, `headers`, `link`, `link_error`, `shadow`, `time_limit`,
    `soft_time_limit`), Dramatiq `.send(..., delay=...)` and RQ
    `queue.enqueue(func, ..., timeout=...)`.

    ## Why is this bad?
    `delay()` is `apply_async(args, kwargs)` with no options: the option
    becomes a keyword argument of the task. The job runs at once on the
    default queue (or fails with "unexpected keyword argument"), and nobody
    notices until the delay or routing was needed. Dramatiq's `send` and RQ's
    `enqueue` behave the same way (RQ 2's option is `job_timeout`).

    ## Example
    ```python
    send_reminder.delay(user.pk, countdown=3600)
    ```

    ## Use instead
    ```python
    send_reminder.apply_async(args=(user.pk,), countdown=3600)
    ```

    ## Fix safety
    No automatic fix yet. Moving the option to `apply_async` changes when and
    where the job runs, which is the intent.

    ## Known limits
    - Not reported when the job function in the files linted together declares
      a parameter of that name: then it is an argument on purpose.
    - The receiver must be recognised as a task (see JL101's limits).
    """

    CODE = "JL103"
    TRIGGERS = _forwarded_options()
    SUMMARY = "Execution option passed to a call that forwards it to the task as an argument"
    HELP = (
        "Celery: apply_async(args=..., countdown=...); Dramatiq: send_with_options; "
        "RQ: job_timeout="
    )

    VALID = (
        Valid(
            """
from .tasks import send_reminder

def remind(user):
    send_reminder.apply_async(args=(user.pk,), countdown=3600, queue="mail")
    send_reminder.delay(user.pk, tone="friendly")
""",
            id="apply-async-and-task-arguments",
        ),
        Valid(
            """
from celery import shared_task

@shared_task
def deliver(order_id, queue):
    ...

def ship(order):
    deliver.delay(order.pk, queue="express")
""",
            id="task-declares-the-parameter",
        ),
    )

    INVALID = (
        invalid(
            """
from .tasks import send_reminder

def remind(user):
    send_reminder.delay(user.pk, countdown=3600)
""",
            (
                5,
                34,
                "'countdown=' is passed to send_reminder.delay(), which hands every keyword "
                "to the task",
            ),
            id="celery-countdown",
        ),
        invalid(
            """
import dramatiq

@dramatiq.actor
def resize(image_id):
    ...

def upload(image):
    resize.send(image.pk, delay=5000)
""",
            (9, 27, "Use resize.send_with_options(args=..., delay=...)"),
            id="dramatiq-delay",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        enqueue = self.context.enqueue(node)
        if enqueue is None:
            return
        forwarded = FORWARDED_OPTIONS.get(enqueue.method)
        if forwarded is None:
            return
        job = self._job_qualname(node, enqueue)
        for reading in enqueue.alternatives():
            # A task whose library only the project could tell ("") forwards too:
            # the method is that library's wherever the call is an enqueue at all.
            if reading.library and reading.library not in forwarded.libraries:
                continue
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in forwarded.options:
                    self._report(node, arg.keyword, reading, forwarded, job)

    def _job_qualname(self, node: cst.Call, enqueue: Enqueue) -> str:
        """The job function: the receiver's task, or RQ's first positional argument."""
        if enqueue.task:
            return enqueue.task
        positional = [a for a in node.args if a.keyword is None]
        if not positional:
            return ""
        return self.context.resolver.qualified_name(positional[0].value) or ""

    def _report(
        self,
        node: cst.Call,
        keyword: cst.Name,
        enqueue: Enqueue,
        forwarded: ForwardedBy,
        job: str,
    ) -> None:
        option = keyword.value
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else node.func
        task = dotted_text(receiver) or "the task"
        noun = LIBRARIES[enqueue.library].job_noun if enqueue.library else "task"
        fix = forwarded.fix.format(task=task, option=option)
        message = (
            f"'{option}=' is passed to {dotted_text(node.func)}(), which hands every keyword "
            f"to the {noun}: it becomes an argument of the {noun} and the option is ignored. "
            f"{fix[0].upper()}{fix[1:]}"
        )
        requires = enqueue.requires
        if job:
            requires += (TaskLacksParameter(job, frozenset({option})),)
        self.report(keyword, message, requires=requires)
