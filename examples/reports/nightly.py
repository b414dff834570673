"""A SQLAlchemy reporting job that enqueues follow-up work."""

import boto3
from sqlalchemy.orm import Session

from shop.tasks import render_invoice

sqs = boto3.client("sqs")
QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/reports"


def close_day(session: Session, report):
    session.add(report)
    render_invoice.delay(report.order_id)  # JL102: enqueued before the commit below
    session.commit()


def publish_summary(session: Session, summary):
    with session.begin():
        session.add(summary)
        sqs.send_message(QueueUrl=QUEUE_URL, MessageBody=str(summary.id))  # JL101


def archive(session: Session, report):
    session.add(report)
    session.commit()
    sqs.send_message(QueueUrl=QUEUE_URL, MessageBody=str(report.id))  # after COMMIT: fine
