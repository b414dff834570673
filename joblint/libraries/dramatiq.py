"""Dramatiq: actors and their `send`/`send_with_options`."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, Receiver

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
    ),
)
