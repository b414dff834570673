"""taskiq: brokers (many classes, one suffix), tasks and `.kiq()`."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, PayloadShape, Receiver

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
        payload_shapes=(("kiq", PayloadShape()),),
        async_enqueue_methods=(("kiq", False),),
    ),
)
