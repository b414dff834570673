"""kombu: producers and `publish`."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, Receiver

LIBRARIES = (
    Library(
        "kombu",
        "kombu",
        job_noun="message",
        names_jobs=False,
        verb="is published",
        modules=("kombu",),
        queue_constructors=("kombu.Producer", "kombu.messaging.Producer"),
        producer_methods=("Producer",),
        enqueue_methods=(("publish", EnqueueMethod((), Receiver.QUEUE)),),
    ),
)
