"""Amazon SQS through boto3 / aioboto3: clients and queue resources."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, Receiver

_ON_QUEUE = EnqueueMethod((), Receiver.QUEUE)

LIBRARIES = (
    Library(
        "sqs",
        "SQS",
        job_noun="message",
        article="an",
        names_jobs=False,
        verb="is sent",
        modules=("boto3", "aioboto3"),
        service_clients=(
            ("boto3.client", "sqs"),
            ("boto3.session.Session.client", "sqs"),
            ("aioboto3.client", "sqs"),
        ),
        service_resources=(("boto3.resource", "sqs"),),
        resource_queue_methods=("Queue", "get_queue_by_name", "create_queue"),
        enqueue_methods=(
            ("send_message", _ON_QUEUE),
            ("send_message_batch", _ON_QUEUE),
            ("send_messages", _ON_QUEUE),
        ),
    ),
)
