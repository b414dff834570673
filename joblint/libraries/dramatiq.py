"""Dramatiq: actors and their `send`/`send_with_options`."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, ForwardedOptions, Library, PayloadShape, Receiver
from joblint.libraries.job_work import RerunOption, Reruns

LIBRARIES = (
    Library(
        "dramatiq",
        "Dramatiq",
        job_noun="actor",
        modules=("dramatiq", "django_dramatiq"),
        delay_options=("delay",),
        task_decorators=("dramatiq.actor", "dramatiq.actor.actor"),
        task_decorator_methods=("actor",),
        # The broker (`get_broker()`, `RedisBroker(...)`) enqueues a message an
        # actor built (`broker.enqueue(actor.message(...))`); a `group` or
        # `pipeline` of messages enqueues them on `.run()` (dramatiq 1.17:
        # dramatiq/broker.py, dramatiq/composition.py).
        queue_constructors=(
            "dramatiq.get_broker",
            "dramatiq.broker.get_broker",
            "dramatiq.group",
            "dramatiq.pipeline",
            "dramatiq.composition.group",
            "dramatiq.composition.pipeline",
        ),
        queue_constructor_patterns=(("dramatiq.brokers.", "Broker"),),
        message_methods=("message", "message_with_options"),
        enqueue_methods=(
            ("send", EnqueueMethod((), Receiver.TASK)),
            ("send_with_options", EnqueueMethod((), Receiver.TASK_LIKE)),
            ("enqueue", EnqueueMethod((), Receiver.QUEUE)),
            # `.run(` is everywhere: only where Dramatiq is imported.
            ("run", EnqueueMethod((), Receiver.QUEUE, reach=("dramatiq",))),
        ),
        payload_shapes=(
            ("send", PayloadShape()),
            (
                "send_with_options",
                PayloadShape(args_keyword="args", kwargs_keyword="kwargs", rest_is_payload=False),
            ),
        ),
        forwarded_options=(
            (
                "send",
                ForwardedOptions(
                    frozenset({"delay"}), "use {task}.send_with_options(args=..., {option}=...)"
                ),
            ),
        ),
    ),
)

# Dramatiq's Retries middleware retries every failed actor (20 times by
# default) unless it says `max_retries=0`.
RERUNS = (
    Reruns(
        "dramatiq",
        options=(RerunOption("retry_when"), RerunOption("max_retries", counts=True)),
        by_default="Dramatiq retries every failed actor (max_retries=20 by default)",
        default_off=(RerunOption("max_retries", off=frozenset({"0"})),),
    ),
)
