"""kombu: messages published by a `Producer`, and the broker transports that hide
a delivered message for a visibility timeout (read in kombu 5.6.2)."""

from __future__ import annotations

from joblint.libraries.base import BrokerTransport, EnqueueMethod, Library, Receiver

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

# The transports that hide a delivered message for a visibility timeout, then
# hand it to another consumer (`kombu/transport/redis.py`: `Channel.visibility_timeout
# = 3600`; `kombu/transport/SQS/__init__.py`: `default_visibility_timeout = 1800`;
# kombu 5.6.2).
# On SQS the option only applies to the queues kombu creates (`_new_queue`), whose
# attributes `sqs-creation-attributes` update last; `predefined_queues` are never
# created, so their timeout is the queue's own, set outside the code.
BROKER_TRANSPORTS = (
    BrokerTransport("Redis", ("redis", "rediss", "sentinel"), 3600.0),
    BrokerTransport(
        "SQS",
        ("sqs",),
        1800.0,
        external_queue_keys=("predefined_queues",),
        creation_attributes_key="sqs-creation-attributes",
        visibility_attribute="VisibilityTimeout",
    ),
)

# Every transport name kombu resolves (`kombu/transport/__init__.py`
# `TRANSPORT_ALIASES`, kombu 5.6.2, lower-cased): what joblint's `broker`
# setting may name.
TRANSPORT_ALIASES = (
    "amqp",
    "amqps",
    "pyamqp",
    "librabbitmq",
    "confluentkafka",
    "kafka",
    "memory",
    "redis",
    "rediss",
    "sqs",
    "mongodb",
    "zookeeper",
    "sqlalchemy",
    "sqla",
    "slmq",
    "filesystem",
    "qpid",
    "sentinel",
    "consul",
    "etcd",
    "azurestoragequeues",
    "azureservicebus",
    "pyro",
    "gcpubsub",
)
