"""taskiq: brokers (many classes, one suffix), tasks and `.kiq()`."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, PayloadShape, Receiver
from joblint.libraries.job_work import RerunOption, Reruns
from joblint.libraries.retry_api import (
    DelayParams,
    GrowthParam,
    Jitter,
    JitterParam,
    Param,
    Reads,
    RetryCall,
    Says,
    Value,
)

LIBRARIES = (
    Library(
        "taskiq",
        "taskiq",
        modules=("taskiq",),
        task_decorators=(
            "taskiq.async_shared_broker.task",
            "taskiq.brokers.shared_broker.shared_task",
        ),
        task_decorator_methods=("task",),
        queue_constructors=("taskiq.InMemoryBroker", "taskiq.ZeroMQBroker"),
        # taskiq_redis.ListQueueBroker, taskiq_aio_pika.AioPikaBroker, ...
        queue_constructor_patterns=(("taskiq", "Broker"),),
        enqueue_methods=(("kiq", EnqueueMethod((), Receiver.TASK_LIKE, reach=("taskiq",))),),
        # `task.kicker()` is an AsyncKicker of the task; its `with_*` methods
        # return it (taskiq/kicker.py, taskiq 0.11), and its `.kiq()` sends.
        signature_methods=(
            "kicker",
            "with_labels",
            "with_task_id",
            "with_schedule_id",
            "with_broker",
        ),
        signature_noun="kicker",
        payload_shapes=(("kiq", PayloadShape()),),
        async_enqueue_methods=(("kiq", False),),
    ),
)

# --- retries (`smart_retry_middleware.py`) ----------

_TASKIQ = LIBRARIES[0]
GROWTH = "use_delay_exponent"  # default False (constant delay)
JITTER = "use_jitter"  # default False

RETRY_CALLS = (
    RetryCall(
        (
            "taskiq.SmartRetryMiddleware",
            "taskiq.middlewares.SmartRetryMiddleware",
            "taskiq.middlewares.smart_retry_middleware.SmartRetryMiddleware",
        ),
        delay=DelayParams(
            GrowthParam(Param(GROWTH), Reads.SWITCH),
            Says(
                f"{_TASKIQ.display} SmartRetryMiddleware({GROWTH}=True) grows the delay "
                "(delay * retries) with no jitter by default",
                f"Pass {JITTER}=True",
            ),
            jitter=JitterParam(Param(JITTER), off=Value.FALSY, default=Jitter.ABSENT),
        ),
    ),
)


# --- running a task more than once (JL601) -----------------------------------------

# `@broker.task(retry_on_error=True)`: the retry middleware sends it again.
RERUNS = (Reruns(_TASKIQ.key, options=(RerunOption("retry_on_error"),)),)
