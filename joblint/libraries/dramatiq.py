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
        task_decorators=("dramatiq.actor", "dramatiq.actor.actor"),
        task_decorator_methods=("actor",),
        enqueue_methods=(
            ("send", EnqueueMethod((), Receiver.TASK)),
            ("send_with_options", EnqueueMethod((), Receiver.TASK_LIKE)),
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
