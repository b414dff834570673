"""arq: `ArqRedis.enqueue_job` on a pool."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, PayloadShape, Receiver

LIBRARIES = (
    Library(
        "arq",
        "arq",
        job_noun="job",
        modules=("arq",),
        queue_constructors=(
            "arq.create_pool",
            "arq.connections.create_pool",
            "arq.connections.ArqRedis",
        ),
        enqueue_methods=(("enqueue_job", EnqueueMethod((), Receiver.ANY, reach=("arq",))),),
        payload_shapes=(("enqueue_job", PayloadShape(skip_positional=1, reserved_prefix="_")),),
        async_enqueue_methods=(("enqueue_job", True),),
        delay_options=("_defer_by", "_defer_until"),
        async_queues=True,
    ),
)
