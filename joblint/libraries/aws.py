"""Amazon SES and SNS through boto3: sending email and publishing notifications."""

from __future__ import annotations

from joblint.libraries.job_work import SideEffect

# `boto3.client("ses").send_email(...)`: the methods are the services' own
# (SQS's `send_message` is an enqueue, `joblint.libraries.sqs`).
_CLIENTS = ("boto3.client", "boto3.Session.client", "boto3.session.Session.client")
_SES = ("send_email", "send_raw_email", "send_templated_email", "send_bulk_templated_email")
_SESV2 = ("send_bulk_email",)
_SNS = ("publish", "publish_batch")

SIDE_EFFECTS = (
    SideEffect(
        "sends an email through SES",
        calls=tuple(f"{client}.{method}" for client in _CLIENTS for method in (*_SES, *_SESV2)),
        remedy="SES has no idempotency key: record the send and check it first",
    ),
    SideEffect(
        "publishes an SNS notification",
        calls=tuple(f"{client}.{method}" for client in _CLIENTS for method in _SNS),
        # FIFO topics drop a repeat carrying the same id within five minutes.
        idempotency_keywords=("MessageDeduplicationId",),
        remedy="on a FIFO topic pass MessageDeduplicationId=",
    ),
)
